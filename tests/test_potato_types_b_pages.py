"""The surfaces of issue 28's second batch of Potato types (AppTest): each page opens on the
example project, draws its schemes, and saves a value through its controls, in Potato's format."""
from __future__ import annotations

import pytest

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import make_app, open_page
from tests.potato_b import ONE, TWO, project


@pytest.fixture
def app(tmp_path):
    cfg, _ = project(tmp_path)

    def opened(page: str, item: str = ONE):
        return open_page(make_app(cfg, item=item), page)

    opened.stored = lambda scheme, item=ONE: (AnnotationStore(tmp_path / "annotations").load(item, "alice", scheme)
                                              or type("none", (), {"value": None})).value
    return opened


def test_every_page_shows_its_schemes(app):
    pages = {"pairwise": ["better_patch", "preference_scale", "team_comparison"], "ranking": ["agent_rank", "summary_rank"],
             "hierarchical_multiselect": ["failure_topics"], "context_attribution": ["memory_use"],
             "consensus_tracking": ["discussion_acts"], "code_review": ["review"],
             "rollout_evaluation": ["rollout_review"], "triage": ["keep_item"]}
    for page, schemes in pages.items():
        at = app(page)
        shown = [h.value.replace("\\_", "_") for h in at.subheader]
        assert all(any(s in h for h in shown) for s in schemes), (page, shown)


def test_pairwise_saves_a_side_and_a_scale_value(app):
    at = app("pairwise")
    texts = [t.value for t in at.text]
    assert "Patch 1: if not password: raise ValueError" in texts and "Patch 2: validate in LoginForm.clean()" in texts
    at.radio(key=widget_key("pairwise", "better_patch")).set_value("tie").run()
    assert app.stored("better_patch") == {"selection": "tie"}
    at.slider(key=widget_key("pairwise-scale", "preference_scale")).set_value(-2.0).run()
    assert app.stored("preference_scale") == {"scale_value": "-2"}
    at = app("pairwise", TWO)  # left and right fields
    assert "Answer citing the 2023 replication." in [t.value for t in at.text]
    at.button(key=widget_key("pairwise-scale-record", "preference_scale")).click().run()
    assert app.stored("preference_scale", TWO) == {"scale_value": "0"}


def test_pairwise_saves_dimensions_and_a_justification(app):
    at = app("pairwise")
    at.radio(key=widget_key("pairwise-dim", "team_comparison", "correctness")).set_value("tie").run()
    at.multiselect(key=widget_key("pairwise-why", "team_comparison", "reasons")).select("Smaller change").run()
    at.text_area(key=widget_key("pairwise-why", "team_comparison", "rationale")).input("only one line").run()
    at.radio(key=widget_key("pairwise-dim", "team_comparison", "scope")).set_value("B").run()
    assert app.stored("team_comparison") == {
        "correctness": "tie", "scope": "B",
        "justification": '{"reasons": ["Smaller change"], "rationale": "only one line"}'}


def test_ranking_saves_once_complete(app):
    at = app("ranking")
    keys = [widget_key("rank", "agent_rank", i) for i in range(3)]
    at.selectbox(key=keys[0]).set_value(2).run()
    at.selectbox(key=keys[1]).set_value(1).run()
    assert app.stored("agent_rank") is None
    assert any("give critic a rank" in w.value for w in at.warning)
    at.selectbox(key=keys[2]).set_value(2).run()  # a tie: allowed here
    assert app.stored("agent_rank") == {"rank_order": "coder,planner=critic"}
    keys = [widget_key("rank", "summary_rank", i) for i in range(3)]
    for k, r in zip(keys, (3, 3, 1)):
        at.selectbox(key=k).set_value(r).run()
    assert app.stored("summary_rank") is None and any("no ties" in w.value for w in at.warning)
    at.selectbox(key=keys[1]).set_value(2).run()
    assert app.stored("summary_rank") == {"rank_order": "C,B,A"}


def test_hierarchical_multiselect_saves_with_parent_propagation(app):
    at = app("hierarchical_multiselect")
    ms = at.multiselect(key=widget_key("tree", "failure_topics"))
    ms.select("Ignored input").run()
    at.multiselect(key=widget_key("tree", "failure_topics")).select("Withheld information").run()
    assert app.stored("failure_topics") == {"selected_labels": "Ignored input,Withheld information,Communication"}


def test_triage_saves_a_decision(app):
    at = app("triage")
    radio = at.radio(key=widget_key("triage", "keep_item"))
    assert radio.options == ["Include", "Exclude", "Maybe"]
    radio.set_value("reject").run()
    assert app.stored("keep_item") == {"decision": "reject"}


@pytest.mark.parametrize("page, scheme, act", [("consensus_tracking", "discussion_acts", "agreement"),
                                               ("context_attribution", "memory_use", "used_context_correctly")])
def test_turn_acts_save_an_act_and_its_link(app, page, scheme, act):
    at = app(page)
    k_act, k_ref = (widget_key("turns", scheme, "slot", 1, f) for f in ("act", "ref"))
    at.selectbox(key=k_act).set_value(act).run()
    assert app.stored(scheme) == [{"turn": 1, "act": act, "ref": None, "agent_id": "coder"}]
    at.selectbox(key=k_ref).set_value(0).run()
    assert app.stored(scheme) == [{"turn": 1, "act": act, "ref": 0, "agent_id": "coder"}]
    at.selectbox(key=k_act).set_value(None).run()
    assert app.stored(scheme) is None


def test_code_review_saves_verdict_comment_and_rating(app):
    at = app("code_review")
    at.radio(key=widget_key("cr", "review", "verdict")).set_value("request_changes").run()
    assert app.stored("review") == {"verdict": "request_changes", "comments": [], "file_ratings": {}}
    at.button(key=widget_key("cr", "review", "add")).click().run()
    at.text_area(key=widget_key("cr", "review", ONE, "comment", 0, "text")).input("empty password accepted").run()
    at.selectbox(key=widget_key("cr", "review", ONE, "rate", "src/login.py", "correctness")).set_value(2).run()
    assert app.stored("review") == {"verdict": "request_changes",
                                    "comments": [{"category": "bug", "file": "", "line": None,
                                                  "text": "empty password accepted"}],
                                    "file_ratings": {"src/login.py": {"correctness": 2}}}
    at.button(key=widget_key("cr", "review", ONE, "comment", 0, "remove")).click().run()
    assert app.stored("review")["comments"] == []


def test_rollout_evaluation_saves_a_break_a_clean_mark_and_a_winner(app):
    at = app("rollout_evaluation")
    assert "videos/ball_gen_a.webm" in [t.value for t in at.text]
    base = ("ro", "rollout_review", ONE)
    at.number_input(key=widget_key(*base, "gen_a", "t")).set_value(1.2).run()
    at.selectbox(key=widget_key(*base, "gen_a", "type")).set_value("gravity_violation").run()
    at.button(key=widget_key(*base, "gen_a", "mark")).click().run()
    at.button(key=widget_key(*base, "real", "clean")).click().run()
    at.radio(key=widget_key(*base, "winner")).set_value("real").run()
    at.radio(key=widget_key(*base, "cf")).set_value("plausible").run()
    assert app.stored("rollout_review") == {
        "violations": [{"stream": "gen_a", "t": 1.2, "type": "gravity_violation", "severity": None, "note": ""}],
        "clean": ["real"], "preference": {"winner": "real"}, "counterfactual": {"verdict": "plausible"}}


def test_summary_page_shows_the_new_rollups(tmp_path):
    cfg, save = project(tmp_path)
    for who, side in (("alice", "A"), ("bob", "B")):
        save(ONE, who, "better_patch", {"selection": side})
        save(ONE, who, "agent_rank", {"rank_order": "coder,planner,critic"})
        save(ONE, who, "discussion_acts", [{"turn": 0, "act": "proposal", "ref": None, "agent_id": "planner"}])
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    captions = [c.value for c in at.caption]
    assert "Win rates" in captions and "Candidates" in captions and "By agent" in captions
    frames = [f.value for f in at.dataframe]
    assert any(list(f.columns) == ["side", "name", "wins", "win_rate"] for f in frames)
    assert any("mean_rank" in f.columns for f in frames)
