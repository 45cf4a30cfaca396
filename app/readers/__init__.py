"""Trace readers: each format is one small module with `detect(record)` and `to_item(...)`.

Files are JSON (a list of items, or one record) or JSON Lines; a `.json` file that
holds JSON Lines is read as such, as Potato does. A bad line or record is reported
with its file and line and the rest of the file is still read.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..problems import Problem
from ..trace import Item
from . import potato, whowhen

# Detection order matters: the most specific shape first, Potato's generic dict last.
FORMATS = {m.NAME: m for m in (whowhen, potato)}
SUFFIXES = (".json", ".jsonl")


def _records(path: Path) -> tuple[list[tuple[object, str, bool]], list[Problem]]:
    """(record, where, single) for each record in the file; `single` if the file is one record."""
    problems: list[Problem] = []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        return [], [Problem(str(path), "", f"cannot read: {e}")]
    if path.suffix != ".jsonl":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            if "Extra data" not in e.msg:
                return [], [Problem(str(path), f"line {e.lineno}, column {e.colno}",
                                    f"invalid JSON: {e.msg}")]
        else:
            if isinstance(obj, list):
                return [(r, f"item {i}", False) for i, r in enumerate(obj)], problems
            return [(obj, "", True)], problems
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((json.loads(line), f"line {n}", False))
        except json.JSONDecodeError as e:
            problems.append(Problem(str(path), f"line {n}", f"invalid JSON Lines record: {e.msg} "
                                    f"at column {e.colno}; line skipped"))
    return out, problems


def data_paths(path: Path) -> list[Path]:
    """A file, or every .json/.jsonl file below a folder in a stable order."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    return [path]


def read_file(path: Path, id_key: str = "id", text_key: str = "text",
              data_format: str = "auto") -> tuple[list[Item], list[Problem]]:
    records, problems = _records(path)
    items = []
    for record, where, single in records:
        fmt = FORMATS.get(data_format) if data_format != "auto" else next(
            (m for m in FORMATS.values() if m.detect(record)), None)
        if fmt is None or not isinstance(record, dict):
            problems.append(Problem(str(path), where or "record",
                                    f"expected an item object, got {type(record).__name__}; skipped"))
            continue
        source = f"{path}:{where.split()[-1]}" if where.startswith("line") else (
            f"{path} {where}" if where else str(path))
        try:
            items.append(fmt.to_item(record, source, id_key=id_key, text_key=text_key,
                                     file=path, single=single))
        except (ValueError, KeyError, TypeError) as e:
            problems.append(Problem(str(path), where or "record", f"{e}; skipped"))
    return items, problems


def load_items(project) -> tuple[list[Item], list[Problem]]:
    """All items of a project, in data_files order; duplicate ids are errors."""
    items: list[Item] = []
    problems: list[Problem] = []
    for df in project.data_files:
        paths = data_paths(df.path)
        if not paths:
            problems.append(Problem(str(df.path), df.where, "no .json or .jsonl files found"))
        for p in paths:
            got, probs = read_file(p, project.id_key, project.text_key, df.data_format)
            items.extend(got)
            problems.extend(probs)
    seen: dict[str, Item] = {}
    unique = []
    for it in items:
        if it.id in seen:
            problems.append(Problem(it.source, f"item {it.id!r}",
                                    f"duplicate item id (first at {seen[it.id].source}); skipped"))
            continue
        seen[it.id] = it
        unique.append(it)
    return unique, problems
