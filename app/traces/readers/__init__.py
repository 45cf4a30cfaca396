"""Trace readers: each format is one small module, recognised by shape or named by `data_format`.

A format module has
- `NAME` (the `data_format` value) and `SHAPE` (a few words for messages);
- `detect(record) -> bool`: whether one parsed record has this format's shape;
- either `to_item(record, source, id_key, text_key, file=, single=) -> Item` for formats
  where one record is one item (raise ValueError/KeyError/TypeError to skip the record
  with a message),
- or `read(records, ctx) -> (items, problems)` for formats that need the whole file
  (OTLP batches grouped by trace, a TRAIL span tree with its gold beside it, a file
  that is one chat): `records` is every [(record, where)] of the file that the module
  claimed, `ctx` a `Context` (path, id_key, text_key, and `golds` to which a module adds
  `SidecarGold`s: gold records kept in files of their own, joined to their run by id).

Files are JSON (a list of records, or one record) or JSON Lines; a `.json` file that
holds JSON Lines is read as such, as Potato does; a `.parquet` file is one record per row. `json.loads` runs once per file and
the text is dropped before items are built. A bad line or record is reported with its
file and line and the rest of the file is still read; a truncated or corrupt JSON file
is read up to its last complete element, with a message saying where it broke.

Problems have a level: "error" (a file or record that could not be read: skipped),
"warning" (read, but something in it skipped or misread) and "note" (read in full;
something worth knowing, e.g. a span whose parent is not in the file).

The pieces: formats.py (every format module, in detection order), records.py (reading a file
once), context.py (what a reader is given), splits.py (a trace spread over several files).
"""
from __future__ import annotations

from pathlib import Path

from app.project.problems import Problem
from app.traces.trace import Item
# named here too: the readers' shared pieces are imported from the package by the app and tests
from app.traces.readers.context import Context, SidecarGold, source_of, wrong_shape  # noqa: F401
from app.traces.readers.formats import FORMATS, detect_format
from app.traces.readers.records import (MAX_DEPTH, SUFFIXES, TOO_DEEP, data_paths, read_records,  # noqa: F401
                                        too_deep)
from app.traces.readers.splits import join_split  # noqa: F401 (load_items; convert imports it from here)


def read_path(path: Path, id_key: str = "id", text_key: str = "text",
              data_format: str = "auto") -> tuple[list[Item], list[Problem], list[SidecarGold]]:
    """Items, problems and not-yet-attached gold records of one file."""
    records, problems, salvaged = read_records(path)
    n_records = len(records)
    # one object of many entries, each a list or an object: a table keyed by id, not a run
    lookup = (n_records == 1 and isinstance(records[0][0], dict) and len(records[0][0]) >= 3
              and all(isinstance(x, (dict, list)) for x in records[0][0].values()))
    ctx = Context(Path(path), id_key, text_key, salvaged, detect=detect_format)
    forced = FORMATS.get(data_format) if data_format not in (None, "", "auto") else None
    plan: list = []  # ("one", module, record, where, single) or ("file", module)
    groups: dict[str, list] = {}
    for record, where, single in records:
        if too_deep(record):
            problems.append(ctx.problem(where or "record", TOO_DEEP))
            continue
        fmt = forced or detect_format(record)
        if fmt is None:
            problems.append(ctx.problem(where or "record",
                                        f"expected an item object, got {type(record).__name__}; skipped"))
            continue
        if hasattr(fmt, "read"):
            if fmt.NAME not in groups:
                groups[fmt.NAME] = []
                plan.append(("file", fmt))
            groups[fmt.NAME].append((record, where))
            continue
        if forced and not fmt.detect(record):
            problems.append(wrong_shape(ctx, where, fmt, record))
            continue
        plan.append(("one", fmt, record, where, single))
    del records
    items: list[Item] = []
    as_read: set[int] = set()
    for step in plan:
        if step[0] == "file":
            fmt = step[1]
            try:
                got, probs = fmt.read(groups.pop(fmt.NAME), ctx)
            except RecursionError:  # JSON text inside a field, parsed by the reader
                problems.append(ctx.problem("", f"{fmt.NAME} records: {TOO_DEEP}"))
                continue
            items.extend(got)
            problems.extend(probs)
            continue
        _, fmt, record, where, single = step
        try:
            item = fmt.to_item(record, source_of(path, where), id_key=id_key, text_key=text_key,
                               file=path, single=single)
            items.append(item)
            if hasattr(fmt, "gold_problems"):  # gold pointing outside the trace: a warning naming the file
                problems.extend(ctx.problem(w, m, "warning") for w, m in fmt.gold_problems(item))
            if item.data is record:
                as_read.add(id(item))  # its nesting was checked above (items stay alive in `items`)
        except (ValueError, KeyError, TypeError) as e:
            problems.append(ctx.problem(where or "record", f"{e}; skipped"))
        except RecursionError:
            problems.append(ctx.problem(where or "record", TOO_DEEP))
    if not items:
        problems = _not_a_trace(ctx, problems, n_records, lookup)
    # JSON text inside a field, parsed into the item (an item holding its record as read was checked)
    deep = [it for it in items if id(it) not in as_read and too_deep(it.data)]
    problems.extend(ctx.problem(f"item {it.id!r}", TOO_DEEP) for it in deep)
    return [it for it in items if it not in deep] if deep else items, problems, ctx.golds


def _not_a_trace(ctx: Context, problems: list[Problem], n_records: int, lookup: bool = False) -> list[Problem]:
    """A file none of whose many records is a run (a lookup table beside the traces, such as
    AgentRx's steps_by_id.json) is one error, not one per record."""
    if ctx.golds:
        return problems
    if lookup:
        failed = [p for p in problems if p.level == "error" and p.where in ("", "record")]
        if failed:
            rest = [p for p in problems if p not in failed]
            return rest + [ctx.problem("", "not a trace: one object whose entries are all lists or objects (a table "
                                       "keyed by id?), not a run in a format Baton reads "
                                       f"({failed[0].message.removesuffix('; skipped')}); file skipped")]
        return problems
    failed = [p for p in problems if p.level == "error" and p.where.startswith(("item ", "line ", "row "))]
    if n_records < 3 or len(failed) < n_records:
        return problems
    rest = [p for p in problems if p not in failed]
    first = failed[0].message.removesuffix("; skipped")
    return rest + [ctx.problem("", f"not a trace: none of its {n_records:,} records is a run in a format Baton "
                               f"reads (the first, {failed[0].where}: {first}); file skipped")]


def attach_golds(items: list[Item], golds: list[SidecarGold], scope: str) -> list[Problem]:
    """Join gold records kept in files of their own to their runs by id."""
    problems: list[Problem] = []
    by_id = {it.id: it for it in items}
    for g in golds:
        it = by_id.get(g.item_id)
        if it is None:  # AgentRx names a run "7" whose trajectory is "tau_retail_7"
            near = [i for i in items if i.id.endswith("_" + g.item_id)]
            it = near[0] if len(near) == 1 else None
        if it is None:  # AgentRx's Magentic-One gold names the Who&When run by its question_ID
            near = [i for i in items if str(i.data.get("question_ID", "")) == g.item_id]
            it = near[0] if len(near) == 1 else None
        if it is None:
            problems.append(Problem(g.source, "", f"gold for run {g.item_id!r}, but no run with that id "
                                    f"was read {scope}; not attached", "warning" if scope != "in this file"
                                    else "note"))
            continue
        if isinstance(it.gold, dict) and it.gold.get("source") == g.source:
            continue  # already read with its run
        for where, message, level in g.attach(it, g.raw, g.source):
            problems.append(Problem(g.source, where, message, level))
    return problems


def read_file(path: Path, id_key: str = "id", text_key: str = "text",
              data_format: str = "auto") -> tuple[list[Item], list[Problem]]:
    """Every item of one file (gold kept beside it attached), and what could not be read."""
    items, problems, golds = read_path(Path(path), id_key, text_key, data_format)
    return items, problems + attach_golds(items, golds, "in this file")


def load_items(project) -> tuple[list[Item], list[Problem]]:
    """All items of a project, in data_files order; duplicate ids are errors."""
    items: list[Item] = []
    problems: list[Problem] = []
    golds: list[SidecarGold] = []
    for df in project.data_files:
        paths = data_paths(df.path)
        if not paths:
            problems.append(Problem(str(df.path), df.where, "no .json, .jsonl or .parquet files found"))
        for p in paths:
            got, probs, gs = read_path(p, project.id_key, project.text_key, df.data_format)
            items.extend(got)
            problems.extend(probs)
            golds.extend(gs)
    items, joined = join_split(items, project.id_key, project.text_key)
    problems.extend(joined)
    seen: dict[str, Item] = {}
    unique = []
    for it in items:
        if it.id in seen:
            problems.append(Problem(it.source, f"item {it.id!r}",
                                    f"duplicate item id (first at {seen[it.id].source}); skipped"))
            continue
        seen[it.id] = it
        unique.append(it)
    problems.extend(attach_golds(unique, golds, "from the data files"))
    return unique, problems
