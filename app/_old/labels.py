"""Stored annotations as long tables, one per kind of judgement, for rollups and agreement.

Each stored value is parsed once (JSON text → the type's clean form through the type's own
pure module) and spread into rows with plain columns: one row per attribution, per handoff
entry, per score, per contention label, per marked turn, per tool verdict, per step tag, per
chosen label. Every table starts with ``item_id, annotator, scheme``.

Which rows count: status ``annotated`` and ``reviewed_clean`` (reviewed, nothing to flag: the
annotator did judge the item, so their empty judgement is part of agreement); ``cleared`` rows
and the per-item done mark (scheme ``_item``) are not judgements (they still count for time
spent and progress).

No Streamlit here.
"""
from __future__ import annotations

from collections import defaultdict
from itertools import chain
from operator import itemgetter
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from app.types import (
    emergent_behavior as behavior, agent_interaction_graph as graph, handoff_review as handoff, agent_scorecard as scorecard, trajectory_eval as stepreview, tool_call_review as toolreview, values)
from app.traces import jsontext
from app._old import value_columns
from app.store.storage import SCHEMA, STATUS_CLEARED
from app.types.values import as_int as _int

DONE = "_item"
KEY = ["item_id", "annotator", "scheme"]


def frame(table) -> pd.DataFrame:
    """The store's table (pyarrow, :data:`app.storage.SCHEMA`) as a pandas DataFrame.

    String columns become categoricals, dictionary-encoded by Arrow: each distinct item id,
    annotator, scheme and stored value is one Python string however many rows repeat it, and
    grouping works on integer codes."""
    if table is None or table.num_rows == 0:
        table = SCHEMA.empty_table()
    cols = [c.dictionary_encode() if pa.types.is_string(c.type) or pa.types.is_large_string(c.type) else c
            for c in table.columns]
    return pa.table(cols, names=table.column_names).to_pandas()


def codes_of(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """(an integer code per row, -1 where missing; the distinct values the codes index): a
    categorical's own codes and categories (no text per row), anything else factorized."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.cat.codes, dtype=np.int64), col.cat.categories
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iuf":  # numbers as they are (no object per row)
        codes, uniq = pd.factorize(col.to_numpy())
        return np.asarray(codes, dtype=np.int64), pd.Index(uniq.tolist(), dtype=object)
    codes, uniq = pd.factorize(col.astype(object))
    return np.asarray(codes, dtype=np.int64), pd.Index(uniq, dtype=object)


def positions_in(col: pd.Series, names: pd.Index) -> np.ndarray:
    """The position of each value of col in names (-1: missing or not there), a categorical
    through its categories (each distinct text looked up once)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        at = names.get_indexer(col.cat.categories)
        c = np.asarray(col.cat.codes, dtype=np.int64)
        return np.where(c >= 0, at[c] if len(at) else -1, -1)
    return names.get_indexer(col.astype(object)) if len(col) else np.zeros(0, dtype=np.int64)


def groups(df: pd.DataFrame, by: list[str]) -> list[tuple[tuple, np.ndarray]]:
    """df.groupby(by, sort=False) as (key, row positions), groups in order of first appearance
    and rows with a missing key left out, from the columns' integer codes: no sub-frame per
    group (a scorecard's groups each copied every column of 860,000 rows), no sort of the text."""
    key = np.zeros(len(df), dtype=np.int64)
    given = np.ones(len(df), dtype=bool)
    names, span = [], 1
    for c in by:
        codes, uniq = codes_of(df[c])
        span *= max(len(uniq), 1)
        if span >= 1 << 62:  # keys would not fit in 64 bits: let pandas group
            return [(k if isinstance(k, tuple) else (k,), np.asarray(v, dtype=np.int64))
                    for k, v in df.groupby(by, sort=False).indices.items()]
        given &= codes >= 0
        key = key * max(len(uniq), 1) + np.maximum(codes, 0)
        names.append(uniq.tolist())
    every = bool(given.all())
    rows = None if every else np.flatnonzero(given)
    key = key if every else key[rows]
    if span <= 1 << 16:  # keys sorted as 8/16-bit integers (a radix sort): no hashing
        order = np.argsort(_narrow(key, span), kind="stable")
        ranked = key[order]
        starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]]) if len(ranked) else np.zeros(0, np.int64)
        bounds = np.r_[starts, len(ranked)]
        firsts = ranked[starts]
        by_appearance = np.argsort(order[starts], kind="stable").tolist()  # groups by first appearance
    else:
        group, firsts = pd.factorize(key)  # numbered in order of first appearance
        order = np.argsort(_narrow(group, len(firsts)), kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(group, minlength=len(firsts)))])
        by_appearance = range(len(firsts))
    firsts = np.asarray(firsts, dtype=np.int64).tolist()
    out = []
    for g in by_appearance:
        first = firsts[g]
        parts = []
        for uniq in reversed(names):
            first, at = divmod(first, max(len(uniq), 1))
            parts.append(uniq[at])
        at = order[bounds[g]:bounds[g + 1]]
        out.append((tuple(reversed(parts)), at if rows is None else rows[at]))
    return out


def _narrow(codes: np.ndarray, n: int) -> np.ndarray:
    """Codes 0..n-1 in the narrowest unsigned type holding them: numpy's stable sort of 8- and
    16-bit integers is a radix sort (a million rows: ~5 ms, against ~35 ms as int64)."""
    if n <= 1 << 8:
        return codes.astype(np.uint8)
    if n <= 1 << 16:
        return codes.astype(np.uint16)
    return codes


NO_ROWS = np.zeros(0, dtype=np.int64)


def rows_by(df: pd.DataFrame, col: str) -> dict:
    """{value: positions of the rows holding it, in their order} of one column (groups(): no
    comparison of the whole column per value)."""
    return {key[0]: rows for key, rows in groups(df, [col])}


def _objects(xs: list) -> np.ndarray:
    """A 1-d object array of xs (tuples stay elements, not rows)."""
    return pd.Series(xs, dtype=object).to_numpy()


def _empty(cols: list[str]) -> pd.DataFrame:
    """A table with no rows (a shallow copy of one made once: a summary brought up to date by
    a few items builds dozens of small Labels, most of their tables empty, and making each
    empty frame afresh was half of such a build)."""
    key = tuple(cols)
    found = _EMPTY.get(key)
    if found is None:
        found = _EMPTY[key] = pd.DataFrame({c: pd.Series([], dtype=object) for c in cols})
    return found.copy(deep=False)


_EMPTY: dict[tuple, pd.DataFrame] = {}


@dataclass
class Labels:
    rows: pd.DataFrame  # judgements: item_id, annotator, scheme, type, status, seconds_spent
    done: pd.DataFrame  # item_id, annotator: items marked done
    time: pd.DataFrame  # every stored row: item_id, annotator, scheme, seconds_spent
    attribution: pd.DataFrame = field(default=None)  # + agent, step, reason, status
    graph_nodes: pd.DataFrame = field(default=None)  # + agent
    graph_edges: pd.DataFrame = field(default=None)  # + src, dst, state
    handoffs: pd.DataFrame = field(default=None)  # + index, step, src, dst, flags (tuple), quality
    scores: pd.DataFrame = field(default=None)  # + level (agent|team), agent, dimension, score
    milestones: pd.DataFrame = field(default=None)  # + milestone, reached
    contention: pd.DataFrame = field(default=None)  # + region, label
    behaviours: pd.DataFrame = field(default=None)  # + behavior, turn
    tool_verdicts: pd.DataFrame = field(default=None)  # + index, step, tool, verdict
    step_tags: pd.DataFrame = field(default=None)  # + step, agent, correctness, severity
    step_modes: pd.DataFrame = field(default=None)  # + step, agent, category, mode
    choices: pd.DataFrame = field(default=None)  # + label (radio, multiselect)
    likert: pd.DataFrame = field(default=None)  # + score

    @property
    def memo(self) -> dict:
        """What one summary computes once from these tables and shares between its parts (the
        derivations as columns: app.trace_columns)."""
        return self.__dict__.setdefault("_memo", {})

    def tables(self) -> dict[str, pd.DataFrame]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def of(self, table: str, scheme: str) -> pd.DataFrame:
        """The rows of one scheme in one of the tables (by name: "rows", "scores", ...), in their
        order. A spread table holds each scheme's rows in one block (build() records where):
        a slice, no copy; any other table is split by scheme once (a summary asks for about
        fifty parts, and a comparison of a million-row column each time cost a few
        milliseconds)."""
        return getattr(self, table).iloc[self.where(table, scheme)]

    def where(self, table: str, scheme: str) -> slice | np.ndarray:
        """The positions of one scheme's rows in a table (see of()): a slice, or row positions."""
        df = getattr(self, table)
        block = self.__dict__.get("_blocks", {}).get(table)
        if block is not None and block[0] is df:
            return slice(*block[1].get(scheme, (0, 0)))
        memo = self.__dict__.setdefault("_parts", {})
        split = memo.get(table)
        if split is None or split[0] is not df:  # (a table replaced since: split it again)
            split = memo[table] = (df, rows_by(df, "scheme"))
        return split[1].get(scheme, NO_ROWS)

    def codes(self, table: str, column: str) -> tuple[np.ndarray, pd.Index]:
        """codes_of() a table's column, computed once (panels of every scheme read them)."""
        df = getattr(self, table)
        memo = self.__dict__.setdefault("_codes", {})
        found = memo.get((table, column))
        if found is None or found[0] is not df:
            found = memo[(table, column)] = (df, *codes_of(df[column]))
        return found[1], found[2]


def _scheme_opts(schemes: dict, name: str) -> dict:
    s = schemes.get(name)
    return s.options if s is not None else {}


TABLES = {
    "attribution": ["agent", "step", "reason", "status"],
    "graph_nodes": ["agent"],
    "graph_edges": ["src", "dst", "state"],
    "handoffs": ["index", "step", "src", "dst", "flags", "quality"],
    "scores": ["level", "agent", "dimension", "score"],
    "milestones": ["milestone", "reached"],
    "contention": ["region", "label"],
    "behaviours": ["behavior", "turn"],
    "tool_verdicts": ["index", "step", "tool", "verdict"],
    "step_tags": ["step", "agent", "correctness", "severity"],
    "step_modes": ["step", "agent", "category", "mode"],
    "choices": ["label"],
    "likert": ["score"],
}


def build(df: pd.DataFrame, schemes: dict | None = None, spread: set | frozenset | None = None,
          kept: dict | None = None) -> Labels:
    """Spread `df` (see :func:`frame`) into long tables; `schemes` maps name -> config Scheme.

    Each distinct stored value of a scheme is parsed and spread once; its rows are then repeated
    for every judgement that holds it (annotators often agree, and simple types have few
    distinct values), so the cost grows with distinct values, not with judgements.

    `spread`: the names of the schemes whose values are spread (None: all). The others' rows
    are still judgements (`rows`, `time`), with nothing in the spread tables: a summary that
    kept their parts from before only needs the counts.

    `kept`: what each distinct value spread into, from the build before (per scheme and type:
    stored text -> rows), taken again and then updated: the spread schemes' entries replaced
    by this build's values (a value no longer stored goes with its rows), a scheme with no rows
    left dropped. A summary after one save then parses and spreads one value, not the scheme's
    tens of thousands again. Values read together (app/value_columns: a scheme's many
    scorecards or handoff reviews) are not kept: a build reads them together again in about
    the time their kept rows took to be put back into columns (a filtered summary after the
    first, a million rows: 1.0-1.1 s either way), the first build is 0.2-0.7 s faster, and
    their rows (49 MB of tuples at a million rows) stay out of memory. Give it the rows of
    every scheme (a subset of one scheme's rows would leave only that subset's values kept)."""
    schemes = schemes or {}
    time = df[["item_id", "annotator", "scheme", "seconds_spent"]]
    is_done = (df["scheme"] == DONE).to_numpy(dtype=bool)
    cleared = (df["status"] == STATUS_CLEARED).to_numpy(dtype=bool)
    marks = df[is_done & ~cleared]
    done_flags = _per_value(marks["value"], lambda v: isinstance(v, dict) and bool(v.get("done")))
    done = marks.loc[np.asarray(done_flags, dtype=bool), ["item_id", "annotator"]].reset_index(drop=True)
    # only the columns read below are copied (not the trace hashes and save times)
    judged = df.loc[~is_done & ~cleared, ["item_id", "annotator", "scheme", "annotation_type", "status",
                                          "seconds_spent", "value"]].reset_index(drop=True)
    rows = judged.drop(columns="value").rename(columns={"annotation_type": "type"})
    parts: dict[str, list[tuple[str, pd.DataFrame]]] = {n: [] for n in TABLES}
    # each (scheme, stored type) as row positions: no sub-frame of every column per group
    now: dict | None = None if kept is None else {}  # this build's values, per scheme and type
    for (scheme_name, stored_type), at in groups(judged, ["scheme", "annotation_type"]):
        if spread is not None and scheme_name not in spread:
            continue
        cfg = schemes.get(scheme_name)
        _spread_part(judged, at, scheme_name, cfg.type if cfg is not None else stored_type,
                     cfg.options if cfg is not None else {}, parts, kept, now)
    if kept is not None:
        present = set(rows["scheme"].dropna().unique().tolist())
        for key in [k for k in kept if k[0] not in present]:
            del kept[key]
        kept.update(now)
    tables, blocks = {}, {}
    for name, c in TABLES.items():
        found = parts[name]
        tables[name] = _concat([f for _, f in found]) if found else _empty(KEY + c)
        names = [n for n, _ in found]
        if len(set(names)) == len(names):  # each scheme in one block: where it is, for Labels.of
            ends = np.cumsum([len(f) for _, f in found]).tolist()
            blocks[name] = dict(zip(names, zip([0] + ends[:-1], ends)))
    for name, col in (("handoffs", "quality"), ("scores", "score"), ("likert", "score")):
        tables[name][col] = pd.to_numeric(tables[name][col], errors="coerce").astype("float64")
    lab = Labels(rows=rows, done=done, time=time, **tables)
    lab.__dict__["_blocks"] = {name: (tables[name], b) for name, b in blocks.items()}
    return lab


def _texts(values: pd.Series) -> tuple[list, np.ndarray]:
    """(each distinct stored text, None for no value; for each row the position of its text)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = np.asarray(values.cat.codes, dtype=np.int64)
        texts = values.cat.categories
    else:  # a plain object column: code the texts here
        codes, texts = pd.factorize(values, use_na_sentinel=True)
        codes = np.asarray(codes, dtype=np.int64)
    # (hashed, not sorted: the distinct values' order does not show in the spread tables)
    inv, uniq = pd.factorize(codes)
    inv, uniq = np.asarray(inv, dtype=np.int64), np.asarray(uniq, dtype=np.int64)
    # only these rows' distinct texts become Python strings (-1: no value)
    found = np.asarray(texts.take(np.maximum(uniq, 0)), dtype=object) if len(texts) else np.full(len(uniq), None)
    return [x if c >= 0 and isinstance(x, str) else None for c, x in zip(uniq.tolist(), found.tolist())], inv


def _parse(texts: list) -> list:
    """Each text parsed (None: no value, or not JSON)."""
    parsed = iter(jsontext.loads_each([x for x in texts if x is not None]))
    return [None if x is None or isinstance(v := next(parsed), ValueError) else v for x in texts]


def _distinct(values: pd.Series) -> tuple[list, np.ndarray]:
    """(each distinct stored value parsed once (None: no value, or not JSON), and for each row
    the position of its value)."""
    texts, inv = _texts(values)
    return _parse(texts), inv


def _per_value(values: pd.Series, fn) -> list:
    """fn(parsed value) for each row, parsing each distinct stored text once."""
    parsed, inv = _distinct(values)
    out = [fn(v) for v in parsed]
    return [out[i] for i in inv.tolist()]


def _spread_part(judged: pd.DataFrame, at: np.ndarray, scheme: str, t: str, opts: dict,
                 parts: dict[str, list], kept: dict | None = None, now: dict | None = None) -> None:
    """Spread the judgements of one scheme (rows `at` of `judged`): parse each distinct value
    once (or take what it spread into from `kept`, see build()), then repeat its rows; what
    each value spread into goes into `now` (one scheme may come in two groups: two stored
    types read as the configured one)."""
    texts, inv = _texts(judged["value"].take(at))
    bulk = _read_many(t, opts, texts)
    if bulk is not None:
        _add_parts(judged, at, scheme, inv, bulk, parts)
        if now is not None:  # (read together again next time: see build())
            now.setdefault((scheme, t), {})
        return
    if kept is None:
        spread = [_spread(t, opts, v) for v in _parse(texts)]
    else:
        before = kept.get((scheme, t), {})
        new = [x for x in texts if x not in before]
        fresh = dict(zip(new, (_spread(t, opts, v) for v in _parse(new))))
        spread = [before[x] if x in before else fresh[x] for x in texts]
        now.setdefault((scheme, t), {}).update(zip(texts, spread))
    filled = set().union(*spread) if spread else set()  # the tables this type fills (one or two)
    by_table = {}
    for name, cols in TABLES.items():
        if name not in filled:
            continue
        per_value = [sp.get(name, ()) for sp in spread]
        counts = np.fromiter(map(len, per_value), dtype=np.int64, count=len(per_value))
        flat = list(chain.from_iterable(per_value))
        payload = cols[:-1] if name == "attribution" else cols
        # a column at a time (a quarter faster than zip(*flat))
        by_table[name] = (counts, {col: list(map(itemgetter(k), flat)) for k, col in enumerate(payload)})
    _add_parts(judged, at, scheme, inv, by_table, parts)


def _read_many(t: str, opts: dict, texts: list) -> dict | None:
    """Every distinct value of a scheme read at once, as _add_parts() takes them, where a
    reader of many values exists for its type and reads them (else None: one at a time)."""
    if t == "agent_scorecard":
        read = lambda xs: value_columns.scorecards(xs, int(opts.get("scale") or 10))  # noqa: E731
    elif t == "handoff_review":
        read = value_columns.handoffs
    else:
        return None
    given = [i for i, x in enumerate(texts) if x is not None]
    if len(given) < value_columns.MANY:
        return None
    found = read([texts[i] for i in given])
    if found is None or len(given) == len(texts):
        return found
    out = {}
    for name, (counts, cols) in found.items():  # (no value: no rows)
        every = np.zeros(len(texts), dtype=np.int64)
        every[given] = counts
        out[name] = (every, cols)
    return out


def _add_parts(judged: pd.DataFrame, at: np.ndarray, scheme: str, inv: np.ndarray,
               by_table: dict[str, tuple[np.ndarray, dict]], parts: dict[str, list]) -> None:
    """The rows of each table for one scheme's judgements (rows `at` of `judged`, each holding
    distinct value `inv`), from each distinct value's rows: per table, (how many rows each
    value has, the rows' payload columns, value by value: lists, or columns made already)."""
    for name, cols in TABLES.items():
        if name not in by_table:
            continue
        counts, columns = by_table[name]
        if not counts.any():
            continue
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        per_row = counts[inv]
        total = int(per_row.sum())
        row_idx = np.repeat(at, per_row)  # positions in judged
        within = np.arange(total) - np.repeat(np.cumsum(per_row) - per_row, per_row)
        pay_idx = np.repeat(offsets[inv], per_row) + within
        out = {"item_id": judged["item_id"].take(row_idx).reset_index(drop=True),
               "annotator": judged["annotator"].take(row_idx).reset_index(drop=True),
               "scheme": pd.Categorical.from_codes(np.zeros(total, dtype=np.int8), [scheme])}
        for col, vals in columns.items():
            out[col] = _payload(col, vals, pay_idx)
        if name == "attribution":
            out["status"] = judged["status"].take(row_idx).reset_index(drop=True)
        parts[name].append((scheme, pd.DataFrame(out)))


# payload columns holding text (or nothing): dictionary-coded
TEXT = {"agent", "reason", "src", "dst", "state", "level", "dimension", "milestone", "label", "behavior", "tool",
        "verdict", "correctness", "severity", "category", "mode"}


# payload columns holding numbers (or nothing), read as floats by build(): made float at once
# (an object column of a million Python ints took pandas a tenth of a second to convert)
NUMBERS = {"quality", "score"}
_INT_OR_NONE = {int, type(None)}


def _payload(column: str, values: list, at: np.ndarray):
    """values[at] as a column: text (or missing text) as a categorical with its categories in
    sorted order (so grouping and sorting by category follow the text), anything else as
    objects. Building a categorical from codes costs an integer take, not a Python string per
    row (pandas would turn an object column of strings into Arrow strings one by one)."""
    if not isinstance(values, list):  # a column made already (a categorical, an array)
        return values[at]
    if column in TEXT:
        found = categorical(values, at)
        return found if found is not None else _objects(values)[at]
    # ints, or None (not rated): checked on the set of the types seen, made in C (a check per
    # value in Python cost a tenth of the spread)
    if column in NUMBERS and set(map(type, values)) <= _INT_OR_NONE:
        return np.asarray(values, dtype=np.float64)[at]
    return _objects(values)[at]


def categorical(values, at: np.ndarray) -> pd.Categorical | None:
    """values[at] (text or missing) as a categorical, its categories sorted (as pd.Categorical
    sorts them), built from codes: each distinct text coded once, then an integer take; None
    when the values are not all text."""
    codes, uniq = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    try:
        order = np.argsort(np.asarray(uniq, dtype=object), kind="stable")
    except TypeError:  # not all text after all (a hand-edited value)
        return None
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = np.where(codes >= 0, rank[codes] if len(rank) else -1, -1)
    return pd.Categorical.from_codes(codes[at], np.asarray(uniq, dtype=object)[order].tolist())


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Rows of several spread parts: categorical columns stay categorical (their categories
    united and sorted), so text is never expanded to a Python string per row."""
    if len(frames) == 1:
        return frames[0]
    out = {}
    for c in frames[0].columns:
        cols = [f[c] for f in frames]
        if all(isinstance(x.dtype, pd.CategoricalDtype) for x in cols):
            out[c] = pd.api.types.union_categoricals([x.array for x in cols], sort_categories=True)
        else:
            out[c] = pd.concat([x.astype(object) if isinstance(x.dtype, pd.CategoricalDtype) else x for x in cols],
                               ignore_index=True)
    return pd.DataFrame(out)


def _spread(t: str, opts: dict, v: Any) -> dict[str, list[tuple]]:
    """The rows one parsed value contributes, per table (without the key columns)."""
    out: dict[str, list] = defaultdict(list)
    if t == "failure_attribution":
        v = v if isinstance(v, dict) else {}
        agent = v.get("responsible_agent")
        agent = str(agent) if agent not in (None, "") else None
        out["attribution"].append((agent, _int(v.get("decisive_step")), str(v.get("reason") or "")))
    elif t == "agent_interaction_graph":
        g = graph.normalize(v)
        out["graph_nodes"].extend((a,) for a in g["critical_nodes"])
        for k, state in g["edges"].items():
            a, b = graph.parse_edge_key(k)
            out["graph_edges"].append((a, b, state))
    elif t == "handoff_review":
        out["handoffs"] = handoff.table_rows(v)
    elif t == "agent_scorecard":
        out["scores"], out["milestones"] = scorecard.table_rows(v, int(opts.get("scale") or 10))
    elif t == "tool_contention":
        raw = v.get("contentions") if isinstance(v, dict) else None
        for k, lab in (raw.items() if isinstance(raw, dict) else ()):
            i = _int(k)
            if i is not None and isinstance(lab, str) and lab and lab != "unlabelled":
                out["contention"].append((i, lab))
    elif t == "emergent_behavior":
        for name, e in behavior.parse(v).items():
            out["behaviours"].extend((name, turn) for turn in e["turns"])
    elif t == "tool_call_review":
        for e in toolreview.parse(v):
            if e["verdict"]:
                out["tool_verdicts"].append((e["index"], e["step"], e["tool"], e["verdict"]))
    elif t == "trajectory_eval":
        for e in stepreview.parse(v, opts.get("correctness_options")):
            out["step_tags"].append((e["step_index"], e["agent"], e["correctness"], e["severity"]))
            for m in e["errors"]:
                label = m["type"] if not m.get("subtype") else f"{m['type']}{stepreview.SEP}{m['subtype']}"
                out["step_modes"].append((e["step_index"], e["agent"], m["type"], label))
    elif t == "radio":
        choice = values.radio_choice(v if isinstance(v, dict) else None)
        if choice is not None:
            out["choices"].append((choice,))
    elif t == "multiselect":
        out["choices"].extend((lab,) for lab in values.multiselect_choices(v if isinstance(v, dict) else None))
    elif t == "likert":
        n = values.likert_choice(v if isinstance(v, dict) else None)
        if n is not None:
            out["likert"].append((n,))
    return out
