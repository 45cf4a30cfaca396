"""The summary of a study: progress, rollups per annotation type, agreement, accuracy against gold.

`summarize(ws, df)` takes the workspace and the store's rows (app/labels.frame) and returns
one JSON-ready dict; `python -m app summary --json` prints it, the summary page and the HTML
report draw it. Every table is a list of records (column -> value), so each chart has its
numbers beside it.

Conventions (see also app/agreement.py and app/gold.py):

- Judgements are rows with status ``annotated`` or ``reviewed_clean``; a reviewed-clean row is
  an empty judgement (no flag, no label) and takes part in rates and agreement.
- Positional labels are attached to the object they name only when the stored object still
  matches the trace (handoff index, step and agents; region index): others are counted as
  ``stale`` and left out.
- Mean and 95 % interval: mean ± t(0.975, n-1) · sd / √n over every score given (runs ×
  annotators); no interval for a single score.
- Decisive-step position: step / (steps - 1), 0 = first step, 1 = last.
- MAST tags are attributed to the agent acting at the tagged step in the trace (derive()).
- Disagreements: a categorical or set judgement differing between annotators; a score differing
  by 2 points or more; decisive steps further apart than k.

No Streamlit here.
"""
from __future__ import annotations

import math
import threading
from collections import Counter, defaultdict
from typing import Any, Iterable

import numpy as np
import pandas as pd

from . import blas
from . import gold as goldmod
from . import trace_columns
from .agreement import all_distinct, distinct_ints, find, missing
from .derive import Derivation, derive, no_gc, scheme_keys
from .labels import DONE, Labels, build, categorical, codes_of, frame, groups, positions_in
from .scheme_agreement import agreement_for as _agreement_for, flag_sets
from .storage import AnnotationStore


_T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with df degrees of freedom (table to 30, then the
    Cornish-Fisher expansion, error < 1e-4)."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963985
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def load(ws) -> pd.DataFrame:
    """Every stored row of the project (app/labels.frame)."""
    return frame(AnnotationStore(ws.project.output_dir).to_table(dictionary=True))


def fingerprint(df: pd.DataFrame) -> str:
    """What identifies the stored rows' state: how many there are, and the sum of a hash of
    each whole row (key, value, status, times). A save, a clear or a delete changes it, and so
    does a value rewritten with its save time kept (`import --overwrite` of an edited export);
    it is equal for an unchanged store, so a summary computed from it can be reused.
    Categorical columns are hashed per category, not per row (~0.05 s at a million rows)."""
    return _print(pd.util.hash_pandas_object(df, index=False).to_numpy())


def _print(row_hashes: np.ndarray) -> str:
    """How many rows, and the sum of their hashes (unsigned: it wraps around)."""
    return f"{len(row_hashes)}:{int(row_hashes.sum(dtype=np.uint64))}"


def _values(col: pd.Series) -> list:
    """A column as a Python list; categoricals through their categories (iterating pandas'
    Arrow-backed strings one by one is several times slower)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = np.asarray(col.cat.categories, dtype=object)
        codes = np.asarray(col.cat.codes)
        vals = cats[codes] if len(cats) else np.full(len(codes), None, dtype=object)
        vals[codes < 0] = None
        return vals.tolist()
    return col.to_numpy(dtype=object).tolist()


def _records(df: pd.DataFrame) -> list[dict]:
    """JSON-ready records: numpy scalars to Python, NaN to None. Built a column at a time (a
    numeric column in one tolist(), not a check per value: the per-run lists have tens of
    thousands of rows)."""
    cols = []
    for c in df.columns:
        col = df[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            vals = _values(col)
        elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
            vals = col.to_numpy().tolist()
        elif isinstance(col.dtype, np.dtype) and col.dtype.kind == "f":
            arr = col.to_numpy()
            vals = arr.tolist()
            if np.isnan(arr).any():
                vals = [None if v != v else v for v in vals]
        else:
            vals = [_py(v) for v in col.to_numpy(dtype=object)]
        cols.append(vals)
    names = list(df.columns)
    return [dict(zip(names, row)) for row in zip(*cols)] if names else [{} for _ in range(len(df))]


def _py(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isnan(f) else f
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, tuple):
        return list(v)
    if v is pd.NA or v is pd.NaT:
        return None
    return v


def clean(obj: Any) -> Any:
    """A nested structure with numpy scalars and NaN made JSON-safe."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    return _py(obj)


class Derived:
    """derive() per item and scheme keys, computed once."""

    @classmethod
    def of(cls, ws) -> "Derived":
        """The workspace's own (its items never change: a new project state is a new workspace),
        so successive summaries and disagreement lists derive each item once. It lives as long
        as the workspace: the derivations of every item, about the size of the parsed items
        (their steps share the items' text), traded for not deriving them again on each
        summary after a save."""
        found = ws.__dict__.get("_summary_derived")
        if found is None:
            found = ws.__dict__["_summary_derived"] = cls(ws)
        return found

    def __init__(self, ws):
        self.ws = ws
        # scheme keys -> item id -> derivation (a lookup by the item alone: hashing a tuple of
        # the item and the keys on every lookup cost more than the rest of a lookup)
        self._cache: dict[tuple, dict[str, Derivation]] = {}
        self._keys: dict[str | None, tuple] = {}

    def keys_of(self, scheme) -> tuple:
        """The scheme's derivation keys as a sorted tuple (the caches' key), worked out once per scheme."""
        name = scheme.name if scheme is not None else None
        keys = self._keys.get(name)
        if keys is None:
            keys = self._keys[name] = tuple(sorted(scheme_keys(scheme).items()))
        return keys

    def many(self, item_ids: Iterable[str], scheme=None) -> list[Derivation | None]:
        """get() of each item, the scheme's keys looked up once."""
        keys = self.keys_of(scheme)
        cache = self._cache.setdefault(keys, {})
        out = []
        for item_id in item_ids:
            found = cache.get(item_id)
            out.append(found if found is not None else self.get(item_id, scheme))
        return out

    def get(self, item_id: str, scheme=None) -> Derivation | None:
        keys = self.keys_of(scheme)
        cache = self._cache.setdefault(keys, {})
        found = cache.get(item_id)
        if found is not None:
            return found
        item = self.ws.by_id.get(item_id)
        if item is None:
            return None
        found = cache[item_id] = derive(item.data, **dict(keys))
        return found

    def getter(self, scheme=None):
        """get(item_id) for one scheme, for loops over many rows: one dict lookup a row once the
        item has been seen."""
        seen: dict[str, Derivation | None] = {}

        def get(item_id: str) -> Derivation | None:
            try:
                return seen[item_id]
            except KeyError:
                found = seen[item_id] = self.get(item_id, scheme)
                return found
        return get


def mean_ci(scores: pd.Series) -> dict:
    n = int(scores.count())
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "ci_low": None, "ci_high": None}
    mean = float(scores.mean())
    if n < 2:
        return {"n": n, "mean": mean, "sd": None, "ci_low": None, "ci_high": None}
    sd = float(scores.std(ddof=1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half}


STATS = ["n", "mean", "sd", "ci_low", "ci_high", "runs", "annotators"]


def _stats(df: pd.DataFrame, by: list[str], col: str = "score") -> pd.DataFrame:
    """Per group of `by` (in order of first appearance): how many `col` values, their mean, sd
    and 95% interval, and how many runs and annotators the group's rows come from. Counted on
    integer codes (pandas' distinct counts per group took most of a tenth of a second on a
    million-row study's 700,000 scores)."""
    found = groups(df, by) if len(df) else []
    if not found:
        return pd.DataFrame(columns=by + STATS)
    g = np.full(len(df), -1, dtype=np.int64)
    for i, (_key, rows) in enumerate(found):
        g[rows] = i
    n_g = len(found)
    x = df[col].to_numpy(dtype=np.float64)
    has = (g >= 0) & ~np.isnan(x)
    n = np.bincount(g[has], minlength=n_g)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(g[has], weights=x[has], minlength=n_g) / n
        dev = x[has] - mean[g[has]]
        sd = np.sqrt(np.bincount(g[has], weights=dev * dev, minlength=n_g) / (n - 1))
        sd[n < 2] = np.nan
        half = np.array([t975(int(k) - 1) if k >= 2 else np.nan for k in n.tolist()]) * sd / np.sqrt(n)

    def distinct(c: str) -> np.ndarray:  # distinct values of column c per group (missing: none)
        codes, names = codes_of(df[c])
        return _per_group(g, n_g, codes, len(names))

    out = pd.DataFrame({c: [key[j] for key, _rows in found] for j, c in enumerate(by)})
    for c, v in (("n", n), ("mean", mean), ("sd", sd), ("ci_low", mean - half), ("ci_high", mean + half),
                 ("runs", distinct("item_id")), ("annotators", distinct("annotator"))):
        out[c] = v
    return out


# --- filters ----------------------------------------------------------------------------------------

def apply_filters(df: pd.DataFrame, annotators: Iterable[str] | None = None,
                  schemes: Iterable[str] | None = None, items: Iterable[str] | None = None) -> pd.DataFrame:
    """Rows of the chosen annotators, schemes (the done marks are kept) and items."""
    mask = pd.Series(True, index=df.index)
    if annotators:
        mask &= df["annotator"].isin(list(annotators))
    if items is not None:
        mask &= df["item_id"].isin(list(items))
    if schemes:
        mask &= df["scheme"].isin(list(schemes) + [DONE])
    return df[mask]


# --- progress ----------------------------------------------------------------------------------------

def _distinct_pairs(a: np.ndarray, b: np.ndarray, n_b: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (a, b) code pairs, sorted by a then b; a missing value (code -1) pairs with
    nothing (as pandas leaves it out of groups and distinct counts)."""
    given = (a >= 0) & (b >= 0)
    if not given.all():
        a, b = a[given], b[given]
    n_b = max(n_b, 1)
    keys = distinct_ints(a * n_b + b, (int(a.max(initial=-1)) + 1) * n_b)
    return keys // n_b, keys % n_b


def _count(codes: np.ndarray, n: int) -> np.ndarray:
    """How many of each code 0..n-1 (missing values, -1, left out)."""
    return np.bincount(codes[codes >= 0], minlength=n)


def _present(col: pd.Series) -> list:
    """The distinct values a column holds, missing ones left out (a categorical's by its codes)."""
    codes, names = codes_of(col)
    return names.take(np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(names)))).tolist()


def progress(lab: Labels, n_items: int) -> dict:
    """Per annotator, per scheme and per annotator × scheme: items, judgements, time. Counted on
    integer codes (a distinct count per group by pandas took a third of a second at a million
    rows); a row missing one of its keys counts where that key is not needed, as before."""
    rows, time, done = lab.rows, lab.time, lab.done
    who = sorted(set(_present(time["annotator"])) | set(_present(rows["annotator"])))
    secs = time.groupby("annotator")["seconds_spent"].sum()
    n_done = done.groupby("annotator").size()
    ann, ann_names = codes_of(rows["annotator"])
    item, item_names = codes_of(rows["item_id"])
    sch, sch_names = codes_of(rows["scheme"])
    ann_names, sch_names = ann_names.tolist(), sch_names.tolist()  # looked up by code below
    n_ann, n_item, n_sch = len(ann_names), len(item_names), len(sch_names)
    judged = _count(ann, n_ann)
    touched = _count(_distinct_pairs(ann, item, n_item)[0], n_ann)
    at = {a: i for i, a in enumerate(ann_names)}
    by_annotator = [{"annotator": a, "items_done": int(n_done.get(a, 0)), "items_total": n_items,
                     "items_touched": int(touched[at[a]]) if a in at else 0,
                     "judgements": int(judged[at[a]]) if a in at else 0,
                     "seconds": float(secs.get(a, 0.0))} for a in who]
    # (the done marks' own sum is never read: no copy of the rows without them)
    tsecs = time.groupby("scheme")["seconds_spent"].sum()
    per_scheme = _count(sch, n_sch)
    clean = _count(sch[(rows["status"] == "reviewed_clean").to_numpy(dtype=bool)], n_sch)
    items_of = _count(_distinct_pairs(sch, item, n_item)[0], n_sch)
    raters_of = _count(_distinct_pairs(sch, ann, n_ann)[0], n_sch)
    first = pd.Series(sch).drop_duplicates()  # each scheme's first row, in order (hashed, not sorted)
    first = first[first >= 0]
    by_scheme = []
    for f, c in zip(first.index.tolist(), first.tolist()):
        name = sch_names[c]
        sec = float(tsecs.get(name, 0.0))
        by_scheme.append({"scheme": name, "type": rows["type"].iloc[f], "items": int(items_of[c]),
                          "annotators": int(raters_of[c]), "judgements": int(per_scheme[c]),
                          "reviewed_clean": int(clean[c]), "seconds": sec,
                          "seconds_per_judgement": sec / int(per_scheme[c])})
    # annotator × scheme: items judged, by annotator name, then schemes in the order above (the
    # order the store's sorted rows give; not the codes', which follow how the rows were read)
    pair_ann, pair_sch = _distinct_pairs(ann, sch, n_sch)
    both = (ann >= 0) & (sch >= 0)
    per_pair = _count(_distinct_pairs(np.where(both, ann * n_sch + sch, -1), item, n_item)[0], n_ann * n_sch)
    scheme_rank = {c: i for i, c in enumerate(first.tolist())}
    pairs = sorted(zip(pair_ann.tolist(), pair_sch.tolist()), key=lambda x: (ann_names[x[0]], scheme_rank[x[1]]))
    grid = [{"annotator": ann_names[a], "scheme": sch_names[sc], "items": int(per_pair[a * n_sch + sc])}
            for a, sc in pairs]
    return {"by_annotator": by_annotator, "by_scheme": by_scheme, "by_annotator_scheme": grid}


# --- rollups per type ----------------------------------------------------------------------------------

def scorecards(lab: Labels, scheme: str) -> dict:
    sc = lab.of("scores", scheme)
    agents = _stats(sc[sc["level"] == "agent"], ["agent", "dimension"])
    team = _stats(sc[sc["level"] == "team"], ["dimension"])
    ms = lab.of("milestones", scheme)
    if ms.empty:
        miles = []
    else:
        # per milestone in order of first appearance, on codes: answers given, and reached
        code, names = codes_of(ms["milestone"])
        given = ms["reached"].notna().to_numpy()
        reached = np.zeros(len(ms), dtype=np.int64)
        reached[given] = np.asarray(ms["reached"].to_numpy()[given], dtype=bool)
        mine = code >= 0
        n = np.bincount(code[mine & given], minlength=len(names))
        hit = np.bincount(code[mine], weights=reached[mine], minlength=len(names)).astype(np.int64)
        miles = [{"milestone": _py(names[c]), "n": int(n[c]), "reached": int(hit[c]),
                  "rate": float(hit[c] / n[c]) if n[c] else None} for c in pd.unique(code[mine]).tolist()]
    return {"agents": _records(agents), "team": _records(team), "milestones": miles}


def _trace_steps(lab: Labels, der: Derived, scheme_obj, item_codes: np.ndarray, item_names: pd.Index,
                 steps: list[int]) -> tuple[np.ndarray, list]:
    """For rows naming an item (a code into item_names) and a step: how many steps the item's
    trace has (-1: no such item), and the agent acting at that step (None where the trace has
    no such step). Read from the summary's derivations as columns (app.trace_columns): each
    distinct item looked up once, then integer arithmetic per row."""
    item_codes = np.asarray(item_codes, dtype=np.int64)
    present = distinct_ints(item_codes[item_codes >= 0], len(item_names))
    ids = item_names.take(present).tolist()
    traces = trace_columns.of(lab.memo, der, scheme_obj, ids)
    part = traces.steps
    slot = np.full(len(item_names) + 1, -1, dtype=np.int64)  # item code -> its slot (-1: none)
    slot[present] = traces.slots(ids)
    k = slot[item_codes]  # (a missing item's code, -1, reads the last slot: -1)
    n = np.where(k >= 0, part.sizes[k] if len(part.sizes) else -1, -1)
    agents = np.empty(len(part.columns["agent"]) + 1, dtype=object)  # + None for no such step
    agents[:-1] = part.columns["agent"]
    agents[-1] = None
    try:
        x = np.asarray(steps, dtype=np.int64)
    except OverflowError:  # steps beyond 64 bits are in no trace
        x = np.fromiter((v if -BIG < v < BIG else -1 for v in steps), dtype=np.int64, count=len(steps))
    inside = (k >= 0) & (x >= 0) & (x < n)
    starts = part.starts[np.maximum(k, 0)] if len(part.starts) else np.zeros(len(k), dtype=np.int64)
    return n, agents[np.where(inside, starts + x, len(agents) - 1)].tolist()


BIG = 1 << 62


def attribution(lab: Labels, scheme_obj, der: Derived) -> dict:
    at = lab.of("attribution", scheme_obj.name)
    named = at[at["agent"].notna()]
    blame = []
    if not named.empty:
        g = named.groupby("agent")
        b = pd.DataFrame({"count": g.size(), "runs": g["item_id"].nunique(),
                          "annotators": g["annotator"].nunique()}).reset_index()
        b["share"] = b["count"] / b["count"].sum()
        blame = _records(b.sort_values(["count", "agent"], ascending=[False, True]))
    item_ids, who, agent, step = (_values(at[c]) for c in ("item_id", "annotator", "agent", "step"))
    rows = [i for i, x in enumerate(step) if not missing(x)]
    every = len(rows) == len(step)  # (usually: each attribution names a step)
    steps = [int(x) for x in step] if every else [int(step[i]) for i in rows]
    codes, names = codes_of(at["item_id"])
    n_steps, acting = _trace_steps(lab, der, scheme_obj, codes if every else codes[rows], names, steps)
    if not every:
        item_ids, who, agent = ([col[i] for i in rows] for col in (item_ids, who, agent))
    # a column at a time, then one record per attribution (a loop appending records cost twice as much)
    n_of = [n if n >= 0 else None for n in n_steps.tolist()]  # (None: no such item)
    placed_at = [(x / (n - 1) if n > 1 else 0.0) if n else None for x, n in zip(steps, n_of)]
    positions = [{"item_id": i, "annotator": w, "agent": a, "step": x, "steps": n, "position": p,
                  "acting_agent": act, "acting_is_blamed": (act == a) if act is not None and a else None}
                 for i, w, a, x, n, p, act in zip(item_ids, who, agent, steps, n_of, placed_at, acting)]
    placed = np.asarray([p for p in placed_at if p is not None], dtype=np.float64)
    # a fifth of the run each; a step out of the run counts in the end it is past
    bins = np.bincount(np.clip(np.trunc(placed * 5), 0, 4).astype(np.int64), minlength=5).tolist()
    hist = [{"part_of_run": f"{i * 20}–{(i + 1) * 20}%", "count": c} for i, c in enumerate(bins)]
    return {"blame": blame, "positions": positions, "position_histogram": hist,
            "no_failure": int((at["agent"].isna()).sum()), "attributions": int(len(at))}


def _derived_handoffs(lab: Labels, der: Derived, item_ids: list, scheme_obj) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The handoffs of each item, as columns (index, step, src, dst), and how many each item has."""
    traces = trace_columns.of(lab.memo, der, scheme_obj, item_ids)
    n, cols = traces.gather(traces.handoffs, item_ids)
    return cols, n


def _handoff_judgements(lab: Labels, scheme_obj, der: Derived) -> tuple[pd.DataFrame, int]:
    """One row per (item, annotator, derived handoff) the annotator reviewed, with flags/quality,
    whether any flag is set and the code of its set of flags (see scheme_agreement.flag_sets)
    (built once per scheme and summary: the rollup, the graph and agreement all read it;
    callers must not change the frame), and how many stored entries match no handoff of the
    trace (stale)."""
    memo = lab.__dict__.setdefault("_handoff_judgements", {})
    if scheme_obj.name not in memo:
        memo[scheme_obj.name] = _build_handoff_judgements(lab, scheme_obj, der)
    return memo[scheme_obj.name]


def _build_handoff_judgements(lab: Labels, scheme_obj, der: Derived) -> tuple[pd.DataFrame, int]:
    """Every review row repeated for each handoff of its item, then the stored entries placed on
    the handoff they name: on integer positions (a million rows: pandas merges on the item,
    annotator and handoff columns took most of a second); a review whose item and annotator
    repeat, or entries naming one handoff twice, go through the merges instead."""
    raters = lab.of("rows", scheme_obj.name)
    ent = lab.of("handoffs", scheme_obj.name)
    item_code, item_names = pd.factorize(raters["item_id"])  # items in order of first review
    ann_code, ann_names = pd.factorize(raters["annotator"])
    items = pd.Index(np.asarray(item_names, dtype=object), dtype=object)
    anns = pd.Index(np.asarray(ann_names, dtype=object), dtype=object)
    dh, sizes = _derived_handoffs(lab, der, items.tolist(), scheme_obj)
    n_a = max(len(anns), 1)
    review = item_code * n_a + ann_code
    if not all_distinct(review, len(items) * n_a):
        return _merge_handoff_judgements(raters, ent, dh, sizes, items)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    per_row = sizes[item_code]
    n = int(per_row.sum())
    row = np.repeat(np.arange(len(raters)), per_row)
    row_start = np.concatenate([[0], np.cumsum(per_row)])
    h = np.repeat(starts[item_code], per_row) + (np.arange(n) - np.repeat(row_start[:-1], per_row))
    d_index = np.asarray(dh["index"], dtype=np.int64)
    d_step = np.asarray(dh["step"], dtype=np.int64)
    d_src = np.asarray(dh["src"], dtype=object)
    d_dst = np.asarray(dh["dst"], dtype=object)
    # each stored entry: its review row (by item and annotator), then its handoff (by item and
    # index, the step and agents checked)
    e_item = positions_in(ent["item_id"], items)
    e_ann = positions_in(ent["annotator"], anns)
    e_index = np.asarray(ent["index"], dtype=np.int64)
    at, there = find(review, e_item * n_a + e_ann, np.argsort(review, kind="stable"))
    known = (e_item >= 0) & (e_ann >= 0) & there
    width = int(max(d_index.max(initial=0), e_index.max(initial=0))) + 1
    if width * (len(sizes) + 1) >= 2 ** 62:  # (item, index) keys would not fit in 64 bits
        return _merge_handoff_judgements(raters, ent, dh, sizes, items)
    h_key = np.repeat(np.arange(len(sizes)), sizes) * width + d_index
    if (d_index < 0).any() or not all_distinct(h_key, len(sizes) * width):
        return _merge_handoff_judgements(raters, ent, dh, sizes, items)
    e_key = np.where(known, e_item, 0) * width + np.clip(e_index, 0, width - 1)
    hit, there = find(h_key, e_key, np.argsort(h_key, kind="stable"))
    known &= (e_index >= 0) & there
    if len(h_key):  # the entry's step and agents are the handoff's too (agents compared as codes)
        known &= (d_step[hit] == np.asarray(ent["step"], dtype=np.int64)) \
            & _same_agent(d_src, hit, ent["src"]) & _same_agent(d_dst, hit, ent["dst"])
    pos = row_start[at[known]] + (hit[known] - starts[item_code[at[known]]])
    if not all_distinct(pos, n):  # one handoff named twice in a value
        return _merge_handoff_judgements(raters, ent, dh, sizes, items)
    # the flags as codes of the distinct sets (the entries hold a few dozen): a tuple per
    # judgement is a reference to one of them, and nobody hashes half a million tuples again
    codes, found = pd.factorize(ent["flags"].to_numpy(dtype=object)[known], use_na_sentinel=False)
    sets: dict[tuple, int] = {(): 0}
    to_set = np.asarray([sets.setdefault(f if isinstance(f, tuple) else (), len(sets)) for f in found],
                        dtype=np.int64)
    flag_set = np.zeros(n, dtype=np.int64)
    flag_set[pos] = to_set[codes] if len(to_set) else codes
    distinct = np.empty(len(sets), dtype=object)
    for f, c in sets.items():
        distinct[c] = f
    quality = np.full(n, np.nan)
    quality[pos] = ent["quality"].to_numpy(dtype=np.float64)[known]
    flagged = np.asarray([bool(f) for f in distinct], dtype=bool)[flag_set]
    # the agents as categoricals of the derived handoffs' agents (no text per judgement: the
    # rollup, the graph and agreement count on their codes)
    j = pd.DataFrame({"item_id": raters["item_id"].take(row).reset_index(drop=True),
                      "annotator": raters["annotator"].take(row).reset_index(drop=True),
                      "index": d_index[h], "step": d_step[h],
                      "src": _agents(d_src, h), "dst": _agents(d_dst, h),
                      "flags": distinct[flag_set], "quality": quality, "flagged": flagged, "flag_set": flag_set})
    j.attrs["flag_sets"] = list(distinct)
    return j, int(len(ent) - len(pos))


def _same_agent(derived: np.ndarray, hit: np.ndarray, stored: pd.Series) -> np.ndarray:
    """Whether each stored entry's agent is the one of its handoff (derived[hit]), on codes:
    each distinct name looked up once, not a text comparison per entry."""
    codes, names = pd.factorize(derived)
    at = positions_in(stored, pd.Index(names, dtype=object))
    return (np.asarray(codes, dtype=np.int64)[hit] == at) & (at >= 0)


def _agents(names: np.ndarray, at: np.ndarray) -> pd.Categorical:
    """names[at] as a categorical, coded once per distinct name (labels.categorical)."""
    found = categorical(names, at)
    return found if found is not None else pd.Categorical(names)[at]


def _merge_handoff_judgements(raters, ent, dh, sizes, items) -> tuple[pd.DataFrame, int]:
    """The judgements by pandas merges: any shape of review rows and entries."""
    ent = ent.drop(columns="scheme")
    keys = ["item_id", "annotator", "index", "step", "src", "dst"]
    derived = pd.DataFrame({"item_id": pd.Series(np.repeat(np.asarray(items, dtype=object), sizes), dtype=object),
                          "index": pd.Series(dh["index"], dtype="int64"), "step": pd.Series(dh["step"], dtype="int64"),
                          "src": pd.Series(dh["src"], dtype=object), "dst": pd.Series(dh["dst"], dtype=object)})
    opp = raters[["item_id", "annotator"]].merge(derived, on="item_id")
    if opp.empty:
        j = opp.assign(flags=[], quality=[], flagged=[], flag_set=np.zeros(0, dtype=np.int64))
        j.attrs["flag_sets"] = []
        return j, len(ent)
    ent = ent.astype({"index": "int64", "step": "int64"})
    j = opp.merge(ent, on=keys, how="left")
    matched = j["flags"].notna().sum()
    j["flags"] = [f if isinstance(f, tuple) else () for f in j["flags"]]
    j["flagged"] = [bool(f) for f in j["flags"]]
    codes, found = pd.factorize(j["flags"].to_numpy(dtype=object))
    j["flag_set"] = np.asarray(codes, dtype=np.int64)
    j.attrs["flag_sets"] = list(found)
    return j, int(len(ent) - matched)


def _agent_pairs(j: pd.DataFrame) -> tuple[np.ndarray, list[tuple]]:
    """For handoff judgements (see _handoff_judgements): each row's (from, to) pair as a code,
    and the pairs in order of first judgement (a handoff always names both agents)."""
    sc, src = codes_of(j["src"])
    dc, dst = codes_of(j["dst"])
    src, dst = src.tolist(), dst.tolist()
    n_dst = max(len(dst), 1)
    pair, firsts = pd.factorize(sc * n_dst + dc)
    return np.asarray(pair, dtype=np.int64), [(src[k // n_dst], dst[k % n_dst]) for k in firsts.tolist()]


def handoffs(lab: Labels, scheme_obj, der: Derived) -> dict:
    """Per ordered pair of agents (in order of first judgement): handoffs reviewed, flagged,
    rated and their mean quality; and how often each flag was set. Counted on integer codes of
    the pairs and of the distinct flag sets (each set's flags looked at once)."""
    j, stale = _handoff_judgements(lab, scheme_obj, der)
    if j.empty:
        return {"pairs": [], "flags": [], "stale": stale}
    pair, names = _agent_pairs(j)
    n = len(names)
    size = np.bincount(pair, minlength=n)
    flagged = np.bincount(pair, weights=j["flagged"].to_numpy(dtype=np.float64), minlength=n)
    q = j["quality"].to_numpy(dtype=np.float64)
    has = ~np.isnan(q)
    rated = np.bincount(pair[has], minlength=n)
    total = np.bincount(pair[has], weights=q[has], minlength=n)
    pairs = [{"src": a, "dst": b, "handoffs_reviewed": int(size[i]), "flagged": int(flagged[i]), "rated": int(rated[i]),
              "mean_quality": float(total[i] / rated[i]) if rated[i] else None,
              "flag_rate": float(flagged[i] / size[i])} for i, (a, b) in enumerate(names)]
    # each distinct set of flags once: how many judgements of each pair carry each flag
    codes, sets = flag_sets(j)
    known = list(scheme_obj.get("flags") or [])
    seen = list(dict.fromkeys(known + [f for fl in sets for f in fl]))
    n_sets = max(len(sets), 1)
    per_set = np.bincount(pair * n_sets + codes, minlength=n * n_sets)
    counts = np.zeros((n, len(seen)), dtype=np.int64)
    at = {f: i for i, f in enumerate(seen)}
    for k, fl in enumerate(sets):
        for f in set(fl):
            counts[:, at[f]] += per_set[k::n_sets]
    flag_rows = [{"src": a, "dst": b, "flag": f, "count": int(counts[i, x]), "rate": int(counts[i, x]) / int(size[i])}
                 for i, (a, b) in enumerate(names) for x, f in enumerate(seen)]
    return {"pairs": pairs, "flags": flag_rows, "stale": stale}


def graph_marks(lab: Labels, graph_schemes) -> tuple[list[tuple], dict[str, int]]:
    """The interaction graph's marks on graph schemes: how often each (src, dst, state) was
    marked, sorted by src, dst and state, and how often each agent was marked critical."""
    names = [s.name for s in graph_schemes]
    ge = lab.graph_edges[lab.graph_edges["scheme"].isin(names)]
    marks = ge.groupby(["src", "dst", "state"]).size() if not ge.empty else pd.Series(dtype=int)
    crit_nodes = lab.graph_nodes[lab.graph_nodes["scheme"].isin(names)]
    cn = crit_nodes.groupby("agent").size() if not crit_nodes.empty else pd.Series(dtype=int)
    return ([(a, b, st_, int(n)) for (a, b, st_), n in marks.items()],
            {a: int(n) for a, n in cn.items()})


def handoff_flags(lab: Labels, scheme_obj, der: Derived) -> dict[tuple, int]:
    """How many judgements of one handoff-review scheme flagged a handoff, per (src, dst)."""
    j, _ = _handoff_judgements(lab, scheme_obj, der)
    if j.empty:
        return {}
    pair, names = _agent_pairs(j)  # counted on codes
    per_pair = np.bincount(pair, weights=j["flagged"].to_numpy(dtype=np.float64), minlength=len(names))
    return {(a, b): int(k) for (a, b), k in zip(names, per_pair.tolist())}


def interaction(lab: Labels, der: Derived, item_ids: Iterable[str], graph_schemes, handoff_schemes,
                marks: tuple[list[tuple], dict[str, int]], flags: list[dict[tuple, int]]) -> dict:
    """The interaction graph across runs: handoff counts per ordered pair with how often the pair
    was marked critical / problematic on an interaction-graph scheme and flagged on a handoff review.

    `marks` (graph_marks() of the graph schemes) and `flags` (handoff_flags() of each review
    scheme) are parts of the summary of their own, so a save on a graph does not read the
    handoff reviews again, nor a review save the graphs."""
    trace_scheme = graph_schemes[0] if graph_schemes else (handoff_schemes[0] if handoff_schemes else None)
    item_ids = list(item_ids)
    # how many graph reviews each item has (the filtered rows are all of these items)
    # (the graph schemes' rows by position, on the item codes: no copy of the rows table)
    item, names = lab.codes("rows", "item_id")
    picked = [item[lab.where("rows", name)] for name in dict.fromkeys(s.name for s in graph_schemes)]
    codes = np.concatenate(picked) if picked else np.zeros(0, dtype=np.int64)
    n_reviews = np.bincount(codes[codes >= 0], minlength=len(names))
    reviewed = np.flatnonzero(n_reviews)
    reviews_of = dict(zip(names.take(reviewed).tolist(), n_reviews[reviewed].tolist()))
    # every item's steps and edges from the derivations as columns, counted on codes: agents
    # and pairs in order of first appearance, as a dict filled item after item would hold them
    traces = trace_columns.of(lab.memo, der, trace_scheme, item_ids)
    slots = traces.slots(item_ids)
    _, at = traces.steps.take(slots)
    who, agent_names = pd.factorize(traces.steps.columns["agent"][at], use_na_sentinel=False)
    agents = dict(zip(agent_names.tolist(), np.bincount(who, minlength=len(agent_names)).tolist()))
    sizes, at = traces.edges.take(slots)
    edge = traces.edges.columns
    sc, src_names = pd.factorize(edge["src"][at], use_na_sentinel=False)
    dc, dst_names = pd.factorize(edge["dst"][at], use_na_sentinel=False)
    n_dst = max(len(dst_names), 1)
    pair, firsts = pd.factorize(sc * n_dst + dc)
    n_pairs = len(firsts)
    held = np.bincount(pair, weights=edge["n"][at], minlength=n_pairs)  # handoffs (whole numbers)
    runs = np.bincount(pair, minlength=n_pairs)  # (an item lists each edge once)
    r_item = np.fromiter((reviews_of.get(i, 0) for i in item_ids), dtype=np.int64, count=len(item_ids))
    rev = np.bincount(pair, weights=np.repeat(r_item, np.maximum(sizes, 0)), minlength=n_pairs)
    src_names, dst_names = src_names.tolist(), dst_names.tolist()
    keys = [(src_names[f // n_dst], dst_names[f % n_dst]) for f in firsts.tolist()]
    counts = {k: (int(h), int(r)) for k, h, r in zip(keys, held.tolist(), runs.tolist())}  # (a, b) -> (handoffs, runs)
    reviewed_items = {k: int(x) for k, x in zip(keys, rev.tolist()) if x}
    marked, critical_marks = marks
    by_state = {(a, b, st_): n for a, b, st_, n in marked}
    flagged_ho: dict[tuple, int] = defaultdict(int)
    for per_scheme in flags:
        for ab, n in per_scheme.items():
            flagged_ho[ab] += n
    edges = []
    for (a, b) in dict.fromkeys(list(counts) + [(a, b) for a, b, _, _ in marked]):
        c = counts.get((a, b), (0, 0))
        crit = by_state.get((a, b, "critical"), 0)
        prob = by_state.get((a, b, "problematic"), 0)
        rev = reviewed_items.get((a, b), 0)
        edges.append({"src": a, "dst": b, "handoffs": c[0], "runs": c[1], "graph_reviews": rev,
                      "critical": crit, "problematic": prob,
                      "marked_rate": (crit + prob) / rev if rev else None,
                      "handoff_review_flags": flagged_ho.get((a, b), 0)})
    nodes = [{"agent": a, "steps": n, "critical_marks": critical_marks.get(a, 0)} for a, n in agents.items()]
    return {"nodes": nodes, "edges": edges}


def contention(lab: Labels, scheme_obj, der: Derived) -> dict:
    """Contention labels per resource (the region's, from the derivation), and how many labels
    name a region the trace does not have (stale). Regions are matched on (item, region index)
    keys from the derivations as columns, not a dict per item."""
    c = lab.of("contention", scheme_obj.name)
    codes, names = codes_of(c["item_id"])
    present = distinct_ints(codes[codes >= 0], len(names))
    ids = names.take(present).tolist()
    traces = trace_columns.of(lab.memo, der, scheme_obj, ids)
    slot = np.full(len(names) + 1, -1, dtype=np.int64)  # item code -> its slot (-1: none)
    slot[present] = traces.slots(ids)
    sizes, at = traces.regions.take(slot[:-1])  # every item code's regions, code after code
    index = traces.regions.columns["index"][at]
    resource = traces.regions.columns["resource"][at]
    n = np.maximum(sizes, 0)
    region = _values(c["region"])
    try:
        x = np.asarray(region, dtype=np.int64)
    except (OverflowError, TypeError, ValueError):  # (indexes beyond 64 bits name no region)
        x = np.fromiter((v if isinstance(v, int) and -BIG < v < BIG else -1 for v in region), dtype=np.int64,
                        count=len(region))
    width = int(max(index.max(initial=0), x.max(initial=0))) + 1
    own = np.repeat(np.arange(len(names), dtype=np.int64), n) * width + index
    if (index < 0).any() or width * (len(names) + 1) >= BIG or not all_distinct(own, len(names) * width):
        return _contention_by_item(c, der, scheme_obj)
    wanted = np.where(codes >= 0, codes, 0) * width + np.clip(x, 0, width - 1)
    hit, there = find(own, wanted, np.argsort(own, kind="stable"))
    found = there & (codes >= 0) & (x >= 0)
    labels = _values(c["label"])
    rows = list(zip(resource[hit[found]].tolist(), [labels[i] for i in np.flatnonzero(found).tolist()]))
    return {"labels": _pair_counts(rows, ["resource", "label"]), "stale": int(len(c) - len(rows))}


def _contention_by_item(c: pd.DataFrame, der: Derived, scheme_obj) -> dict:
    """contention() one label at a time: regions sharing an index (the last one counts)."""
    rows = []
    stale = 0
    regions_of = {}  # item -> {region index: resource}, built once per item
    get = der.getter(scheme_obj)
    for it, region, label in zip(_values(c["item_id"]), _values(c["region"]), _values(c["label"])):
        regs = regions_of.get(it)
        if regs is None:
            d = get(it)
            regs = regions_of[it] = {r.index: r.resource for r in d.contentions} if d else {}
        if region not in regs:
            stale += 1
            continue
        rows.append((regs[region], label))
    return {"labels": _pair_counts(rows, ["resource", "label"]), "stale": stale}


def _pair_counts(rows: list[tuple], names: list[str]) -> list[dict]:
    """Records of how many times each distinct pair occurs, sorted by the pair, pairs with a
    missing value left out: DataFrame(rows).groupby(names).size(), counted by a Counter (a
    frame of tens of thousands of tuples cost more than the count)."""
    counts = Counter(rows)
    try:
        keys = sorted(k for k in counts if not (missing(k[0]) or missing(k[1])))
    except TypeError:  # values that do not sort together: as pandas orders them
        df = pd.DataFrame(rows, columns=names)
        return _records(df.groupby(names).size().reset_index(name="count")) if rows else []
    return [{names[0]: a, names[1]: b, "count": counts[(a, b)]} for a, b in keys]


def _by(*cols: tuple[np.ndarray, int]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """groupby(sort=False) on integer codes: (the rows with every code given, their group
    numbered in order of first appearance, and each group's codes, one array per column)."""
    given = np.ones(len(cols[0][0]), dtype=bool)
    key = np.zeros(len(given), dtype=np.int64)
    for codes, n in cols:
        given &= codes >= 0
        key = key * max(n, 1) + np.maximum(codes, 0)
    rows = np.flatnonzero(given)
    group, firsts = pd.factorize(key[rows])
    firsts = np.asarray(firsts, dtype=np.int64)
    parts = []
    for _codes, n in reversed(cols):
        firsts, at = np.divmod(firsts, max(n, 1))
        parts.append(at)
    return rows, np.asarray(group, dtype=np.int64), parts[::-1]


def _per_group(group: np.ndarray, n: int, codes: np.ndarray, n_codes: int) -> np.ndarray:
    """How many distinct codes (missing left out) each group's rows hold."""
    return _count(_distinct_pairs(group, codes, n_codes)[0], n)


def emergent(lab: Labels, scheme_obj) -> dict:
    """Per run and behaviour, and per behaviour: annotators, runs, turns and marks, counted on
    codes (groupby(sort=False) and its distinct counts took most of a tenth of a second)."""
    b = lab.of("behaviours", scheme_obj.name)
    if b.empty:
        return {"per_run": [], "totals": []}
    (item, items), (beh, behs), (ann, anns), (turn, turns) = (
        codes_of(b[c]) for c in ("item_id", "behavior", "annotator", "turn"))
    items, behs = items.tolist(), behs.tolist()
    rows, g, (gi, gb) = _by((item, len(items)), (beh, len(behs)))
    n = len(gi)
    n_ann = _per_group(g, n, ann[rows], len(anns))
    n_turns = _per_group(g, n, turn[rows], len(turns))
    marks = np.bincount(g, minlength=n)
    per_run = [{"item_id": items[i], "behavior": behs[x], "annotators": a, "turns": t, "marks": m}
               for i, x, a, t, m in zip(gi.tolist(), gb.tolist(), n_ann.tolist(), n_turns.tolist(), marks.tolist())]
    rows, g, (tb,) = _by((beh, len(behs)))
    n = len(tb)
    runs = _per_group(g, n, item[rows], len(items))
    n_ann = _per_group(g, n, ann[rows], len(anns))
    marks = np.bincount(g, minlength=n)
    totals = [{"behavior": behs[x], "runs": r, "annotators": a, "marks": m}
              for x, r, a, m in zip(tb.tolist(), runs.tolist(), n_ann.tolist(), marks.tolist())]
    return {"per_run": per_run, "totals": totals}


def tool_verdicts(lab: Labels, scheme_obj) -> list[dict]:
    v = lab.of("tool_verdicts", scheme_obj.name)
    if v.empty:
        return []
    return _records(v.groupby(["tool", "verdict"]).size().reset_index(name="count"))


def mast(lab: Labels, scheme_obj, der: Derived) -> dict:
    m = lab.of("step_modes", scheme_obj.name)
    if m.empty:
        return {"by_category": [], "by_mode": [], "by_agent": []}
    codes, names = codes_of(m["item_id"])
    stored = _values(m["agent"])
    _, found = _trace_steps(lab, der, scheme_obj, codes, names, _values(m["step"]))
    acting = [a if a is not None else (st or "(unknown)") for a, st in zip(found, stored)]
    # counted on codes, groups in order of first appearance (as groupby(sort=False))
    (cat, cats), (mode, modes), (step, steps) = (codes_of(m[c]) for c in ("category", "mode", "step"))
    who, agents = codes_of(pd.Series(acting, dtype=object))
    cats, modes, agents = cats.tolist(), modes.tolist(), agents.tolist()
    rows, g, (gc,) = _by((cat, len(cats)))
    n = len(gc)
    # distinct (item, step) per category, a missing item or step counting as a value of its own
    # (as drop_duplicates counts it)
    pair = (codes[rows] + 1) * (len(steps) + 1) + (step[rows] + 1)
    n_steps = _per_group(g, n, pd.factorize(pair)[0], len(pair))
    by_cat = [{"category": cats[c], "tags": t, "steps": st_, "runs": r}
              for c, t, st_, r in zip(gc.tolist(), np.bincount(g, minlength=n).tolist(), n_steps.tolist(),
                                      _per_group(g, n, codes[rows], len(names)).tolist())]
    _, g, (gc, gm) = _by((cat, len(cats)), (mode, len(modes)))
    by_mode = [{"category": cats[c], "mode": modes[x], "tags": t}
               for c, x, t in zip(gc.tolist(), gm.tolist(), np.bincount(g, minlength=len(gc)).tolist())]
    _, g, (ga, gc) = _by((who, len(agents)), (cat, len(cats)))
    by_agent = [{"agent": agents[a], "category": cats[c], "tags": t}
                for a, c, t in zip(ga.tolist(), gc.tolist(), np.bincount(g, minlength=len(ga)).tolist())]
    return {"by_category": by_cat, "by_mode": by_mode, "by_agent": by_agent}


def choices(lab: Labels, scheme_obj) -> list[dict]:
    if scheme_obj.type == "likert":
        c = lab.of("likert", scheme_obj.name)
        col = "score"
    else:
        c = lab.of("choices", scheme_obj.name)
        col = "label"
    if c.empty:
        return []
    # per label, in order of first appearance: rows, and distinct runs (counted on codes)
    codes, names = codes_of(c[col])
    items, item_names = codes_of(c["item_id"])
    given = codes[codes >= 0]
    order = pd.unique(given).tolist()
    count = np.bincount(given, minlength=len(names))
    runs = _per_group(codes, len(names), items, len(item_names))
    n = max(len(lab.of("rows", scheme_obj.name)), 1)
    return [{"label": _py(names[k]), "count": int(count[k]), "runs": int(runs[k]), "share": float(count[k] / n)}
            for k in order]


def agreement_for(lab: Labels, s, der: Derived, k: int, listed: bool = True) -> tuple[dict, list[dict]]:
    """Agreement measures for one scheme, and the objects annotators disagree on when `listed`
    (app/scheme_agreement)."""
    return _agreement_for(lab, s, der, k, handoff_judgements=_handoff_judgements, listed=listed)


def disagreements(ws, df: pd.DataFrame | None, scheme: str, *, annotators: Iterable[str] | None = None,
                  items: Iterable[str] | None = None, k: int = 1, derived: Derived | None = None) -> list[dict]:
    """The objects annotators disagree on in one scheme, under the summary's filters (the summary
    gives how many; this lists them, for the scheme someone opens)."""
    if df is None:
        df = load(ws)
    s = ws.project.scheme(scheme)
    item_ids = [it.id for it in ws.items] if items is None else list(items)
    with no_gc(), blas.one_thread():
        lab = build(apply_filters(df, annotators, [scheme], item_ids), {scheme: s})
        trace_columns.cover(lab.memo, item_ids)
        return agreement_for(lab, s, derived or Derived.of(ws), k)[1]


# --- gold -------------------------------------------------------------------------------------------------

def gold_accuracy(lab: Labels, ws, item_ids: Iterable[str], attribution_scheme, step_schemes, k: int) -> dict:
    ids = set(item_ids)
    golds = {it.id: g for it in ws.items if it.id in ids and (g := goldmod.normalize(it.gold))}
    gold_ids = list(golds)
    # only judgements of items with gold count (goldmod.accuracy skips the others): filtered
    # column-wise first, not turned into Python records to be skipped one by one
    with_gold = lambda df: df[df["item_id"].isin(gold_ids)]  # noqa: E731
    if attribution_scheme is None:
        atts = []
    else:
        at = with_gold(lab.of("attribution", attribution_scheme.name))
        cols = (_values(at[c]) for c in ("item_id", "annotator", "agent", "step", "status"))
        atts = [{"item_id": i, "annotator": w, "agent": a, "step": None if s is None or s != s else int(s),
                 "status": st_} for i, w, a, s, st_ in zip(*cols)]
    tags: dict = defaultdict(set)
    for s in step_schemes:
        m = with_gold(lab.of("step_modes", s.name))
        for i, w, st_ in zip(_values(m["item_id"]), _values(m["annotator"]), _values(m["step"])):
            tags[(i, w)].add(int(st_))
        for i, w in zip(*[_values(with_gold(lab.of("rows", s.name))[c]) for c in ("item_id", "annotator")]):
            tags.setdefault((i, w), set())
    res = goldmod.accuracy(atts, golds, k, tags)
    res["items_with_gold"] = len(golds)
    res["scheme"] = attribution_scheme.name if attribution_scheme is not None else None
    return res


# --- the whole summary ---------------------------------------------------------------------------------------

def summarize(ws, df: pd.DataFrame | None = None, *, annotators: Iterable[str] | None = None,
              schemes: Iterable[str] | None = None, items: Iterable[str] | None = None, k: int = 1,
              derived: Derived | None = None, disagreements: bool = True, parts: "Parts | None" = None) -> dict:
    """Everything the summary page, `python -m app summary` and the report show (JSON-ready).

    Each scheme's agreement says how many objects annotators disagree on; the records of those
    objects (``disagreements``, a list) are built only when `disagreements` is true, else the
    key holds None and :func:`disagreements` lists one scheme's on demand.

    `parts` (see :class:`Parts`): each scheme's agreement and rollup, the interaction graph and
    gold accuracy kept from earlier summaries and taken again while the rows they were
    computed from are unchanged, so a summary after one save computes the parts of the saved
    scheme and the progress only. The result then shares those parts with the earlier ones:
    the caller only reads it. The rows must come in the store's order (sorted by annotator, item
    and scheme, as AnnotationStore gives them): a fingerprint does not see their order, and
    orders of first appearance do. `derived` must then be the workspace's own (None).

    Runs with the cyclic garbage collector paused (as derive() does): it allocates hundreds of
    thousands of small acyclic objects, and each collection they trigger walks every live
    object, the cached items and derivations included (a second of a ten-second summary); and
    with BLAS on one thread (app/blas.py)."""
    with no_gc(), blas.one_thread():
        return _summarize(ws, df, annotators=annotators, schemes=schemes, items=items, k=k, derived=derived,
                          disagreements=disagreements, parts=parts)


# the columns a summary reads (labels.build): a row's other columns (its trace hash, its save
# time) can change without changing any number
READ = ["item_id", "annotator", "scheme", "annotation_type", "status", "seconds_spent", "value"]


def scheme_prints(df: pd.DataFrame) -> dict[str, str]:
    """A fingerprint (see fingerprint()) of each scheme's rows, of the columns a summary reads
    (the done marks' under their scheme name, _item)."""
    if not len(df):
        return {}
    rows = pd.util.hash_pandas_object(df[READ], index=False).to_numpy()
    return {key[0]: _print(rows[at]) for key, at in groups(df, ["scheme"])}


class Parts:
    """Parts of summaries (see summarize()), each kept with the fingerprints of the schemes'
    rows it was computed from. One per workspace (its items and derivations never change).
    Kept per set of filters (annotators, schemes, items, k), for the newest FILTERS_KEPT sets
    (as many summaries as the summary page keeps: a summary's parts are about its size).
    Sessions of a server share it; a lock keeps it whole (two sessions computing one part at
    once both compute it)."""

    FILTERS_KEPT = 4

    @classmethod
    def of(cls, ws) -> "Parts":
        found = ws.__dict__.get("_summary_parts")
        if found is None:
            found = ws.__dict__["_summary_parts"] = cls()
        return found

    def __init__(self):
        # filters -> part key -> (prints, part); the filters used last, last
        self._kept: dict[tuple, dict[tuple, tuple[tuple, Any]]] = {}
        self._lock = threading.Lock()
        # what each stored value of a scheme spread into (labels.build's `kept`): a scheme
        # computed again after a save spreads the saved value only
        self.spreads: dict[tuple, dict] = {}

    def of_filters(self, where: tuple) -> dict[tuple, tuple[tuple, Any]]:
        """The parts kept under these filters (made the newest)."""
        with self._lock:
            found = self._kept.pop(where, None)
            self._kept[where] = found = {} if found is None else found
            while len(self._kept) > self.FILTERS_KEPT:
                del self._kept[next(iter(self._kept))]
            return found


# the rollup of each type: (its section of the summary, how it is computed)
ROLLUPS = {
    "agent_scorecard": ("scorecards", lambda lab, s, der: scorecards(lab, s.name)),
    "failure_attribution": ("attribution", lambda lab, s, der: attribution(lab, s, der)),
    "handoff_review": ("handoffs", lambda lab, s, der: handoffs(lab, s, der)),
    "tool_contention": ("contention", lambda lab, s, der: contention(lab, s, der)),
    "emergent_behavior": ("emergent", lambda lab, s, der: emergent(lab, s)),
    "tool_call_review": ("tool_verdicts", lambda lab, s, der: tool_verdicts(lab, s)),
    "trajectory_eval": ("mast", lambda lab, s, der: mast(lab, s, der)),
    **{t: ("choices", lambda lab, s, der: {"type": s.type, "labels": choices(lab, s)})
       for t in ("radio", "multiselect", "likert")},
}
SECTIONS = ["scorecards", "attribution", "handoffs"]  # then interaction
SECTIONS_AFTER = ["contention", "emergent", "tool_verdicts", "mast", "choices"]


def _cleaned(section: str, part):
    """A rollup made JSON-safe (clean()) once, when computed. Its long lists (one entry per
    attribution, per run and behaviour) are built from plain Python values already (_records,
    or by hand) and are not walked again; the key order stays as it always was (the positions
    last, the runs in their place)."""
    if section == "attribution":
        part = dict(part)
        positions = part.pop("positions")
        part = clean(part)
        part["positions"] = positions
        return part
    if section == "emergent":
        runs = part["per_run"]
        part = clean({**part, "per_run": None})
        part["per_run"] = runs
        return part
    return clean(part)


def _summarize(ws, df, *, annotators, schemes, items, k, derived, disagreements, parts) -> dict:
    if df is None:
        df = load(ws)
    item_ids = [it.id for it in ws.items] if items is None else [i for i in items]
    df = apply_filters(df, annotators, schemes, item_ids)
    project = ws.project
    by_name = {s.name: s for s in project.schemes}
    if parts is not None and derived is not None and derived is not Derived.of(ws):
        raise ValueError("summarize(parts=...) keeps parts of the workspace's own derivations")
    der = derived or Derived.of(ws)
    chosen = [s for s in project.schemes if not schemes or s.name in set(schemes)]
    of = lambda t: [s for s in chosen if s.type == t]  # noqa: E731
    att_schemes = of("failure_attribution")
    graphs, reviews, steps = of("agent_interaction_graph"), of("handoff_review"), of("trajectory_eval")

    # every part: (key, the schemes whose rows it reads, how it is computed from the spread
    # tables and the parts before it, the schemes whose spread tables it reads: None, all it reads)
    found: dict[tuple, Any] = {}
    specs = []
    for s in chosen:
        specs.append((("agreement", s.name, disagreements), (s.name,),
                      lambda lab, s=s: agreement_for(lab, s, der, k, listed=disagreements), None))
        if s.type in ROLLUPS:
            section, fn = ROLLUPS[s.type]
            specs.append((("rollup", s.name), (s.name,),
                          lambda lab, s=s, section=section, fn=fn: _cleaned(section, fn(lab, s, der)), None))
    # the interaction graph from a part per side, each read again only when its schemes' rows change
    specs.append((("graph_marks",), tuple(x.name for x in graphs), lambda lab: graph_marks(lab, graphs), None))
    for s in reviews:
        specs.append((("handoff_flags", s.name), (s.name,), lambda lab, s=s: handoff_flags(lab, s, der), None))
    specs.append((("interaction",), tuple(x.name for x in graphs + reviews),
                  lambda lab: clean(interaction(lab, der, item_ids, graphs, reviews, found[("graph_marks",)],
                                                [found[("handoff_flags", s.name)] for s in reviews])), ()))
    gold_from = ([att_schemes[0]] if att_schemes else []) + steps
    specs.append((("gold",), tuple(x.name for x in gold_from),
                  lambda lab: clean(gold_accuracy(lab, ws, item_ids, att_schemes[0] if att_schemes else None,
                                                  steps, k)), None))
    # the parts to compute: (key, the schemes whose spread tables it reads, how, its reads' prints)
    todo = [(key, reads if spread is None else spread, fn, None) for key, reads, fn, spread in specs]
    spreads = kept = None
    if parts is not None:
        prints = scheme_prints(df)
        kept = parts.of_filters((tuple(annotators) if annotators else None, tuple(schemes) if schemes else None,
                                 None if items is None else tuple(item_ids), k))
        todo = []
        for key, reads, fn, spread in specs:
            mark = tuple(prints.get(n) for n in reads)
            part = kept.get(key)
            if part is not None and part[0] == mark:
                found[key] = part[1]
            else:
                todo.append((key, reads if spread is None else spread, fn, mark))
        # what each value spread into, updated by unfiltered summaries only (a filtered one
        # sees a subset of the values: it reads a copy)
        filtered = annotators or schemes or items is not None
        spreads = dict(parts.spreads) if filtered else parts.spreads
    lab = build(df, by_name, spread=None if parts is None else {n for _, reads, _, _ in todo for n in reads},
                kept=spreads)
    trace_columns.cover(lab.memo, item_ids)
    for key, _reads, fn, mark in todo:
        found[key] = fn(lab)
        if kept is not None:
            kept[key] = (mark, found[key])

    wanted = set(item_ids)
    out = {
        "project": project.name,
        "filters": clean({"annotators": list(annotators) if annotators else None,
                          "schemes": list(schemes) if schemes else None,
                          "items": None if items is None else len(item_ids), "k": k}),
        "counts": {"items": len(item_ids), "annotators": int(lab.time["annotator"].nunique()),
                   "judgements": int(len(lab.rows)),
                   "items_with_gold": sum(1 for it in ws.items if it.id in wanted and goldmod.normalize(it.gold))},
        "progress": clean(progress(lab, len(item_ids))),
    }
    rollups = {section: {} for section in SECTIONS + SECTIONS_AFTER}
    for s in chosen:
        if s.type in ROLLUPS:
            rollups[ROLLUPS[s.type][0]][s.name] = found[("rollup", s.name)]
    out.update((section, rollups[section]) for section in SECTIONS)
    out["interaction"] = found[("interaction",)]
    out.update((section, rollups[section]) for section in SECTIONS_AFTER)
    out["agreement"] = {s.name: clean(found[("agreement", s.name, disagreements)][0]) for s in chosen}
    g = found[("gold",)]
    out["gold"] = g["by_annotator"]
    out["gold_detail"] = {"scheme": g["scheme"], "items_with_gold": g["items_with_gold"],
                          "confusion": g["confusion"], "items": g["items"]}
    out["disagreements"] = ([r for s in chosen for r in found[("agreement", s.name, disagreements)][1]]
                            if disagreements else None)
    return out
