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
"""
from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from app.project.problems import Problem
from app.traces.trace import Item
from app.traces.readers.splits import join_split  # noqa: F401 (load_items; convert imports it from here)
from app.traces.readers import (agentrx, autogen, chat, crewai, langfuse, langsmith, magentic, mast, openai_agents,
                                otlp, phoenix, potato, trail, trail_gold, whowhen)

# Detection order matters: the most specific shape first, Potato's generic dict last.
FORMATS = {m.NAME: m for m in (trail, trail_gold, otlp, openai_agents, phoenix, langsmith, langfuse, mast, agentrx,
                               whowhen, autogen, crewai, chat, magentic, potato)}
SUFFIXES = (".json", ".jsonl", ".parquet")
# Real traces nest a few dozen levels (TRAIL span trees: 19). Far deeper data is an attack or
# a bug, and Python code walking it, or json.dumps in the app, would hit the recursion limit.
MAX_DEPTH = 200
TOO_DEEP = (f"nested more than {MAX_DEPTH} levels deep (lists and objects inside each other; "
            "real traces nest a few dozen); skipped")


@dataclass
class SidecarGold:
    """A gold record in a file of its own, attached to the run with the same id."""
    item_id: str
    raw: Any
    source: str
    attach: Callable[[Item, Any, str], list]  # (item, raw, source) -> [(where, message, level)]


@dataclass
class Context:
    path: Path
    id_key: str = "id"
    text_key: str = "text"
    salvaged: bool = False  # the file was cut short and read up to its last complete element
    golds: list[SidecarGold] = field(default_factory=list)

    def problem(self, where: str, message: str, level: str = "error") -> Problem:
        return Problem(str(self.path), where, message, level)


def source_of(path: Path, where: str) -> str:
    """"path:line" for JSON Lines, "path item N" for a list entry (or "row N" of a Parquet
    table), "path" for a whole file."""
    if where.startswith("line"):
        return f"{path}:{where.split()[-1]}"
    return f"{path} {where}" if where else str(path)


# --- reading a file once ----------------------------------------------------------------------

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]|"')


def _salvage(text: str, stop: int):
    """The JSON value made of the complete elements before position `stop`, or None."""
    # The open containers as a linked list (outer, opener): a cut keeps a reference in O(1),
    # where copying the stack at every comma would cost O(depth) each on deeply nested input.
    stack: tuple | None = None
    cuts: deque = deque(maxlen=16)  # (position, open containers) where a cut leaves valid JSON
    for m in _TOKEN.finditer(text, 0, stop):
        t = m.group()
        if t[0] == '"':
            if len(t) == 1:  # an unterminated string: nothing after it is complete
                break
            continue
        if t in "[{":
            stack = (stack, t)
        elif t in "]}":
            if stack is None:
                break
            stack = stack[0]
            if stack is not None:
                cuts.append((m.end(), stack))
        elif stack is not None:  # a comma
            cuts.append((m.start(), stack))
    for pos, opened in reversed(cuts):
        closing = []
        while opened is not None:  # innermost first
            opened, c = opened
            closing.append("}" if c == "{" else "]")
        try:
            return json.loads(text[:pos] + "".join(closing)), pos
        except (ValueError, RecursionError):
            continue
    return None


def too_deep(value, limit: int = MAX_DEPTH) -> bool:
    """Whether lists/objects nest more than `limit` levels (iterative: no recursion).

    Level by level: each container is visited once and a leaf costs one type test, so a big
    flat trace is checked at a fraction of the cost of parsing it."""
    containers = (dict, list)
    level = [value] if isinstance(value, containers) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        deeper: list = []
        add = deeper.append
        for v in level:  # a plain loop: a generator per container costs more than the leaves
            for x in (v.values() if type(v) is dict else v):
                if isinstance(x, containers):
                    add(x)
        level = deeper
        depth += 1
    return False


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _records(path: Path) -> tuple[list[tuple[object, str, bool]], list[Problem], bool]:
    """(record, where, single) for each record in the file; `single` if the file is one record.
    The third value says whether the file was cut short and only partly read."""
    problems: list[Problem] = []
    if path.suffix == ".parquet":
        return _parquet_records(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        return [], [Problem(str(path), "", f"cannot read: {e}")], False
    if path.suffix != ".jsonl":
        try:
            obj = json.loads(text)
        except RecursionError:
            return [], [Problem(str(path), "", f"cannot read: the JSON is {TOO_DEEP.replace('; skipped', '')}; "
                                "file skipped")], False
        except json.JSONDecodeError as e:
            if "Extra data" not in e.msg:
                got = _salvage(text, e.pos)
                where = f"line {e.lineno}, column {e.colno}"
                if got is None:
                    return [], [Problem(str(path), where, f"invalid JSON: {e.msg}")], False
                obj, pos = got
                line, _ = _line_col(text, pos)
                del text
                problems.append(Problem(str(path), where, (
                    f"invalid JSON ({e.msg}): the file is cut short or corrupt; read the complete "
                    f"elements up to line {line}, everything after them is skipped"), "warning"))
                if isinstance(obj, list):
                    return [(r, f"item {i}", False) for i, r in enumerate(obj)], problems, True
                return [(obj, "", True)], problems, True
        else:
            del text
            if isinstance(obj, list):
                return [(r, f"item {i}", False) for i, r in enumerate(obj)], problems, False
            return [(obj, "", True)], problems, False
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((json.loads(line), f"line {n}", False))
        except RecursionError:
            problems.append(Problem(str(path), f"line {n}", f"invalid JSON Lines record: {TOO_DEEP}"))
        except json.JSONDecodeError as e:
            problems.append(Problem(str(path), f"line {n}", f"invalid JSON Lines record: {e.msg} "
                                    f"at column {e.colno}; line skipped"))
    return out, problems, False


def _parquet_records(path: Path):
    """A Parquet table (Phoenix's spans dataframe saved with to_parquet) as one record per row."""
    import pyarrow.parquet as pq
    from datetime import datetime
    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as e:  # pyarrow raises several of its own types for a bad file
        return [], [Problem(str(path), "", f"cannot read as Parquet: {e}")], False
    for row in rows:
        for k, v in row.items():
            if isinstance(v, datetime):  # timestamp columns; the readers take ISO 8601 text
                row[k] = v.isoformat()
    return [(r, f"row {i}", False) for i, r in enumerate(rows)], [], False


def data_paths(path: Path) -> list[Path]:
    """A file, or every .json/.jsonl/.parquet file below a folder in a stable order."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    return [path]


def _detect(record):
    return next((m for m in FORMATS.values() if m.detect(record)), None)


def _shape(record) -> str:
    if isinstance(record, dict):
        keys = list(record)
        return "an object with keys " + ", ".join(map(str, keys[:8])) + (" …" if len(keys) > 8 else "")
    return f"a {type(record).__name__}"


def wrong_shape(ctx: Context, where: str, module, record) -> Problem:
    """The error for a record that is not the shape its format (named or detected) expects."""
    other = _detect(record)
    hint = (f" (it looks like {other.NAME})" if other is not None and other.NAME not in ("potato", module.NAME)
            else "")
    return ctx.problem(where or "record", f"data_format is {module.NAME}: expected {module.SHAPE}, "
                       f"got {_shape(record)}{hint}; skipped")


def read_path(path: Path, id_key: str = "id", text_key: str = "text",
              data_format: str = "auto") -> tuple[list[Item], list[Problem], list[SidecarGold]]:
    """Items, problems and not-yet-attached gold records of one file."""
    records, problems, salvaged = _records(path)
    n_records = len(records)
    # one object of many entries, each a list or an object: a table keyed by id, not a run
    lookup = (n_records == 1 and isinstance(records[0][0], dict) and len(records[0][0]) >= 3
              and all(isinstance(x, (dict, list)) for x in records[0][0].values()))
    ctx = Context(Path(path), id_key, text_key, salvaged)
    forced = FORMATS.get(data_format) if data_format not in (None, "", "auto") else None
    plan: list = []  # ("one", module, record, where, single) or ("file", module)
    groups: dict[str, list] = {}
    for record, where, single in records:
        if too_deep(record):
            problems.append(ctx.problem(where or "record", TOO_DEEP))
            continue
        fmt = forced or _detect(record)
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
