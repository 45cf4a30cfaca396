"""Agreement between annotators: chance-corrected coefficients on long-form ratings.

Two layers. The dense functions (``count_matrix``, ``fleiss_kappa``, ``cohen_kappa``,
``alpha_from_counts``, ``krippendorff_alpha``, ``percent_agreement``) follow the published
formulas on a units × categories count matrix; the worked examples in the tests check them.
:class:`Ratings` is what the summary uses: who gave which value to which unit as integer codes,
with sparse counts and a panel for the objects an annotator left alone, so the cost grows with
the judgements given, not with units × raters × categories; its measures are tested against
the dense ones. ``nominal``, ``ordinal``, ``within`` and ``mean_pairwise_jaccard`` take plain
sequences (one entry per judgement: a unit is whatever was judged, an item, a handoff, a step,
an agent × dimension). A unit judged by fewer than two raters carries no information about
agreement and is left out.

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

No Streamlit, no pandas: sequences or numpy arrays in, plain dicts out.
"""
from __future__ import annotations

import functools
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
    return _percent(n, n.sum(axis=1))


def _percent(n: np.ndarray, m: np.ndarray) -> float:
    """percent_agreement of rows each holding two or more judgements (m: the row sums)."""
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
    return _alpha(n, n.sum(axis=1), cats, level)


def _alpha(n: np.ndarray, m: np.ndarray, cats: list, level: str) -> float | None:
    """alpha_from_counts of rows each holding two or more judgements (m: the row sums)."""
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


def _pairs_within(first: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j), i < j, of positions inside each run [first, first + size) of a sorted array."""
    pos = np.repeat(first, size) + (np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size))
    after = np.repeat(first + size, size) - pos - 1  # entries following each position in its run
    i = np.repeat(pos, after)
    j = i + 1 + (np.arange(after.sum()) - np.repeat(np.cumsum(after) - after, after))
    return i, j


def set_agreement(unit: np.ndarray, set_code: np.ndarray, sets: Sequence[frozenset]) -> dict:
    """Mean over units (two or more raters) of the mean Jaccard over rater pairs.

    One entry per (unit, rater): the unit and the code of the rater's set in `sets`. Identical
    sets are counted together (pairs within a group agree completely); the Jaccard index is
    computed once per pair of distinct sets that meet in some unit."""
    unit = np.asarray(unit, dtype=np.int64)
    set_code = np.asarray(set_code, dtype=np.int64)
    if not len(unit):
        return {"jaccard": None, "n_units": 0, "note": NO_PAIRS}
    n_sets = max(len(sets), 1)
    key, count = np.unique(unit * n_sets + set_code, return_counts=True)
    u, c = key // n_sets, key % n_sets
    first = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])  # (u is sorted: each unit's run)
    per = np.diff(np.r_[first, len(u)])
    m = np.add.reduceat(count, first)
    total = np.add.reduceat(count * (count - 1) / 2, first).astype(np.float64)
    i, j = _pairs_within(first, per)  # pairs of distinct sets inside a unit
    if len(i):
        pair, inverse = np.unique(c[i] * n_sets + c[j], return_inverse=True)
        jac = np.asarray([jaccard(sets[x // n_sets], sets[x % n_sets]) for x in pair.tolist()])
        owner = np.repeat(np.arange(len(first)), per)[i]
        total += np.bincount(owner, weights=jac[inverse] * count[i] * count[j], minlength=len(first))
    ok = m >= 2
    if not ok.any():
        return {"jaccard": None, "n_units": 0, "note": NO_PAIRS}
    return {"jaccard": float(np.mean(total[ok] / (m[ok] * (m[ok] - 1) / 2))), "n_units": int(ok.sum())}


def mean_pairwise_jaccard(sets_by_unit: dict[Hashable, dict[Hashable, Iterable]]) -> dict:
    """:func:`set_agreement` of ``{unit: {rater: set}}``."""
    units, codes = [], []
    index: dict = {}
    for i, by_rater in enumerate(sets_by_unit.values()):
        for x in by_rater.values():
            units.append(i)
            codes.append(index.setdefault(frozenset(x), len(index)))
    return set_agreement(np.asarray(units, dtype=np.int64), np.asarray(codes, dtype=np.int64), list(index))


# --- ratings: one kind of judgement, columnar ----------------------------------------------------------

class UnitPanel:
    """Who judged each unit: the raters of its group (the item it belongs to).

    ``unit_group[u]`` is unit u's group; the panel itself is one (group, rater) row per rater
    of a group, sorted by group (``flat_group``, ``flat_rater``). Raters per unit are computed
    once and shared by every Ratings over the same units."""

    def __init__(self, unit_group: np.ndarray, flat_group: np.ndarray, flat_rater: np.ndarray, n_groups: int):
        self.unit_group = np.asarray(unit_group, dtype=np.int64)
        self.flat_group = np.asarray(flat_group, dtype=np.int64)
        self.flat_rater = np.asarray(flat_rater, dtype=np.int64)
        self.n_groups = int(n_groups)
        sizes = np.bincount(self.flat_group, minlength=self.n_groups)
        self.m = sizes[self.unit_group] if len(sizes) else np.zeros(len(self.unit_group), dtype=np.int64)
        self._starts = np.concatenate([[0], np.cumsum(sizes)])

    @classmethod
    def of_units(cls, raters_per_unit: Sequence[np.ndarray]) -> "UnitPanel":
        """Each unit its own group, with the given raters."""
        groups = [np.asarray(g, dtype=np.int64) for g in raters_per_unit]
        sizes = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
        flat = np.concatenate(groups) if groups else np.zeros(0, dtype=np.int64)
        return cls(np.arange(len(groups)), np.repeat(np.arange(len(groups)), sizes), flat, len(groups))

    def __len__(self) -> int:
        return len(self.unit_group)

    def raters(self, units_mask: np.ndarray) -> np.ndarray:
        """Distinct raters of the units selected by the mask (sorted)."""
        # a mask over groups, then a count per rater: no sort, no array per group
        wanted = np.zeros(self.n_groups, dtype=bool)
        wanted[self.unit_group[units_mask]] = True
        picked = self.flat_rater[wanted[self.flat_group]]
        return np.flatnonzero(np.bincount(picked)) if len(picked) else np.zeros(0, dtype=np.int64)

    @functools.cached_property
    def _base(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(units with two or more raters, their rater counts as floats, each unit's position
        among them, how many distinct raters they have), computed once per panel."""
        ok = self.m >= 2
        return ok, self.m[ok].astype(np.float64), np.cumsum(ok) - 1, len(self.raters(ok))

    def entries(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(unit, rater) for every panel rater of the given units."""
        units = np.asarray(units, dtype=np.int64)
        sizes = self.m[units]
        starts = self._starts[self.unit_group[units]]
        # positions of each unit's raters in the flat panel: its group's start + 0..size-1
        within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return np.repeat(units, sizes), self.flat_rater[np.repeat(starts, sizes) + within]


def find(keys: np.ndarray, wanted: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `wanted` is among `keys` (sorted, or in the order `order` sorts them):
    (a position in keys per wanted key, whether it is there)."""
    if not len(keys):
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    at = np.minimum(np.searchsorted(keys, wanted, sorter=order), len(keys) - 1)
    if order is not None:
        at = order[at]
    return at, keys[at] == wanted


MARKS = 1 << 24  # a mark per possible key (one byte each) is cheap up to this many keys


def _within(keys: np.ndarray, bound: int) -> bool:
    return not len(keys) or (keys.min() >= 0 and keys.max() < bound)


def marks(keys: np.ndarray, bound: int) -> np.ndarray | None:
    """A boolean per possible key (0..bound-1), set where a key is, or None when that array
    would be large or a key lies outside."""
    if bound > max(8 * len(keys), MARKS) or not _within(keys, bound):
        return None
    seen = np.zeros(bound, dtype=bool)
    seen[keys] = True
    return seen


def sorted_distinct(keys: np.ndarray) -> np.ndarray:
    """np.unique(keys) of integers, by a sort: numpy 2.4's np.unique without return_* goes
    through a hash table and then sorts its result (71,000 keys: 11 ms against 1 ms sorted;
    860,000: 630 ms against 14 ms)."""
    s = np.sort(np.asarray(keys))
    return s[np.r_[True, s[1:] != s[:-1]]] if len(s) else s


def distinct_ints(keys: np.ndarray, bound: int) -> np.ndarray:
    """np.unique(keys) for integer keys in 0..bound-1, by marks where that is cheap (no sort)."""
    seen = marks(keys, bound)
    return np.flatnonzero(seen) if seen is not None else sorted_distinct(keys)


def all_distinct(keys: np.ndarray, bound: int) -> bool:
    """No key repeats (keys in 0..bound-1)."""
    seen = marks(keys, bound)
    return (int(np.count_nonzero(seen)) if seen is not None else len(sorted_distinct(keys))) == len(keys)


def _small(keys: np.ndarray, bound: int) -> bool:
    """Whether keys all lie in 0..bound-1 and a count per possible key (8 bytes each) costs
    little more than the keys themselves."""
    return bound <= 8 * len(keys) + (1 << 20) and _within(keys, bound)


def _counted(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(keys, return_counts=True) for keys in 0..bound-1: a count per possible key
    where that is cheap (no sort), else np.unique."""
    if _small(keys, bound):
        n = np.bincount(keys, minlength=bound)
        found = np.flatnonzero(n)
        return found, n[found]
    return np.unique(keys, return_counts=True)


def missing(v: Any) -> bool:
    """None or NaN: no value."""
    return v is None or (isinstance(v, float) and v != v)


class Ratings:
    """Who gave which value to which unit, as integer arrays, with the measures computed from it.

    ``unit``, ``rater``, ``value`` are codes (``value`` indexes ``values``); one judgement per
    (unit, rater) is kept, the last one given. With ``default`` (a value, and ``panel``: for each
    unit, the rater codes who judged it), every panel rater who gave no value for a unit is
    counted as having given ``default`` (e.g. "not tagged" for a step nobody tagged), without a
    row per such judgement. All measures work on sparse units × values counts: the cost grows
    with the judgements given, not with units × raters × values.
    """

    def __init__(self, unit, rater, value, values: Sequence, n_units: int | None = None, *,
                 default: Any = None, panel: "UnitPanel | Sequence[np.ndarray] | None" = None):
        unit = np.asarray(unit, dtype=np.int64)
        rater = np.asarray(rater, dtype=np.int64)
        value = np.asarray(value, dtype=np.int64)
        self.values = list(values)
        self.n_units = int(n_units if n_units is not None else (unit.max() + 1 if len(unit) else 0))
        if len(unit):  # the last judgement per (unit, rater) wins
            span = int(rater.max()) + 1
            key = unit * span + rater
            if not all_distinct(key, (int(unit.max()) + 1) * span):  # (usually one judgement each)
                _, last_rev = np.unique(key[::-1], return_index=True)
                keep = np.sort(len(key) - 1 - last_rev)
                unit, rater, value = unit[keep], rater[keep], value[keep]
        self.unit, self.rater, self.value = unit, rater, value
        if panel is not None and not isinstance(panel, UnitPanel):
            panel = UnitPanel.of_units(panel)
        self.panel = panel
        self.default = None
        if panel is not None:
            if default not in self.values:
                self.values.append(default)
            self.default = self.values.index(default)

    @classmethod
    def from_lists(cls, units: Sequence[Hashable], raters: Sequence[Hashable], values: Sequence[Hashable]
                   ) -> tuple["Ratings", list, list]:
        """Ratings of plain sequences (missing values dropped), with the unit and rater names."""
        keep = [i for i, v in enumerate(values) if not missing(v)]
        u, unit_names = _codes([units[i] for i in keep])
        r, rater_names = _codes([raters[i] for i in keep])
        v, vals = _codes([values[i] for i in keep])
        return cls(u, r, v, vals, len(unit_names)), unit_names, rater_names

    # counts ---------------------------------------------------------------------------------------
    def _m(self) -> np.ndarray:
        """Raters per unit."""
        if self.panel is not None:
            return self.panel.m
        return np.bincount(self.unit, minlength=self.n_units)

    def counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Sparse counts (unit, value, n) over every unit, and raters per unit m."""
        n_vals = max(len(self.values), 1)
        key, n = _counted(self.unit * n_vals + self.value, self.n_units * n_vals)
        u, c = key // n_vals, key % n_vals
        m = self._m()
        if self.default is not None:
            given = np.bincount(self.unit, minlength=self.n_units)
            m = np.maximum(m, given)  # a judgement from outside the panel still counts once
            rest = m - given
            du = np.flatnonzero(rest > 0)
            u = np.concatenate([u, du])
            c = np.concatenate([c, np.full(len(du), self.default)])
            n = np.concatenate([n, rest[du]])
        return u, c, n.astype(np.float64), m

    def _pairable(self):
        u, c, n, m = self.counts()
        ok = m >= 2
        keep = ok[u]
        return u[keep], c[keep], n[keep], m, ok

    def _raters_of(self, ok: np.ndarray) -> np.ndarray:
        if self.panel is not None:
            return self.panel.raters(ok)
        picked = self.rater[ok[self.unit]]
        return distinct_ints(picked, int(picked.max(initial=-1)) + 1)

    # measures -------------------------------------------------------------------------------------
    def nominal(self) -> dict:
        """Agreement on categories: Cohen's kappa for exactly two annotators, Fleiss' otherwise,
        plus Krippendorff's nominal alpha and the percent agreement."""
        u, c, n, m, ok = self._pairable()
        if not ok.any():
            return {"measure": None, "kappa": None, "alpha": None, "percent_agreement": None,
                    "n_units": 0, "n_raters": int(len(self._raters_of(m >= 1))), "note": NO_PAIRS}
        mu = m[ok].astype(np.float64)
        sq = np.bincount(u, weights=n * n, minlength=self.n_units)[ok]
        p_i = (sq - mu) / (mu * (mu - 1))
        p_bar = float(p_i.mean())
        n_c = np.bincount(c, weights=n, minlength=len(self.values))
        total = n_c.sum()
        # Krippendorff's nominal alpha: o_cc = sum_u n_uc (n_uc - 1) / (m_u - 1)
        o_diag = float((n * (n - 1) / (m[u] - 1)).sum())
        d_o = (total - o_diag) / total
        d_e = (total * total - float(np.square(n_c).sum())) / (total * (total - 1))
        alpha = None if np.isclose(d_e, 0.0) else 1.0 - d_o / d_e
        who = self._raters_of(ok)
        out: dict[str, Any] = {"n_units": int(ok.sum()), "n_raters": int(len(who)),
                               "percent_agreement": p_bar, "alpha": alpha}
        if len(who) == 2:
            out.update(measure="cohen_kappa", kappa=self._cohen(ok, who, u, n, mu))
        else:
            p_e = float(np.square(n_c / total).sum())
            out.update(measure="fleiss_kappa", kappa=None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1 - p_e))
        if out["kappa"] is None:
            out["note"] = NO_VARIATION
        return out

    def _cohen(self, ok, who, u, n, mu) -> float | None:
        """Cohen's kappa: both raters judged every pairable unit (two raters in all)."""
        n_units = len(mu)
        p_o = float(np.bincount(u[n == 2], minlength=self.n_units)[ok].sum()) / n_units
        k = len(self.values)
        margins = []
        mask = ok[self.unit]
        for r in who:
            sel = mask & (self.rater == r)
            marg = np.bincount(self.value[sel], minlength=k).astype(np.float64)
            if self.default is not None:
                marg[self.default] += n_units - sel.sum()
            margins.append(marg / n_units)
        pe = float(margins[0] @ margins[1])
        if np.isclose(pe, 1.0):
            return None
        return (p_o - pe) / (1 - pe)

    def _dense(self) -> tuple[np.ndarray, list, np.ndarray]:
        """Units judged by two or more raters × numeric values (sorted), dense; and which units."""
        if self.default is not None:
            raise ValueError("ordinal measures take explicit judgements only")
        m = self._m()
        ok = m >= 2
        sel = ok[self.unit]
        value = self.value[sel]
        used = np.flatnonzero(np.bincount(value, minlength=len(self.values)))  # (codes: no sort)
        nums = np.asarray([float(self.values[i]) for i in used])
        order = np.argsort(nums, kind="stable")
        cats = [float(x) for x in nums[order]]
        col = np.empty(len(self.values), dtype=np.int64)
        col[used[order]] = np.arange(len(used))
        rows = np.cumsum(ok) - 1
        n_rows, k = int(ok.sum()), len(cats)
        # a count per (unit, value) cell by bincount (np.add.at is many times slower)
        cell = rows[self.unit[sel]] * k + col[value]
        dense = np.bincount(cell, minlength=n_rows * k).astype(np.float64).reshape(n_rows, k)
        return dense, cats, ok

    def ordinal(self, level: str = "ordinal") -> dict:
        """Agreement on ordered scores: Krippendorff's alpha (ordinal by default), exact agreement
        and the mean absolute difference between two annotators' scores of a unit."""
        n, cats, ok = self._dense()
        if not len(n):
            return {"measure": f"krippendorff_alpha_{level}", "alpha": None, "percent_agreement": None,
                    "mean_abs_diff": None, "n_units": 0, "n_raters": int(len(sorted_distinct(self.rater))),
                    "note": NO_PAIRS}
        x = np.asarray(cats)
        m = n.sum(axis=1)
        diff = np.abs(x[:, None] - x[None, :])
        # mean |a - b| over the ordered rater pairs of each unit, then over units
        # (a matrix product: einsum's own loop took four times as long; with whole-number
        # values, as every scheme's are, the sums are exact in any order)
        pair_sum = ((n @ diff) * n).sum(axis=1)
        # (every row of n holds two or more judgements: no copy to drop the others)
        alpha = _alpha(n, m, cats, level)
        out = {"measure": f"krippendorff_alpha_{level}", "alpha": alpha,
               "percent_agreement": _percent(n, m), "mean_abs_diff": float(np.mean(pair_sum / (m * (m - 1)))),
               "n_units": int(len(n)), "n_raters": int(len(self._raters_of(ok)))}
        if alpha is None:
            out["note"] = NO_VARIATION
        return out

    def within(self, k: int) -> dict:
        """Share of rater pairs whose numbers are equal, and within ±k, averaged over units
        (counted from values sorted per unit: no loop over pairs)."""
        m = np.bincount(self.unit, minlength=self.n_units)
        sel = (m >= 2)[self.unit]
        if not sel.any():
            return {"exact": None, "within_k": None, "k": k, "n_units": 0, "note": NO_PAIRS}
        u = self.unit[sel]
        x = np.asarray([float(v) for v in self.values])[self.value[sel]]
        span = float(x.max() - x.min()) + 2 * abs(k) + 1
        key = u * span + (x - x.min())  # values of one unit never reach into the next unit's range
        s = np.sort(key)
        same = np.searchsorted(s, key, side="right") - np.searchsorted(s, key, side="left") - 1
        close = np.searchsorted(s, key + k, side="right") - np.searchsorted(s, key - k, side="left") - 1
        pairs = (m * (m - 1)).astype(np.float64)
        ok = m >= 2
        exact = np.bincount(u, weights=same, minlength=self.n_units)[ok] / pairs[ok]
        near = np.bincount(u, weights=close, minlength=self.n_units)[ok] / pairs[ok]
        return {"exact": float(exact.mean()), "within_k": float(near.mean()), "k": k, "n_units": int(ok.sum())}

    # units on which raters differ --------------------------------------------------------------------
    def differing_units(self, gap: float | None = None) -> np.ndarray:
        """Units judged by two or more raters who gave different values (numbers: at least `gap`
        apart)."""
        u, c, n, m = self.counts()
        ok = m >= 2
        if gap is None:
            distinct = np.bincount(u, minlength=self.n_units)
            return np.flatnonzero(ok & (distinct > 1))
        x = np.asarray([float(v) for v in self.values])[c]
        hi = np.full(self.n_units, -np.inf)
        lo = np.full(self.n_units, np.inf)
        np.maximum.at(hi, u, x)
        np.minimum.at(lo, u, x)
        return np.flatnonzero(ok & (hi - lo >= gap))

    def judgements_of(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(unit, rater, value code) of every judgement of the given units, panel defaults
        filled in, sorted by unit and rater."""
        units = np.asarray(units, dtype=np.int64)
        want = np.zeros(self.n_units, dtype=bool)
        want[units] = True
        sel = want[self.unit]
        u, r, v = self.unit[sel], self.rater[sel], self.value[sel]
        if self.default is not None:
            pu, pr = self.panel.entries(units)
            span = int(max(pr.max(initial=0), r.max(initial=0))) + 1
            silent = ~np.isin(pu * span + pr, u * span + r)
            u = np.concatenate([u, pu[silent]])
            r = np.concatenate([r, pr[silent]])
            v = np.concatenate([v, np.full(int(silent.sum()), self.default, dtype=np.int64)])
        order = np.lexsort((r, u))
        return u[order], r[order], v[order]


def marked(unit, rater, panel: UnitPanel) -> dict:
    """``Ratings(unit, rater, ones, [False, True], len(panel), default=False, panel=panel).nominal()``:
    agreement on whether each panel rater marked each unit (a step tagged with a mode, a label
    chosen), from the marked units alone. Every unit nobody marked has all its raters on
    False (a chance-agreement term of exactly 1, a coincidence term of exactly m), so the
    arrays Ratings sums are rebuilt from the panel's per-unit counts (computed once) with only
    the marked units changed: the same numbers in the same order, at the cost of the marks
    rather than of every unit (a scheme computes this for each of dozens of modes and labels
    over 120,000 steps). Two raters (Cohen's kappa) or a mark from outside the panel take
    Ratings itself."""
    unit = np.asarray(unit, dtype=np.int64)
    rater = np.asarray(rater, dtype=np.int64)
    n_units = len(panel)
    ok, m_ok, at_ok, n_who = panel._base
    general = lambda: Ratings(unit, rater, np.ones(len(unit), dtype=np.int64), [False, True], n_units,  # noqa: E731
                              default=False, panel=panel).nominal()
    if n_who == 2 or not ok.any() or (len(unit) and (unit.min() < 0 or unit.max() >= n_units)):
        return general()
    span = int(rater.max(initial=0)) + 1
    units = distinct_ints(unit * span + rater, n_units * span) // span  # each (unit, rater) once, sorted by unit
    starts = np.flatnonzero(np.r_[True, units[1:] != units[:-1]]) if len(units) else np.zeros(0, np.int64)
    touched, g = units[starts], np.diff(np.r_[starts, len(units)])  # marked units and how many raters each
    m = panel.m[touched]
    if (g > m).any():  # a mark from outside the unit's panel counts as one more rater
        return general()
    keep = ok[touched]
    touched, g, m = touched[keep], g[keep].astype(np.float64), m[keep].astype(np.float64)
    rest = m - g
    pos = at_ok[touched]
    # Ratings.nominal over its sparse counts: one True entry per marked unit (g raters), one
    # False entry per unit with raters left (m - g, or m where nobody marked)
    p_i = np.ones(len(m_ok))
    p_i[pos] = (g * g + rest * rest - m) / (m * (m - 1))
    p_bar = float(p_i.mean())
    n_true = float(g.sum())
    total = float(m_ok.sum())
    n_c = np.asarray([total - n_true, n_true])
    default_terms = m_ok.copy()
    default_terms[pos] = rest * (rest - 1) / (m - 1)
    if (rest == 0).any():
        default_terms = np.delete(default_terms, pos[rest == 0])
    o_diag = float(np.concatenate([g * (g - 1) / (m - 1), default_terms]).sum())
    d_o = (total - o_diag) / total
    d_e = (total * total - float(np.square(n_c).sum())) / (total * (total - 1))
    alpha = None if np.isclose(d_e, 0.0) else 1.0 - d_o / d_e
    out: dict[str, Any] = {"n_units": int(len(m_ok)), "n_raters": int(n_who), "percent_agreement": p_bar,
                           "alpha": alpha}
    p_e = float(np.square(n_c / total).sum())
    out.update(measure="fleiss_kappa", kappa=None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1 - p_e))
    if out["kappa"] is None:
        out["note"] = NO_VARIATION
    return out


def nominal(units: Sequence, raters: Sequence, values: Sequence) -> dict:
    """:meth:`Ratings.nominal` of plain sequences (missing values dropped)."""
    return Ratings.from_lists(units, raters, values)[0].nominal()


def ordinal(units: Sequence, raters: Sequence, values: Sequence, level: str = "ordinal") -> dict:
    """:meth:`Ratings.ordinal` of plain sequences (missing values dropped)."""
    return Ratings.from_lists(units, raters, values)[0].ordinal(level)


def within(units: Sequence, raters: Sequence, values: Sequence, k: int) -> dict:
    """:meth:`Ratings.within` of plain sequences (missing values dropped)."""
    return Ratings.from_lists(units, raters, values)[0].within(k)
