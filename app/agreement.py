"""Agreement between annotators: chance-corrected coefficients on long-form ratings.

Ratings come as three equal-length sequences, ``units``, ``raters`` and ``values``: one entry
per judgement (a unit is whatever was judged: an item, a handoff, a step, an agent ×
dimension). A unit judged by fewer than two raters carries no information about agreement
and is left out. Everything is computed from a units × categories count matrix with numpy, so
the cost is linear in the number of judgements.

Coefficients (each returns None, never NaN, when it is undefined):

- **Cohen's kappa** (two raters): ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from each rater's
  own marginals (Cohen 1960).
- **Fleiss' kappa** (any number of raters): ``(P̄ - P̄_e) / (1 - P̄_e)`` with
  ``P_i = (Σ_j n_ij² - n_i) / (n_i (n_i - 1))`` and ``p_j = Σ_i n_ij / Σ_i n_i`` (Fleiss 1971).
  Units may have different numbers of raters (each ``P_i`` uses its own ``n_i``); with a
  constant number it is exactly Fleiss' formula.
- **Krippendorff's alpha** (any number of raters, missing values): ``1 - D_o / D_e`` from the
  coincidence matrix ``o_ck = Σ_u (n_uc n_uk - [c=k] n_uc) / (m_u - 1)``, with the nominal,
  ordinal or interval difference function (Krippendorff 2011, "Computing Krippendorff's
  alpha-reliability").
- **Jaccard** overlap ``|A ∩ B| / |A ∪ B|`` of two sets; two empty sets agree (1.0).

A coefficient is undefined when the expected disagreement is zero: every judgement fell in
one category, so agreement cannot be told from chance. The result then says so in ``note``
and gives the raw percent agreement, which is still meaningful.

No Streamlit, no pandas: plain sequences in, plain dicts out.
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Hashable, Iterable, Sequence

import numpy as np

NO_PAIRS = "no unit was judged by two or more annotators: no agreement to compute"
NO_VARIATION = "every judgement is in one category: chance-corrected agreement is undefined"


# --- building blocks ------------------------------------------------------------------------------

def _codes(xs: Sequence[Hashable], order: Sequence[Hashable] | None = None) -> tuple[np.ndarray, list]:
    """Integer codes for xs, and the distinct values in code order (first seen, or `order`)."""
    if order is None:
        index: dict = {}
        codes = [index.setdefault(x, len(index)) for x in xs]
        return np.asarray(codes, dtype=np.int64), list(index)
    index = {x: i for i, x in enumerate(order)}
    return np.asarray([index[x] for x in xs], dtype=np.int64), list(order)


def _dedupe(units, raters, values) -> tuple[list, list, list]:
    """One judgement per (unit, rater): the last one wins; missing values (None/NaN) dropped."""
    last: dict = {}
    for u, r, v in zip(units, raters, values):
        if v is None or (isinstance(v, float) and v != v):
            continue
        last[(u, r)] = v
    us = [k[0] for k in last]
    rs = [k[1] for k in last]
    return us, rs, list(last.values())


def count_matrix(units: Sequence, values: Sequence, categories: Sequence | None = None
                 ) -> tuple[np.ndarray, list, list]:
    """(N, unit ids, categories): N[u, c] = how many raters put unit u in category c."""
    u_codes, unit_ids = _codes(units)
    c_codes, cats = _codes(values, categories)
    n = np.zeros((len(unit_ids), len(cats)), dtype=np.float64)
    if len(u_codes):
        np.add.at(n, (u_codes, c_codes), 1.0)
    return n, unit_ids, cats


def _pairable(n: np.ndarray) -> np.ndarray:
    return n[n.sum(axis=1) >= 2]


def percent_agreement(n: np.ndarray) -> float | None:
    """Mean over units of the share of agreeing rater pairs (units with two or more raters)."""
    n = _pairable(n)
    if not len(n):
        return None
    m = n.sum(axis=1)
    return float(np.mean((np.square(n).sum(axis=1) - m) / (m * (m - 1))))


def fleiss_kappa(n: np.ndarray) -> float | None:
    """Fleiss' kappa from a units × categories count matrix (rows with < 2 raters ignored)."""
    n = _pairable(np.asarray(n, dtype=np.float64))
    if not len(n):
        return None
    m = n.sum(axis=1)
    p_i = (np.square(n).sum(axis=1) - m) / (m * (m - 1))
    p_bar = p_i.mean()
    p_j = n.sum(axis=0) / m.sum()
    p_e = float(np.square(p_j).sum())
    if np.isclose(p_e, 1.0):
        return None
    return float((p_bar - p_e) / (1 - p_e))


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' paired judgements (equal-length sequences)."""
    if len(a) != len(b):
        raise ValueError("cohen_kappa needs paired judgements of equal length")
    if not len(a):
        return None
    cats = list(dict.fromkeys([*a, *b]))
    ca, _ = _codes(a, cats)
    cb, _ = _codes(b, cats)
    p_o = float(np.mean(ca == cb))
    pa = np.bincount(ca, minlength=len(cats)) / len(a)
    pb = np.bincount(cb, minlength=len(cats)) / len(b)
    p_e = float(pa @ pb)
    if np.isclose(p_e, 1.0):
        return None
    return (p_o - p_e) / (1 - p_e)


def _delta2(cats: list, marginals: np.ndarray, level: str) -> np.ndarray:
    k = len(cats)
    if level == "nominal":
        return 1.0 - np.eye(k)
    x = np.asarray(cats, dtype=np.float64)
    if level == "interval":
        return np.square(x[:, None] - x[None, :])
    if level == "ordinal":
        order = np.argsort(x, kind="stable")
        ranked = marginals[order]
        cum = np.concatenate([[0.0], np.cumsum(ranked)])
        d = np.zeros((k, k))
        for i in range(k):
            for j in range(i + 1, k):
                d[i, j] = d[j, i] = (cum[j + 1] - cum[i] - (ranked[i] + ranked[j]) / 2) ** 2
        inv = np.empty(k, dtype=np.int64)
        inv[order] = np.arange(k)
        return d[np.ix_(inv, inv)]
    raise ValueError(f"unknown level of measurement {level!r}; expected nominal, ordinal or interval")


def alpha_from_counts(n: np.ndarray, cats: list, level: str = "nominal") -> float | None:
    """Krippendorff's alpha from a units × values count matrix and the values of its columns."""
    n = _pairable(np.asarray(n, dtype=np.float64))
    if not len(n):
        return None
    m = n.sum(axis=1)
    w = 1.0 / (m - 1)
    o = (n * w[:, None]).T @ n - np.diag((n * w[:, None]).sum(axis=0))
    n_c = o.sum(axis=1)
    total = n_c.sum()
    if total <= 1:
        return None
    d2 = _delta2(cats, n_c, level)
    d_o = float((o * d2).sum() / total)
    d_e = float((np.outer(n_c, n_c) * d2).sum() / (total * (total - 1)))
    if np.isclose(d_e, 0.0):
        return None
    return 1.0 - d_o / d_e


def krippendorff_alpha(units_values: Iterable[Iterable[Any]], level: str = "nominal") -> float | None:
    """Alpha from a list of units, each the list of values its raters gave (None = missing)."""
    us, vs = [], []
    for i, values in enumerate(units_values):
        for v in values:
            if v is None or (isinstance(v, float) and v != v):
                continue
            us.append(i)
            vs.append(v)
    cats = sorted(set(vs)) if level != "nominal" else None
    n, _, cats = count_matrix(us, vs, cats)
    return alpha_from_counts(n, cats, level)


def jaccard(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """|A ∩ B| / |A ∪ B|; two empty sets agree completely (1.0)."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def mean_pairwise_jaccard(sets_by_unit: dict[Hashable, dict[Hashable, Iterable]]) -> dict:
    """Mean over units (with two or more raters) of the mean Jaccard over rater pairs.

    Identical sets are grouped first (pairs within a group agree completely), so the cost grows
    with the number of distinct sets per unit, not with the square of the raters."""
    per_unit = []
    for by_rater in sets_by_unit.values():
        counts: dict[frozenset, int] = {}
        for x in by_rater.values():
            f = frozenset(x)
            counts[f] = counts.get(f, 0) + 1
        m = sum(counts.values())
        if m < 2:
            continue
        distinct = list(counts.items())
        total = sum(c * (c - 1) / 2 for _, c in distinct)
        for (a, ca), (b, cb) in combinations(distinct, 2):
            total += jaccard(a, b) * ca * cb
        per_unit.append(total / (m * (m - 1) / 2))
    if not per_unit:
        return {"jaccard": None, "n_units": 0, "note": NO_PAIRS}
    return {"jaccard": float(np.mean(per_unit)), "n_units": len(per_unit)}


# --- measures with their context --------------------------------------------------------------------

def _raters_per_unit(units, raters) -> tuple[dict, set]:
    by_unit: dict = {}
    for u, r in zip(units, raters):
        by_unit.setdefault(u, set()).add(r)
    shared = {u for u, rs in by_unit.items() if len(rs) >= 2}
    return by_unit, shared


def nominal(units: Sequence, raters: Sequence, values: Sequence) -> dict:
    """Agreement on categories: Cohen's kappa for exactly two annotators, Fleiss' otherwise,
    plus Krippendorff's nominal alpha and the percent agreement."""
    units, raters, values = _dedupe(units, raters, values)
    by_unit, shared = _raters_per_unit(units, raters)
    keep = [i for i, u in enumerate(units) if u in shared]
    if not keep:
        return {"measure": None, "kappa": None, "alpha": None, "percent_agreement": None,
                "n_units": 0, "n_raters": len(set(raters)), "note": NO_PAIRS}
    us = [units[i] for i in keep]
    rs = [raters[i] for i in keep]
    vs = [values[i] for i in keep]
    who = sorted(set(rs), key=str)
    n, _, cats = count_matrix(us, vs)
    out: dict[str, Any] = {"n_units": int(len(shared)), "n_raters": len(who),
                           "percent_agreement": percent_agreement(n),
                           "alpha": alpha_from_counts(n, cats, "nominal")}
    if len(who) == 2:
        pairs: dict = {}
        for u, r, v in zip(us, rs, vs):
            pairs.setdefault(u, {})[r] = v
        a = [p[who[0]] for p in pairs.values()]
        b = [p[who[1]] for p in pairs.values()]
        out.update(measure="cohen_kappa", kappa=cohen_kappa(a, b))
    else:
        out.update(measure="fleiss_kappa", kappa=fleiss_kappa(n))
    if out["kappa"] is None:
        out["note"] = NO_VARIATION
    return out


def ordinal(units: Sequence, raters: Sequence, values: Sequence, level: str = "ordinal") -> dict:
    """Agreement on ordered scores: Krippendorff's alpha (ordinal by default), exact agreement
    and the mean absolute difference between two annotators' scores of a unit."""
    units, raters, values = _dedupe(units, raters, values)
    _, shared = _raters_per_unit(units, raters)
    keep = [i for i, u in enumerate(units) if u in shared]
    if not keep:
        return {"measure": f"krippendorff_alpha_{level}", "alpha": None, "percent_agreement": None,
                "mean_abs_diff": None, "n_units": 0, "n_raters": len(set(raters)), "note": NO_PAIRS}
    us = [units[i] for i in keep]
    vs = [float(values[i]) for i in keep]
    cats = sorted(set(vs))
    n, _, cats = count_matrix(us, vs, cats)
    x = np.asarray(cats)
    m = n.sum(axis=1)
    diff = np.abs(x[:, None] - x[None, :])
    # mean |a - b| over the ordered rater pairs of each unit, then over units
    pair_sum = np.einsum("uc,cd,ud->u", n, diff, n)
    mad = float(np.mean(pair_sum / (m * (m - 1))))
    alpha = alpha_from_counts(n, cats, level)
    out = {"measure": f"krippendorff_alpha_{level}", "alpha": alpha,
           "percent_agreement": percent_agreement(n), "mean_abs_diff": mad,
           "n_units": int(len(shared)), "n_raters": len(set(raters[i] for i in keep))}
    if alpha is None:
        out["note"] = NO_VARIATION
    return out


def within(units: Sequence, raters: Sequence, values: Sequence, k: int) -> dict:
    """Share of rater pairs whose numbers are equal, and within ±k, averaged over units
    (counted from sorted values per unit: no loop over pairs)."""
    units, raters, values = _dedupe(units, raters, values)
    by_unit: dict = {}
    for u, v in zip(units, values):
        by_unit.setdefault(u, []).append(float(v))
    exact, near = [], []
    for vals in by_unit.values():
        m = len(vals)
        if m < 2:
            continue
        x = np.sort(np.asarray(vals))
        pairs = m * (m - 1)
        same = np.searchsorted(x, x, side="right") - np.searchsorted(x, x, side="left") - 1
        close = np.searchsorted(x, x + k, side="right") - np.searchsorted(x, x - k, side="left") - 1
        exact.append(same.sum() / pairs)
        near.append(close.sum() / pairs)
    if not exact:
        return {"exact": None, "within_k": None, "k": k, "n_units": 0, "note": NO_PAIRS}
    return {"exact": float(np.mean(exact)), "within_k": float(np.mean(near)), "k": k,
            "n_units": len(exact)}
