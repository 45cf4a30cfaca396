"""Agreement measures (app/stats/agreement.py) against published worked examples and the
`krippendorff` package on the same data."""
from __future__ import annotations

import random
from fractions import Fraction

import krippendorff
import numpy as np
import pytest

from app.stats import agreement as ag

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, values 1..5, missing entries. Published: nominal 0.743, ordinal 0.815, interval 0.849.
K2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    "C": [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
}


def long_form(by_rater: dict[str, list]):
    rows = [(u, r, v) for r, values in by_rater.items() for u, v in enumerate(values) if v is not None]
    return ag.judgements(*zip(*rows))


@pytest.mark.parametrize("level, published", [("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_example(level, published):
    got = ag.ordinal(long_form(K2011), level)
    assert got["alpha"] == pytest.approx(published, abs=5e-4)
    assert got["n_units"] == 11 and got["n_raters"] == 4  # unit 12 has a single value: not pairable


def test_krippendorff_2011_nominal():
    assert ag.nominal(long_form(K2011))["alpha"] == pytest.approx(0.743, abs=5e-4)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", range(5))
def test_alpha_equals_the_krippendorff_package(level, seed):
    """Random ratings with gaps, 3-6 raters: Baton's alpha is the package's on the reliability matrix."""
    rng = random.Random(seed)
    raters = [f"r{i}" for i in range(rng.randint(3, 6))]
    data = {r: [rng.choice([1, 2, 3, 4, 5, None]) for _ in range(30)] for r in raters}
    matrix = np.array([[np.nan if v is None else v for v in data[r]] for r in raters], dtype=float)
    want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    table = long_form(data)
    got = ag.nominal(table)["alpha"] if level == "nominal" else ag.ordinal(table, level)["alpha"]
    assert got == pytest.approx(want, abs=1e-9)


# Fleiss' kappa: the worked example of 10 subjects, 14 raters, 5 categories (Wikipedia's
# "Fleiss' kappa" article): P̄ = 0.378, P̄e = 0.213, kappa = 0.210.
FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
          [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def test_fleiss_worked_example():
    rows = [(u, f"r{i}", c) for u, counts in enumerate(FLEISS)
            for i, c in enumerate(c for c, n in enumerate(counts) for _ in range(n))]
    got = ag.nominal(ag.judgements(*zip(*rows)))
    p_bar = Fraction(sum(sum(x * x for x in row) - 14 for row in FLEISS), 10 * 14 * 13)
    p_j = [Fraction(sum(row[j] for row in FLEISS), 140) for j in range(5)]
    p_e = sum(p * p for p in p_j)
    assert got["measure"] == "fleiss_kappa" and got["n_raters"] == 14
    assert got["kappa"] == pytest.approx(float((p_bar - p_e) / (1 - p_e)), abs=1e-12)
    assert got["kappa"] == pytest.approx(0.210, abs=5e-4)
    assert got["percent_agreement"] == pytest.approx(0.378, abs=5e-4)


def test_cohen_classic_example():
    # 50 items: both yes 20, A yes / B no 5, A no / B yes 10, both no 15:
    # p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    got = ag.nominal(ag.judgements(list(range(50)) * 2, ["a"] * 50 + ["b"] * 50, a + b))
    assert got["measure"] == "cohen_kappa" and got["kappa"] == pytest.approx(0.4, abs=1e-12)


def test_one_category_is_undefined_not_nan():
    got = ag.nominal(ag.judgements([0, 0, 1, 1], ["a", "b", "a", "b"], ["x"] * 4))
    assert got["kappa"] is None and got["alpha"] is None and got["note"] == ag.NO_VARIATION
    assert got["percent_agreement"] == 1.0


def test_no_pairable_unit():
    got = ag.nominal(ag.judgements([0, 1], ["a", "b"], ["x", "y"]))
    assert got["n_units"] == 0 and got["note"] == ag.NO_PAIRS and got["n_raters"] == 2


def test_panel_defaults_fill_what_an_annotator_left_alone():
    panel = ag.judgements([0, 0, 1, 1], ["a", "b", "a", "b"], [None] * 4)[["unit", "rater"]]
    given = ag.judgements([0], ["a"], ["bad"])
    filled = ag.with_default(given, panel, "normal")
    assert sorted(map(tuple, filled.to_numpy().tolist())) == [(0, "a", "bad"), (0, "b", "normal"),
                                                              (1, "a", "normal"), (1, "b", "normal")]


def test_within_k_and_mean_abs_diff():
    table = ag.judgements([0, 0, 1, 1, 2, 2], ["a", "b"] * 3, [3, 3, 3, 4, 1, 5])
    got = ag.within(table, 1)
    assert got["exact"] == pytest.approx(1 / 3) and got["within_k"] == pytest.approx(2 / 3)
    assert ag.ordinal(table)["mean_abs_diff"] == pytest.approx((0 + 1 + 4) / 3)


def test_jaccard_two_empty_sets_agree():
    table = ag.judgements([0, 0, 1, 1], ["a", "b", "a", "b"],
                          [frozenset({"x", "y"}), frozenset({"x"}), frozenset(), frozenset()])
    assert ag.jaccard(table) == {"jaccard": pytest.approx((0.5 + 1.0) / 2), "n_units": 2}


def test_disagreements_name_every_annotator_in_name_order():
    dis = ag.Disagreements("outcome", listed=True)
    dis.add(ag.judgements([0, 0, 1, 1], ["bo", "ana", "bo", "ana"], ["x", "y", "z", "z"]),
            lambda unit: (f"item{unit}", "choice"), "choice")
    assert dis.count == 1
    assert dis.records == [{"item_id": "item0", "scheme": "outcome", "kind": "choice", "object": "choice",
                            "judgements": "ana: y; bo: x"}]
