"""Many stored values read at once (app/value_columns.py): the rows scorecard.table_rows and
handoff.table_rows give for each value, or None where they would read them otherwise, and the
same summary."""
from __future__ import annotations

import json
import random

import numpy as np
import pandas as pd
import pytest

from app.types import handoff_review as handoff
from app._old import labels, summary as core, value_columns
from app.types.agent_scorecard import TEAM, table_rows
from app._old.value_columns import handoffs, scorecards
from tests.summary_data import generated_study, same

AGENTS = ["Planner", "Coder", "Critic", "Ünïcode agent", "a \"quoted\" one", "", "team"]
DIMS = ["role fidelity", "contribution", "coordination", "odd/dim.name"]


def _value(rng: random.Random, scale: int) -> dict:
    """A scorecard as Baton writes it, or as an older config or another project left it: any
    agents in any order, scores in and out of range, milestones reached or not."""
    agents = rng.sample(AGENTS, rng.randint(0, len(AGENTS)))
    v: dict = {}
    if rng.random() < 0.9:
        v["agents"] = {a: {d: rng.randint(-1, scale + 2) for d in rng.sample(DIMS, rng.randint(0, len(DIMS)))}
                       for a in agents}
    if rng.random() < 0.8:
        v["team"] = {d: rng.randint(0, scale + 1) for d in rng.sample(DIMS, rng.randint(0, 3))}
    if rng.random() < 0.8:
        v["milestones"] = {m: rng.random() < 0.5 for m in rng.sample(["plan", "verified", "done"], rng.randint(0, 3))}
    if rng.random() < 0.1:
        v["note"] = "an entry the scorecard does not read"
    return v


def _rows_of(found: dict, n: int) -> list[tuple[list, list]]:
    """scorecards()' columns back as each text's (score rows, milestone rows)."""
    out = []
    for name in ("scores", "milestones"):
        counts, cols = found[name]
        assert len(counts) == n
        columns = [list(np.asarray(c, dtype=object)) for c in cols.values()]
        rows = list(zip(*columns)) if columns and len(columns[0]) else []
        ends = np.cumsum(counts).tolist()
        out.append([rows[a:b] for a, b in zip([0] + ends[:-1], ends)])
    return list(zip(*out))


@pytest.mark.parametrize("seed", range(4))
def test_many_scorecards_read_as_table_rows_reads_each(seed):
    rng = random.Random(seed)
    scale = rng.choice([3, 5, 10])
    texts = [json.dumps(_value(rng, scale), ensure_ascii=rng.random() < 0.5) for _ in range(400)]
    found = scorecards(texts, scale)
    assert found is not None
    for text, (scores, miles) in zip(texts, _rows_of(found, len(texts))):
        want_scores, want_miles = table_rows(json.loads(text), scale)
        # the same rows; agents within one value may come in another order (nothing reads it)
        assert sorted((lv, a, d, float(s)) for lv, a, d, s in want_scores) == sorted(scores), text
        assert sorted(want_miles) == sorted(miles), text
    assert any(row[1] == TEAM for rows, _ in _rows_of(found, len(texts)) for row in rows)


@pytest.mark.parametrize("odd", [
    '{"agents": {"Coder": {"role": "4"}}}',  # a score as text: table_rows takes it
    '{"agents": {"Coder": {"role": 4.0}}}',  # a whole number written as a float
    '{"agents": {"Coder": {"role": true}}}',  # a boolean (refused, but a change of type)
    '{"team": {"role": 99999999999999999999999}}',  # beyond 64 bits
    '{"milestones": {"plan": null}}',  # a null milestone: a row "not reached"
    '{"milestones": {"plan": "true"}}',  # a milestone as text
    '{"agents": {"Coder": 3}}',  # an agent with a number for its scores
    '{"agents": [1, 2]}',
    '{"team": {"role": 3, "role": 4}}',  # a key given twice: table_rows takes the last
    '[1, 2]', '"text"', "null", "not json",
    '{"team":\n {"role": 3}}',  # over two lines
    '{"team": {"role": 3}}\r',
    "",
    '{"team": {"role": 3}}{"team": {"role": 4}}',  # two values on a line
    '\ufeff{"team": {"role": 3}}',  # a byte-order mark (json refuses it)
    '{"team": {"role": 3}}, "v": 1',
])
def test_scorecards_of_another_shape_are_left_to_table_rows(odd):
    texts = [json.dumps({"agents": {"Planner": {"role": 3}}, "team": {"role": 2}, "milestones": {"plan": True}}),
             odd]
    assert scorecards(texts, 5) is None


def test_an_empty_text_beside_two_values_on_a_line_is_not_counted_as_two_texts():
    """As many values read as texts is not enough: "" reads as none, "{...}{...}" as two."""
    good = json.dumps({"team": {"role": 2}})
    assert scorecards([good, "", '{"team": {"role": 3}}{"team": {"role": 4}}'], 5) is None
    assert handoffs([json.dumps([]), "", "[][]"]) is None


def test_a_summary_reads_the_same_from_values_read_together_or_alone(tmp_path, monkeypatch):
    """A generated study's build gives the same rows per judgement, and its summary (the
    disagreements listed, in the same order) is the same, whichever way values are read."""
    ws, der, df = generated_study(tmp_path, seed=7)
    by_name = {s.name: s for s in ws.project.schemes}
    monkeypatch.setattr(value_columns, "MANY", 10)  # (a small study's values read together too)
    read = []
    for name in ("scorecards", "handoffs"):
        real = getattr(value_columns, name)
        monkeypatch.setattr(value_columns, name, lambda *a, real=real: read.append(real(*a)) or read[-1])
    together = labels.build(df, by_name)
    assert len(read) == 2 and None not in read  # (both read together)
    listed = core.summarize(ws, df, derived=der, disagreements=True)
    monkeypatch.setattr(labels, "_read_many", lambda *a: None)
    alone = labels.build(df, by_name)
    for name in ("scores", "milestones", "handoffs"):
        a, b = (getattr(x, name).astype(object) for x in (together, alone))
        assert len(a) > 100
        key = list(a.columns)
        pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True),
                                      b.sort_values(key).reset_index(drop=True), obj=name)
        assert getattr(together, name).dtypes.tolist() == getattr(alone, name).dtypes.tolist()
    assert not together.scores.astype(object).equals(alone.scores.astype(object))  # (another order)
    pd.testing.assert_frame_equal(together.handoffs, alone.handoffs)  # (entries sorted: the same order)
    again = core.summarize(ws, df, derived=der, disagreements=True)
    assert same(listed, again) and json.dumps(listed["disagreements"]) == json.dumps(again["disagreements"])
    assert any(d["scheme"] == "scorecard" for d in listed["disagreements"])


def _entry(rng: random.Random) -> dict | None:
    """A handoff review's entry as Baton writes it, or with parts missing or null."""
    e = {"index": rng.randint(0, 6), "step": rng.randint(0, 12), "from": rng.choice(AGENTS),
         "to": rng.choice(AGENTS), "flags": rng.sample(["info_loss", "garbling", "goal_drift"] * 2, rng.randint(0, 4)),
         "quality": rng.choice([None, 1, 2, 3, 4, 5, 7])}
    for key in list(e):
        r = rng.random()
        if r < 0.03:
            del e[key]
        elif r < 0.05:
            e[key] = None
    return e


@pytest.mark.parametrize("seed", range(4))
def test_many_handoff_reviews_read_as_table_rows_reads_each(seed):
    rng = random.Random(seed)
    texts = [json.dumps([_entry(rng) for _ in range(rng.randint(0, 5))], ensure_ascii=rng.random() < 0.5)
             for _ in range(400)] + ["null"]
    found = handoffs(texts)
    assert found is not None
    counts, cols = found["handoffs"]
    columns = [list(np.asarray(c, dtype=object)) for c in (cols["index"], cols["step"], cols["src"], cols["dst"],
                                                           cols["flags"], cols["quality"])]
    rows = list(zip(*columns))
    ends = np.cumsum(counts).tolist()
    for text, a, b in zip(texts, [0] + ends[:-1], ends):
        want = [(i, s, x, y, f, float("nan") if q is None else float(q))
                for i, s, x, y, f, q in handoff.table_rows(json.loads(text))]
        assert json.dumps(want) == json.dumps([(*r[:5], float(r[5])) for r in rows[a:b]]), text  # (order too)
    assert sum(counts) > 500 and any(len(f) > 1 for f in cols["flags"])


@pytest.mark.parametrize("odd", [
    '[{"index": 1, "step": 2, "from": "a", "to": "b", "flags": [null]}]',  # a flag "None" to table_rows
    '[{"index": 1, "step": 2, "from": "a", "to": "b", "flags": [3]}]',  # a flag "3"
    '[{"index": 1.0, "step": 2, "from": "a", "to": "b"}]',  # dropped by table_rows: an index not whole
    '[{"index": true, "step": 2, "from": "a", "to": "b"}]',
    '[{"index": 1, "step": 2, "from": 5, "to": "b"}]',
    '[{"index": 1, "step": 2, "from": "a", "to": "b", "quality": 4.5}]',
    '[{"index": 1, "step": 2, "from": "a", "to": "b", "quality": "4"}]',
    '[{"index": 1, "index": 2, "step": 2, "from": "a", "to": "b"}]',
    '[null, {"index": 1, "step": 2, "from": "a", "to": "b", "flags": ["x"]}]',  # a null entry (Arrow 26 read
    '[{"index": 0, "step": 2, "from": "a", "to": "b"}, null]',  # these wrong: lists past their items)
    '[1, 2]', '{"index": 1}', '"text"', "not json", "",
    '[{"index": 1, "step": 2, "from": "a", "to": "b"}], "w": 5',  # a key after the value
    '[{"index": 1, "step": 2, "from": "a", "to": "b"}]} {"v": []',
    '[{"index": 1,\n "step": 2, "from": "a", "to": "b"}]',
])
def test_handoff_reviews_of_another_shape_are_left_to_table_rows(odd):
    texts = [json.dumps([{"index": 0, "step": 1, "from": "a", "to": "b", "flags": ["x"], "quality": 3}]), odd]
    assert handoffs(texts) is None


def test_values_read_together_are_not_kept_per_value(tmp_path, monkeypatch):
    """labels.build(kept=...): a scheme whose values are read together keeps nothing per value
    (the next build reads them together again), the others keep theirs; the rows are those of
    a build reading each value alone."""
    ws, _der, df = generated_study(tmp_path, seed=5)
    by_name = {s.name: s for s in ws.project.schemes}
    monkeypatch.setattr(value_columns, "MANY", 10)
    kept: dict = {("scorecard", "agent_scorecard"): {"an old value": {}}}  # (from a build before)
    first = labels.build(df, by_name, kept=kept)
    assert kept[("scorecard", "agent_scorecard")] == {} and kept[("handoffs", "handoff_review")] == {}
    assert len(kept[("outcome", "radio")]) == 3  # (read one by one: kept)
    again = labels.build(df, by_name, kept=kept)
    monkeypatch.setattr(labels, "_read_many", lambda *a: None)
    alone = labels.build(df, by_name)
    for name in ("scores", "milestones", "handoffs", "choices"):
        want = getattr(alone, name).astype(object)
        key = list(want.columns)
        want = want.sort_values(key).reset_index(drop=True)
        for got in (first, again):
            got = getattr(got, name).astype(object)
            pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True), want, obj=name)


def test_values_nested_deep_are_read_one_by_one_and_summarized(tmp_path):
    """Arrow 26's reader crashed the process on a value nested 25,000 deep (and took seconds
    at a few thousand): such values are read one by one, where json refuses them as any text
    it cannot read; the summary goes on."""
    deep = '{"agents": ' + "[" * 25_000 + "]" * 25_000 + "}"
    good = json.dumps({"team": {"role": 2}})
    assert scorecards([good, deep], 5) is None
    assert handoffs([json.dumps([]), "[" + deep + "]"]) is None
    ws, der, df = generated_study(tmp_path, seed=2)
    from tests.test_summary_parts import edited
    out = core.summarize(ws, edited(edited(df, "scorecard", deep), "handoffs", "[" + deep + "]"), derived=der,
                         disagreements=False)
    assert out["counts"]["judgements"] > 1000


def test_many_agents_are_read_one_by_one(monkeypatch):
    """Arrow makes a field per agent: past MAX_AGENTS (seen in an even sample first) the
    scorecards are read one by one, which does not slow down with the names."""
    rng = random.Random(1)
    texts = [json.dumps({"agents": {f"agent {rng.randrange(200)}": {"role": 3} for _ in range(3)}})
             for _ in range(3_000)]
    assert scorecards(texts, 5) is None
    monkeypatch.setattr(value_columns, "SAMPLE", 10**9)  # (no sample: the count on every value)
    assert scorecards(texts, 5) is None
    few = [json.dumps({"agents": {f"agent {rng.randrange(20)}": {"role": 3}}}) for _ in range(3_000)]
    assert scorecards(few, 5) is not None


def test_handoff_indexes_past_2_53_are_exact():
    big = 2**63 - 1
    texts = [json.dumps([{"index": big, "step": 2**53 + 1, "from": "a", "to": "b"},
                         {"step": 1, "from": "a", "to": "b"}]), json.dumps([])]
    _counts, cols = handoffs(texts)["handoffs"]
    assert list(cols["index"]) == [big] and list(cols["step"]) == [2**53 + 1]


def test_a_lone_surrogate_is_read_one_by_one():
    assert scorecards([json.dumps({"team": {"r": 2}}), '{"agents": {"\ud800": {"r": 3}}}'], 5) is None
    assert handoffs([json.dumps([]), '[{"index": 1, "step": 2, "from": "\ud800", "to": "b"}]']) is None
