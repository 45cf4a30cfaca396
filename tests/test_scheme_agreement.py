"""app/scheme_agreement helpers against the pandas operations they stand in for."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from app.scheme_agreement import _groups

keys = st.lists(st.tuples(st.sampled_from(["agent", "team", None]), st.sampled_from(["d1", "d2", "é", None]),
                          st.integers(0, 5)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(keys, st.booleans())
def test_groups_are_pandas_groups_in_first_seen_order(rows, categorical):
    df = pd.DataFrame(rows, columns=["level", "dimension", "x"]).astype({"level": object, "dimension": object})
    if categorical:
        df = df.astype({"level": "category", "dimension": "category"})
    got = [(k, pos.tolist()) for k, pos in _groups(df, ["level", "dimension"])]
    want = [(k, list(v)) for k, v in df.groupby(["level", "dimension"], sort=False, observed=True).indices.items()]
    assert got == want


def test_groups_of_one_column_name_their_key_as_a_tuple():
    df = pd.DataFrame({"m": pd.Categorical(["b", "a", "b", None])})
    assert [(k, p.tolist()) for k, p in _groups(df, ["m"])] == [(("b",), [0, 2]), (("a",), [1])]
    assert _groups(df.iloc[:0], ["m"]) == []
    assert np.asarray(_groups(df, ["m"])[0][1]).dtype == np.int64
