"""The summary parts of agent_scorecard, tool_contention and tool_call_review that the golden
files do not pin down on their own: the import unwrapping, the per-label contention count the
old summary made, and which annotator's tool names a call in a disagreement."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from app.stats.agreement import Disagreements, judgements, nominal, with_default
from app.summary.rows import long_table
from app.types import agent_scorecard, tool_call_review, tool_contention
from app.types.base import Scheme
from app.types.panel import SchemeRows


def scheme_rows(kind, options: dict, values: dict[tuple[str, str], object]) -> SchemeRows:
    """A scheme's rows from {(item, annotator): stored value}, with no trace behind the items."""
    scheme = Scheme(index=0, type=kind.name, name="s", description="", options=options)
    judged = pd.DataFrame({"item_id": [i for i, _ in values], "annotator": [a for _, a in values],
                           "status": "annotated", "seconds_spent": 1.0,
                           "value": [json.dumps(v) for v in values.values()]})
    return SchemeRows(scheme=scheme, judged=judged, table=long_table(judged, kind, scheme),
                      item_ids=sorted({i for i, _ in values}), k=1, derive=lambda item: None)


@pytest.mark.parametrize("kind, inner", [
    (agent_scorecard.TYPE, {"agents": {"A": {"d": 3}}, "team": {}, "milestones": {}}),
    (tool_contention.TYPE, {"contentions": {"0": "deadlock"}}),
    (tool_call_review.TYPE, [{"index": 0, "step": 1, "tool": "t", "verdict": "correct", "notes": ""}]),
])
def test_potato_hidden_input_is_unwrapped_and_a_stored_value_kept(kind, inner):
    assert kind.coerce({"hidden_input": json.dumps(inner)}, None) == inner
    assert kind.coerce(inner, None) == inner
    assert kind.looks_like(inner) and not kind.looks_like({"something": "else"})


def test_scorecard_rows_spread_scores_and_milestones():
    scheme = Scheme(0, "agent_scorecard", "s", "", {"scale": 5})
    got = agent_scorecard.summary_rows({"agents": {"A": {"d": 3, "e": 9}}, "team": {"t": "4"},
                                        "milestones": {"m": True}}, scheme)
    assert [(r["level"], r["agent"], r["dimension"], r["score"]) for r in got if r["level"]] == \
        [("agent", "A", "d", 3), ("team", agent_scorecard.TEAM, "t", 4)]  # 9 is out of the scale
    assert [(r["milestone"], r["reached"]) for r in got if r["milestone"]] == [("m", True)]


def _per_label(on: pd.DataFrame, every: pd.DataFrame, n_units: int, label: str) -> tuple[dict, dict]:
    explicit = judgements(on["unit"], on["rater"], on["label"])
    old = tool_contention._PerLabel(explicit, every, n_units).nominal(label)
    plain = nominal(with_default(judgements(on["unit"], on["rater"], on["label"] == label), every, False))
    return old, plain


def test_per_label_contention_is_the_plain_measure_while_every_annotator_labels_every_region():
    every = pd.DataFrame({"unit": [0, 0, 0, 1, 1, 1], "rater": ["a", "b", "c"] * 2})
    on = every.assign(label=["deadlock", "deadlock", "benign", "benign", "benign", "benign"])
    for label in ("deadlock", "benign"):
        old, plain = _per_label(on, every, 2, label)
        assert old == pytest.approx(plain)


def test_per_label_contention_keeps_silent_annotators_apart_from_those_giving_another_label():
    # region 0: a gives deadlock, b benign, c nothing. Not giving "deadlock", b and c agree for
    # the plain measure; the old count paired them as disagreeing (the golden files hold it)
    every = pd.DataFrame({"unit": [0, 0, 0, 1, 1, 1], "rater": ["a", "b", "c"] * 2})
    on = pd.DataFrame({"unit": [0, 0, 1, 1, 1], "rater": ["a", "b", "a", "b", "c"],
                       "label": ["deadlock", "benign", "deadlock", "deadlock", "deadlock"]})
    old, plain = _per_label(on, every, 2, "deadlock")
    assert plain["percent_agreement"] == pytest.approx((1 / 3 + 1) / 2)
    assert old["percent_agreement"] == pytest.approx((0 + 1) / 2)
    assert old["n_units"] == plain["n_units"] == 2 and old["n_raters"] == plain["n_raters"] == 3


def test_a_call_is_named_by_the_tool_the_first_annotator_by_name_gave():
    def review(tool: str, verdict: str) -> list[dict]:
        return [{"index": 4, "step": 2, "tool": tool, "verdict": verdict, "notes": ""}]
    rows = scheme_rows(tool_call_review.TYPE, {}, {("run", "zoe"): review("edit_file", "correct"),
                                                   ("run", "amy"): review("write_file", "wrong_tool")})
    found = Disagreements("s", listed=True)
    measures = tool_call_review.TYPE.agreement(rows, found)
    assert measures["verdict"]["n_units"] == 1
    assert [(r["object"], r["judgements"]) for r in found.records] == \
        [("call 4 (write_file)", "amy: wrong_tool; zoe: correct")]
    assert tool_call_review.TYPE.rollup(rows) == [{"tool": "edit_file", "verdict": "correct", "count": 1},
                                                  {"tool": "write_file", "verdict": "wrong_tool", "count": 1}]


def test_scorecard_scores_far_apart_are_listed_per_agent_and_dimension():
    card = lambda score: {"agents": {"B": {"d": score}, "A": {"d": 3}}, "team": {}, "milestones": {"m": score > 2}}  # noqa: E731
    rows = scheme_rows(agent_scorecard.TYPE, {"scale": 5, "agent_dimensions": ["d"], "team_dimensions": [],
                                              "milestones": ["m"]}, {("run", "x"): card(1), ("run", "y"): card(5)})
    found = Disagreements("s", listed=True)
    measures = agent_scorecard.TYPE.agreement(rows, found)
    assert measures["agent_dimensions"]["d"]["n_units"] == 2  # A and B on the run
    assert [r["object"] for r in found.records] == ["B · d", "milestone m"]


@pytest.mark.parametrize("kind, empty", [(agent_scorecard.TYPE, agent_scorecard.EMPTY),
                                         (tool_contention.TYPE, {"contentions": {}}), (tool_call_review.TYPE, [])])
def test_items_reviewed_with_nothing_to_flag_give_empty_rollups_and_no_pairs(kind, empty):
    rows = scheme_rows(kind, {"scale": 5, "agent_dimensions": ["d"], "milestones": ["m"]},
                       {("run", "x"): empty, ("run", "y"): empty})
    assert len(rows.panel) == 1
    rolled = kind.rollup(rows)
    assert rolled in ({"agents": [], "team": [], "milestones": []}, {"labels": [], "stale": 0}, [])
    found = Disagreements("s", listed=True)
    measures = kind.agreement(rows, found)
    assert found.count == 0 and not found.records
    for measure in (measures.get("verdict"), measures.get("label")):
        assert measure is None or measure["n_units"] == 0
