"""The surfaces of the nine types from Potato's agent-trace examples (AppTest): each saves a
value through its controls, in its stored format, to the Parquet row; a refused value is
not saved and says why."""
from __future__ import annotations

import pytest

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from tests.conftest import ROOT, clean_card, click_clean, make_app, open_page, write_project
from tests.test_potato_types import ALL, EDIT, ERR, MULTI, NUMBER, PRM, PRM1, RUBRIC, SELECT, SLIDER, SPAN

ITEM = "trip-planner-001"


@pytest.fixture
def project(tmp_path):
    return write_project(tmp_path, schemes=ALL, data_files=[str(ROOT / "data" / "demo_runs.jsonl")])


def stored(tmp_path, scheme):
    ann = AnnotationStore(tmp_path / "annotations").load(ITEM, "alice", scheme)
    return None if ann is None else ann.value


def page(project, name):
    return open_page(make_app(project, item=ITEM), name)


def key(scheme, *parts, t=None):
    return widget_key(t or scheme["annotation_type"], scheme["name"], ITEM, *parts)


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_slider_saves_and_clears(project, tmp_path):
    at = page(project, "slider")
    assert stored(tmp_path, "conf") is None  # (the start position is not a value)
    ok(at.slider(key=key(SLIDER)).set_value(7.0).run())
    assert stored(tmp_path, "conf") == {"conf": "7"}
    ok(at.button(key=key(SLIDER, "clear")).click().run())
    assert stored(tmp_path, "conf") is None


def test_number_saves(project, tmp_path):
    at = page(project, "number")
    ok(at.number_input(key=key(NUMBER)).set_value(42).run())
    assert stored(tmp_path, "n") == {"n": "42"}


def test_select_saves(project, tmp_path):
    at = page(project, "select")
    ok(at.selectbox(key=key(SELECT)).select("opinion").run())
    assert stored(tmp_path, "genre") == {"opinion": "true"}


def test_rubric_and_multirate_save(project, tmp_path):
    at = page(project, "rubric_eval")
    ok(at.radio(key=key(RUBRIC, "helpfulness")).set_value(4).run())
    ok(at.radio(key=key(RUBRIC, "overall")).set_value(3).run())
    assert stored(tmp_path, "rubric") == {"helpfulness": "4", "overall": "3"}
    at = page(project, "multirate")
    ok(at.radio(key=key(MULTI, "Price")).set_value(2).run())
    assert stored(tmp_path, "multi") == {"Price": "Fair"}


def test_process_reward_per_step_and_first_error(project, tmp_path):
    at = page(project, "process_reward")
    ok(at.radio(key=widget_key("prm", PRM["name"], ITEM, 2)).set_value(0).run())
    ok(at.radio(key=widget_key("prm", PRM["name"], ITEM, 0)).set_value(1).run())
    assert stored(tmp_path, "prm") == {"mode": "per_step", "steps": [{"index": 0, "reward": 1},
                                                                     {"index": 2, "reward": 0}]}
    ok(at.selectbox(key=widget_key("prm", PRM1["name"], ITEM, "first")).set_value(3).run())
    value = stored(tmp_path, "prm1")
    assert value["mode"] == "first_error" and len(value["steps"]) == 14
    assert [e["reward"] for e in value["steps"]][:5] == [1, 1, 1, -1, -1]


def test_span_adds_removes_and_refuses_missing_text(project, tmp_path):
    at = page(project, "span")
    ok(at.selectbox(key=key(SPAN, "step")).set_value(3).run())
    text = next(c.value for c in at.code if c.value.startswith("Delegating") or len(c.value) > 20)
    needle = text.split()[1]
    at.text_input(key=key(SPAN, "needle")).input(needle)
    at.selectbox(key=key(SPAN, "label")).select("incorrect_fact")
    ok(at.button(key=key(SPAN, "add")).click().run())
    value = stored(tmp_path, "spans")
    assert len(value) == 1 and value[0]["step"] == 3 and value[0]["text"] == needle
    assert value[0]["label"] == "incorrect_fact" and value[0]["end"] - value[0]["start"] == len(needle)
    at.text_input(key=key(SPAN, "needle")).input("not in this step at all ~~~")
    ok(at.button(key=key(SPAN, "add")).click().run())
    assert any("exactly as the step has it" in w.value for w in at.warning)
    assert len(stored(tmp_path, "spans")) == 1
    ok(at.button(key=key(SPAN, "remove-0")).click().run())
    assert stored(tmp_path, "spans") is None


@pytest.mark.parametrize("name, scheme, label, empty", [
    ("span", "spans", "Reviewed, nothing to highlight", []),
    ("error_span", "errors", "Reviewed, no error", {"errors": [], "score": 100}),
    ("trajectory_edit", "fix", "Reviewed, nothing to correct", {"edits": []})])
def test_nothing_to_flag_is_an_instant_card(project, tmp_path, name, scheme, label, empty):
    at = page(project, name)
    assert clean_card(at)["title"] == label and clean_card(at)["stored"] == []
    ok(click_clean(at))
    ann = AnnotationStore(tmp_path / "annotations").load(ITEM, "alice", scheme)
    assert ann.status == "reviewed_clean" and ann.value == empty
    assert clean_card(at)["stored"] == [label]
    ok(click_clean(at, on=False))  # taken back
    assert stored(tmp_path, scheme) is None and clean_card(at)["stored"] == []


def test_error_span_saves_with_score(project, tmp_path):
    at = page(project, "error_span")
    text = at.code[-1].value
    at.text_input(key=key(ERR, "needle")).input(text.split()[0])
    at.selectbox(key=key(ERR, "mode")).set_value(0)
    at.selectbox(key=key(ERR, "severity")).select("Major")
    ok(at.button(key=key(ERR, "add")).click().run())
    value = stored(tmp_path, "errors")
    assert value["score"] == 95 and value["errors"][0]["type"] == "Accuracy"
    assert value["errors"][0]["subtype"] == "Omission" and value["errors"][0]["step"] == 0


def test_trajectory_edit_saves_a_correction_and_the_final_answer(project, tmp_path):
    at = page(project, "trajectory_edit")
    k = widget_key("tedit", EDIT["name"], ITEM, 0, "content", "corrected")
    original = at.text_area(key=k).value
    ok(at.text_area(key=k).input(original + " Also check trains.").run())
    value = stored(tmp_path, "fix")
    assert value["edits"] == [{"step_index": 0, "field": "content", "original": original,
                               "corrected": original + " Also check trains.", "reason": ""}]
    ok(at.text_area(key=widget_key("tedit", EDIT["name"], ITEM, "final")).input("Book the 10:05 train.").run())
    assert stored(tmp_path, "fix")["final_answer"]["corrected"] == "Book the 10:05 train."
    ok(at.button(key=widget_key("tedit", EDIT["name"], ITEM, 0, "content", "reset")).click().run())
    assert stored(tmp_path, "fix")["edits"] == []


def test_summary_page_shows_the_rollups_numbers(project, tmp_path):
    from tests.summary_data import Saver
    save = Saver(project)
    save(ITEM, "alice", "rubric", {"helpfulness": "4", "accuracy": "2"})
    save(ITEM, "bob", "rubric", {"helpfulness": "5", "accuracy": "2"})
    at = open_page(make_app(project), "summary")
    frames = [d.value for d in at.dataframe]
    rows = next(f for f in frames if "row" in f.columns and "mean" in f.columns)
    assert rows.set_index("row").loc["helpfulness", "mean"] == 4.5


def test_saved_rewards_of_missing_steps_are_listed_and_discarded(project, tmp_path):
    from tests.summary_data import Saver
    Saver(project)(ITEM, "alice", "prm", {"mode": "per_step", "steps": [{"index": 1, "reward": 1},
                                                                         {"index": 99, "reward": -1}]})
    at = page(project, "process_reward")
    assert any("no longer has" in w.value for w in at.warning)
    assert any(t.value == "step 99: reward -1" for t in at.text)
    ok(at.button(key=widget_key("prm", PRM["name"], ITEM, "orphan", 99)).click().run())
    assert stored(tmp_path, "prm")["steps"] == [{"index": 1, "reward": 1}]


def test_saved_edit_of_a_missing_step_is_listed_and_discarded(project, tmp_path):
    from tests.summary_data import Saver
    Saver(project)(ITEM, "alice", "fix", {"edits": [{"step_index": 99, "field": "content", "original": "a",
                                                     "corrected": "b", "reason": ""}]})
    at = page(project, "trajectory_edit")
    assert any("no longer has" in w.value for w in at.warning)
    ok(at.button(key=widget_key("tedit", EDIT["name"], ITEM, "orphan", 99, "content")).click().run())
    assert stored(tmp_path, "fix") is None
