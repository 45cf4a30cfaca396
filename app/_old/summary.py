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

import contextlib
import logging
import math
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd

from app._old import blas
from app.summary import gold as goldmod
from app._old import kept as keptmod
from app._old.counted import EVERY, Changes, Counted
from app._old import trace_columns
from app._old.agreement import all_distinct, distinct_ints, find, missing
from app.traces.derive import Derivation, derive, no_gc, scheme_keys
from app._old.labels import DONE, Labels, build, categorical, codes_of, frame, groups, positions_in
from app._old.scheme_agreement import (
    agreement_for as _agreement_for, agreement_from as _agreement_from, agreement_tally as _agreement_tally, flag_sets)
from app.store.storage import AnnotationStore
from app._old.tally import distinct_by, in_order, merge, order_key, ordered, prune, sum_by


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


MAX_SECONDS = 9e12  # 285,000 years: whole microseconds still fit in 64 bits


def progress_tally(lab: Labels) -> dict:
    """What progress_from() reports, as a tally that adds up over items: rows and time (whole
    microseconds: sums of floats would depend on their order) per annotator and scheme, every
    row's; done marks per annotator; judgements per annotator, scheme, stored type and status;
    distinct items per annotator, per scheme and per annotator and scheme (an item's rows add
    its own). A row missing a key counts where that key is not needed."""
    rows, time, done = lab.rows, lab.time, lab.done
    seconds = time["seconds_spent"].to_numpy(dtype=np.float64, na_value=np.nan)
    # (a missing time adds nothing, as pandas' sums left it out; the store holds finite times,
    # and one past MAX_SECONDS, a hand-made one, is taken as that)
    seconds = np.clip(np.where(np.isfinite(seconds), seconds, 0.0), -MAX_SECONDS, MAX_SECONDS)
    micros = np.rint(seconds * 1e6).astype(np.int64)
    return prune({"rows": tally_of(time, ["annotator", "scheme"]),
                  "micros": tally_of(time, ["annotator", "scheme"], micros),
                  "done": tally_of(done, ["annotator"]),
                  "judged": tally_of(rows, ["annotator", "scheme", "type", "status"]),
                  "touched": distinct_of(rows, ["annotator"], "item_id"),
                  "items": distinct_of(rows, ["scheme"], "item_id"),
                  "grid": distinct_of(rows, ["annotator", "scheme"], "item_id")})


def progress_from(t: dict, n_items: int, configured: list[str]) -> dict:
    """Per annotator, per scheme (the configured ones first, in their order, then any other
    stored, sorted) and per annotator × scheme: items, judgements, time; with how many
    annotators and judgements there are."""
    rows, micros, judged = t.get("rows") or {}, t.get("micros") or {}, t.get("judged") or {}
    grid = t.get("grid") or {}
    who = sorted({a for a, _s in rows if a is not None} | {a for a, *_ in judged if a is not None})
    secs_of, by_scheme_secs = Counter(), Counter()
    for (a, s), us in micros.items():
        secs_of[a] += us
        by_scheme_secs[s] += us
    n_of, n_scheme, clean, types = Counter(), Counter(), Counter(), {}
    for (a, s, typ, status), n in judged.items():
        n_of[a] += n
        n_scheme[s] += n
        clean[s] += n if status == "reviewed_clean" else 0
        types.setdefault(s, Counter())[typ] += n
    by_annotator = [{"annotator": a, "items_done": (t.get("done") or {}).get(a, 0), "items_total": n_items,
                     "items_touched": (t.get("touched") or {}).get(a, 0), "judgements": n_of[a],
                     "seconds": secs_of[a] / 1e6} for a in who]
    schemes = [s for s in in_order(configured, [s for s in n_scheme if s is not None]) if n_scheme[s]]
    raters = Counter(s for (_a, s), n in grid.items() if n and _a is not None)
    by_scheme = []
    for s in schemes:
        sec = by_scheme_secs[s] / 1e6
        # (the type most of its judgements were stored under)
        typ = min(types[s].items(), key=lambda x: (-x[1], order_key(x[0])))[0]
        by_scheme.append({"scheme": s, "type": typ, "items": (t.get("items") or {}).get(s, 0),
                          "annotators": raters[s], "judgements": n_scheme[s], "reviewed_clean": clean[s],
                          "seconds": sec, "seconds_per_judgement": sec / n_scheme[s]})
    rank = {s: i for i, s in enumerate(schemes)}
    cells = sorted(((a, s, n) for (a, s), n in grid.items() if a is not None and s in rank),
                   key=lambda x: (x[0], rank[x[1]]))
    return {"by_annotator": by_annotator, "by_scheme": by_scheme,
            "by_annotator_scheme": [{"annotator": a, "scheme": s, "items": n} for a, s, n in cells],
            "annotators": len({a for (a, _s), n in rows.items() if a is not None and n}),
            "judgements": sum(judged.values())}


# --- rollups per type ----------------------------------------------------------------------------------

# --- rollups per type, as tallies (app/tally.py) -----------------------------------------------------------
# Each rollup counts what it reports as a tally that adds up over items (a kept summary is
# updated by the items that changed) and is finished from it. Records wholly made of one
# item's rows (an attribution placed on its run, a run's behaviour) are tally keys of their
# own, counted once. Lists come in a fixed order: by name, or the configured order.

def _coded(col: pd.Series) -> tuple[np.ndarray, list]:
    """codes_of(col) shifted so that 0 is a missing value (None), with plain Python labels."""
    codes, names = codes_of(col)
    labels = names.tolist()  # (Python values; a missing number, NaN, made None)
    if any(type(x) is float and x != x for x in labels):
        labels = [_py(x) for x in labels]
    return codes + 1, [None] + labels


def tally_of(df: pd.DataFrame, cols: list[str], weights=None) -> dict:
    """{(values of cols...): rows (or the sum of whole-number weights)} of a frame."""
    if not len(df):
        return {}
    coded = [_coded(df[c]) for c in cols]
    return sum_by([c for c, _ in coded], [names for _, names in coded], weights)


def distinct_of(df: pd.DataFrame, cols: list[str], col: str) -> dict:
    """{(values of cols...): how many distinct values of col (missing left out) they hold}."""
    if not len(df):
        return {}
    coded = [_coded(df[c]) for c in cols]
    return distinct_by([c for c, _ in coded], [names for _, names in coded], codes_of(df[col])[0])


def _by_first(t: dict | None, n: int) -> dict:
    """{key[:n]: {key[n:]: count}} of a tally with tuple keys."""
    out: dict = {}
    for key, v in (t or {}).items():
        out.setdefault(key[:n] if n > 1 else key[0], {})[key[n:] if len(key) > n + 1 else key[n]] = v
    return out


def _hist_stats(hist: dict) -> dict:
    """n, mean, sd and 95 % interval of scores given as {score: how many}."""
    xs = ordered(hist)
    n = sum(c for _, c in xs)
    if not n:
        return {"n": 0, "mean": None, "sd": None, "ci_low": None, "ci_high": None}
    mean = sum(x * c for x, c in xs) / n
    if n < 2:
        return {"n": n, "mean": mean, "sd": None, "ci_low": None, "ci_high": None}
    sd = math.sqrt(sum(c * (x - mean) ** 2 for x, c in xs) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half}


def scorecards_tally(lab: Labels, scheme_obj) -> dict:
    sc = lab.of("scores", scheme_obj.name)
    ms = lab.of("milestones", scheme_obj.name)
    # each milestone's answers: not given (None), not reached, reached
    given = ms["reached"].notna().to_numpy()
    hit = np.zeros(len(ms), dtype=bool)
    hit[given] = np.asarray(ms["reached"].to_numpy()[given], dtype=bool)
    answer = np.where(given, 1 + hit, 0)
    mile, miles = _coded(ms["milestone"])
    milestones = sum_by([mile, answer], [miles, [None, False, True]])
    if not len(sc):
        return prune({"milestones": milestones})
    # on codes: the group's three columns once, the scores as their own whole numbers where they are
    group = [_coded(sc[c]) for c in ("level", "agent", "dimension")]
    codes, labels = [c for c, _ in group], [names for _, names in group]
    x = sc["score"].to_numpy(dtype=np.float64)
    has = ~np.isnan(x)
    whole = bool(np.all(x[has] == np.round(x[has]))) and (not has.any() or np.abs(x[has]).max() < 2 ** 52)
    if whole:  # (scores are whole numbers but for odd imports: those go through their codes)
        scores = sum_by([c[has] for c in codes] + [x[has].astype(np.int64)], labels + [None])
        scores = {k[:3] + (float(k[3]),): n for k, n in scores.items()}
    else:
        scores = tally_of(sc[has], ["level", "agent", "dimension", "score"])
    who, names = _coded(sc["annotator"])
    return prune({"scores": scores, "runs": distinct_by(codes, labels, codes_of(sc["item_id"])[0]),
                  "annotators": sum_by(codes + [who], labels + [names]), "milestones": milestones})


def scorecards_from(t: dict, scheme_obj) -> dict:
    scores, runs = _by_first(t.get("scores"), 3), t.get("runs") or {}
    # (a group's annotators tally counts every row of it: the groups are its keys)
    annotators = {g: len([a for a in who if a is not None]) for g, who in _by_first(t.get("annotators"), 3).items()}
    groups_ = set(annotators)
    dims = lambda level: in_order(scheme_obj.get(f"{level}_dimensions"),  # noqa: E731
                                {d for lv, _, d in groups_ if lv == level and d is not None})
    rank = {level: {d: i for i, d in enumerate(dims(level))} for level in ("agent", "team")}

    def rows(level: str, with_agent: bool) -> list[dict]:
        named = (g for g in groups_ if g[0] == level and g[2] is not None and (g[1] is not None or not with_agent))
        keys = sorted(named, key=lambda g: (order_key(g[1]), rank[level][g[2]]))
        return [{**({"agent": a} if with_agent else {}), "dimension": d, **_hist_stats(scores.get((lv, a, d), {})),
                 "runs": runs.get((lv, a, d), 0), "annotators": annotators.get((lv, a, d), 0)}
                for lv, a, d in keys]
    miles = _by_first(t.get("milestones"), 1)
    order = in_order(scheme_obj.get("milestones"), miles)
    out = []
    for m in order:
        if m in miles:
            n = sum(c for r, c in miles[m].items() if r is not None)
            hit = miles[m].get(True, 0)
            out.append({"milestone": m, "n": n, "reached": hit, "rate": hit / n if n else None})
    return {"agents": rows("agent", True), "team": rows("team", False), "milestones": out}


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


def _placed(lab: Labels, scheme_obj, der: Derived) -> tuple[list, ...]:
    """Each attribution that names a step, placed on its run: (annotators, items, agents, steps,
    the run's steps (None: no such item), where in the run (step / (steps - 1); None: no such
    item or an empty run), the agent acting at that step (None: no such step))."""
    at = lab.of("attribution", scheme_obj.name)
    item_ids, who, agent, step = (_values(at[c]) for c in ("item_id", "annotator", "agent", "step"))
    rows = [i for i, x in enumerate(step) if not missing(x)]
    every = len(rows) == len(step)  # (usually: each attribution names a step)
    steps = [int(x) for x in step] if every else [int(step[i]) for i in rows]
    codes, names = codes_of(at["item_id"])
    n_steps, acting = _trace_steps(lab, der, scheme_obj, codes if every else codes[rows], names, steps)
    if not every:
        item_ids, who, agent = ([col[i] for i in rows] for col in (item_ids, who, agent))
    n_of = [n if n >= 0 else None for n in n_steps.tolist()]
    placed_at = [(x / (n - 1) if n > 1 else 0.0) if n else None for x, n in zip(steps, n_of)]
    return who, item_ids, agent, steps, n_of, placed_at, acting


def attribution_tally(lab: Labels, scheme_obj, der: Derived) -> dict:
    """Blame per agent (attributions, runs, annotators), where in their runs the decisive steps
    fall (a fifth of the run each; a step out of the run counts in the end it is past), and how
    often the blamed agent is the one acting at the decisive step. Every attribution's own
    record is listed apart (listing(), "positions"): kept here, it would make the tally, and what the
    summary keeps, grow with the judgements."""
    at = lab.of("attribution", scheme_obj.name)
    named = at[at["agent"].notna()]
    _who, _items, agent, _steps, _n, placed_at, acting = _placed(lab, scheme_obj, der)
    placed = np.asarray([p for p in placed_at if p is not None], dtype=np.float64)
    bins = np.bincount(np.clip(np.trunc(placed * 5), 0, 4).astype(np.int64), minlength=5).tolist()
    known = [act == a for a, act in zip(agent, acting) if act is not None and a]
    return prune({"blame": tally_of(named, ["agent"]), "runs": distinct_of(named, ["agent"], "item_id"),
                  "annotators": tally_of(named, ["agent", "annotator"]), "bins": dict(enumerate(bins)),
                  "acting": {True: sum(known), False: len(known) - sum(known)},
                  "no_failure": int(at["agent"].isna().sum()), "attributions": int(len(at))})


def attribution_from(t: dict, scheme_obj) -> dict:
    count = t.get("blame") or {}
    whole = sum(count.values())
    annotators = _by_first(t.get("annotators"), 1)
    blame = [{"agent": a, "count": n, "runs": (t.get("runs") or {}).get(a, 0), "annotators": len(annotators.get(a, {})),
              "share": n / whole} for a, n in sorted(count.items(), key=lambda x: (-x[1], order_key(x[0])))]
    bins = t.get("bins") or {}
    hist = [{"part_of_run": f"{i * 20}–{(i + 1) * 20}%", "count": bins.get(i, 0)} for i in range(5)]
    acting = t.get("acting") or {}
    same, known = acting.get(True, 0), acting.get(True, 0) + acting.get(False, 0)
    return {"blame": blame, "position_histogram": hist,
            "acting_is_blamed": {"count": same, "of": known, "share": same / known if known else None},
            "no_failure": t.get("no_failure", 0), "attributions": t.get("attributions", 0)}


def positions(lab: Labels, scheme_obj, der: Derived) -> list[dict]:
    """Every attribution naming a step, placed on its run, sorted by annotator and run (as the
    store's rows are)."""
    found = list(zip(*_placed(lab, scheme_obj, der)))
    try:
        found.sort()  # (the annotator and run tell every two apart: nothing else is compared)
    except TypeError:
        found.sort(key=lambda r: (str(r[0]), str(r[1])))
    return [{"item_id": i, "annotator": w, "agent": a, "step": x, "steps": n, "position": p,
             "acting_agent": act, "acting_is_blamed": (act == a) if act is not None and a else None}
            for w, i, a, x, n, p, act in found]


def _scheme_labels(df: pd.DataFrame, s, item_ids: list) -> Labels:
    """One scheme's rows of df (filtered as the summary's) spread, covering the summary's items."""
    lab = build(df[(df["scheme"] == s.name).to_numpy(dtype=bool)], {s.name: s})
    trace_columns.cover(lab.memo, item_ids)
    return lab


def _of_one_scheme(ws, df: pd.DataFrame | None, scheme: str, annotators, items, fn):
    """fn(Labels, scheme) of one scheme's rows under the summary's filters: the records someone
    opens on the summary page (listing(), disagreements())."""
    if df is None:
        df = load(ws)
    s = ws.project.scheme(scheme)
    item_ids = [it.id for it in ws.items] if items is None else list(dict.fromkeys(items))
    with no_gc(), blas.one_thread():
        return fn(_scheme_labels(apply_filters(df, annotators, [scheme], item_ids), s, item_ids), s)


def listing(ws, df: pd.DataFrame | None, scheme: str, what: str, *, annotators: Iterable[str] | None = None,
            items: Iterable[str] | None = None, derived: Derived | None = None) -> list[dict]:
    """Records of one scheme that the summary counts but does not list (LISTINGS: `what` -> the
    type of scheme it lists, and how), under the summary's filters: listed for the scheme
    someone opens, as disagreements() lists its disagreements."""
    t, fn = LISTINGS[what]
    s = ws.project.scheme(scheme)
    if s.type != t:
        raise ValueError(f"{scheme} is a {s.type} scheme; {what} lists {t} schemes")
    der = derived or Derived.of(ws)
    return _of_one_scheme(ws, df, scheme, annotators, items, lambda lab, s: fn(lab, s, der))


# the records a summary counts but lists only when asked (one per judgement, or per run and
# behaviour: hundreds of thousands in a large study), under the key summarize() lists them
LISTINGS = {
    "positions": ("failure_attribution", positions),
    "per_run": ("emergent_behavior", lambda lab, s, der: behaviour_runs(lab, s)),
}


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
    # a row without its item or annotator is nobody's review (its code, -1, would have been read
    # as the last item's, or the item before's last annotator); its entries count as stale
    named = (raters["item_id"].notna() & raters["annotator"].notna()).to_numpy()
    if not named.all():
        raters = raters[named]
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


def handoffs_tally(lab: Labels, scheme_obj, der: Derived) -> dict:
    j, stale = _handoff_judgements(lab, scheme_obj, der)
    if j.empty:
        return prune({"stale": stale})
    flagged = j["flagged"].to_numpy(dtype=bool)
    q = j["quality"].to_numpy(dtype=np.float64)
    # each distinct set of flags once: how many judgements of each pair carry each flag
    codes, sets = flag_sets(j)
    flags: dict = {}
    for (a, b, k), n in tally_of(j.assign(flag_set=codes), ["src", "dst", "flag_set"]).items():
        for f in set(sets[k]):
            flags[(a, b, f)] = flags.get((a, b, f), 0) + n
    return prune({"pairs": tally_of(j, ["src", "dst"]), "flagged": tally_of(j[flagged], ["src", "dst"]),
                  "quality": tally_of(j[~np.isnan(q)], ["src", "dst", "quality"]), "flags": flags,
                  "stale": stale})


def handoffs_from(t: dict, scheme_obj) -> dict:
    size, flagged = t.get("pairs") or {}, t.get("flagged") or {}
    quality = _by_first(t.get("quality"), 2)
    names = [k for k, _ in ordered(size)]
    pairs = []
    for a, b in names:
        q = ordered(quality.get((a, b)))
        rated = sum(c for _, c in q)
        pairs.append({"src": a, "dst": b, "handoffs_reviewed": size[(a, b)], "flagged": flagged.get((a, b), 0),
                      "rated": rated, "mean_quality": sum(x * c for x, c in q) / rated if rated else None,
                      "flag_rate": flagged.get((a, b), 0) / size[(a, b)]})
    flags = t.get("flags") or {}
    seen = in_order(scheme_obj.get("flags"), {f for _, _, f in flags})
    flag_rows = [{"src": a, "dst": b, "flag": f, "count": flags.get((a, b, f), 0),
                  "rate": flags.get((a, b, f), 0) / size[(a, b)]} for a, b in names for f in seen]
    return {"pairs": pairs, "flags": flag_rows, "stale": t.get("stale", 0)}


def graph_marks(lab: Labels, graph_schemes) -> dict:
    """The tally of the interaction graph's marks on graph schemes: how often each (src, dst,
    state) was marked, and how often each agent was marked critical."""
    names = [s.name for s in graph_schemes]
    ge = lab.graph_edges[lab.graph_edges["scheme"].isin(names)]
    cn = lab.graph_nodes[lab.graph_nodes["scheme"].isin(names)]
    return prune({"edges": tally_of(ge, ["src", "dst", "state"]), "nodes": tally_of(cn, ["agent"])})


def handoff_flags(lab: Labels, scheme_obj, der: Derived) -> dict[tuple, int]:
    """How many judgements of one handoff-review scheme flagged a handoff, per (src, dst)."""
    j, _ = _handoff_judgements(lab, scheme_obj, der)
    return tally_of(j[j["flagged"].to_numpy(dtype=bool)], ["src", "dst"]) if not j.empty else {}


def interaction_tally(lab: Labels, der: Derived, item_ids: Iterable[str], graph_schemes, handoff_schemes) -> dict:
    """The interaction graph's counts from the runs' derivations: steps per agent, and per
    ordered pair of agents its handoffs, the runs holding it and the graph reviews of those
    runs."""
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
    # every item's steps and edges from the derivations as columns, counted on codes
    traces = trace_columns.of(lab.memo, der, trace_scheme, item_ids)
    slots = traces.slots(item_ids)
    _, at = traces.steps.take(slots)
    who, agent_names = pd.factorize(traces.steps.columns["agent"][at], use_na_sentinel=False)
    agent_names = [_py(x) for x in agent_names.tolist()]
    sizes, at = traces.edges.take(slots)
    edge = traces.edges.columns
    sc, src_names = pd.factorize(edge["src"][at], use_na_sentinel=False)
    dc, dst_names = pd.factorize(edge["dst"][at], use_na_sentinel=False)
    src_names, dst_names = [_py(x) for x in src_names.tolist()], [_py(x) for x in dst_names.tolist()]
    r_item = np.fromiter((reviews_of.get(i, 0) for i in item_ids), dtype=np.int64, count=len(item_ids))
    pair_cols, pair_names = [sc, dc], [src_names, dst_names]
    return prune({"agents": sum_by([who], [agent_names]),
                  "handoffs": sum_by(pair_cols, pair_names, np.asarray(edge["n"][at], dtype=np.int64)),
                  "runs": sum_by(pair_cols, pair_names),  # (an item lists each edge once)
                  "reviews": sum_by(pair_cols, pair_names, np.repeat(r_item, np.maximum(sizes, 0)))})


def interaction(t: dict, marks: dict, flags: list[dict[tuple, int]]) -> dict:
    """The interaction graph across runs (interaction_tally): handoff counts per ordered pair
    with how often the pair was marked critical / problematic on an interaction-graph scheme
    (graph_marks) and flagged on a handoff review (handoff_flags of each review scheme).

    The marks and the flags are parts of the summary of their own, so a save on a graph does not
    read the handoff reviews again, nor a review save the graphs."""
    handoffs_, runs, reviews = t.get("handoffs") or {}, t.get("runs") or {}, t.get("reviews") or {}
    by_state = marks.get("edges") or {}
    flagged_ho: dict[tuple, int] = {}
    for per_scheme in flags:
        for ab, n in per_scheme.items():
            flagged_ho[ab] = flagged_ho.get(ab, 0) + n
    edges = []
    for (a, b), _ in ordered(dict.fromkeys(list(runs) + list(handoffs_) + [(a, b) for a, b, _ in by_state], 0)):
        crit = by_state.get((a, b, "critical"), 0)
        prob = by_state.get((a, b, "problematic"), 0)
        rev = reviews.get((a, b), 0)
        edges.append({"src": a, "dst": b, "handoffs": handoffs_.get((a, b), 0), "runs": runs.get((a, b), 0),
                      "graph_reviews": rev, "critical": crit, "problematic": prob,
                      "marked_rate": (crit + prob) / rev if rev else None,
                      "handoff_review_flags": flagged_ho.get((a, b), 0)})
    critical = marks.get("nodes") or {}
    nodes = [{"agent": a, "steps": n, "critical_marks": critical.get(a, 0)} for a, n in ordered(t.get("agents"))]
    return {"nodes": nodes, "edges": edges}


def contention_tally(lab: Labels, scheme_obj, der: Derived) -> dict:
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
    return prune({"labels": _pair_counts(rows), "stale": int(len(c) - len(rows))})


def _contention_by_item(c: pd.DataFrame, der: Derived, scheme_obj) -> dict:
    """contention_tally() one label at a time: regions sharing an index (the last one counts)."""
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
    return prune({"labels": _pair_counts(rows), "stale": stale})


def _pair_counts(rows: list[tuple]) -> dict:
    """How many times each distinct pair occurs, pairs with a missing value left out."""
    return {k: n for k, n in Counter(rows).items() if not (missing(k[0]) or missing(k[1]))}


def contention_from(t: dict, scheme_obj) -> dict:
    return {"labels": [{"resource": a, "label": b, "count": n} for (a, b), n in ordered(t.get("labels"))],
            "stale": t.get("stale", 0)}


def contention(lab: Labels, scheme_obj, der: Derived) -> dict:
    return contention_from(contention_tally(lab, scheme_obj, der), scheme_obj)


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


def _behaviours(lab: Labels, scheme_obj) -> pd.DataFrame:
    b = lab.of("behaviours", scheme_obj.name)
    return b[b["item_id"].notna() & b["behavior"].notna()]


def emergent_tally(lab: Labels, scheme_obj) -> dict:
    """Per behaviour: the runs showing it, its marks (a turn marked by an annotator), and who
    marked it. Each run's own record is listed apart (listing(), "per_run")."""
    b = _behaviours(lab, scheme_obj)
    if b.empty:
        return {}
    return prune({"runs": distinct_of(b, ["behavior"], "item_id"), "marks": tally_of(b, ["behavior"]),
                  "annotators": tally_of(b, ["behavior", "annotator"])})


def emergent_from(t: dict, scheme_obj) -> dict:
    n_runs, n_marks = t.get("runs") or {}, t.get("marks") or {}
    who = _by_first(t.get("annotators"), 1)
    totals = [{"behavior": x, "runs": n_runs[x], "annotators": len([a for a in who.get(x, {}) if a is not None]),
               "marks": n_marks.get(x, 0)} for x in in_order(scheme_obj.get("behaviors"), n_runs) if x in n_runs]
    return {"totals": totals}


def behaviour_runs(lab: Labels, scheme_obj) -> list[dict]:
    """Per run and behaviour shown in it: how many annotators marked it, on how many turns, and
    the marks; by run, then behaviour."""
    b = _behaviours(lab, scheme_obj)
    if b.empty:
        return []
    (item, items), (beh, behs), (ann, anns), (turn, turns) = (
        codes_of(b[c]) for c in ("item_id", "behavior", "annotator", "turn"))
    items, behs = items.tolist(), behs.tolist()
    rows, g, (gi, gb) = _by((item, len(items)), (beh, len(behs)))
    n = len(gi)
    n_ann = _per_group(g, n, ann[rows], len(anns))
    n_turns = _per_group(g, n, turn[rows], len(turns))
    marks = np.bincount(g, minlength=n)
    runs = ordered({(items[i], behs[x], a, tn, m): 1 for i, x, a, tn, m in
                    zip(gi.tolist(), gb.tolist(), n_ann.tolist(), n_turns.tolist(), marks.tolist())})
    return [{"item_id": i, "behavior": x, "annotators": a, "turns": tn, "marks": m} for (i, x, a, tn, m), _c in runs]


def tool_verdicts_tally(lab: Labels, scheme_obj) -> dict:
    return tally_of(lab.of("tool_verdicts", scheme_obj.name), ["tool", "verdict"])


def tool_verdicts_from(t: dict, scheme_obj) -> list[dict]:
    return [{"tool": a, "verdict": b, "count": n} for (a, b), n in ordered(t)
            if not (missing(a) or missing(b))]


def mast_tally(lab: Labels, scheme_obj, der: Derived) -> dict:
    m = lab.of("step_modes", scheme_obj.name)
    if m.empty:
        return {}
    codes, names = codes_of(m["item_id"])
    stored = _values(m["agent"])
    _, found = _trace_steps(lab, der, scheme_obj, codes, names, _values(m["step"]))
    acting = [a if a is not None else (st or "(unknown)") for a, st in zip(found, stored)]
    m = m.assign(acting=pd.Series(acting, index=m.index, dtype=object))
    cat, cats = _coded(m["category"])
    # distinct (item, step) per category, a missing item or step a value of its own (as
    # drop_duplicates counts it): the pairs of different items differ, so the counts add up
    step, _ = codes_of(m["step"])
    pair = (codes + 1) * (int(step.max(initial=-1)) + 2) + (step + 1)
    return prune({"tags": sum_by([cat], [cats]), "steps": distinct_by([cat], [cats], pair),
                  "runs": distinct_by([cat], [cats], codes), "modes": tally_of(m, ["category", "mode"]),
                  "agents": tally_of(m, ["acting", "category"])})


def mast_from(t: dict, scheme_obj) -> dict:
    steps = t.get("steps") or {}
    by_cat = [{"category": c, "tags": n, "steps": steps.get(c, 0), "runs": (t.get("runs") or {}).get(c, 0)}
              for c, n in ordered(t.get("tags")) if c is not None]
    by_mode = [{"category": c, "mode": x, "tags": n} for (c, x), n in ordered(t.get("modes"))
               if c is not None and x is not None]
    by_agent = [{"agent": a, "category": c, "tags": n} for (a, c), n in ordered(t.get("agents"))
                if a is not None and c is not None]
    return {"by_category": by_cat, "by_mode": by_mode, "by_agent": by_agent}


def _choice_column(scheme_obj) -> tuple[str, str]:
    return ("likert", "score") if scheme_obj.type == "likert" else ("choices", "label")


def choices_tally(lab: Labels, scheme_obj) -> dict:
    table, col = _choice_column(scheme_obj)
    c = lab.of(table, scheme_obj.name)
    return prune({"count": tally_of(c, [col]), "runs": distinct_of(c, [col], "item_id"),
                  "rows": int(len(lab.of("rows", scheme_obj.name)))})


def choices_from(t: dict, scheme_obj) -> dict:
    count = {k: v for k, v in (t.get("count") or {}).items() if k is not None}
    n = max(t.get("rows", 0), 1)
    order = in_order(scheme_obj.get("labels") if scheme_obj.type != "likert" else None, count)
    return {"type": scheme_obj.type,
            "labels": [{"label": x, "count": count[x], "runs": (t.get("runs") or {}).get(x, 0), "share": count[x] / n}
                       for x in order if x in count]}


def agreement_for(lab: Labels, s, der: Derived, k: int, listed: bool = True) -> tuple[dict, list[dict]]:
    """Agreement measures for one scheme, and the objects annotators disagree on when `listed`
    (app/scheme_agreement)."""
    return _agreement_for(lab, s, der, k, handoff_judgements=_handoff_judgements, listed=listed)


def disagreements(ws, df: pd.DataFrame | None, scheme: str, *, annotators: Iterable[str] | None = None,
                  items: Iterable[str] | None = None, k: int = 1, derived: Derived | None = None) -> list[dict]:
    """The objects annotators disagree on in one scheme, under the summary's filters (the summary
    gives how many; this lists them, for the scheme someone opens)."""
    der = derived or Derived.of(ws)
    return _of_one_scheme(ws, df, scheme, annotators, items, lambda lab, s: agreement_for(lab, s, der, k)[1])


# --- gold -------------------------------------------------------------------------------------------------

def gold_tally(lab: Labels, ws, item_ids: Iterable[str], attribution_scheme, step_schemes, k: int) -> dict:
    """The counts of accuracy against gold (app/gold.py accuracy_tally) and how many of the
    items have gold."""
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
    return prune({"accuracy": goldmod.accuracy_tally(atts, golds, k, tags), "items_with_gold": len(golds)})


def gold_from(t: dict, attribution_scheme, k: int) -> dict:
    res = goldmod.accuracy_from(t.get("accuracy") or {}, k)
    res["items_with_gold"] = t.get("items_with_gold", 0)
    res["scheme"] = attribution_scheme.name if attribution_scheme is not None else None
    return res


# --- the whole summary ---------------------------------------------------------------------------------------

def summarize(ws, df: pd.DataFrame | None = None, *, annotators: Iterable[str] | None = None,
              schemes: Iterable[str] | None = None, items: Iterable[str] | None = None, k: int = 1,
              derived: Derived | None = None, disagreements: bool = True, parts: "Parts | None" = None) -> dict:
    """Everything the summary page, `python -m app summary` and the report show (JSON-ready).

    Each scheme's agreement says how many objects annotators disagree on; the records of those
    objects (``disagreements``, a list) are built only when `disagreements` is true, else the
    key holds None and :func:`disagreements` lists one scheme's on demand. So are the records
    the rollups count one by one (LISTINGS: every decisive step, each run's behaviours), else
    listed on demand by :func:`listing`.

    Every part (each scheme's agreement and rollup, the progress, the interaction graph, gold
    accuracy) is counted as a tally (app/tally.py) and finished from it. `parts` (see
    :class:`Parts`) keeps the tallies, with the rows they were counted over: a part whose
    schemes' rows are unchanged is taken again, and one whose rows changed is brought up to
    date by the items that changed (their old counts out, their new ones in), so a summary
    after a few saves spreads and counts those items' rows only. The result then shares what
    is kept with the earlier ones: the caller only reads it. `derived` must then be the
    workspace's own (None).

    Runs with the cyclic garbage collector paused (as derive() does): it allocates hundreds of
    thousands of small acyclic objects, and each collection they trigger walks every live
    object, the cached items and derivations included (a second of a ten-second summary); and
    with BLAS on one thread (app/blas.py)."""
    # (with parts: one summary at a time, Parts.lock)
    with no_gc(), blas.one_thread(), parts.lock if parts is not None else contextlib.nullcontext():
        return _summarize(ws, df, annotators=annotators, schemes=schemes, items=items, k=k, derived=derived,
                          disagreements=disagreements, parts=parts)


# the columns a summary reads (labels.build): a row's other columns (its trace hash, its save
# time) can change without changing any number
READ = ["item_id", "annotator", "scheme", "annotation_type", "status", "seconds_spent", "value"]


def row_hashes(df: pd.DataFrame) -> np.ndarray:
    """A hash of each row's columns a summary reads (see fingerprint())."""
    if not len(df):
        return np.zeros(0, dtype=np.uint64)
    return pd.util.hash_pandas_object(df[READ], index=False).to_numpy()


def scheme_prints(df: pd.DataFrame, hashes: np.ndarray | None = None) -> dict[str, str]:
    """A fingerprint (see fingerprint()) of each scheme's rows, of the columns a summary reads
    (the done marks' under their scheme name, _item)."""
    if not len(df):
        return {}
    rows = row_hashes(df) if hashes is None else hashes
    return {EVERY: _print(rows), **{key[0]: _print(rows[at]) for key, at in groups(df, ["scheme"])}}


ROWS, DISK = ("rows",), ("disk",)  # (keys of Parts.of_filters beside the parts')
# a part is brought up to date by the items that changed while they are at most this share of
# the items (each is counted twice: with its rows before and after); past it, from every row
CHANGED_AT_MOST = 0.25


class Parts:
    """Parts of summaries (see summarize()), each kept with the fingerprints of the schemes'
    rows it was computed from. One per workspace (its items and derivations never change).
    Kept per set of filters (annotators, schemes, items, k), for the newest FILTERS_KEPT sets
    (as many summaries as the summary page keeps: a summary's parts are about its size).
    Sessions of a server share it; one summary at a time uses it (`lock`), from bringing its
    parts up to date to taking what is written to disk.

    With a `folder` (the workspace's own: app/kept.py), the unfiltered summary's parts are
    also kept on disk, written in the background after a summary that changed them, and a new
    process starts from them."""

    FILTERS_KEPT = 4

    @classmethod
    def of(cls, ws) -> "Parts":
        found = ws.__dict__.get("_summary_parts")
        if found is None:
            stamp = getattr(ws, "stamp", "")  # (a workspace read from its files has one)
            found = ws.__dict__["_summary_parts"] = cls(keptmod.folder_of(ws.project.output_dir) if stamp else None,
                                                        stamp)
        return found

    def __init__(self, folder: Path | None = None, stamp: str = ""):
        # filters -> part key -> (prints, part); the filters used last, last
        self._kept: dict[tuple, dict[tuple, tuple[tuple, Any]]] = {}
        self._lock = threading.Lock()
        # what each stored value of a scheme spread into (labels.build's `kept`): a scheme
        # computed again after a save spreads the saved value only
        self.spreads: dict[tuple, dict] = {}
        self.folder, self.stamp = folder, stamp
        # one summary at a time brings the parts up to date, finishes what it shows from them and
        # takes what is written to disk (the spread values are shared by every set of filters)
        self.lock = threading.RLock()
        self._writes = threading.Lock()  # one write to disk at a time
        self._written = 0  # the newest state written (states are numbered as they are made)
        self._made = 0
        self._writer: threading.Thread | None = None
        self._last_write: float | None = None

    def of_filters(self, where: tuple) -> dict[tuple, tuple[tuple, Any]]:
        """The parts kept under these filters (made the newest), with under ROWS the rows they
        were computed from (app/counted.py Counted). The unfiltered summary's start from the
        disk's when this process has none (their tallies and rows read when first needed).
        Callers hold `lock` while they use them."""
        with self._lock:
            found = self._kept.pop(where, None)
            if found is None:
                found = {}
                state = (keptmod.load(self.folder, self.stamp, where) if self.folder is not None and _on_disk(where)
                         else None)
                if state is not None:
                    found.update((key, (mark, keptmod.LAZY)) for key, mark in state["marks"].items())
                    found.update((("finished",) + key, got) for key, got in state["finished"].items())
                    found[DISK] = state
            self._kept[where] = found
            while len(self._kept) > self.FILTERS_KEPT:
                del self._kept[next(iter(self._kept))]
            return found

    def read_tallies(self, kept: dict, items: pd.Index, names: pd.Index) -> None:
        """The tallies and rows of parts read from disk (counted over these items and schemes), in
        place of their LAZY marks; parts whose files are gone are dropped (computed again from
        every row)."""
        state = kept.pop(DISK, None)
        if state is None:
            return
        rest = keptmod.load_rest(self.folder, state, items, names)
        lazy = [key for key, v in kept.items() if isinstance(v, tuple) and len(v) == 2 and v[1] is keptmod.LAZY]
        if rest is None:
            for key in lazy:
                del kept[key]
            return
        tallies, counted = rest
        for key in lazy:
            if key in tallies:
                kept[key] = (kept[key][0], tallies[key])
            else:
                del kept[key]
        kept[ROWS] = counted

    # seconds between two writes of one project's parts: a large store's state is tens of MB,
    # and a summary page computing again after every re-read that found a save would otherwise
    # rewrite it every few seconds (a state left older only costs the next process the items
    # changed since)
    WRITE_EVERY = 60.0

    def write(self, where: tuple, kept: dict, keys: list[tuple]) -> None:
        """Writes the unfiltered summary's parts (these keys) to disk in the background, at most
        once every WRITE_EVERY seconds."""
        if self.folder is None or not _on_disk(where) or ROWS not in kept:
            return
        now = time.monotonic()
        if self._last_write is not None and now - self._last_write < self.WRITE_EVERY:
            return
        self._last_write = now
        parts = {key: kept[key] for key in keys}
        finished = {key[1:]: got for key, got in kept.items() if key[0] == "finished" and key[1:] in parts}
        counted = kept[ROWS]
        self._made += 1  # (summaries, which call this, hold `lock`: one at a time)
        number = self._made

        def run():
            with self._writes:
                if number <= self._written:
                    return  # (a newer state was written already)
                try:
                    keptmod.save(self.folder, self.stamp, where, parts, finished, counted, READ)
                    self._written = number
                except Exception as e:  # noqa: BLE001 (a cache: the numbers are computed from the rows without it)
                    logging.getLogger(__name__).warning("could not keep the summary's parts in %s: %s",
                                                        self.folder, e)
        self._writer = threading.Thread(target=run, name="baton-summary-kept", daemon=True)
        self._writer.start()

    def flush(self) -> None:
        """Waits for the newest write to disk to finish."""
        if self._writer is not None:
            self._writer.join()

    def on_disk(self, k: int = 1) -> bool:
        """Whether the unfiltered summary's parts (decisive steps within k) are kept on disk
        for this workspace (after flush(): what was last written)."""
        return (self.folder is not None
                and keptmod.load(self.folder, self.stamp, _where(None, None, None, k)) is not None)


def _where(annotators, schemes, item_ids, k: int) -> tuple:
    """The key of a summary's filters among the parts kept (item_ids None: every item)."""
    return (tuple(annotators) if annotators else None, tuple(schemes) if schemes else None,
            None if item_ids is None else tuple(item_ids), k)


def _on_disk(where: tuple) -> bool:
    """Whether parts under these filters are kept on disk: the unfiltered summary's only."""
    return where[:3] == (None, None, None)


# the rollup of each type: (its section of the summary, its tally, how it is finished)
ROLLUPS = {
    "agent_scorecard": ("scorecards", lambda lab, s, der: scorecards_tally(lab, s), scorecards_from),
    "failure_attribution": ("attribution", attribution_tally, attribution_from),
    "handoff_review": ("handoffs", handoffs_tally, handoffs_from),
    "tool_contention": ("contention", contention_tally, contention_from),
    "emergent_behavior": ("emergent", lambda lab, s, der: emergent_tally(lab, s), emergent_from),
    "tool_call_review": ("tool_verdicts", lambda lab, s, der: tool_verdicts_tally(lab, s), tool_verdicts_from),
    "trajectory_eval": ("mast", mast_tally, mast_from),
    **{t: ("choices", lambda lab, s, der: choices_tally(lab, s), choices_from)
       for t in ("radio", "multiselect", "likert")},
}
SECTIONS = ["scorecards", "attribution", "handoffs"]  # then interaction
SECTIONS_AFTER = ["contention", "emergent", "tool_verdicts", "mast", "choices"]


def _up_to_date(kept: dict, df: pd.DataFrame, specs: list, by_name: dict, spreads: dict, item_ids: list,
                found: dict, listed: bool, read_tallies, shown: list) -> tuple[Labels, bool]:
    """Brings the parts kept (Parts.of_filters) to the rows df, into found: a part whose rows are
    unchanged is taken as kept; one whose rows changed is brought up to date by the items whose
    rows changed (its tally with their rows before taken out, with their rows now put in) while
    they are few, else computed from every row. Returns the Labels of df (spread for the parts
    computed from every row only; None when none was) and whether any part changed.
    `read_tallies(kept, items, names)` reads the tallies of parts kept on disk
    (Parts.read_tallies) when a part or what the summary shows (`shown`: its key among the
    finished parts, the parts it is made from) is to be computed."""
    hashes = row_hashes(df)
    prints = scheme_prints(df, hashes)
    items_ix = pd.Index(item_ids, dtype=object)
    # (the done marks apart: the progress reads them, and a change to one counts by its item)
    names = pd.Index(sorted({n for _key, reads, _fn in specs for n in reads if n != EVERY} | {DONE}), dtype=object)
    if DISK in kept:  # parts kept on disk: their tallies are read when one is to be computed again
        marks = {key: tuple(prints.get(n) for n in reads) for key, reads, _fn in specs}
        if any(kept.get(key, (None,))[0] != mark for key, mark in marks.items()) or any(
                kept.get(("finished",) + key, (None,))[0] != tuple(marks[x] for x in inputs) for key, inputs in shown):
            read_tallies(kept, items_ix, names)
    stale = []
    for key, reads, fn in specs:
        mark = tuple(prints.get(n) for n in reads)
        part = kept.get(key)
        if part is not None and part[0] == mark:
            found[key] = part[1]
        else:
            stale.append((key, reads, fn, mark, part))
    before = kept.get(ROWS)
    if before is not None and not before.fits(items_ix, names):
        before = None
    rows_now = Counted(df, items_ix, names, hashes=hashes)
    changes, ids = None, []
    if before is not None and stale and not listed:
        changes = Changes(rows_now.sums(), before.sums(), items_ix, names)
        ids = changes.items({n for x in stale for n in x[1]})
    by_items = (changes is not None and not changes.outside
                and len(ids) <= CHANGED_AT_MOST * max(len(item_ids), 1))
    step = [x for x in stale if by_items and x[4] is not None]
    then = None
    if step:
        try:  # (the rows before, kept on disk: a file that cannot be read counts every row again)
            then = before.of(ids, row_hashes)
        except Exception as e:  # noqa: BLE001
            logging.getLogger(__name__).warning("could not read the rows of the last summary: %s", e)
            by_items, step = False, []
    whole = [x for x in stale if not by_items or x[4] is None]
    lab = None  # (no part counted from every row: no row spread)
    if whole:
        lab = build(df, by_name, spread={n for x in whole for n in x[1]} - {EVERY}, kept=spreads)
        trace_columns.cover(lab.memo, item_ids)
    # (kept only once every part is counted, with the rows: a part that raises leaves the parts
    # and their rows as they were)
    counted = {}
    for key, _reads, fn, mark, _part in whole:
        counted[key] = (mark, fn(lab, item_ids))
    if step:
        now = df[df["item_id"].isin(ids)]
        # A part that reads one scheme counts an item from that scheme's rows alone (its mark
        # says so): where they did not change, the item's counts before and now cancel, so it is
        # counted over the rows of the changed (item, scheme) pairs only. A part reading several
        # schemes, or every row, may count across them (distinct items per annotator) and is
        # counted over every row of the changed items. (Two builds, not one per scheme: each
        # build has a fixed cost, which made a build per group of schemes slower.) The four
        # builds take what values spread into from the values kept and from each other (the rows
        # before and now share most values), on a copy: a build keeps what its own rows spread
        # into, and these rows are a few items'.
        one = [len(x[1]) == 1 and EVERY not in x[1] for x in step]
        shared = dict(spreads)  # (build() rebinds a scheme's values, never changes them)
        for group, pick in (([x for x, o in zip(step, one) if o], changes.rows),
                            ([x for x, o in zip(step, one) if not o], None)):
            if not group:
                continue
            reads = {n for x in group for n in x[1]} - {EVERY}
            pair = []
            for rows in (then, now):
                lab_of = build(rows[pick(rows)] if pick is not None else rows, by_name, spread=reads, kept=shared)
                trace_columns.cover(lab_of.memo, ids)
                pair.append(lab_of)
            for key, _reads, fn, mark, part in group:
                counted[key] = (mark, merge(merge(part[1], fn(pair[0], ids), -1), fn(pair[1], ids)))
    kept.update(counted)
    found.update((key, got[1]) for key, got in counted.items())
    kept[ROWS] = rows_now
    # every part kept now follows these rows: one of another kind of summary (the records of
    # disagreements listed, or not) does not, and is dropped
    ours = {key for key, _reads, _fn in specs}
    for key in [x for x in kept if x not in ours and x not in (ROWS, DISK) and x[0] != "finished"]:
        del kept[key]
    return lab, bool(stale)


def _summarize(ws, df, *, annotators, schemes, items, k, derived, disagreements, parts) -> dict:
    if df is None:
        df = load(ws)
    # (an item named twice is one item)
    item_ids = [it.id for it in ws.items] if items is None else list(dict.fromkeys(items))
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

    # every part, as a tally (app/tally.py): (key, the schemes whose rows it reads, how it is
    # counted from the spread tables)
    specs = []
    for s in chosen:
        # (the records of what annotators disagree on are listed beside the tally when asked)
        specs.append((("agreement", s.name, disagreements), (s.name,),
                      lambda lab, ids, s=s: _agreement_tally(lab, s, der, k, handoff_judgements=_handoff_judgements,
                                                             listed=True) if disagreements else
                      _agreement_tally(lab, s, der, k, handoff_judgements=_handoff_judgements, listed=False)[0]))
        if s.type in ROLLUPS:
            specs.append((("rollup", s.name), (s.name,), lambda lab, ids, s=s: ROLLUPS[s.type][1](lab, s, der)))
    # the interaction graph from a part per side, each read again only when its schemes' rows change
    specs.append((("graph_marks",), tuple(x.name for x in graphs), lambda lab, ids: graph_marks(lab, graphs)))
    for s in reviews:
        specs.append((("handoff_flags", s.name), (s.name,), lambda lab, ids, s=s: handoff_flags(lab, s, der)))
    specs.append((("interaction",), tuple(x.name for x in graphs),
                  lambda lab, ids: interaction_tally(lab, der, ids, graphs, reviews)))
    gold_from_ = ([att_schemes[0]] if att_schemes else []) + steps
    specs.append((("gold",), tuple(x.name for x in gold_from_),
                  lambda lab, ids: gold_tally(lab, ws, ids, att_schemes[0] if att_schemes else None, steps, k)))
    # the progress reads every row (its mark: every row's print), and spreads no value
    specs.append((("progress",), (EVERY,), lambda lab, ids: progress_tally(lab)))
    sides = [("interaction",), ("graph_marks",)] + [("handoff_flags", s.name) for s in reviews]
    found: dict[tuple, Any] = {}
    if parts is None:
        lab = build(df, by_name)
        trace_columns.cover(lab.memo, item_ids)
        found = {key: fn(lab, item_ids) for key, _reads, fn in specs}
        kept = None
    else:
        where = _where(annotators, schemes, None if items is None else item_ids, k)
        kept = parts.of_filters(where)
        # what each value spread into, updated by unfiltered summaries only (a filtered one
        # sees a subset of the values: it reads a copy)
        filtered = annotators or schemes or items is not None
        spreads = dict(parts.spreads) if filtered else parts.spreads
        # what the summary shows: (its key among the finished parts, the parts it is made from)
        shown = [((key[0], key[1]), [key]) for key, _r, _f in specs if key[0] == "rollup"]
        shown += [(("interaction",), sides), (("gold",), [("gold",)]), (("progress",), [("progress",)])]
        shown += [(key, [key]) for key, _r, _f in specs if key[0] == "agreement"]
        lab, changed = _up_to_date(kept, df, specs, by_name, spreads, item_ids, found, listed=disagreements,
                                   read_tallies=parts.read_tallies, shown=shown)

    def finished(key: tuple, inputs: list[tuple], fn):
        """fn() of the tallies of `inputs`, kept with the parts while they are unchanged."""
        if kept is None:
            return fn()
        mark = tuple(kept[x][0] for x in inputs)
        got = kept.get(("finished",) + key)
        if got is None or got[0] != mark:
            got = kept[("finished",) + key] = (mark, fn())
        return got[1]

    wanted = set(item_ids)
    configured = [s.name for s in project.schemes]
    prog = dict(finished(("progress",), [("progress",)],
                         lambda: clean(progress_from(found[("progress",)], len(item_ids), configured))))
    counts = {"items": len(item_ids), "annotators": prog.pop("annotators"), "judgements": prog.pop("judgements"),
              "items_with_gold": sum(1 for it in ws.items if it.id in wanted and goldmod.normalize(it.gold))}
    out = {
        "project": project.name,
        "filters": clean({"annotators": list(annotators) if annotators else None,
                          "schemes": list(schemes) if schemes else None,
                          "items": None if items is None else len(item_ids), "k": k}),
        "counts": counts,
        "progress": prog,
    }
    rollups = {section: {} for section in SECTIONS + SECTIONS_AFTER}
    for s in chosen:
        if s.type in ROLLUPS:
            section, _, finish = ROLLUPS[s.type]
            key = ("rollup", s.name)
            rollups[section][s.name] = finished(key, [key], lambda: clean(finish(found[key], s)))
    if disagreements:  # (listed: the records counted too, each run's behaviours and every decisive step)
        for s in chosen:
            for what, (t, fn) in LISTINGS.items():
                if s.type == t:
                    section = ROLLUPS[t][0]
                    # (the Labels of a summary from kept parts spread only the parts it computed)
                    records = fn(lab if kept is None else _scheme_labels(df, s, item_ids), s, der)
                    # (the keys in the order they always had: the runs first, the positions last)
                    part = rollups[section][s.name]
                    rollups[section][s.name] = {what: records, **part} if what == "per_run" else {**part, what: records}
    out.update((section, rollups[section]) for section in SECTIONS)
    out["interaction"] = finished(("interaction",), sides, lambda: clean(interaction(
        found[("interaction",)], found[("graph_marks",)], [found[("handoff_flags", s.name)] for s in reviews])))
    out.update((section, rollups[section]) for section in SECTIONS_AFTER)
    out["agreement"] = {}
    for s in chosen:
        key = ("agreement", s.name, disagreements)
        tally = found[key][0] if disagreements else found[key]
        out["agreement"][s.name] = finished(key, [key], lambda: clean(_agreement_from(tally, s, k)))
    g = finished(("gold",), [("gold",)],
                 lambda: gold_from(found[("gold",)], att_schemes[0] if att_schemes else None, k))
    out["gold"] = g["by_annotator"]
    out["gold_detail"] = {"scheme": g["scheme"], "items_with_gold": g["items_with_gold"],
                          "confusion": g["confusion"], "items": g["items"]}
    out["disagreements"] = ([r for s in chosen for r in found[("agreement", s.name, disagreements)][1]]
                            if disagreements else None)
    if kept is not None and changed and not disagreements:  # (the parts and what they showed, kept on disk)
        parts.write(where, kept, [key for key, _r, _f in specs])
    return out
