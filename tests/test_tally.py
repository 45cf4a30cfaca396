"""Tallies (app/tally.py) and the agreement measures' tallies (app/agreement.py): the counts of
two disjoint sets of items add up to the counts of both, so a kept tally can be brought up to
date item by item; and what is kept on disk comes back equal."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app._old import agreement as ag
from app._old import tally

NAMES = ["ann", "bob", "cy", "dee"]


def test_merge_adds_subtracts_and_drops_what_reaches_zero():
    a = {"units": {2: 3, 3: 1}, "same": {(2, "x"): 4}}
    b = {"units": {2: 1}, "same": {(2, "x"): 4, (3, "y"): 2}}
    assert tally.merge(a, b) == {"units": {2: 4, 3: 1}, "same": {(2, "x"): 8, (3, "y"): 2}}
    assert tally.merge(tally.merge(a, b), b, -1) == a
    assert tally.merge(a, a, -1) == {}
    assert a == {"units": {2: 3, 3: 1}, "same": {(2, "x"): 4}}  # (inputs untouched)


def test_kept_on_disk_comes_back_equal():
    t = {"same": {(2, None): 1, (2, True): 2, (3, 1.5): 3, (2, ("a", "b")): 4, (2, ()): 5},
         "n": {"x": 1, 7: 2, False: 3}, "nested": {"deeper": {("k",): 9}},
         "records": [{"v": 1, "k": [2, {"d": 3}], "t": None}], "flat": {("a", 1, None, 2.5): 1, ("b", 2, True, 0.0): 2},
         "odd": {(1, float("inf")): 1, (2, float("-inf")): 2}, "odd values": [float("nan")]}
    back = tally.loads(tally.dumps(t))
    nan = back.pop("odd values")[0]
    assert nan != nan
    t.pop("odd values")
    assert back == t
    assert all(type(x) is type(y) for x, y in zip(back["n"], t["n"]))


def test_ordered_sorts_mixed_keys_one_way():
    keys = {None: 1, True: 2, 3: 3, 1.5: 4, "a": 5, ("a",): 6}
    assert [k for k, _ in tally.ordered(keys)] == [None, True, 1.5, 3, "a", ("a",)]


def test_sum_by_names_codes_and_handles_wide_codes():
    got = tally.sum_by([np.array([0, 1, 1, 2]), np.array([5, 5, 5, 6])], [["a", "b", "c"], None],
                       np.array([1, 2, 3, 0]))
    assert got == {("a", 5): 1, ("b", 5): 5}  # (a zero sum is left out)
    wide = np.array([0, 2 ** 40, 2 ** 40])
    assert tally.sum_by([wide, wide, wide], [None, None, None]) == {(0, 0, 0): 1, (2 ** 40,) * 3: 2}
    # weights whose sums pass 2**53 (float64's whole numbers) are summed exactly
    big = np.array([2 ** 60, 3, 2 ** 61, 5, -5])
    assert tally.sum_by([np.array([0, 0, 1, 1, 1])], [["a", "b"]], big) == {"a": 2 ** 60 + 3, "b": 2 ** 61}
    assert tally.sum_by([np.array([0, 0, 1]), np.array([1, 1, 0])], [None, ["x", "y"]],
                        np.array([2 ** 60, 1, 2 ** 55])) == {(0, "y"): 2 ** 60 + 1, (1, "x"): 2 ** 55}


# --- the measures' tallies add up over items ------------------------------------------------------

ITEMS, PER_ITEM = 5, 3  # units 0..14, three per item
rows_st = st.lists(st.tuples(st.integers(0, ITEMS * PER_ITEM - 1), st.integers(0, 3), st.integers(0, 3)),
                   max_size=50)
panel_st = st.lists(st.frozensets(st.integers(0, 3)), min_size=ITEMS, max_size=ITEMS)
split_st = st.sets(st.integers(0, ITEMS - 1))


def _arrays(rows, keep=None):
    rows = [r for r in rows if keep is None or r[0] // PER_ITEM in keep]
    return tuple(np.asarray([r[i] for r in rows], dtype=np.int64) for i in range(3))


def _panel(panels, keep=None) -> ag.UnitPanel:
    """Each item's raters (an item left out has none); its units share them."""
    groups = [sorted(p) if keep is None or g in keep else [] for g, p in enumerate(panels)]
    flat_g = np.asarray([g for g, p in enumerate(groups) for _ in p], dtype=np.int64)
    flat_r = np.asarray([r for p in groups for r in p], dtype=np.int64)
    return ag.UnitPanel(np.arange(ITEMS * PER_ITEM) // PER_ITEM, flat_g, flat_r, ITEMS)


def _halves(fn, split):
    a, b = set(split), set(range(ITEMS)) - set(split)
    return fn(None), tally.merge(fn(a), fn(b))


VALUES = ["x", "y", "z", "w"]


@settings(max_examples=200, deadline=None)
@given(rows_st, split_st)
def test_nominal_tally_adds_up(rows, split):
    def fn(keep):
        u, r, v = _arrays(rows, keep)
        return ag.Ratings(u, r, v, VALUES, ITEMS * PER_ITEM).nominal_tally(NAMES)
    whole, parts = _halves(fn, split)
    assert whole == parts


@settings(max_examples=200, deadline=None)
@given(rows_st, panel_st, split_st)
def test_nominal_tally_with_a_panel_default_adds_up(rows, panels, split):
    rows = [r for r in rows if r[1] in panels[r[0] // PER_ITEM]]

    def fn(keep):
        u, r, v = _arrays(rows, keep)
        return ag.Ratings(u, r, v, VALUES, ITEMS * PER_ITEM, default="none", panel=_panel(panels, keep)
                          ).nominal_tally(NAMES)
    whole, parts = _halves(fn, split)
    assert whole == parts


@settings(max_examples=200, deadline=None)
@given(rows_st, panel_st, split_st)
def test_marked_tally_adds_up_and_equals_the_general_one(rows, panels, split):
    rows = [r for r in rows if r[1] in panels[r[0] // PER_ITEM]]

    def fn(keep):
        u, r, _ = _arrays(rows, keep)
        return ag.marked_tally(u, r, _panel(panels, keep), NAMES)
    whole, parts = _halves(fn, split)
    assert whole == parts
    u, r, _ = _arrays(rows)
    general = ag.Ratings(u, r, np.ones(len(u), dtype=np.int64), [False, True], ITEMS * PER_ITEM, default=False,
                         panel=_panel(panels)).nominal_tally(NAMES)
    assert whole == {k: v for k, v in general.items() if v}


@settings(max_examples=200, deadline=None)
@given(rows_st, split_st, st.booleans())
def test_pairs_tally_adds_up(rows, split, explicit):
    numbers = [1, 2.0, 4, 2]  # (2 and 2.0 are one number)

    def fn(keep):
        u, r, v = _arrays(rows, keep)
        return ag.Ratings(u, r, v, numbers, ITEMS * PER_ITEM).pairs_tally(NAMES, explicit=explicit)
    whole, parts = _halves(fn, split)
    assert whole == parts


@settings(max_examples=200, deadline=None)
@given(rows_st, split_st)
def test_set_tally_adds_up(rows, split):
    sets = [frozenset(), frozenset("a"), frozenset("ab"), frozenset("bc")]

    def fn(keep):
        u, r, v = _arrays(rows, keep)
        key = {}
        for unit, rater, code in zip(u.tolist(), r.tolist(), v.tolist()):
            key[(unit, rater)] = code  # one set per (unit, rater): the last
        pairs = sorted(key.items())
        return ag.set_tally(np.asarray([k[0] for k, _ in pairs], dtype=np.int64),
                            np.asarray([c for _, c in pairs], dtype=np.int64), sets)
    whole, parts = _halves(fn, split)
    assert whole == parts


def test_a_tally_kept_and_updated_gives_the_same_numbers_bit_for_bit():
    rng = np.random.default_rng(7)
    u = rng.integers(0, 300, 2000)
    r = rng.integers(0, 4, 2000)
    v = rng.integers(0, 3, 2000)
    ratings = lambda keep: ag.Ratings(u[keep], r[keep], v[keep], ["a", "b", "c"], 300)  # noqa: E731
    everything = np.ones(len(u), dtype=bool)
    old = u < 150
    kept = tally.merge(ratings(old).nominal_tally(NAMES), ratings(~old).nominal_tally(NAMES))
    # one item changes: its old counts out, its new ones in
    changed = u == 7
    v2 = v.copy()
    v2[changed] = (v2[changed] + 1) % 3
    before = ratings(changed).nominal_tally(NAMES)
    v[:] = v2
    kept = tally.merge(tally.merge(kept, before, -1), ratings(changed).nominal_tally(NAMES))
    assert kept == ratings(everything).nominal_tally(NAMES)
    assert ag.nominal_from(kept) == ratings(everything).nominal()
