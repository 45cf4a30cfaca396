"""The columnar Ratings measures against dense, by-the-formula references on random data.

The references build the full units × categories count matrix (and, for panel defaults, one
explicit judgement per panel rater) and use the dense coefficient functions that the published
worked examples in test_agreement.py check."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app._old import agreement as ag

VALUES = ["a", "b", "c", None]


def _last(units, raters, values):
    last = {}
    for u, r, v in zip(units, raters, values):
        if v is not None:
            last[(u, r)] = v
    return last


def _dense_nominal(last: dict) -> dict:
    by_unit: dict = {}
    for (u, r), v in last.items():
        by_unit.setdefault(u, {})[r] = v
    shared = {u: rv for u, rv in by_unit.items() if len(rv) >= 2}
    if not shared:
        return {"n_units": 0, "kappa": None, "alpha": None, "percent_agreement": None}
    us = [u for u, rv in shared.items() for _ in rv]
    vs = [v for rv in shared.values() for v in rv.values()]
    n, _, cats = ag.count_matrix(us, vs)
    who = sorted({r for rv in shared.values() for r in rv})
    if len(who) == 2:
        kappa = ag.cohen_kappa([rv[who[0]] for rv in shared.values()], [rv[who[1]] for rv in shared.values()])
    else:
        kappa = ag.fleiss_kappa(n)
    return {"n_units": len(shared), "kappa": kappa, "alpha": ag.alpha_from_counts(n, cats, "nominal"),
            "percent_agreement": ag.percent_agreement(n), "n_raters": len(who)}


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a == pytest.approx(b, abs=1e-9)


judgements = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.sampled_from(VALUES)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(judgements)
def test_nominal_matches_dense_reference(rows):
    units, raters, values = (list(x) for x in zip(*rows)) if rows else ([], [], [])
    got = ag.nominal(units, raters, values)
    want = _dense_nominal(_last(units, raters, values))
    assert got["n_units"] == want["n_units"]
    for k in ("kappa", "alpha", "percent_agreement"):
        assert _same(got[k], want[k]), k
    if want["n_units"]:
        assert got["n_raters"] == want["n_raters"]
        assert got["measure"] == ("cohen_kappa" if want["n_raters"] == 2 else "fleiss_kappa")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.frozensets(st.integers(0, 3)), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.sampled_from(["a", "b"])), max_size=30))
def test_panel_default_equals_every_judgement_written_out(panels, rows):
    n_units = len(panels)
    rows = [(u % n_units, r, v) for u, r, v in rows if r in panels[u % n_units]]
    panel = [np.asarray(sorted(p), dtype=np.int64) for p in panels]
    vals = ["a", "b"]
    units = [u for u, _, _ in rows]
    raters = [r for _, r, _ in rows]
    codes = [vals.index(v) for _, _, v in rows]
    sparse = ag.Ratings(units, raters, codes, vals, n_units, default="none", panel=panel)
    last = _last(units, raters, [v for *_, v in rows])
    full = {(u, r): last.get((u, r), "none") for u in range(n_units) for r in panels[u]}
    want = _dense_nominal(full)
    got = sparse.nominal()
    assert got["n_units"] == want["n_units"]
    for k in ("kappa", "alpha", "percent_agreement"):
        assert _same(got[k], want[k]), k
    # units where raters differ, and what each said
    by_unit: dict = {}
    for (u, r), v in full.items():
        by_unit.setdefault(u, {})[r] = v
    differ = sorted(u for u, rv in by_unit.items() if len(rv) >= 2 and len(set(rv.values())) > 1)
    assert sparse.differing_units().tolist() == differ
    u, r, v = sparse.judgements_of(np.asarray(differ, dtype=np.int64))
    said = {}
    for x, w, c in zip(u.tolist(), r.tolist(), v.tolist()):
        said.setdefault(x, {})[w] = sparse.values[c]
    assert said == {x: by_unit[x] for x in differ}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.frozensets(st.integers(0, 4), max_size=5), min_size=1, max_size=8),
       st.lists(st.tuples(st.integers(0, 7), st.integers(0, 5)), max_size=40))
def test_marked_equals_ratings_of_the_marks(panels, marks):
    """marked() (the marked units alone) gives exactly what Ratings gives for the same marks
    over the panel, marks from outside a unit's panel and two-rater panels included."""
    n_units = len(panels)
    panel = ag.UnitPanel.of_units([np.asarray(sorted(p), dtype=np.int64) for p in panels])
    units = np.asarray([u % n_units for u, _ in marks], dtype=np.int64)
    raters = np.asarray([r for _, r in marks], dtype=np.int64)
    want = ag.Ratings(units, raters, np.ones(len(units), dtype=np.int64), [False, True], n_units,
                      default=False, panel=panel).nominal()
    assert ag.marked(units, raters, panel) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 9)), max_size=30), st.integers(0, 3))
def test_within_and_gap_match_pairs(rows, k):
    units, raters, values = (list(x) for x in zip(*rows)) if rows else ([], [], [])
    got = ag.within(units, raters, values, k)
    by_unit: dict = {}
    for (u, r), v in _last(units, raters, values).items():
        by_unit.setdefault(u, []).append(v)
    exact, near = [], []
    for vals in by_unit.values():
        if len(vals) < 2:
            continue
        pairs = list(combinations(vals, 2))
        exact.append(sum(a == b for a, b in pairs) / len(pairs))
        near.append(sum(abs(a - b) <= k for a, b in pairs) / len(pairs))
    assert got["n_units"] == len(exact)
    assert _same(got["exact"], float(np.mean(exact)) if exact else None)
    assert _same(got["within_k"], float(np.mean(near)) if near else None)
    r, names, _ = ag.Ratings.from_lists(units, raters, values)
    gap_units = sorted(names[u] for u in r.differing_units(gap=k + 1))
    assert gap_units == sorted(u for u, vals in by_unit.items() if len(vals) >= 2 and max(vals) - min(vals) >= k + 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.integers(0, 4), st.frozensets(st.integers(0, 3), max_size=3), max_size=5),
                max_size=6))
def test_set_agreement_matches_all_pairs(units):
    got = ag.mean_pairwise_jaccard(dict(enumerate(units)))
    per = []
    for by_rater in units:
        sets = list(by_rater.values())
        if len(sets) < 2:
            continue
        pairs = list(combinations(sets, 2))
        per.append(sum(ag.jaccard(a, b) for a, b in pairs) / len(pairs))
    assert got["n_units"] == len(per)
    assert _same(got["jaccard"], float(np.mean(per)) if per else None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2 ** 40), max_size=40), st.integers(0, 3))
def test_distinct_keys_by_sort_or_marks_equal_np_unique(keys, spread):
    """sorted_distinct (a sort) and distinct_ints / all_distinct (marks where cheap) are np.unique."""
    k = np.asarray(keys, dtype=np.int64) >> (spread * 12)  # small bounds take the marks
    bound = int(k.max(initial=-1)) + 1
    assert ag.sorted_distinct(k).tolist() == np.unique(k).tolist()
    assert ag.distinct_ints(k, bound).tolist() == np.unique(k).tolist()
    assert ag.all_distinct(k, bound) == (len(np.unique(k)) == len(k))
