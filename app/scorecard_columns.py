"""Many stored scorecards read at once, as columns (the summary's spread of a whole study).

A large study's scorecards are most of its distinct stored values (a million rows: 23,000
values, 9 MB of JSON, each spreading into a dozen score rows); parsed one by one and turned
into tuples they were a third of a summary computed from the rows alone. Arrow's JSON reader
parses them together, in C++ on every core, into typed columns: agents and dimensions become
struct fields, one column per (agent, dimension) across all values.

It reads the same rows as :func:`app.scorecard.table_rows` (the one reading of a stored
scorecard) only when every value has the shape Baton writes: objects, one per line, whole-number
scores, true/false milestones, no key given twice. Anything else (a hand-edited value with a
score "4" or 4.0, a list, a text over several lines) makes it return None, and the caller reads
the values one by one with table_rows(). Within one value, rows come agent by agent in the
order agents first appear among all the values (table_rows: in the value's own order); the
summary counts rows, so it does not read that order.

No Streamlit here.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .scorecard import TEAM


class _Shape(Exception):
    """The values are not all of the shape read here."""


def _scores(col: pa.Array, scale: int) -> np.ndarray:
    """Each value's score in one column, -1 where it has none valid (absent, null, out of range)."""
    if pa.types.is_null(col.type):
        return np.full(len(col), -1, dtype=np.int64)
    if not pa.types.is_int64(col.type):  # floats, text, booleans, objects: table_rows' own reading
        raise _Shape
    s = col.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return np.where((s >= 1) & (s <= scale), s, -1)


def _fields(col: pa.Array) -> list[tuple[str, pa.Array]]:
    """An object column's fields as (key, column), null where the object is null or absent."""
    if pa.types.is_null(col.type):
        return []
    if not pa.types.is_struct(col.type):
        raise _Shape
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    # a field of a null object is null too (the child arrays alone do not say so)
    return [(col.type.field(i).name, col.field(i) if col.null_count == 0 else
             pc.if_else(col.is_valid(), col.field(i), pa.nulls(len(col), col.type.field(i).type)))
            for i in range(col.type.num_fields)]


def read_many(texts: list[str], scale: int) -> dict[str, tuple[np.ndarray, dict]] | None:
    """The rows table_rows() gives for each text, as columns, text by text: {"scores": (rows
    per text, {"level", "agent", "dimension": categoricals of the texts present, "score":
    floats}), "milestones": (rows per text, {"milestone": a categorical, "reached": bools as
    objects})}; None when a text is not of the shape read here (see
    the module's docstring)."""
    import pyarrow.json as pj  # (loaded on first use: pages that never summarize skip it)

    n = len(texts)
    if not n:
        return None
    joined = "\n".join(texts)
    if "\r" in joined or joined.count("\n") != n - 1:  # a value over several lines
        return None
    # a milestone given as null is a row "not reached" to table_rows, and Arrow cannot tell it
    # from one left out (no row): Baton never writes null in a scorecard
    if "null" in joined:
        return None
    data = joined.encode("utf-8", "surrogatepass")
    try:
        table = pj.read_json(io.BytesIO(data), read_options=pj.ReadOptions(
            use_threads=True, block_size=max(1 << 20, len(data) // 8 + 1)))
    except (pa.ArrowInvalid, UnicodeError):  # not JSON objects, a key twice, types changing...
        return None
    if table.num_rows != n:  # (an empty text is no row to Arrow)
        return None
    try:
        return _rows(table, scale)
    except _Shape:
        return None


def _rows(table: pa.Table, scale: int) -> dict:
    n = table.num_rows
    get = lambda name: table.column(name) if name in table.column_names else pa.nulls(n)  # noqa: E731
    # every (level, agent, dimension) column: its scores, then each value's valid ones in order
    keys, scores = [], []
    for agent, dims in _fields(get("agents")):
        for dim, col in _fields(dims):
            keys.append(("agent", agent, dim))
            scores.append(_scores(col, scale))
    for dim, col in _fields(get("team")):
        keys.append(("team", TEAM, dim))
        scores.append(_scores(col, scale))
    sc_counts, sc_key, sc_val = _by_text(scores, n)
    miles, reached = [], []
    for name, col in _fields(get("milestones")):
        if pa.types.is_null(col.type):
            r = np.full(n, -1, dtype=np.int64)
        elif pa.types.is_boolean(col.type):
            r = col.fill_null(False).to_numpy(zero_copy_only=False).astype(np.int64)
            r[col.is_null().to_numpy(zero_copy_only=False)] = -1  # absent: no row
        else:  # a milestone given as text ("true") or a number: table_rows' own reading
            raise _Shape
        miles.append((name,))
        reached.append(r)
    ms_counts, ms_key, ms_val = _by_text(reached, n)
    level, agent, dim = _coded(keys, sc_key, 3)
    (milestone,) = _coded(miles, ms_key, 1)
    return {"scores": (sc_counts, {"level": level, "agent": agent, "dimension": dim,
                                   "score": sc_val.astype(np.float64)}),
            "milestones": (ms_counts, {"milestone": milestone, "reached": np.array([False, True], dtype=object)[ms_val]})}


def _by_text(columns: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The valid entries (>= 0) of each column, as rows ordered by text, then column: (rows
    per text, each row's column, each row's value)."""
    if not columns:
        return np.zeros(n, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    grid = np.stack(columns, axis=1)  # texts × columns
    text, col = np.nonzero(grid >= 0)  # (row-major: by text, then column)
    return np.bincount(text, minlength=n).astype(np.int64), col, grid[text, col]


def _coded(keys: list[tuple], at: np.ndarray, width: int) -> list[pd.Categorical]:
    """Each of the `width` parts of the rows' keys (keys[at]) as a categorical whose categories are the texts
    present, sorted (as labels.categorical() codes a text column)."""
    used = np.unique(at)
    out = []
    for part in zip(*keys) if keys else ():
        texts = sorted({part[k] for k in used.tolist()})
        code = {x: i for i, x in enumerate(texts)}
        of_key = np.array([code.get(x, -1) for x in part], dtype=np.int64)
        out.append(pd.Categorical.from_codes(of_key[at], texts))
    return out or [pd.Categorical.from_codes(np.zeros(0, dtype=np.int64), [])] * width
