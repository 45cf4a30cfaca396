"""Summaries that keep their parts (summary.Parts): after a save, only the saved scheme's parts
and the progress are computed again, and the result is the summary computed afresh."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from app import labels, summary as core
from app.labels import frame
from benchmarks.summary import generate


def same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A generated study (every scheme of the demo, 4 annotators an item) and its rows."""
    ws, der, path = generate(tmp_path_factory.mktemp("study"), 2_400, 4, seed=3)
    return ws, der, frame(pq.read_table(path))


def edited(df: pd.DataFrame, scheme: str, value: str) -> pd.DataFrame:
    """The rows with one judgement of `scheme` given a new value (as a save would)."""
    out = df.copy()
    at = int(np.flatnonzero((out["scheme"] == scheme).to_numpy())[0])
    col = out["value"].astype(object)
    assert col.iloc[at] != value
    col.iloc[at] = value
    out["value"] = col.astype("category")
    return out


def test_kept_parts_give_the_summary_computed_afresh(study, monkeypatch):
    ws, der, df = study
    parts = core.Parts()
    first = core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    assert same(first, core.summarize(ws, df, derived=der, disagreements=False))
    assert first["counts"]["judgements"] > 2_000 and first["agreement"]["scorecard"]

    # one scorecard changed: its parts are computed again, nobody else's
    spread = []
    real = labels.build
    monkeypatch.setattr(core, "build", lambda *a, **kw: spread.append(kw.get("spread")) or real(*a, **kw))
    value = json.dumps({"agents": {}, "team": {"overall": 1}, "milestones": {}})
    df2 = edited(df, "scorecard", value)
    again = core.summarize(ws, df2, derived=der, disagreements=False, parts=parts)
    assert spread == [{"scorecard"}]
    assert same(again, core.summarize(ws, df2, derived=der, disagreements=False))
    assert again["scorecards"]["scorecard"] is not first["scorecards"]["scorecard"]
    assert again["attribution"]["attribution"] is first["attribution"]["attribution"]
    assert again["interaction"] is first["interaction"]

    # nothing changed: nothing spread, the same parts
    spread.clear()
    third = core.summarize(ws, df2, derived=der, disagreements=False, parts=parts)
    assert spread == [set()] and same(third, again)

    # a handoff review changed: its parts and the interaction graph, which reads it
    spread.clear()
    df3 = edited(df2, "handoffs", "[]")
    fourth = core.summarize(ws, df3, derived=der, disagreements=False, parts=parts)
    assert spread == [{"handoffs", "graph"}]
    assert same(fourth, core.summarize(ws, df3, derived=der, disagreements=False))
    assert fourth["interaction"] is not first["interaction"]


def test_kept_parts_follow_filters_k_rows_removed_and_the_listed_disagreements(study):
    ws, der, df = study
    parts = core.Parts()
    someone = sorted(set(df["annotator"]))[:2]
    items = [it.id for it in ws.items][:5]
    fewer = df[df["annotator"] != someone[0]]
    for rows, kw in [(df, {}), (df, {"k": 3}), (df, {"annotators": someone}), (df, {"items": items}),
                     (df, {"schemes": ["attribution", "mast_steps"]}), (fewer, {}), (df, {"disagreements": True}),
                     (df, {})]:
        kept = core.summarize(ws, rows, derived=der, parts=parts, **{"disagreements": False, **kw})
        assert same(kept, core.summarize(ws, rows, derived=der, **{"disagreements": False, **kw})), kw


def test_parts_are_kept_for_the_newest_filters(study, monkeypatch):
    ws, der, df = study
    monkeypatch.setattr(core.Parts, "FILTERS_KEPT", 2)
    parts = core.Parts()
    for k in (1, 2, 3):
        core.summarize(ws, df, derived=der, disagreements=False, parts=parts, k=k)
    assert [where[-1] for where in parts._kept] == [2, 3]  # (k is the filters' last)
    n_schemes = len(ws.project.schemes)
    assert all(len(kept) > n_schemes for kept in parts._kept.values())  # agreement, rollups, graph, gold
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts, k=2)  # k=2 used again: the newest
    assert [where[-1] for where in parts._kept] == [3, 2]


def test_scheme_prints_change_with_a_rows_scheme_only(study):
    _ws, _der, df = study
    before = core.scheme_prints(df)
    assert set(before) == set(df["scheme"].astype(str))
    after = core.scheme_prints(edited(df, "outcome", json.dumps({"not a label": "true"})))
    assert {n for n in before if before[n] != after[n]} == {"outcome"}
    assert core.scheme_prints(df.iloc[:0]) == {}


def test_build_takes_each_values_rows_from_the_build_before(study, monkeypatch):
    """labels.build(kept=...): the same tables; a value spread before is not spread again, and
    what is kept is this build's values only."""
    ws, _der, df = study
    by_name = {s.name: s for s in ws.project.schemes}
    kept: dict = {}
    fresh = labels.build(df, by_name).tables()
    for name, table in labels.build(df, by_name, kept=kept).tables().items():
        pd.testing.assert_frame_equal(table, fresh[name], obj=name)
    spread = []
    real = labels._spread
    monkeypatch.setattr(labels, "_spread", lambda t, o, v: spread.append(t) or real(t, o, v))
    value = json.dumps({"agents": {}, "team": {"overall": 2}, "milestones": {}})
    df2 = edited(df, "scorecard", value)
    again = labels.build(df2, by_name, kept=kept).tables()
    assert spread == ["agent_scorecard"]  # the one new value
    for name, table in labels.build(df2, by_name).tables().items():
        pd.testing.assert_frame_equal(again[name], table, obj=name)
    stored = set(df2.loc[df2["scheme"] == "scorecard", "value"].astype(str))
    assert set(kept[("scorecard", "agent_scorecard")]) == stored and value in stored
