"""Agreement coefficients against published worked examples and hand-computed small cases."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from app._old import agreement as ag

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, values 1..5, missing entries. Published: nominal 0.743, ordinal 0.815, interval 0.849.
K2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    "C": [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
}


def k2011_units():
    return [[K2011[o][u] for o in "ABCD"] for u in range(12)]


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_example(level, published):
    assert ag.krippendorff_alpha(k2011_units(), level) == pytest.approx(published, abs=5e-4)


def test_krippendorff_nominal_by_hand():
    # the paper's coincidence matrix: n = 40 pairable values, 8 of them in off-diagonal
    # (disagreeing) cells (4 above and 4 below the diagonal), marginals n_c of values 1..5 = 9, 13, 10, 5, 3;
    # alpha = 1 - D_o / D_e with D_o = 8 / n and D_e = (n^2 - sum n_c^2) / (n (n - 1))
    alpha = ag.krippendorff_alpha(k2011_units(), "nominal")
    # n_c of values 1..5: 9, 13, 10, 5, 3 (from the coincidence matrix in the paper)
    n_c = [9, 13, 10, 5, 3]
    n = sum(n_c)
    d_e = Fraction(n * n - sum(x * x for x in n_c), n * (n - 1))
    d_o = Fraction(8, n)
    assert alpha == pytest.approx(float(1 - d_o / d_e), abs=1e-12)


def test_krippendorff_same_data_through_long_form():
    units, raters, values = [], [], []
    for o, row in K2011.items():
        for u, v in enumerate(row):
            units.append(u)
            raters.append(o)
            values.append(v)
    r = ag.ordinal(units, raters, values)
    assert r["alpha"] == pytest.approx(0.815, abs=5e-4)
    assert r["n_units"] == 11 and r["n_raters"] == 4  # unit 12 has a single value: not pairable


# Fleiss' kappa: the worked example of 10 subjects, 14 raters, 5 categories (Wikipedia's
# "Fleiss' kappa" article): P̄ = 0.378, P̄e = 0.213, kappa = 0.210.
FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
          [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def test_fleiss_worked_example():
    n = np.array(FLEISS)
    p_bar = Fraction(sum(sum(x * x for x in row) - 14 for row in FLEISS), 10 * 14 * 13)
    p_j = [Fraction(sum(row[j] for row in FLEISS), 140) for j in range(5)]
    p_e = sum(p * p for p in p_j)
    assert float(p_bar) == pytest.approx(0.378, abs=5e-4) and float(p_e) == pytest.approx(0.213, abs=5e-4)
    assert ag.fleiss_kappa(n) == pytest.approx(float((p_bar - p_e) / (1 - p_e)), abs=1e-12)
    assert ag.fleiss_kappa(n) == pytest.approx(0.210, abs=5e-4)


def test_cohen_classic_example():
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15:
    # p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert ag.cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-12)


def test_nominal_picks_cohen_for_two_and_fleiss_for_more():
    units = [1, 1, 2, 2, 3, 3, 4, 4]
    raters = ["a", "b"] * 4
    values = ["x", "x", "y", "y", "x", "y", "y", "y"]
    r = ag.nominal(units, raters, values)
    # p_o = 3/4; a: x 2, y 2; b: x 1, y 3 -> p_e = 1/2*1/4 + 1/2*3/4 = 1/2; kappa = 1/2
    assert r["measure"] == "cohen_kappa" and r["kappa"] == pytest.approx(0.5)
    assert r["percent_agreement"] == pytest.approx(0.75) and r["n_units"] == 4
    r3 = ag.nominal(units + [1, 2], raters + ["c", "c"], values + ["x", "y"])
    assert r3["measure"] == "fleiss_kappa" and r3["n_raters"] == 3


def test_fleiss_with_two_raters_is_scotts_pi():
    # same data: pooled p(x) = 3/8, p(y) = 5/8; p_e = 9/64 + 25/64 = 34/64; pi = (3/4 - 34/64) / (30/64) = 7/15
    n = np.array([[2, 0], [0, 2], [1, 1], [0, 2]])
    assert ag.fleiss_kappa(n) == pytest.approx(7 / 15)


def test_ties_no_variation_single_annotator_and_missing():
    # everyone says the same: percent agreement 1, kappa undefined (None, never NaN), said in a note
    r = ag.nominal([1, 1, 2, 2], ["a", "b", "a", "b"], [False, False, False, False])
    assert r["kappa"] is None and r["alpha"] is None and r["percent_agreement"] == 1.0
    assert "undefined" in r["note"]
    # one annotator: nothing to compare
    r = ag.nominal([1, 2, 3], ["a", "a", "a"], ["x", "y", "x"])
    assert r["kappa"] is None and r["n_units"] == 0 and "two or more" in r["note"]
    # missing values are left out, not counted as a category
    r = ag.nominal([1, 1, 2, 2], ["a", "b", "a", "b"], ["x", "x", "y", None])
    assert r["n_units"] == 1
    assert ag.ordinal([1, 2], ["a", "b"], [3, 4])["alpha"] is None  # no unit with two scores


def test_ordinal_mean_abs_diff_and_within_k():
    r = ag.ordinal([1, 1, 2, 2, 3, 3], ["a", "b"] * 3, [1, 2, 3, 3, 5, 2])
    assert r["mean_abs_diff"] == pytest.approx((1 + 0 + 3) / 3)
    assert r["percent_agreement"] == pytest.approx(1 / 3)
    w = ag.within([1, 1, 2, 2, 3, 3], ["a", "b"] * 3, [4, 5, 7, 7, 2, 9], k=1)
    assert w["exact"] == pytest.approx(1 / 3) and w["within_k"] == pytest.approx(2 / 3)


def test_jaccard_is_order_insensitive_and_empty_sets_agree():
    assert ag.jaccard(["b", "a"], ["a", "b"]) == 1.0
    assert ag.jaccard([], []) == 1.0
    assert ag.jaccard(["a"], []) == 0.0
    assert ag.jaccard(["a", "b", "c"], ["b", "c", "d"]) == pytest.approx(2 / 4)
    r = ag.mean_pairwise_jaccard({"i1": {"a": ["x", "y"], "b": ["y", "x"]}, "i2": {"a": ["x"], "b": ["y"]},
                                  "i3": {"a": ["x"]}})
    assert r["jaccard"] == pytest.approx(0.5) and r["n_units"] == 2


def test_same_judgement_in_another_order_agrees():
    r = ag.nominal([1, 1], ["a", "b"], [tuple(sorted(["m2", "m1"])), tuple(sorted(["m1", "m2"]))])
    assert r["percent_agreement"] == 1.0


@pytest.mark.parametrize("seed", range(3))
def test_find_places_each_wanted_key_as_a_search_does(seed, monkeypatch):
    """find(): through a position per possible key where keys are few and distinct, by a search
    otherwise; either way each wanted key's position among the keys (the first of equal ones)
    and whether it is there, keys sorted or given with the order that sorts them."""
    rng = np.random.default_rng(seed)
    wanted = rng.integers(-5, 3_000, size=5_000)
    for keys in (rng.choice(2_500, size=800, replace=False),  # distinct
                 rng.integers(0, 2_500, size=800),  # repeated
                 rng.choice(10**12, size=800, replace=False)):  # too wide for a position per key
        for order in (np.argsort(keys, kind="stable"), None):
            k = keys if order is not None else np.sort(keys)
            at, there = ag.find(k, wanted, order)
            assert np.array_equal(there, np.isin(wanted, k))
            first = {}
            for i, x in enumerate(k.tolist()):
                first.setdefault(x, i)
            assert at[there].tolist() == [first[x] for x in wanted[there].tolist()]
    monkeypatch.setattr(ag, "_small", lambda keys, bound: False)  # (the search alone agrees)
    keys = rng.choice(2_500, size=800, replace=False)
    order = np.argsort(keys, kind="stable")
    a, b = ag.find(keys, wanted, order), None
    monkeypatch.undo()
    b = ag.find(keys, wanted, order)
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[0][a[1]], b[0][b[1]])
