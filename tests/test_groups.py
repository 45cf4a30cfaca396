"""Summary helpers (app/labels, app/summary) against the pandas operations they stand in for."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from app._old.labels import groups

keys = st.lists(st.tuples(st.sampled_from(["agent", "team", None]), st.sampled_from(["d1", "d2", "é", None]),
                          st.integers(0, 5)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(keys, st.booleans())
def test_groups_are_pandas_groups_in_first_seen_order(rows, categorical):
    df = pd.DataFrame(rows, columns=["level", "dimension", "x"]).astype({"level": object, "dimension": object})
    if categorical:
        df = df.astype({"level": "category", "dimension": "category"})
    got = [(k, pos.tolist()) for k, pos in groups(df, ["level", "dimension"])]
    want = [(k, list(v)) for k, v in df.groupby(["level", "dimension"], sort=False, observed=True).indices.items()]
    assert got == want


def test_groups_of_one_column_name_their_key_as_a_tuple():
    df = pd.DataFrame({"m": pd.Categorical(["b", "a", "b", None])})
    assert [(k, p.tolist()) for k, p in groups(df, ["m"])] == [(("b",), [0, 2]), (("a",), [1])]
    assert groups(df.iloc[:0], ["m"]) == []
    assert np.asarray(groups(df, ["m"])[0][1]).dtype == np.int64


def _stats_by_pandas(df, by):
    """The per-group statistics as pandas computes them (what summary._stats stands in for)."""
    from app._old.summary import t975
    g = df.groupby(by, sort=False, observed=True)
    out = g["score"].agg(n="count", mean="mean", sd="std").reset_index()
    out["runs"] = g["item_id"].nunique().values
    out["annotators"] = g["annotator"].nunique().values
    half = np.array([t975(int(n) - 1) if n >= 2 else np.nan for n in out["n"]]) * out["sd"] / np.sqrt(out["n"])
    out["ci_low"], out["ci_high"] = out["mean"] - half, out["mean"] + half
    out.loc[out["n"] < 2, "sd"] = np.nan
    return out[by + ["n", "mean", "sd", "ci_low", "ci_high", "runs", "annotators"]]


class _Lab:
    """The two tables scorecards_tally reads."""

    def __init__(self, scores: pd.DataFrame):
        self.scores = scores

    def of(self, table: str, scheme: str) -> pd.DataFrame:
        if table == "scores":
            return self.scores
        return pd.DataFrame({"item_id": [], "annotator": [], "milestone": [], "reached": []})


class _Scheme(dict):
    name, type = "scorecard", "agent_scorecard"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", None]), st.sampled_from(["d1", "d2"]),
                          st.one_of(st.none(), st.integers(1, 5)), st.sampled_from(["r1", "r2", "r3", None]),
                          st.sampled_from(["x", "y", "z"])), min_size=1, max_size=40), st.booleans())
def test_stats_are_pandas_stats(rows, categorical):
    """Per agent and dimension, from the scorecard's tally: n, mean, sd, 95 % interval, runs and
    annotators as pandas computes them (groups named in full only)."""
    from app._old.summary import scorecards_from, scorecards_tally
    df = pd.DataFrame(rows, columns=["agent", "dimension", "score", "item_id", "annotator"])
    df["score"] = df["score"].astype("float64")
    df = df.astype({c: "category" if categorical else object for c in ("agent", "dimension", "item_id", "annotator")})
    df.insert(0, "level", "agent")
    got = pd.DataFrame(scorecards_from(scorecards_tally(_Lab(df), _Scheme()), _Scheme())["agents"])
    want = _stats_by_pandas(df, ["agent", "dimension"]).sort_values(["agent", "dimension"]).reset_index(drop=True)
    assert len(got) == len(want)
    if not len(want):
        return
    assert list(got.columns) == list(want.columns)
    for c in got.columns:
        a, b = got[c].tolist(), want[c].tolist()
        if c in ("agent", "dimension"):
            assert a == b
        else:
            np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-9, equal_nan=True)
