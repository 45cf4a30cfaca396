"""Reading a trace file once: JSON (a list of records, or one record), JSON Lines (also in a
`.json` file), or Parquet (one record per row); a cut-short JSON file read up to its last
complete element; nesting checked without recursion.
"""
from __future__ import annotations

import json
import re
from collections import deque
from datetime import datetime
from pathlib import Path

from app.project.problems import Problem

SUFFIXES = (".json", ".jsonl", ".parquet")
# Real traces nest a few dozen levels (TRAIL span trees: 19). Far deeper data is an attack or
# a bug, and Python code walking it, or json.dumps in the app, would hit the recursion limit.
MAX_DEPTH = 200
TOO_DEEP = (f"nested more than {MAX_DEPTH} levels deep (lists and objects inside each other; "
            "real traces nest a few dozen); skipped")

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


def read_records(path: Path) -> tuple[list[tuple[object, str, bool]], list[Problem], bool]:
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
    import pyarrow.parquet as pq  # (here: most projects have no Parquet trace, and it loads slowly)
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
