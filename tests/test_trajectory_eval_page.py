"""trajectory_eval page (AppTest): MAST modes per step through the controls, the Parquet row,
reopening, correct-again clearing, paging and step jump, reviewed-clean."""
from __future__ import annotations

import json

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from app.store.storage import STATUS_REVIEWED_CLEAN as REVIEWED_CLEAN
from app.ui.surfaces.trajectory_eval import PAGE_SIZE
from app.traces.step_cards import plain
from tests.conftest import click_clean, click_card, drawn_cards, instant_card, instant_cards, make_app, open_page, write_project

ITEM = "trip-planner-001"
M11 = "Specification & System Design › 1.1 Disobey task specification"
M32 = "Task Verification & Termination › 3.2 No or incomplete verification"


def key(*parts, item=ITEM, scheme="mast_steps"):
    return widget_key("traj", scheme, item, *parts)


def place(*parts, scheme="mast_steps"):
    """The list's own controls (pager, jump, "nothing to flag") are keyed by place, not by item."""
    return widget_key("traj", scheme, "place", *parts)


def card(step, field, scheme="mast_steps"):
    """A step card's control: keyed by its place on the page, not by item and step."""
    return widget_key("traj", scheme, "slot", step % PAGE_SIZE, field)


class ModeCard:
    """One category's failure modes on a step card: an instant card (app/ui/instant.py)."""

    def __init__(self, data: dict):
        self.key, self.label, self.disabled = data["card"], data["title"], data["disabled"]
        self.options = [int(o["value"]) for o in data["options"]]
        self.labels = [o["label"] for o in data["options"]]
        self.value = [int(v) for v in data["stored"]]


def mode_groups(at, step, scheme="mast_steps"):
    """A card's failure modes, one instant card per category, in config order (issue 27: every
    mode visible, one click each, instead of a dropdown)."""
    prefix = card(step, "modes", scheme) + "\u241f"
    return sorted((ModeCard(d) for k, d in instant_cards(at).items() if k.startswith(prefix)),
                  key=lambda w: int(w.key.rsplit("\u241f", 1)[1]))


def mode_labels(at, step, scheme="mast_steps"):
    """"Category › subtype" for every mode the card offers, in order."""
    return [f"{w.label.rsplit(' (step', 1)[0]} › {o}" for w in mode_groups(at, step, scheme) for o in w.labels]


def modes_of(at, step, scheme="mast_steps"):
    """The modes ticked on a card (their positions in the scheme's list of modes)."""
    return sorted(j for w in mode_groups(at, step, scheme) for j in w.value)


def toggle_mode(at, step, j, scheme="mast_steps"):
    """Click mode number `j` on a card (its category's card holds a run of the modes)."""
    for w in mode_groups(at, step, scheme):
        if j in w.options:
            now = [x for x in w.value if x != j] if j in w.value else w.value + [j]
            return click_card(at, w.key, [str(x) for x in now])
    raise AssertionError(f"no mode {j} on step {step}")


def stored(tmp_path, item=ITEM, scheme="mast_steps"):
    return AnnotationStore(tmp_path / "annotations").load(item, "alice", scheme)


def review_cards(at):
    """The step cards' headers and texts (the trace beside has cards of its own)."""
    return [c for c in drawn_cards(at) if "review" in c]


def cards(at):
    """The step cards' state lines ("Step N: *state*", under the card's controls)."""
    return [m.value for m in at.markdown if m.value.startswith("Step ") and ": *" in m.value]



def correctness(at, key: str):
    """The correctness a step card shows (an instant card: what is stored), or None."""
    shown = instant_card(at, key)["stored"]
    return shown[0] if shown else None

def test_cards_modes_and_paging(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    assert len(cards(at)) == PAGE_SIZE and cards(at)[4].startswith("Step 4: ")
    assert "not judged yet" in cards(at)[4]
    assert "Step 4 · FlightAgent" in [plain(c)[0] for c in review_cards(at)]
    # an unjudged card asks for a correctness; modes, severity and rationale on request
    assert not mode_groups(at, 4)
    assert not [w for w in at.button_group if w.key == card(4, "sev")]
    assert not [w for w in at.text_input if w.key == card(4, "why")]
    at.button(key=card(4, "open") + "\u241fbutton").click().run()
    assert "not judged yet" in cards(at)[4]
    assert [len(w.options) for w in mode_groups(at, 4)] == [5, 6, 3]  # grouped by category, all shown
    labels = mode_labels(at, 4)
    assert len(labels) == 14 and labels[0] == M11 and modes_of(at, 4) == []
    assert at.text_input(key=card(4, "why")).value == ""  # a rationale may come before a correctness
    assert [o["label"] for o in instant_card(at, card(4, "corr"))["options"]] == ["correct", "incorrect",
                                                                            "partially_correct"]
    assert any(m.value.startswith("**Score: 100 / 100**") for m in at.markdown)
    # step text is the step's content, as plain text
    assert any(line.startswith("Cheapest option is FR7102") for c in review_cards(at) for line in plain(c))
    at.number_input(key=place("jump")).set_value(12).run()
    assert [c.split(":")[0] for c in cards(at)] == ["Step 10", "Step 11", "Step 12", "Step 13"]
    at.button(key=place("prev")).click().run()
    at.button(key=place("prev")).click().run()
    assert cards(at)[0].startswith("Step 0: ")


def test_label_save_reopen_correct_again(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    click_card(at, card(4, "corr"), ["incorrect"])
    toggle_mode(at, 4, 0)
    toggle_mode(at, 4, 12)
    at.button_group(key=card(4, "sev")).set_value("major").run()
    at.text_input(key=card(4, "why")).input("books a 06:40 flight").run()
    click_card(at, card(0, "corr"), ["correct"])
    assert not at.exception
    ann = stored(tmp)
    assert ann.status == "annotated"
    assert ann.value == {"steps": [
        {"step_index": 0, "agent": "Planner", "correctness": "correct", "errors": [], "severity": None,
         "rationale": ""},
        {"step_index": 4, "agent": "FlightAgent", "correctness": "incorrect",
         "errors": [{"type": "Specification & System Design", "subtype": "1.1 Disobey task specification"},
                    {"type": "Task Verification & Termination", "subtype": "3.2 No or incomplete verification"}],
         "severity": "major", "rationale": "books a 06:40 flight"}], "score": 95}
    assert any(m.value.startswith("**Score: 95 / 100**") for m in at.markdown)
    assert "· saved " in cards(at)[0] and cards(at)[0].endswith("score now 95 / 100")  # the card's own line

    again = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    assert correctness(again, card(4, "corr")) == "incorrect"
    assert modes_of(again, 4) == [0, 12]  # M11, M32
    assert again.button_group(key=card(4, "sev")).value == "major"
    assert again.text_input(key=card(4, "why")).value == "books a 06:40 flight"
    assert correctness(again, card(0, "corr")) == "correct"
    assert correctness(again, card(1, "corr")) is None
    assert "incorrect, 2 failure modes, major" in cards(again)[4]

    # correct again: modes and severity cleared in the stored value and in the widgets
    click_card(again, card(4, "corr"), ["correct"])
    assert modes_of(again, 4) == []
    assert again.button_group(key=card(4, "sev")).value is None
    assert all(w.disabled for w in mode_groups(again, 4))
    assert stored(tmp).value["steps"][1] == {"step_index": 4, "agent": "FlightAgent", "correctness": "correct",
                                             "errors": [], "severity": None, "rationale": "books a 06:40 flight"}
    assert stored(tmp).value["score"] == 100
    assert any(m.value.startswith("**Score: 100 / 100**") for m in again.markdown)

    # clear both steps: nothing left is "not annotated"
    again.button(key=card(4, "corr") + "\u241freset").click().run()
    again.button(key=card(0, "corr") + "\u241freset").click().run()
    assert stored(tmp) is None
    assert correctness(again, card(4, "corr")) is None


def test_label_on_a_later_page_and_reviewed_clean(demo_project):
    tmp = demo_project.parent
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    at.button(key=place("next")).click().run()
    at.button(key=place("next")).click().run()
    click_card(at, card(13, "corr"), ["incorrect"])
    toggle_mode(at, 13, 11)  # 3.1 Premature termination
    at.button_group(key=card(13, "sev")).set_value("critical").run()
    assert stored(tmp).value == {"steps": [
        {"step_index": 13, "agent": "Planner", "correctness": "incorrect",
         "errors": [{"type": "Task Verification & Termination", "subtype": "3.1 Premature termination"}],
         "severity": "critical", "rationale": ""}], "score": 90}
    click_clean(at)
    ann = stored(tmp)
    assert ann.status == REVIEWED_CLEAN and ann.value == {"steps": [], "score": 100}
    again = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)
    again.button(key=place("next")).click().run()
    again.button(key=place("next")).click().run()
    assert correctness(again, card(13, "corr")) is None


def test_step_text_key_fallbacks_without_score(tmp_path):
    data = tmp_path / "runs.jsonl"
    steps = [{"agent": "A", "thought": "thinking", "content": "said"},
             {"agent": "B", "content": "only content"},
             {"agent": "A", "action": "search_web('SF weather')"}]
    data.write_text(json.dumps({"id": "r1", "text": "t", "steps": steps}) + "\n")
    scheme = {"annotation_type": "trajectory_eval", "name": "steps", "step_text_key": "thought",
              "correctness_options": ["ok", "wrong"],
              "error_types": [{"name": "reasoning", "subtypes": ["logic"]}, "safety"]}
    cfg = write_project(tmp_path, schemes=[scheme], data_files=[str(data)])
    at = open_page(make_app(cfg, item="r1"), "trajectory_eval")
    texts = [line for c in review_cards(at) for line in plain(c)]
    assert "thinking" in texts and "only content" in texts and "search_web('SF weather')" in texts
    assert not any(m.value.startswith("**Score") for m in at.markdown)
    at.button(key=card(2, "open", scheme="steps") + "\u241fbutton").click().run()  # modes before a correctness
    assert mode_labels(at, 2, "steps") == ["reasoning › logic", "safety › safety"]
    toggle_mode(at, 2, 1, "steps")
    click_card(at, card(1, "corr", scheme="steps"), ["ok"])
    assert stored(tmp_path, "r1", "steps").value == {"steps": [
        {"step_index": 1, "agent": "B", "correctness": "ok", "errors": [], "severity": None, "rationale": ""},
        {"step_index": 2, "agent": "A", "correctness": None, "errors": [{"type": "safety", "subtype": None}],
         "severity": None, "rationale": ""}]}
    # "ok" is the first option: marking step 2 ok clears its mode
    click_card(at, card(2, "corr", scheme="steps"), ["ok"])
    assert stored(tmp_path, "r1", "steps").value["steps"][1]["errors"] == []


def test_saved_labels_the_config_or_trace_no_longer_has_are_kept(demo_project):
    from app.store.storage import Annotation
    tmp = demo_project.parent
    old = {"step_index": 2, "agent": "FlightAgent", "correctness": "incorrect",
           "errors": [{"type": "Old category", "subtype": "x"}], "severity": "blocker", "rationale": ""}
    moved = {"step_index": 3, "agent": "SomeoneElse", "correctness": "incorrect", "errors": [],
             "severity": None, "rationale": "was another agent"}
    AnnotationStore(tmp / "annotations").save(Annotation(ITEM, "alice", "mast_steps", "trajectory_eval",
                                                         {"steps": [old, moved], "score": 100}))
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    assert mode_labels(at, 2)[-1] == "Not configured › Old category › x" and modes_of(at, 2) == [14]
    assert at.button_group(key=card(2, "sev")).value == "blocker"
    # step 3 is now FlightAgent's: the label is listed apart, not shown on the step
    assert correctness(at, card(3, "corr")) is None
    assert any("step 3 · SomeoneElse: incorrect" in t.value for t in at.text)
    at.text_input(key=card(2, "why")).input("still wrong").run()
    assert stored(tmp).value["steps"] == [dict(old, rationale="still wrong"), moved]
    at.button(key=key("orphan", 3)).click().run()
    assert [s["step_index"] for s in stored(tmp).value["steps"]] == [2]


def test_a_cards_place_takes_the_judgement_of_the_step_it_now_holds(demo_project):
    """The controls are keyed by their place on the page: turning the page or the item puts
    another step in the same place, which must show that step's stored judgement."""
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    click_card(at, card(0, "corr"), ["incorrect"])
    at.text_input(key=card(0, "why")).input("wrong city").run()
    assert "Step 0: *incorrect*" in cards(at)[0] and "· saved " in cards(at)[0]
    at.button(key=place("next")).click().run()  # the same place now holds step 5
    assert instant_card(at, card(0, "corr"))["title"] == "Correctness of step 5"
    assert correctness(at, card(0, "corr")) is None
    assert not [w for w in at.text_input if w.key == card(0, "why")]  # unjudged: no rationale asked yet
    assert cards(at)[0].startswith("Step 5: *not judged yet*") and "saved" not in cards(at)[0]
    click_card(at, card(0, "corr"), ["correct"])
    at.button(key=place("prev")).click().run()
    assert correctness(at, card(0, "corr")) == "incorrect"
    assert at.text_input(key=card(0, "why")).value == "wrong city"
    # another item: the first place holds that item's step 0, not judged
    at.button(key=widget_key("nav", "next")).click().run()
    other = at.query_params["item"]
    other = other[0] if isinstance(other, list) else other
    assert other != ITEM
    assert correctness(at, card(0, "corr")) is None
    assert stored(demo_project.parent).value["steps"][0]["correctness"] == "incorrect"
    assert [s["step_index"] for s in stored(demo_project.parent).value["steps"]] == [0, 5]


def test_modes_and_severity_show_once_judged_asked_for_or_saved(demo_project):
    """An unjudged card draws no modes or severity (a new item's first screen is lighter); they
    appear when a correctness is chosen, on request, or when a saved value has them."""
    from app.store.storage import Annotation
    db = AnnotationStore(demo_project.parent / "annotations")
    db.save(Annotation(ITEM, "alice", "mast_steps", "trajectory_eval", {"steps": [
        {"step_index": 1, "agent": "Planner", "correctness": None,
         "errors": [{"type": "Specification & System Design", "subtype": "1.1 Disobey task specification"}],
         "severity": None, "rationale": ""}]}))
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    shown = lambda: {k.rsplit("\u241f", 1)[0] for k in [w.key for w in at.button_group] + list(instant_cards(at))}  # noqa: E731
    assert card(1, "modes") in shown() and modes_of(at, 1) == [0]  # saved: shown
    assert card(2, "modes") not in shown()
    click_card(at, card(2, "corr"), ["incorrect"])
    assert card(2, "modes") in shown() and at.button_group(key=card(2, "sev")).value is None
    at.button(key=card(3, "open") + "\u241fbutton").click().run()
    assert card(3, "modes") in shown() and stored(demo_project.parent).value["steps"][-1]["step_index"] == 2
    at.button(key=place("next")).click().run()  # the same places now hold unjudged steps 5-9
    assert not {card(i, "modes") for i in range(5, 10)} & shown()


def test_controls_shown_for_saved_data_stay_while_emptied(demo_project):
    """A card showing modes only because they are saved keeps them when the last one is removed."""
    from app.store.storage import Annotation
    AnnotationStore(demo_project.parent / "annotations").save(Annotation(
        ITEM, "alice", "mast_steps", "trajectory_eval", {"steps": [
            {"step_index": 1, "agent": "Planner", "correctness": None,
             "errors": [{"type": "Specification & System Design", "subtype": "1.1 Disobey task specification"}],
             "severity": None, "rationale": ""}]}))
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    toggle_mode(at, 1, 0)
    assert stored(demo_project.parent) is None  # nothing left: the row is gone
    assert mode_groups(at, 1)  # to pick another mode at once


def test_the_lists_controls_are_shared_by_items_and_the_page_is_each_items_own(demo_project):
    """Pager, jump and "nothing to flag" are keyed by place (the next item updates them rather
    than mounting new ones); the page turned to and a typed step belong to their item."""
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    at.button(key=place("next")).click().run()
    at.number_input(key=place("jump")).set_value(12).run()
    assert at.number_input(key=place("page_number")).value == 12 // PAGE_SIZE + 1
    at.button(key=widget_key("nav", "next")).click().run()
    assert at.number_input(key=place("page_number")).value == 1  # the other item opens on its first page
    assert at.number_input(key=place("jump")).value is None
    assert instant_card(at, card(0, "corr"))["title"] == "Correctness of step 0"
    at.button(key=widget_key("nav", "prev")).click().run()
    assert at.number_input(key=place("page_number")).value == 12 // PAGE_SIZE + 1  # back: its page kept
    assert instant_card(at, card(0, "corr"))["title"] == f"Correctness of step {12 // PAGE_SIZE * PAGE_SIZE}"


def test_the_failure_modes_legend_lists_every_category_and_mode_in_one_element(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    legend = next(e for e in at.expander if e.label.startswith("Failure modes:"))
    texts = [m.value for m in legend.markdown]
    assert len(texts) == 1
    from app.project.config import load_config
    scheme = next(s for s in load_config(demo_project)[0].schemes if s.type == "trajectory_eval")
    for et in scheme["error_types"]:
        assert f"**{et['name']}**" in texts[0].replace("\\", "")
        for sub in et.get("subtypes") or []:
            assert f"\n- {sub}" in texts[0].replace("\\", "")


def test_a_rationale_before_a_correctness_is_saved_and_shown_again(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    at.button(key=card(1, "open") + "\u241fbutton").click().run()
    at.text_input(key=card(1, "why")).input("unclear whom it delegates to").run()
    assert stored(demo_project.parent).value["steps"][0]["rationale"] == "unclear whom it delegates to"
    again = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")  # a new session
    assert again.text_input(key=card(1, "why")).value == "unclear whom it delegates to"
    assert correctness(again, card(1, "corr")) is None


def test_score_and_count_follow_every_click(demo_project):
    """Issue 27: the score and count at the top are read after the save and agree with the cards
    (it said "Score: 90/100, 10 of 14 judged" while the cards said 74/100, 14 of 14)."""
    at = open_page(make_app(demo_project, item=ITEM), "trajectory_eval")
    click_card(at, card(1, "corr"), ["incorrect"])
    at.button_group(key=card(1, "sev")).set_value("major").run()
    assert any(m.value.startswith("**Score: 95 / 100** · 1 of 14 steps judged") for m in at.markdown), \
        [m.value for m in at.markdown if "Score" in m.value]
    click_card(at, card(2, "corr"), ["correct"])
    assert any(m.value.startswith("**Score: 95 / 100** · 2 of 14 steps judged") for m in at.markdown)
