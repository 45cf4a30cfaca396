"""Summaries that keep their parts (summary.Parts): after a save, only the changed items' rows
are spread and counted again, and the result is the summary computed afresh."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from app._old import labels, scheme_agreement, summary as core, trace_columns
from app._old.labels import frame
from tests.summary_data import generated_study, same


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return generated_study(tmp_path_factory.mktemp("study"), seed=3)


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

    # one scorecard changed: its parts are brought up to date by the changed item's scorecard
    # rows (before and now spread), nobody else's, and the progress by the item's rows (framed,
    # nothing spread); no other row is spread, nor even framed
    spread = []
    real = labels.build
    monkeypatch.setattr(core, "build", lambda df, *a, **kw: spread.append((kw.get("spread"), len(df)))
                        or real(df, *a, **kw))
    value = json.dumps({"agents": {}, "team": {"overall": 1}, "milestones": {}})
    df2 = edited(df, "scorecard", value)
    again = core.summarize(ws, df2, derived=der, disagreements=False, parts=parts)
    assert [x for x, _ in spread] == [{"scorecard"}, {"scorecard"}, set(), set()]
    item = df["item_id"][(df["scheme"] == "scorecard").to_numpy()].iloc[0]
    one_item = int((df["item_id"] == item).sum())
    its_scorecards = int(((df["item_id"] == item) & (df["scheme"] == "scorecard")).sum())
    assert [n for _, n in spread] == [its_scorecards, its_scorecards, one_item, one_item]
    spread[:] = [x for x, _ in spread]
    assert same(again, core.summarize(ws, df2, derived=der, disagreements=False))
    assert again["scorecards"]["scorecard"] is not first["scorecards"]["scorecard"]
    assert again["attribution"]["attribution"] is first["attribution"]["attribution"]
    assert again["interaction"] is first["interaction"]

    # nothing changed: no row spread (nor framed), the same parts
    spread.clear()
    monkeypatch.setattr(core, "build", lambda df, *a, **kw: spread.append(kw.get("spread")) or real(df, *a, **kw))
    third = core.summarize(ws, df2, derived=der, disagreements=False, parts=parts)
    assert spread == [] and same(third, again)

    # a handoff review changed: its parts and the interaction graph, which reads it; the graph's
    # rows are not spread again (the interaction graph takes the graph's marks as kept)
    spread.clear()
    df3 = edited(df2, "handoffs", "[]")
    fourth = core.summarize(ws, df3, derived=der, disagreements=False, parts=parts)
    assert spread == [{"handoffs"}, {"handoffs"}, set(), set()]
    assert same(fourth, core.summarize(ws, df3, derived=der, disagreements=False))
    assert fourth["interaction"] is not first["interaction"]

    # a graph changed: likewise, the handoff reviews' flags kept
    spread.clear()
    df4 = edited(df3, "graph", json.dumps({"critical_nodes": [], "edges": {}}))
    fifth = core.summarize(ws, df4, derived=der, disagreements=False, parts=parts)
    assert spread == [{"graph"}, {"graph"}, set(), set()]
    assert same(fifth, core.summarize(ws, df4, derived=der, disagreements=False))
    assert fifth["interaction"] is not fourth["interaction"]


def test_kept_parts_follow_filters_k_rows_removed_and_the_listed_disagreements(study):
    ws, der, df = study
    parts = core.Parts()
    someone = sorted(set(df["annotator"]))[:2]
    items = [it.id for it in ws.items][:5]
    fewer = df[df["annotator"] != someone[0]]
    for rows, kw in [(df, {}), (df, {"k": 3}), (df, {"annotators": someone}), (df, {"items": items}),
                     (df, {"schemes": ["attribution", "mast_steps"]}), (df, {"schemes": ["graph"]}),
                     (df, {"schemes": ["handoffs", "outcome"]}), (df[df["scheme"] != "handoffs"], {}),
                     (fewer, {}), (df, {"disagreements": True}),
                     (df, {})]:
        kept = core.summarize(ws, rows, derived=der, parts=parts, **{"disagreements": False, **kw})
        assert same(kept, core.summarize(ws, rows, derived=der, **{"disagreements": False, **kw})), kw


def test_the_disagreements_listed_do_not_follow_the_order_of_the_rows(study):
    """Records come item by item in the workspace's order, whatever order the rows come in, so
    parts kept from rows in one order list what a summary afresh of the same rows in another
    order lists (a row's order changes no fingerprint)."""
    ws, der, df = study
    shuffled = df.sample(frac=1.0, random_state=7).reset_index(drop=True)
    listed = core.summarize(ws, df, derived=der, disagreements=True)
    again = core.summarize(ws, shuffled, derived=der, disagreements=True)
    assert json.dumps(listed["disagreements"]) == json.dumps(again["disagreements"])
    place = {it.id: k for k, it in enumerate(ws.items)}
    ranks: dict[tuple, list[int]] = {}
    for r in listed["disagreements"]:  # (one object of one measure: items in the workspace's order)
        ranks.setdefault((r["scheme"], r["kind"], r["object"]), []).append(place[r["item_id"]])
    assert len(ranks) > 20 and all(x == sorted(x) for x in ranks.values())
    parts = core.Parts()
    core.summarize(ws, df, derived=der, disagreements=True, parts=parts)
    kept = core.summarize(ws, shuffled, derived=der, disagreements=True, parts=parts)
    assert json.dumps(kept["disagreements"]) == json.dumps(listed["disagreements"])
    # (items covered twice are ordered by their first place)
    lab = labels.build(shuffled, {s.name: s for s in ws.project.schemes})
    ids = [it.id for it in ws.items]
    trace_columns.cover(lab.memo, ids + ids[::-1])
    twice = [r for s in ws.project.schemes
             for r in scheme_agreement.agreement_for(lab, s, der, 1, core._handoff_judgements)[1]]
    assert json.dumps(twice) == json.dumps(listed["disagreements"])


def test_pairs_of_any_integers_are_told_apart():
    """(item, index) pairs stored with any index (negative, or near 2**63: a hand-made or
    imported value) are distinct units, first-seen or in order of item then index."""
    rng = np.random.default_rng(4)
    for wide in (False, True):
        a = rng.integers(0, 6, 400)
        b = rng.choice([-7, -2, -1, 0, 1, 5] + ([2**62, -(2**62), 2**63 - 1] if wide else []), 400)
        for ordered in (False, True):
            code, ua, ub = scheme_agreement._pair_codes(a, b, ordered=ordered)
            pairs = list(zip(a.tolist(), b.tolist()))
            assert list(zip(ua[code].tolist(), ub[code].tolist())) == pairs
            assert len(set(zip(ua.tolist(), ub.tolist()))) == len(ua) == len(set(pairs))
            if ordered:
                assert list(zip(ua.tolist(), ub.tolist())) == sorted(set(pairs))


def test_a_tool_call_is_listed_and_counted_whatever_its_rows_and_index(study):
    """Two annotators naming different tools for one call: the record names the first
    annotator's (by name), whatever order the rows are in; a call stored with a negative index
    is a unit of its own, kept or afresh."""
    ws, der, df = study
    s = next(x for x in ws.project.schemes if x.type == "tool_call_review")
    rows = df[(df["scheme"] == s.name).to_numpy()]
    item = rows["item_id"].astype(str).value_counts().index[0]
    a, b = sorted(rows[(rows["item_id"] == item).to_numpy()]["annotator"].astype(str))[:2]
    values = df["value"].astype(object).copy()
    for who, tool, verdict in ((a, "search", "correct"), (b, "grep", "wrong")):
        at = (df["item_id"] == item) & (df["annotator"] == who) & (df["scheme"] == s.name)
        values[at.to_numpy()] = json.dumps([{"index": 0, "step": 0, "tool": tool, "verdict": verdict, "notes": ""}])
    odd = df.assign(value=values.astype("category"))

    def listed(rows):
        got = core.summarize(ws, rows, derived=der, disagreements=True, schemes=[s.name])["disagreements"]
        return [r for r in got if r["item_id"] == item]
    assert listed(odd) == listed(odd.iloc[::-1].reset_index(drop=True))
    assert [r["object"] for r in listed(odd)] == ["call 0 (search)"]
    parts = core.Parts()
    core.summarize(ws, odd, derived=der, parts=parts, disagreements=False)
    at = ((odd["item_id"] == item) & (odd["annotator"] == b) & (odd["scheme"] == s.name)).to_numpy()
    values[at] = json.dumps([{"index": 0, "step": 0, "tool": "grep", "verdict": "wrong", "notes": ""},
                             {"index": -2, "step": 0, "tool": "x", "verdict": "wrong", "notes": ""}])
    saved = odd.assign(value=values.astype("category"))
    assert same(core.summarize(ws, saved, derived=der, parts=parts, disagreements=False),
                core.summarize(ws, saved, derived=der, disagreements=False))


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
    assert set(before) == set(df["scheme"].astype(str)) | {core.EVERY}  # (and every row's: the progress's)
    after = core.scheme_prints(edited(df, "outcome", json.dumps({"not a label": "true"})))
    assert {n for n in before if before[n] != after[n]} == {"outcome", core.EVERY}
    assert core.scheme_prints(df.iloc[:0]) == {}
    status = df.copy()  # a status changed alone (the value kept) is a change
    col = status["status"].astype(object)
    col.iloc[int(np.flatnonzero((df["scheme"] == "outcome").to_numpy())[0])] = "reviewed_clean"
    status["status"] = col
    after = core.scheme_prints(status)
    assert {n for n in before if before[n] != after[n]} == {"outcome", core.EVERY}


def test_build_takes_each_values_rows_from_the_build_before(study, monkeypatch):
    """labels.build(kept=...): the same tables; a value spread before is not spread again, and
    what is kept is this build's values only."""
    ws, _der, df = study
    by_name = {s.name: s for s in ws.project.schemes}
    kept: dict = {}
    # (compared with a build reading each value alone, as one with kept values does: the
    # scorecards read together give the same rows, agents in another order within a value)
    monkeypatch.setattr(labels, "_read_many", lambda *a: None)
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


def test_gold_status_and_item_filters_are_computed_again(tmp_path):
    """The parts reading several schemes or the item list: gold accuracy follows an edit of the
    attribution and of the step tags; a judgement cleared is a change; two item filters that
    differ by an item nobody judged are two sets of parts."""
    from app.store.storage import AnnotationStore
    from app.project.workspace import open_project
    from tests.summary_data import attribution, demo
    cfg, save = demo(tmp_path)
    ws = open_project(cfg)
    gold_item, other = "whowhen-algorithm-generated-1", "whowhen-algorithm-generated-45"
    parts = core.Parts()
    rows = lambda: frame(AnnotationStore(ws.project.output_dir).to_table(dictionary=True))  # noqa: E731

    def check(**kw):
        kept = core.summarize(ws, rows(), parts=parts, disagreements=False, **kw)
        assert same(kept, core.summarize(ws, rows(), disagreements=False, **kw)), kw
        return kept

    save(gold_item, "alice", "attribution", attribution("Excel_Expert", 0))
    save(gold_item, "bob", "attribution", attribution("Excel_Expert", 0))
    first = check()
    assert first["gold"]["alice"]["agent_accuracy"] == 1.0
    save(gold_item, "alice", "attribution", attribution("Someone_Else", 0))
    assert check()["gold"]["alice"]["agent_accuracy"] == 0.0
    step = {"steps": [{"step_index": 0, "agent": "Excel_Expert", "correctness": "incorrect",
                       "errors": [{"type": "FM-1.1", "subtype": ""}], "severity": None, "rationale": ""}]}
    save(gold_item, "alice", "mast_steps", step)
    with_tags = check()
    assert with_tags["gold"] != first["gold"]
    save(gold_item, "bob", "attribution", None, status="cleared")
    assert check()["agreement"]["attribution"]["items_compared"] == 0
    check(items=[gold_item])
    check(items=[gold_item, other])  # (nobody judged `other`)
    check(items=[gold_item])


def test_parts_need_the_workspaces_own_derivations(study):
    ws, _der, df = study
    with pytest.raises(ValueError, match="derivations"):
        core.summarize(ws, df, derived=core.Derived(ws), parts=core.Parts())


def test_filtered_summaries_leave_the_kept_values_whole(study):
    ws, der, df = study
    parts = core.Parts()
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    whole = {key: set(texts) for key, texts in parts.spreads.items()}
    someone = sorted(set(df["annotator"]))[0]
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts, annotators=[someone])
    assert {key: set(texts) for key, texts in parts.spreads.items()} == whole
    # a scheme no longer stored is dropped from what is kept
    core.summarize(ws, df[df["scheme"] != "scorecard"], derived=der, disagreements=False, parts=parts)
    assert not any(key[0] == "scorecard" for key in parts.spreads)


def test_one_scheme_stored_under_two_types_keeps_the_values_of_both(study):
    ws, _der, df = study
    by_name = {s.name: s for s in ws.project.schemes}
    old = df.copy()
    at = np.flatnonzero((old["scheme"] == "outcome").to_numpy())[::2]
    kinds = old["annotation_type"].astype(object)
    kinds.iloc[at] = "multiselect"  # (rows saved before the scheme's type changed)
    old["annotation_type"] = kinds.astype("category")
    kept: dict = {}
    labels.build(old, by_name, kept=kept)
    stored = set(old.loc[old["scheme"] == "outcome", "value"].astype(str))
    assert set(kept[("outcome", "radio")]) == stored


def test_parts_brought_up_to_date_item_by_item_equal_a_summary_afresh(study):
    """Random rounds of saves on a few items (other judgements' values, across schemes), rows
    removed and a status changed: after each, the kept parts, brought up to date by the items
    that changed, give the summary computed afresh."""
    ws, der, df = study
    parts = core.Parts()
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    rng = np.random.default_rng(11)
    rows = df
    for round_ in range(6):
        values = rows["value"].astype(object).to_numpy().copy()
        schemes = rows["scheme"].astype(str).to_numpy()
        for at in rng.choice(len(rows), 6, replace=False):  # a save: another judgement's value of the scheme
            same_scheme = np.flatnonzero(schemes == schemes[at])
            values[at] = values[rng.choice(same_scheme)]
        rows = rows.assign(value=pd.Categorical(values))
        if round_ == 2:
            rows = rows.drop(rows.index[rng.choice(len(rows), 5, replace=False)])  # deleted
        if round_ == 4:
            status = rows["status"].astype(object).to_numpy().copy()
            status[rng.choice(len(rows), 3, replace=False)] = "reviewed_clean"
            rows = rows.assign(status=pd.Categorical(status))
        kept = core.summarize(ws, rows, derived=der, disagreements=False, parts=parts)
        assert same(kept, core.summarize(ws, rows, derived=der, disagreements=False)), round_


def test_rows_of_a_scheme_no_longer_configured_are_brought_in_too(study):
    """Rows of a scheme the project no longer configures count in the progress: a change to
    them lies outside every scheme's sums per item, and every row is counted again."""
    ws, der, df = study
    extra = df.iloc[:1].astype(object).copy()
    extra["scheme"] = ["old_scheme"]
    as_read = lambda f: f.astype({c: "category" for c in core.READ[:-2]}).astype({"seconds_spent": float})  # noqa: E731
    rows = as_read(pd.concat([df.astype(object), extra], ignore_index=True))
    parts = core.Parts()
    assert same(core.summarize(ws, rows, derived=der, disagreements=False, parts=parts),
                core.summarize(ws, rows, derived=der, disagreements=False))
    changed = rows.astype(object).copy()
    changed.loc[len(rows) - 1, "annotator"] = "somebody"  # the old scheme's row now somebody's
    changed = as_read(changed)
    got = core.summarize(ws, changed, derived=der, disagreements=False, parts=parts)
    assert same(got, core.summarize(ws, changed, derived=der, disagreements=False))
    assert "somebody" in {p["annotator"] for p in got["progress"]["by_annotator"]}
    assert "old_scheme" in {p["scheme"] for p in got["progress"]["by_scheme"]}


def test_an_item_named_twice_is_one_item(study):
    ws, der, df = study
    parts = core.Parts()
    one = ws.items[0].id
    for _ in range(2):  # (the second from the parts kept)
        twice = core.summarize(ws, df, derived=der, disagreements=False, parts=parts, items=[one, one])
        assert same({**twice, "filters": None},
                    {**core.summarize(ws, df, derived=der, disagreements=False, items=[one]), "filters": None})
