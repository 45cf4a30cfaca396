"""Many stored values of one type read at once, as columns (the summary's spread of a study).

A large study's scorecards and handoff reviews are most of its distinct stored values (a
million rows: 23,000 scorecards, 9 MB of JSON, each spreading into a dozen score rows, and
16,000 handoff reviews); parsed one by one and turned into tuples they were a third of a
summary computed from the rows alone. Arrow's JSON reader parses them together, in C++ on
every core, into typed columns: a scorecard's agents and dimensions become struct fields, one
column per (agent, dimension) across all values; a handoff review's entries a list of structs.

Each reader gives the same rows as its type's one reading of a stored value
(:func:`app.scorecard.table_rows`, :func:`app.handoff.table_rows`), and only when every value
has the shape Baton writes: one per line, keys given once, numbers where numbers are written,
no null where the reading would tell it from a key left out, no null item in a list (Arrow
26's reader builds such lists wrong). Anything else (a hand-edited score "4" or 4.0, a value
over several lines, two values on a line) makes it return None, and the caller reads the
values one by one; so does any array Arrow's own full validation refuses. Within one
scorecard, rows come agent by agent in the order agents first appear among all the values
(table_rows: in the value's own order); the summary counts rows and lists them in an order of
its own, so it does not read that order.

No Streamlit here.
"""
from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from app.types.agent_scorecard import TEAM


# below this many values, reading them one by one is about as fast: Arrow's reader costs 1-2 ms
# a call (the parse and the rows alone: 300 scorecards 3.2 ms together, 2.2 ms one by one; 1,000
# 7.1 against 5.6 ms, before the one-by-one rows are made columns; 23,000 in a build: 0.94 s
# against 0.32 s)
MANY = 500


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
    """An object column's fields as (key, column), null where the object is null or absent
    (StructArray.flatten() takes the objects' own nulls into the fields; .field() does not)."""
    if pa.types.is_null(col.type):
        return []
    if not pa.types.is_struct(col.type):
        raise _Shape
    return [(col.type.field(i).name, f) for i, f in enumerate(col.flatten())]


# a null among a list's items (Arrow 26's reader builds lists with their offsets past their
# items when a null item comes before an object holding a list: an invalid array); a text
# holding one (or a string that reads like one) is read by the caller, one by one
_NULL_ITEM = re.compile(r"[\[,]\s*null\b")


def _lines(texts: list[str], null: bool = True) -> pa.Array | None:
    """The texts parsed together, one value each (each text read as the field "v" of an object
    on a line of its own), checked in full; None when any is not one JSON value, holds a null
    item in a list or (`null` false) any null, or Arrow's array does not pass its own
    validation."""
    import pyarrow.json as pj  # (loaded on first use: pages that never summarize skip it)

    n = len(texts)
    if not n:
        return None
    joined = "\n".join(texts)
    if "\r" in joined or joined.count("\n") != n - 1:  # a value over several lines
        return None
    if ("null" in joined if not null else _NULL_ITEM.search(joined)) or _too_deep(joined):
        return None
    try:
        # (a lone surrogate, which json reads, is no UTF-8: the caller reads it one by one)
        data = ('{"v":' + '}\n{"v":'.join(texts) + "}").encode("utf-8")
        table = pj.read_json(io.BytesIO(data), read_options=pj.ReadOptions(
            use_threads=True, block_size=max(1 << 20, len(data) // 8 + 1)))
        table.validate(full=True)  # (never count from an array Arrow built wrong)
    except (pa.ArrowException, UnicodeError):  # not JSON, a key twice, types changing...
        return None
    # one object a line, its one key "v": a line holds at least one object, so as many rows as
    # texts is one a text ("" fails; "{}{}" would be two rows, "1, "w": 2" a second key)
    if table.num_rows != n or table.column_names != ["v"]:
        return None
    return table.column("v").combine_chunks()


# nesting deeper than this is read one by one: Arrow 26's reader slows down with depth (6,000
# levels: 10 s) and crashes the process past ~20,000; Baton's values nest 4 deep
MAX_DEPTH = 64
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}\n")
_STEP = np.zeros(256, dtype=np.int64)
_STEP[list(b"[{")], _STEP[list(b"]}")] = 1, -1


def _too_deep(joined: str) -> bool:
    """Whether any line nests brackets more than MAX_DEPTH deep (brackets inside strings count
    too: at worst a value read one by one that need not be)."""
    marks = np.frombuffer(b"\n" + joined.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS),
                          dtype=np.uint8)
    if len(marks) <= MAX_DEPTH:
        return False
    depth = np.cumsum(_STEP[marks])
    # each line's depth counted from where it starts (the depth at its newline, whatever the
    # lines before it left: an unbalanced one is not JSON and fails anyway)
    newline = np.where(marks == ord("\n"), np.arange(len(marks)), 0)
    return bool((depth - depth[np.maximum.accumulate(newline)]).max() > MAX_DEPTH)


# more distinct agents than this (a struct field each, a column per agent and dimension) are read
# one by one: Arrow's reader slows down with the fields (23,000 scorecards: 10 agents 0.17 s,
# 100 agents 2.1 s, 1,000 9.6 s, against ~0.5 s one by one). Counted first on an even sample
# of the values (a few milliseconds), then on them all.
MAX_AGENTS = 32
SAMPLE = 1_000


def scorecards(texts: list[str], scale: int) -> dict[str, tuple[np.ndarray, dict]] | None:
    """The rows scorecard.table_rows() gives for each text, as columns, text by text:
    {"scores": (rows per text, {"level", "agent", "dimension": categoricals of the texts
    present, "score": floats}), "milestones": (rows per text, {"milestone": a categorical,
    "reached": bools as objects})}; None when a text is not of the shape read here."""
    # a milestone given as null is a row "not reached" to table_rows, and Arrow cannot tell it
    # from one left out (no row): Baton never writes null in a scorecard
    if len(texts) > 2 * SAMPLE:
        sample = _lines(texts[::len(texts) // SAMPLE], null=False)
        if sample is None or _agents(sample) > MAX_AGENTS:
            return None
    values = _lines(texts, null=False)
    try:
        if values is None or _agents(values) > MAX_AGENTS:
            return None
        return _scorecard_rows(values, scale)
    except (_Shape, pa.ArrowException, UnicodeError):
        return None


def _agents(values: pa.Array) -> int:
    """How many agents (fields of "agents") the scorecards name."""
    if not pa.types.is_struct(values.type) or values.type.get_field_index("agents") < 0:
        return 0
    agents = values.type.field("agents").type
    return agents.num_fields if pa.types.is_struct(agents) else 0


def _scorecard_rows(values: pa.Array, scale: int) -> dict:
    n = len(values)
    if not pa.types.is_struct(values.type):  # (values that are not objects: table_rows' own reading)
        raise _Shape
    names = {values.type.field(i).name: i for i in range(values.type.num_fields)}
    get = lambda name: values.field(names[name]) if name in names else pa.nulls(n)  # noqa: E731
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
    per text, each row's column, each row's value). (Column by column, then a stable sort by
    text: no texts × columns grid.)"""
    if not columns:
        return np.zeros(n, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    at = [np.flatnonzero(c >= 0) for c in columns]
    text = np.concatenate(at)
    order = np.argsort(text, kind="stable")  # (sorted runs, one per column: merged)
    col = np.repeat(np.arange(len(columns)), [len(x) for x in at])[order]
    value = np.concatenate([c[x] for c, x in zip(columns, at)])[order]
    return np.bincount(text, minlength=n).astype(np.int64), col, value


def _coded(keys: list[tuple], at: np.ndarray, width: int) -> list[pd.Categorical]:
    """Each of the `width` parts of the rows' keys (keys[at]) as a categorical whose categories
    are the texts present, sorted (as labels.categorical() codes a text column)."""
    used = np.unique(at)
    out = []
    for part in zip(*keys) if keys else ():
        texts = sorted({part[k] for k in used.tolist()})
        code = {x: i for i, x in enumerate(texts)}
        of_key = np.array([code.get(x, -1) for x in part], dtype=np.int64)
        out.append(pd.Categorical.from_codes(of_key[at], texts))
    return out or [pd.Categorical.from_codes(np.zeros(0, dtype=np.int64), [])] * width


def handoffs(texts: list[str]) -> dict[str, tuple[np.ndarray, dict]] | None:
    """The rows handoff.table_rows() gives for each text, as columns, text by text, each
    text's entries sorted by index and step: {"handoffs": (rows per text, {"index", "step":
    ints as objects, "src", "dst": categoricals, "flags": tuples, "quality": floats (NaN: not
    rated)})}; None when a text is not of the shape read here. A null is read as a key left
    out, as table_rows reads it: an entry without its index, step or agents is dropped, a
    quality unrated, flags none."""
    values = _lines(texts)
    try:
        return None if values is None else _handoff_rows(values)
    except (_Shape, pa.ArrowException, UnicodeError):
        return None


def _handoff_rows(col: pa.Array) -> dict:
    n = len(col)
    if pa.types.is_null(col.type):
        return {"handoffs": (np.zeros(n, dtype=np.int64), {})}
    if not pa.types.is_list(col.type) or not pa.types.is_struct(col.type.value_type):
        raise _Shape  # (values that are not lists of objects: table_rows' own reading)
    entries = col.flatten()  # every entry of every text, text by text (a null list holds none)
    text = np.repeat(np.arange(n), pc.list_value_length(col).fill_null(0).to_numpy(zero_copy_only=False))
    fields = dict(_fields(entries))  # (null in a null entry)

    def field(name: str, want) -> pa.Array | None:
        f = fields.get(name)
        if f is None or pa.types.is_null(f.type):
            return None
        if not want(f.type):
            raise _Shape
        return f

    ints = lambda name: field(name, pa.types.is_int64)  # noqa: E731
    texts_ = lambda name: field(name, pa.types.is_string)  # noqa: E731
    index, step, src, dst = ints("index"), ints("step"), texts_("from"), texts_("to")
    if index is None or step is None or src is None or dst is None:  # no entry has all four
        return {"handoffs": (np.zeros(n, dtype=np.int64), {})}
    ok = pc.and_(pc.and_(index.is_valid(), step.is_valid()), pc.and_(src.is_valid(), dst.is_valid()))
    ok = ok.to_numpy(zero_copy_only=False) & (entries.is_valid().to_numpy(zero_copy_only=False)
                                               if entries.null_count else True)
    at = np.flatnonzero(ok)
    # (filled before they leave Arrow: a column with nulls would come out as floats, inexact past 2**53)
    i = index.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)[at]
    s = step.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)[at]
    t = text[at]
    order = np.lexsort((s, i, t))  # text by text, then by index and step (stable, as table_rows sorts)
    at, i, s, t = at[order], i[order], s[order], t[order]
    quality = field("quality", pa.types.is_int64)
    q = (np.full(len(at), np.nan) if quality is None
         else quality.take(pa.array(at)).to_numpy(zero_copy_only=False).astype(np.float64))
    return {"handoffs": (np.bincount(t, minlength=n).astype(np.int64), {
        "index": i.astype(object), "step": s.astype(object),
        "src": _categorical(src.take(pa.array(at))), "dst": _categorical(dst.take(pa.array(at))),
        "flags": _flag_sets(field("flags", lambda x: pa.types.is_list(x) and (
            pa.types.is_string(x.value_type) or pa.types.is_null(x.value_type))), at), "quality": q})}


def _categorical(col: pa.Array) -> pd.Categorical:
    """A text column (no nulls) as labels.categorical() codes one: its distinct texts (Arrow's
    dictionary) sorted, then each row's code taken."""
    from app._old.labels import categorical  # (labels reads values through this module)
    col = col.dictionary_encode()
    return categorical(col.dictionary.to_pylist(), col.indices.to_numpy(zero_copy_only=False))


def _flag_sets(flags: pa.Array | None, at: np.ndarray) -> np.ndarray:
    """Each entry's flags (entries `at`) as a tuple, each flag once in the order given; () for
    none. A null among the flags is a flag "None" to table_rows: left to it."""
    out = np.empty(len(at), dtype=object)
    if flags is None:
        out[:] = [()] * len(at)
        return out
    taken = flags.take(pa.array(at))
    if taken.flatten().null_count or (pa.types.is_null(taken.type.value_type) and len(taken.flatten())):
        raise _Shape
    seen: dict = {}
    out[:] = [seen.get(k) or seen.setdefault(k, tuple(dict.fromkeys(k))) if k else ()
              for k in map(tuple, (x or () for x in taken.to_pylist()))]
    return out
