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

from typing import Any, Hashable, Iterable, Sequence

import numpy as np

from app._old.tally import ordered, prune, sum_by, total

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
    return _alpha_of((n * w[:, None]).T @ n - np.diag((n * w[:, None]).sum(axis=0)), cats, level)


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


def set_tally(unit: np.ndarray, set_code: np.ndarray, sets: Sequence[frozenset]) -> dict:
    """The tally (app/tally.py) of :func:`set_agreement`: units with two or more raters per
    number of raters m, and the rater pairs inside them per (m, |A ∩ B|, |A ∪ B|).

    One entry per (unit, rater): the unit and the code of the rater's set in `sets`. Identical
    sets are counted together (pairs within a group agree completely); each pair of distinct
    sets that meet in some unit is measured once."""
    unit = np.asarray(unit, dtype=np.int64)
    set_code = np.asarray(set_code, dtype=np.int64)
    if not len(unit):
        return {}
    n_sets = max(len(sets), 1)
    key, count = _counted(unit * n_sets + set_code, (int(unit.max()) + 1) * n_sets)
    u, c = key // n_sets, key % n_sets
    first = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])  # (u is sorted: each unit's run)
    per = np.diff(np.r_[first, len(u)])
    m = np.add.reduceat(count, first)
    ok = m >= 2
    size = np.asarray([len(x) for x in sets] or [0], dtype=np.int64)
    own = np.repeat(np.arange(len(first)), per)  # each entry's unit run
    same = ok[own] & (count >= 2)  # pairs of raters who gave one set
    i, j = _pairs_within(first, per)  # pairs of distinct sets inside a unit
    i, j = i[ok[own[i]]], j[ok[own[i]]]
    inter = union = np.zeros(0, dtype=np.int64)
    if len(i):
        pair, inverse = np.unique(c[i] * n_sets + c[j], return_inverse=True)
        both = [(len(sets[x // n_sets] & sets[x % n_sets]), len(sets[x // n_sets] | sets[x % n_sets]))
                for x in pair.tolist()]
        inter = np.asarray([b[0] for b in both], dtype=np.int64)[inverse]
        union = np.asarray([b[1] for b in both], dtype=np.int64)[inverse]
    mm = np.concatenate([m[own[same]], m[own[i]]])
    return prune({"units": sum_by([m[ok]], [None]),
                  "pairs": sum_by([mm, np.concatenate([size[c[same]], inter]), np.concatenate([size[c[same]], union])],
                                  [None, None, None],
                                  np.concatenate([count[same] * (count[same] - 1) // 2, count[i] * count[j]]))})


def set_from(t: dict) -> dict:
    """Mean over units (two or more raters) of the mean Jaccard over rater pairs, from
    :func:`set_tally`; two empty sets agree completely."""
    n = total(t.get("units"))
    if not n:
        return {"jaccard": None, "n_units": 0, "note": NO_PAIRS}
    per_m: dict[int, float] = {}
    for (m, inter, union), k in ordered(t.get("pairs")):
        per_m[m] = per_m.get(m, 0.0) + k * (inter / union if union else 1.0)
    return {"jaccard": sum(x / (m * (m - 1) / 2) for m, x in sorted(per_m.items())) / n, "n_units": n}


def set_agreement(unit: np.ndarray, set_code: np.ndarray, sets: Sequence[frozenset]) -> dict:
    """Mean over units (two or more raters) of the mean Jaccard over rater pairs (see
    :func:`set_tally`)."""
    return set_from(set_tally(unit, set_code, sets))


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
    bound = int(keys.max()) + 1
    wanted = np.asarray(wanted)
    if wanted.dtype.kind in "iu" and _small(keys, bound):
        # a position per possible key (8 bytes each: at most 8x the keys' own size, plus 8 MB):
        # one take, no search (a search through `order` reads memory at random: 10 ms a
        # million wanted)
        where = np.zeros(bound, dtype=np.int64)
        n = np.arange(len(keys))
        where[keys] = n
        if (where[keys] == n).all():  # (keys repeated: the search below finds the first)
            inside = (wanted >= 0) & (wanted < bound)
            at = where[np.where(inside, wanted, 0)]
            return at, inside & (keys[at] == wanted)
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

    def _rater_counts(self, units_mask: np.ndarray, names: Sequence | None) -> dict:
        """{rater: how many of the selected units' items (panel) or judgements count them}:
        who rated those units, as a count that adds up over items."""
        if self.panel is not None:
            p = self.panel
            wanted = np.zeros(p.n_groups, dtype=bool)
            wanted[p.unit_group[units_mask]] = True
            picked = p.flat_rater[wanted[p.flat_group]]
        else:
            picked = self.rater[units_mask[self.unit]]
        return sum_by([picked], [names])

    # tallies (app/tally.py): the measures as counts that add up over items -----------------------
    def nominal_tally(self, names: Sequence | None = None) -> dict:
        """Counts for :func:`nominal_from`, raters keyed by `names` (their codes by default):
        per number of raters m, the units and the units all of whose raters agree; per (m,
        value), the sum of n(n - 1) over units (n: raters giving the value); per value, its
        judgements; who rated; and each rater's own values (Cohen's margins)."""
        u, c, n, m = self.counts()
        ok = m >= 2
        keep = ok[u]
        u, c, n = u[keep], c[keep], n[keep].astype(np.int64)
        mu = m[u]
        sel = ok[self.unit]
        return prune({"units": sum_by([m[ok]], [None]), "agree": sum_by([mu[n == mu]], [None]),
                "same": sum_by([mu, c], [None, self.values], n * (n - 1)), "n": sum_by([c], [self.values], n),
                "raters": self._rater_counts(ok, names), "seen": self._rater_counts(m >= 1, names),
                "marg": sum_by([self.rater[sel], self.value[sel]], [names, self.values]),
                "given": sum_by([self.rater[sel]], [names])})

    def pairs_tally(self, names: Sequence | None = None, explicit: bool = False) -> dict:
        """Counts for :func:`ordinal_from` and :func:`within_from` over numeric values: per m,
        the units; per (m, x), the sum of n(n - 1); per (m, x, y), x < y, the sum of n_x n_y
        (the rater pairs giving x and y); who rated. m counts the panel (or, `explicit`, the
        judgements given)."""
        if self.default is not None:
            raise ValueError("numeric measures take explicit judgements only")
        # values as numbers, each distinct number one code (1 and 1.0 are one value)
        x, code = np.unique(np.asarray([float(v) for v in self.values] or [0.0]), return_inverse=True)
        value = code.reshape(-1)[self.value] if len(self.value) else self.value
        x = x.tolist()
        n_vals = len(x)
        key, n = _counted(self.unit * n_vals + value, self.n_units * n_vals)  # sorted by unit
        u, c = key // n_vals, key % n_vals
        m = np.bincount(self.unit, minlength=self.n_units) if explicit else self._m()
        ok = m >= 2
        keep = ok[u]
        u, c, n = u[keep], c[keep], n[keep].astype(np.int64)
        first = np.flatnonzero(np.r_[True, u[1:] != u[:-1]]) if len(u) else np.zeros(0, dtype=np.int64)
        i, j = _pairs_within(first, np.diff(np.r_[first, len(u)]))
        lo, hi = np.minimum(c[i], c[j]), np.maximum(c[i], c[j])  # (codes in the order of the numbers)
        return prune({"units": sum_by([m[ok]], [None]), "same": sum_by([m[u], c], [None, x], n * (n - 1)),
                      "pairs": sum_by([m[u[i]], lo, hi], [None, x, x], n[i] * n[j]),
                      "raters": self._rater_counts(ok, names), "everyone": sum_by([self.rater], [names])})

    # measures -------------------------------------------------------------------------------------
    def nominal(self) -> dict:
        """Agreement on categories (see :func:`nominal_from`)."""
        return nominal_from(self.nominal_tally(), self.values[self.default] if self.default is not None else _NO)

    def ordinal(self, level: str = "ordinal") -> dict:
        """Agreement on ordered scores (see :func:`ordinal_from`)."""
        return ordinal_from(self.pairs_tally(), level)

    def within(self, k: int) -> dict:
        """Share of rater pairs whose numbers are equal, and within ±k (see :func:`within_from`)."""
        return within_from(self.pairs_tally(explicit=True), k)

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


_NO = object()  # no default value


def _per_m(counts: dict | None) -> dict[int, int]:
    """A tally keyed by (m, ...) summed per m."""
    out: dict[int, int] = {}
    for key, k in (counts or {}).items():
        out[key[0]] = out.get(key[0], 0) + k
    return out


def nominal_from(t: dict, default: Any = _NO) -> dict:
    """Agreement on categories from :meth:`Ratings.nominal_tally`: Cohen's kappa for exactly two
    annotators, Fleiss' otherwise, plus Krippendorff's nominal alpha and the percent agreement.
    `default` is the value panel raters who gave none are counted as giving (Cohen's margins)."""
    n_units = total(t.get("units"))
    if not n_units:
        return {"measure": None, "kappa": None, "alpha": None, "percent_agreement": None,
                "n_units": 0, "n_raters": len(t.get("seen") or {}), "note": NO_PAIRS}
    same = sorted(_per_m(t.get("same")).items())
    p_bar = sum(s / (m * (m - 1)) for m, s in same) / n_units
    n_c = [k for _, k in ordered(t.get("n"))]
    judged = sum(n_c)
    # Krippendorff's nominal alpha: o_cc = sum_u n_uc (n_uc - 1) / (m_u - 1)
    o_diag = sum(s / (m - 1) for m, s in same)
    d_o = (judged - o_diag) / judged
    d_e = (judged * judged - sum(k * k for k in n_c)) / (judged * (judged - 1))
    alpha = None if np.isclose(d_e, 0.0) else 1.0 - d_o / d_e
    who = [r for r, _ in ordered(t.get("raters"))]
    out: dict[str, Any] = {"n_units": n_units, "n_raters": len(who), "percent_agreement": p_bar, "alpha": alpha}
    if len(who) == 2:
        out.update(measure="cohen_kappa", kappa=_cohen(t, who, n_units, default))
    else:
        p_e = sum((k / judged) ** 2 for k in n_c)
        out.update(measure="fleiss_kappa", kappa=None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1 - p_e))
    if out["kappa"] is None:
        out["note"] = NO_VARIATION
    return out


def _cohen(t: dict, who: list, n_units: int, default: Any) -> float | None:
    """Cohen's kappa: both raters judged every pairable unit (two raters in all)."""
    p_o = (t.get("agree") or {}).get(2, 0) / n_units
    margins = []
    for r in who:
        marg = {v: k for (x, v), k in (t.get("marg") or {}).items() if x == r}
        if default is not _NO:
            marg[default] = marg.get(default, 0) + n_units - (t.get("given") or {}).get(r, 0)
        margins.append(marg)
    pe = sum(k * margins[1].get(v, 0) for v, k in ordered(margins[0])) / (n_units * n_units)
    if np.isclose(pe, 1.0):
        return None
    return (p_o - pe) / (1 - pe)


def _coincidences(t: dict) -> tuple[list[float], np.ndarray, list, list, int]:
    """(the values, sorted; the coincidence matrix; per m the sums of n(n - 1) and of
    |x - y| n_x n_y over pairs; the units) of a pairs tally."""
    same, pairs = ordered(t.get("same")), ordered(t.get("pairs"))
    cats = sorted({key[1] for key, _ in same} | {x for key, _ in pairs for x in key[1:]})
    at = {x: i for i, x in enumerate(cats)}
    o = np.zeros((len(cats), len(cats)))
    for (m, x), k in same:
        o[at[x], at[x]] += k / (m - 1)
    for (m, x, y), k in pairs:
        o[at[x], at[y]] += k / (m - 1)
        o[at[y], at[x]] += k / (m - 1)
    return cats, o, same, pairs, total(t.get("units"))


def _alpha_of(o: np.ndarray, cats: list, level: str) -> float | None:
    """Krippendorff's alpha from the coincidence matrix o over the values `cats`."""
    n_c = o.sum(axis=1)
    judged = n_c.sum()
    if judged <= 1:
        return None
    d2 = _delta2(cats, n_c, level)
    d_o = float((o * d2).sum() / judged)
    d_e = float((np.outer(n_c, n_c) * d2).sum() / (judged * (judged - 1)))
    if np.isclose(d_e, 0.0):
        return None
    return 1.0 - d_o / d_e


def ordinal_from(t: dict, level: str = "ordinal") -> dict:
    """Agreement on ordered scores from :meth:`Ratings.pairs_tally`: Krippendorff's alpha
    (ordinal by default), exact agreement and the mean absolute difference between two
    annotators' scores of a unit."""
    cats, o, same, pairs, n_units = _coincidences(t)
    if not n_units:
        return {"measure": f"krippendorff_alpha_{level}", "alpha": None, "percent_agreement": None,
                "mean_abs_diff": None, "n_units": 0, "n_raters": len(t.get("everyone") or {}), "note": NO_PAIRS}
    agree = sorted(_per_m(dict(same)).items())
    apart: dict[int, float] = {}
    for (m, x, y), k in pairs:
        apart[m] = apart.get(m, 0.0) + 2 * k * abs(x - y)
    alpha = _alpha_of(o, cats, level)
    out = {"measure": f"krippendorff_alpha_{level}", "alpha": alpha,
           "percent_agreement": sum(s / (m * (m - 1)) for m, s in agree) / n_units,
           "mean_abs_diff": sum(d / (m * (m - 1)) for m, d in sorted(apart.items())) / n_units,
           "n_units": n_units, "n_raters": len(t.get("raters") or {})}
    if alpha is None:
        out["note"] = NO_VARIATION
    return out


def within_from(t: dict, k: int) -> dict:
    """Share of rater pairs whose numbers are equal, and within ±k, averaged over units, from
    :meth:`Ratings.pairs_tally` (`explicit`)."""
    n_units = total(t.get("units"))
    if not n_units:
        return {"exact": None, "within_k": None, "k": k, "n_units": 0, "note": NO_PAIRS}
    same = _per_m(t.get("same"))
    near = dict(same)
    for (m, x, y), c in ordered(t.get("pairs")):
        if abs(x - y) <= k:
            near[m] = near.get(m, 0) + 2 * c
    exact = sum(s / (m * (m - 1)) for m, s in sorted(same.items())) / n_units
    close = sum(s / (m * (m - 1)) for m, s in sorted(near.items())) / n_units
    return {"exact": exact, "within_k": close, "k": k, "n_units": n_units}


def marked_tally(unit, rater, panel: UnitPanel, names: Sequence | None = None) -> dict:
    """``Ratings(unit, rater, ones, [False, True], len(panel), default=False, panel=panel)
    .nominal_tally(names)``: agreement on whether each panel rater marked each unit (a step
    tagged with a mode, a label chosen), from the marked units alone. Every unit nobody marked
    has all its raters on False, so the counts over the panel's units (computed once per
    panel) are corrected by the marked units only: the same counts at the cost of the marks
    rather than of every unit (a scheme computes this for each of dozens of modes and labels
    over 120,000 steps). A mark from outside the panel takes Ratings itself."""
    unit = np.asarray(unit, dtype=np.int64)
    rater = np.asarray(rater, dtype=np.int64)
    n_units = len(panel)
    general = lambda: Ratings(unit, rater, np.ones(len(unit), dtype=np.int64), [False, True], n_units,  # noqa: E731
                              default=False, panel=panel).nominal_tally(names)
    if len(unit) and (unit.min() < 0 or unit.max() >= n_units):
        return general()
    ok = panel.m >= 2
    span = int(rater.max(initial=0)) + 1
    pairs = distinct_ints(unit * span + rater, n_units * span)  # each (unit, rater) once, sorted by unit
    units, raters = pairs // span, pairs % span
    starts = np.flatnonzero(np.r_[True, units[1:] != units[:-1]]) if len(units) else np.zeros(0, np.int64)
    touched, g = units[starts], np.diff(np.r_[starts, len(units)])  # marked units and how many raters each
    m = panel.m[touched]
    if (g > m).any():  # a mark from outside the unit's panel counts as one more rater
        return general()
    keep = ok[touched]
    touched, g, m = touched[keep], g[keep], m[keep]
    rest = m - g
    base = _panel_tally(panel, names)
    # the panel's counts with every unit on False, then the marked units' share moved to True
    same_false = dict(base["same_false"])
    moved = sum_by([m], [None], m * (m - 1) - rest * (rest - 1))
    for k, v in moved.items():
        same_false[k] -= v
    agree = dict(base["units"])
    for k, v in sum_by([m[(g > 0) & (g < m)]], [None]).items():
        agree[k] -= v
    n_true = int(g.sum())
    mine = ok[units]
    out = {"units": base["units"], "agree": agree,
           "same": {**{(k, False): v for k, v in same_false.items() if v},
                    **{(k, True): v for k, v in sum_by([m], [None], g * (g - 1)).items()}},
           "n": {False: base["judged"] - n_true, True: n_true},
           "raters": base["raters"], "seen": base["seen"],
           "marg": {(r, True): v for r, v in sum_by([raters[mine]], [names]).items()},
           "given": sum_by([raters[mine]], [names])}
    return prune(out)


def _panel_tally(panel: UnitPanel, names: Sequence | None) -> dict:
    """The counts of marked_tally with nobody marking anything, once per panel (and names)."""
    memo = panel.__dict__.setdefault("_tallies", {})
    key = id(names)
    if key not in memo:
        ok = panel.m >= 2
        m = panel.m[ok]
        r = Ratings(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), [False, True], len(panel),
                    default=False, panel=panel)
        memo[key] = (names, {"units": sum_by([m], [None]), "same_false": sum_by([m], [None], m * (m - 1)),
                             "judged": int(m.sum()), "raters": r._rater_counts(ok, names),
                             "seen": r._rater_counts(panel.m >= 1, names)})
    return memo[key][1]


def marked(unit, rater, panel: UnitPanel) -> dict:
    """:func:`nominal_from` of :func:`marked_tally`."""
    return nominal_from(marked_tally(unit, rater, panel), False)


def nominal(units: Sequence, raters: Sequence, values: Sequence) -> dict:
    """:meth:`Ratings.nominal` of plain sequences (missing values dropped)."""
    return Ratings.from_lists(units, raters, values)[0].nominal()


def ordinal(units: Sequence, raters: Sequence, values: Sequence, level: str = "ordinal") -> dict:
    """:meth:`Ratings.ordinal` of plain sequences (missing values dropped)."""
    return Ratings.from_lists(units, raters, values)[0].ordinal(level)


def within(units: Sequence, raters: Sequence, values: Sequence, k: int) -> dict:
    """:meth:`Ratings.within` of plain sequences (missing values dropped)."""
    return Ratings.from_lists(units, raters, values)[0].within(k)
