"""Agreement between annotators, from long tables of judgements.

A judgement table has one row per (unit, rater): ``unit`` (an integer code: an item, a handoff,
a step, an agent × dimension), ``rater`` (the annotator's name) and ``value``. A unit judged by
fewer than two raters says nothing about agreement and is left out. Units are listed in the
order of their codes, raters by name.

Coefficients (each None, never NaN, when undefined; the result then says why in ``note``):

- **Cohen's kappa** for exactly two raters, ``(p_o - p_e) / (1 - p_e)`` with each rater's own
  margins (Cohen 1960); **Fleiss' kappa** otherwise, units may have different numbers of
  raters (Fleiss 1971).
- **Krippendorff's alpha**, nominal, ordinal or interval, from the ``krippendorff`` package
  on the units × values counts (Krippendorff 2011).
- **Percent agreement**: the mean over units of the share of agreeing rater pairs.
- **Jaccard** ``|A ∩ B| / |A ∪ B|`` of two raters' sets, averaged over pairs then units; two
  empty sets agree.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any, Callable

import krippendorff
import numpy as np
import pandas as pd

NO_PAIRS = "no unit was judged by two or more annotators: no agreement to compute"
NO_VARIATION = "every judgement is in one category: chance-corrected agreement is undefined"
JUDGEMENT_COLUMNS = ["unit", "rater", "value"]


def judgements(unit, rater, value) -> pd.DataFrame:
    """A judgement table of three equal-length columns; the last judgement per (unit, rater) wins."""
    numbers = isinstance(value, np.ndarray) and value.dtype.kind in "fb"  # (kept as they are: no objects to make)
    table = pd.DataFrame({"unit": np.asarray(unit, dtype=np.int64), "rater": pd.Series(rater, dtype=object).values,
                          "value": value if numbers else pd.Series(value, dtype=object).values})
    return table.iloc[_last_of_each(_pair_keys(table["unit"], table["rater"].to_numpy())[0])]


def _pair_keys(unit, *raters: np.ndarray) -> tuple[np.ndarray, ...]:
    """(unit * width + rater code for the first rater column, width, the rater codes of each
    further column): the raters of every column coded together, so that keys built from any of
    them compare."""
    codes, names = pd.factorize(np.concatenate(raters) if len(raters) > 1 else raters[0])
    width = max(len(names), 1)
    out, start = [], 0
    for column in raters:
        out.append(codes[start:start + len(column)].astype(np.int64))
        start += len(column)
    return tuple([np.asarray(unit, dtype=np.int64) * width + out[0], width] + out[1:])


def _last_of_each(keys: np.ndarray) -> np.ndarray:
    """Positions of the last occurrence of each key, in their order."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    _, first_from_end = np.unique(keys[::-1], return_index=True)
    return np.sort(len(keys) - 1 - first_from_end)


def with_default(given: pd.DataFrame, panel: pd.DataFrame, default: Any) -> pd.DataFrame:
    """`given` plus `default` for every (unit, rater) of `panel` who gave nothing: an annotator
    who judged an item and left one of its objects alone gave that object the default value
    ("normal" edge, "unlabelled" region, untagged step)."""
    given_raters, panel_raters = given["rater"].to_numpy(dtype=object), panel["rater"].to_numpy(dtype=object)
    given_keys, width, panel_codes = _pair_keys(given["unit"], given_raters, panel_raters)
    last = _last_of_each(given_keys)
    given, given_keys = given.iloc[last], given_keys[last]
    panel_keys = panel["unit"].to_numpy(dtype=np.int64) * width + panel_codes
    silent = panel[~np.isin(panel_keys, given_keys)]
    if silent.empty:
        return given
    filler = pd.DataFrame({"unit": silent["unit"].to_numpy(dtype=np.int64), "rater": silent["rater"].to_numpy(dtype=object),
                           "value": pd.Series([default] * len(silent), dtype=object).to_numpy()})
    return pd.concat([given, filler], ignore_index=True)


def _pairable(table: pd.DataFrame) -> pd.DataFrame:
    """The judgements of units with two or more raters."""
    unit = table["unit"].to_numpy(dtype=np.int64)
    if not len(unit):
        return table
    return table[np.bincount(unit)[unit] >= 2]


def _counts(table: pd.DataFrame) -> tuple[np.ndarray, list, np.ndarray]:
    """(units × values counts, the values, each row's unit code) of a pairable table."""
    unit_code, units = pd.factorize(table["unit"], sort=True)
    value_code, values = pd.factorize(_plain(table["value"]), use_na_sentinel=False)
    return _count_matrix(unit_code, len(units), value_code, len(values)), list(values), np.asarray(units)


def _plain(column: pd.Series) -> np.ndarray:
    """A value column as numpy: numbers and booleans as they are, anything else as objects."""
    raw = column.to_numpy()
    return raw if raw.dtype.kind in "fbi" else column.to_numpy(dtype=object)


def _count_matrix(unit_code: np.ndarray, n_units: int, value_code: np.ndarray, n_values: int) -> np.ndarray:
    """units × values: how many judgements gave each value to each unit."""
    flat = np.bincount(unit_code * n_values + value_code, minlength=n_units * n_values)
    return flat.reshape(n_units, n_values).astype(np.float64)


def _agreeing_pairs(n: np.ndarray) -> np.ndarray:
    """Per unit, the share of its rater pairs that agree."""
    m = n.sum(axis=1)
    return (np.square(n).sum(axis=1) - m) / (m * (m - 1))


def alpha(n: np.ndarray, values: list, level: str) -> float | None:
    """Krippendorff's alpha of a units × values count matrix (None: one value only)."""
    used = n.sum(axis=0) > 0
    if used.sum() < 2:
        return None
    n = n[:, used]
    domain = [v for v, u in zip(values, used) if u]
    if level != "nominal":
        order = np.argsort(np.asarray(domain, dtype=np.float64), kind="stable")
        n, domain = n[:, order], [float(domain[i]) for i in order]
    else:
        domain = list(range(len(domain)))  # (the package compares values: codes are enough)
    return float(krippendorff.alpha(value_counts=n, value_domain=domain, level_of_measurement=level))


def _no_pairs(table: pd.DataFrame) -> dict:
    return {"measure": None, "kappa": None, "alpha": None, "percent_agreement": None, "n_units": 0,
            "n_raters": int(table["rater"].nunique()), "note": NO_PAIRS}


def nominal(table: pd.DataFrame) -> dict:
    """Agreement on categories: Cohen's kappa (two raters) or Fleiss', Krippendorff's nominal
    alpha and the percent agreement."""
    pairable = _pairable(table)
    if pairable.empty:
        return _no_pairs(table)
    unit_code, units = pd.factorize(pairable["unit"], sort=True)
    value_code, values = pd.factorize(_plain(pairable["value"]), use_na_sentinel=False)
    rater_code, raters = pd.factorize(pairable["rater"].to_numpy(dtype=object))
    return _nominal(unit_code, len(units), value_code, len(values), rater_code, len(raters))


def _nominal(unit_code: np.ndarray, n_units: int, value_code: np.ndarray, n_values: int,
             rater_code: np.ndarray, n_raters: int) -> dict:
    """nominal() of judgements given as codes: each row's unit (0..n_units-1, every unit judged
    by two or more raters), value and rater."""
    n = _count_matrix(unit_code, n_units, value_code, n_values)
    out: dict[str, Any] = {"n_units": n_units, "n_raters": n_raters,
                           "percent_agreement": float(_agreeing_pairs(n).mean()),
                           "alpha": alpha(n, list(range(n_values)), "nominal")}
    if n_raters == 2:
        # Cohen: each of the two raters judged every unit; chance from each rater's own margins
        margins = np.bincount(rater_code * n_values + value_code, minlength=2 * n_values).reshape(2, n_values)
        p_o = float((n.max(axis=1) == n.sum(axis=1)).sum()) / n_units
        p_e = float((margins[0] * margins[1]).sum()) / (n_units * n_units)
        out.update(measure="cohen_kappa", kappa=None if np.isclose(p_e, 1.0) else (p_o - p_e) / (1 - p_e))
    else:
        p_j = n.sum(axis=0) / n.sum()
        p_e = float(np.square(p_j).sum())
        p_bar = out["percent_agreement"]
        out.update(measure="fleiss_kappa", kappa=None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1 - p_e))
    if out["kappa"] is None:
        out["note"] = NO_VARIATION
    return out


def _numbers(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(value=pd.to_numeric(table["value"], errors="coerce").astype(np.float64))


def _pair_sums(n: np.ndarray, x: np.ndarray, weight: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Per unit, Σ over rater pairs giving different values of weight(|x_i - x_j|), both orders."""
    gap = np.abs(x[:, None] - x[None, :])
    return np.einsum("ui,ij,uj->u", n, weight(gap) * (gap > 0), n)


def ordinal(table: pd.DataFrame, level: str = "ordinal") -> dict:
    """Agreement on numbers: Krippendorff's alpha (ordinal by default), exact agreement and the
    mean absolute difference between two raters' numbers for a unit."""
    measure = f"krippendorff_alpha_{level}"
    pairable = _pairable(_numbers(table))
    if pairable.empty:
        return {"measure": measure, "alpha": None, "percent_agreement": None, "mean_abs_diff": None, "n_units": 0,
                "n_raters": int(table["rater"].nunique()), "note": NO_PAIRS}
    n, values, _units = _counts(pairable)
    x = np.asarray(values, dtype=np.float64)
    m = n.sum(axis=1)
    a = alpha(n, values, level)
    out = {"measure": measure, "alpha": a, "percent_agreement": float(_agreeing_pairs(n).mean()),
           "mean_abs_diff": float((_pair_sums(n, x, lambda g: g) / (m * (m - 1))).mean()),
           "n_units": len(n), "n_raters": int(pairable["rater"].nunique())}
    if a is None:
        out["note"] = NO_VARIATION
    return out


def within(table: pd.DataFrame, k: int) -> dict:
    """The share of rater pairs whose numbers are equal, and within ±k, averaged over units."""
    pairable = _pairable(_numbers(table))
    if pairable.empty:
        return {"exact": None, "within_k": None, "k": k, "n_units": 0, "note": NO_PAIRS}
    n, values, _units = _counts(pairable)
    x = np.asarray(values, dtype=np.float64)
    m = n.sum(axis=1)
    near = _pair_sums(n, x, lambda g: (g <= k).astype(np.float64))
    exact = _agreeing_pairs(n)
    return {"exact": float(exact.mean()), "within_k": float((exact + near / (m * (m - 1))).mean()), "k": k,
            "n_units": len(n)}


def jaccard(table: pd.DataFrame) -> dict:
    """Mean over units (two or more raters) of the mean Jaccard over rater pairs; a table of
    (unit, rater, value) where value is a frozenset."""
    pairable = _pairable(table)
    if pairable.empty:
        return {"jaccard": None, "n_units": 0, "note": NO_PAIRS}
    # raters giving the same set agree completely: each distinct pair of sets is measured once
    unit_code, _units = pd.factorize(pairable["unit"], sort=True)
    set_code, sets = pd.factorize(pairable["value"].to_numpy(dtype=object))
    width = len(sets)
    given, how_many = np.unique(unit_code.astype(np.int64) * width + set_code, return_counts=True)
    unit_of, set_of = given // width, given % width
    raters = np.bincount(unit_of, weights=how_many)
    same = np.bincount(unit_of, weights=how_many * (how_many - 1) / 2)
    across = np.zeros(len(raters))
    several = np.flatnonzero(np.bincount(unit_of) > 1)  # (units where raters gave different sets)
    starts = np.searchsorted(unit_of, several)
    ends = np.searchsorted(unit_of, several, side="right")
    measured: dict[tuple[int, int], float] = {}
    for unit, start, end in zip(several.tolist(), starts.tolist(), ends.tolist()):
        codes, counts = set_of[start:end].tolist(), how_many[start:end].tolist()
        total = 0.0
        for i in range(len(codes)):
            for j in range(i + 1, len(codes)):
                pair = (codes[i], codes[j])
                if pair not in measured:
                    measured[pair] = _jaccard(sets[codes[i]], sets[codes[j]])
                total += counts[i] * counts[j] * measured[pair]
        across[unit] = total
    per_unit = (same + across) / (raters * (raters - 1) / 2)
    return {"jaccard": float(per_unit.mean()), "n_units": len(per_unit)}


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if (a or b) else 1.0


def sets_of(unit, rater, member) -> pd.DataFrame:
    """One row per (unit, rater) holding the frozenset of its members (missing members dropped),
    sorted by unit then rater."""
    members = pd.Series(member, dtype=object).to_numpy()
    present = pd.notna(members)
    units = np.asarray(unit, dtype=np.int64)[present]
    rater_code, raters = pd.factorize(pd.Series(rater, dtype=object).to_numpy()[present], sort=True)
    key = units * max(len(raters), 1) + rater_code
    order = np.argsort(key, kind="stable")
    key, members = key[order], members[present][order].tolist()
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, dtype=np.int64)
    bounds = np.r_[starts, len(key)].tolist()
    return pd.DataFrame({"unit": pd.Series(units[order][starts], dtype=np.int64),
                         "rater": pd.Series(np.asarray(raters, dtype=object)[rater_code[order][starts]], dtype=object),
                         "value": pd.Series([frozenset(members[a:b]) for a, b in zip(bounds[:-1], bounds[1:])],
                                            dtype=object)})


def marked(marks: pd.DataFrame, panel: pd.DataFrame) -> dict:
    """Agreement on whether each panel rater marked each unit (a step tagged with a mode, a
    label chosen): `marks` holds the (unit, rater) pairs marked."""
    return marked_each(marks[["unit", "rater"]].assign(marked=True), panel, "marked", [True])[True]


def differing(table: pd.DataFrame, gap: float | None = None) -> list[int]:
    """Units judged by two or more raters who differ (numbers: by `gap` or more), in unit order."""
    pairable = _pairable(table)
    if pairable.empty:
        return []
    unit = pairable["unit"].to_numpy(dtype=np.int64)
    if gap is None:
        codes, _ = pd.factorize(pairable["value"].to_numpy(dtype=object), use_na_sentinel=False)
        pairs = np.unique(unit * (int(codes.max()) + 1) + codes)  # each (unit, value) once
        per_unit = np.bincount(pairs // (int(codes.max()) + 1))
        return np.flatnonzero(per_unit > 1).tolist()
    x = pd.to_numeric(pairable["value"], errors="coerce").to_numpy(dtype=np.float64)
    high = np.full(int(unit.max()) + 1, -np.inf)
    low = np.full(int(unit.max()) + 1, np.inf)
    np.maximum.at(high, unit, x)
    np.minimum.at(low, unit, x)
    return np.flatnonzero(high - low >= gap).tolist()


class Disagreements:
    """The objects of one scheme that annotators disagree on: counted always, listed (a record
    each naming the item, the object and every annotator's value) when asked."""

    def __init__(self, scheme: str, listed: bool):
        self.scheme, self.listed = scheme, listed
        self.count = 0
        self.records: list[dict] = []

    def add(self, table: pd.DataFrame, describe: Callable[[int], tuple[str, str]], kind: str,
            show: Callable[[Any], str] = str, gap: float | None = None) -> None:
        """Counts (and lists) the differing units of a judgement table; describe(unit) gives
        the unit's (item id, object)."""
        units = differing(table, gap)
        self.count += len(units)
        if not self.listed or not units:
            return
        chosen = table[table["unit"].isin(units)].sort_values(["unit", "rater"], kind="stable")
        unit_of, raters, values = (chosen[c].tolist() for c in ("unit", "rater", "value"))
        start = 0
        for end in range(1, len(unit_of) + 1):
            if end == len(unit_of) or unit_of[end] != unit_of[start]:
                item, obj = describe(int(unit_of[start]))
                shown = "; ".join(f"{r}: {show(v)}" for r, v in zip(raters[start:end], values[start:end]))
                self.records.append({"item_id": item, "scheme": self.scheme, "kind": kind, "object": obj,
                                     "judgements": shown})
                start = end


def show_set(values) -> str:
    """A set of labels as annotators read it in a disagreement."""
    return ", ".join(map(str, values)) if values else "(none)"


def show_number(x) -> str:
    return f"{x:g}"


def marked_each(marks: pd.DataFrame, panel: pd.DataFrame, column: str, labels: list) -> dict:
    """`marked()` for each of `labels` at once: {label: agreement on whether each panel rater
    marked each unit with it}, `marks` holding (unit, rater, column) rows. The same numbers as
    marked(marks[marks[column] == label], panel), with the (unit, rater) pairs coded as
    integers once rather than matched as frames per label (a step review has dozens of modes
    over thousands of steps)."""
    panel_keys, width, mark_raters = _pair_keys(panel["unit"], panel["rater"].to_numpy(dtype=object),
                                                marks["rater"].to_numpy(dtype=object))
    panel_keys = _sorted_distinct(panel_keys)
    mark_keys = marks["unit"].to_numpy(dtype=np.int64) * width + mark_raters
    mark_labels = marks[column].to_numpy(dtype=object)
    on_panel = _CodedPairs(panel_keys, width)
    out = {}
    for label in labels:
        mine = _sorted_distinct(mark_keys[mark_labels == label])
        at = np.searchsorted(panel_keys, mine)
        inside = at < len(panel_keys)
        inside[inside] = panel_keys[at[inside]] == mine[inside]
        if inside.all():  # (the usual case: the pairs are the panel's, coded once for every label)
            value = np.zeros(len(panel_keys), dtype=np.int64)
            value[at] = 1
            out[label] = on_panel.nominal(value)
        else:  # a mark from outside the panel is one more judgement
            every = np.concatenate([panel_keys, mine[~inside]])
            order = np.argsort(every, kind="stable")
            value = np.isin(every, mine, assume_unique=True).astype(np.int64)
            out[label] = _CodedPairs(every[order], width).nominal(value[order])
    return out


class _CodedPairs:
    """Sorted distinct (unit, rater) pairs coded as unit * width + rater, with the codes
    nominal() needs worked out once: a step review asks about dozens of labels on the same pairs."""

    def __init__(self, keys: np.ndarray, width: int):
        unit, rater = keys // width, keys % width
        self.keep = _group_sizes(unit) >= 2
        self.n_all_raters = int((np.bincount(rater, minlength=width) > 0).sum())
        self.unit_code = _dense(unit[self.keep])
        self.n_units = int(self.unit_code[-1]) + 1 if len(self.unit_code) else 0
        kept_raters = rater[self.keep]
        present = np.bincount(kept_raters, minlength=width) > 0
        self.rater_code = (np.cumsum(present) - 1)[kept_raters]
        self.n_raters = int(present.sum())

    def nominal(self, value_code: np.ndarray) -> dict:
        """nominal() of the pairs' values (0: not marked, 1: marked)."""
        if not self.n_units:
            return {"measure": None, "kappa": None, "alpha": None, "percent_agreement": None, "n_units": 0,
                    "n_raters": self.n_all_raters, "note": NO_PAIRS}
        return _nominal(self.unit_code, self.n_units, value_code[self.keep], 2, self.rater_code, self.n_raters)


def _sorted_distinct(keys: np.ndarray) -> np.ndarray:
    ordered = np.sort(keys)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def _dense(sorted_codes: np.ndarray) -> np.ndarray:
    """Sorted integer codes renumbered 0, 1, 2, ... in order."""
    if not len(sorted_codes):
        return sorted_codes.astype(np.int64)
    return np.cumsum(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]) - 1


def _group_sizes(sorted_codes: np.ndarray) -> np.ndarray:
    """For each element of sorted codes, how many elements share its code."""
    if not len(sorted_codes):
        return np.zeros(0, dtype=np.int64)
    dense = _dense(sorted_codes)
    return np.bincount(dense)[dense]
