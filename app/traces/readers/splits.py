"""A trace whose spans are spread over several files (batches of one export, written as they
came) is one item: the span formats group spans by trace id within one file, and this joins the
parts found in different files by reading them together."""
from __future__ import annotations

from pathlib import Path

from app.project.problems import Problem
from app.traces.readers.context import Context
from app.traces.readers.formats import FORMATS, detect_format
from app.traces.readers.records import read_records
from app.traces.trace import Item


def join_split(items: list[Item], id_key: str = "id", text_key: str = "text") -> tuple[list[Item], list[Problem]]:
    """Items with each trace whose spans are split over several files (same id, same span
    format, different files) read once from all of them, in the place of its first part."""
    first: dict[str, Item] = {}
    split: dict[str, list[str]] = {}  # trace id -> the files its spans are spread over
    for it in items:
        f = first.setdefault(it.id, it)
        if f is not it and it.format == f.format and it.format in SPLITTABLE and _file_of(it) != _file_of(f):
            split.setdefault(it.id, [_file_of(f)]).append(_file_of(it))
    if not split:
        return items, []
    problems: list[Problem] = []
    out: list[Item] = []
    for it in items:
        if it.id not in split:
            out.append(it)
        elif it is first[it.id]:
            joined, probs = _read_joined(it, list(dict.fromkeys(split[it.id])), id_key, text_key)
            problems.extend(probs)
            out.append(joined or it)
        elif it.format != first[it.id].format:
            out.append(it)  # a different format under the same id: a true duplicate, reported by the caller
    return out, problems


# Span formats grouped by trace id: an export split over several files (batches of one trace)
# is one trace, not a duplicate.
SPLITTABLE = {"otlp", "openai_agents", "phoenix", "langsmith", "langfuse"}


def _file_of(item: Item) -> str:
    return item.source.rsplit(" trace ", 1)[0]


def _read_joined(item: Item, files: list[str], id_key: str, text_key: str) -> tuple[Item | None, list[Problem]]:
    """One trace whose spans are spread over several files, read from all of them together."""
    fmt = FORMATS[item.format]
    records = []
    for f in files:
        got, _, _ = read_records(Path(f))  # each file's own problems were reported when it was read
        records += [(r, f"{Path(f).name} {where}".strip()) for r, where, _ in got if fmt.detect(r)]
    ctx = Context(Path(files[0]), id_key, text_key, detect=detect_format)
    items, probs = fmt.read(records, ctx)
    joined = next((it for it in items if it.id == item.id), None)
    note = Problem(files[0], f"trace {item.id}", f"the trace's spans are split over {len(files)} files "
                   f"({', '.join(Path(f).name for f in files)}); read as one item", "note")
    return joined, [note] + [p for p in probs if f"trace {item.id}" in p.where and p.level != "note"]
