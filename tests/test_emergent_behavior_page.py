"""AppTest tests of the emergent-behaviour surface: mark turns (one by one and by range) and
notes through the controls, the Parquet row holds exactly the documented value, a new
session shows it, long runs are paged."""
import json

from app.store.storage import AnnotationStore
from app.ui.surfaces.emergent_behavior import PAGE_SIZE
from app.ui.state import widget_key
from tests.conftest import (clean_card, click_clean, click_card, instant_card, make_app, open_page, text_card, text_cards, type_card,
                            write_project)

PAGE = "emergent_behavior"
SEP = "\u241f"


def stored(project, item, scheme="emergent", who="alice"):
    return AnnotationStore(project.parent / "annotations").load(item, who, scheme)


def shown_key(scheme="emergent"):
    return widget_key("emergent_behavior", scheme, "shown")


def show(at, behaviour, scheme="emergent"):
    """Choose the behaviour whose turns and note are shown (one at a time)."""
    if at.radio(key=shown_key(scheme)).value != behaviour:
        at.radio(key=shown_key(scheme)).set_value(behaviour).run()


def key_of(widgets, *suffix):
    end = SEP + SEP.join(str(s) for s in suffix)
    return next(w.key for w in widgets if w.key and w.key.endswith(end))


def note_key(at, behaviour) -> str:
    """The key of the behaviour's note (an instant text card, app/ui/instant_text.py, keyed by its
    place), showing that behaviour first."""
    show(at, behaviour)
    key = next(k for k in text_cards(at) if k.endswith(SEP + "place" + SEP + "note"))
    assert text_cards(at)[key]["holds"].endswith(SEP + behaviour)
    return key


CARD = SEP + "place" + SEP + "turns"  # the page's turns: one instant card (app/ui/instant_scheme.py)


def turns_card(at) -> dict:
    return instant_card(at, CARD)


def page_turns(at) -> list[int]:
    return [int(o["value"]) for o in turns_card(at)["options"]]


class TurnBox:
    """A turn on the instant card, driven as the browser drives it: a click sends the card's
    whole choice (the page's turns), numbered after the card's last acknowledged click."""

    def __init__(self, at, turn: int):
        self.at, self.turn = at, turn
        card = turns_card(at)
        self.label = next(o["label"] for o in card["options"] if o["value"] == str(turn))
        self.value = str(turn) in card["stored"]

    def _set(self, on: bool):
        card = turns_card(self.at)
        chosen = [v for v in card["stored"] if v != str(self.turn)] + ([str(self.turn)] if on else [])
        click_card(self.at, CARD, [o["value"] for o in card["options"] if o["value"] in chosen])
        return self

    def check(self):
        return self._set(True)

    def uncheck(self):
        return self._set(False)

    def run(self):  # (the click ran with check / uncheck)
        return self.at


def box(at, behaviour, turn):
    """A turn on the card, showing the behaviour and turning to the page holding it first (paged by PAGE_SIZE)."""
    show(at, behaviour)
    while turn > max(page_turns(at)):
        at.button(key=key_of(at.button, behaviour, "next")).click().run()
    while turn < min(page_turns(at)):
        at.button(key=key_of(at.button, behaviour, "prev")).click().run()
    return TurnBox(at, turn)


def test_turns_and_notes_saved_exactly_and_shown_again(demo_project):
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), PAGE)
    assert at.radio(key=shown_key()).options == ["echoing", "role\\_swap", "sycophantic\\_agreement",
                                                 "ignored\\_critique"]
    assert at.radio(key=shown_key()).value == "echoing"  # one behaviour's turns at a time
    echo = turns_card(at)
    assert PAGE_SIZE == 10 and len(echo["options"]) == 10  # every step of the trace, across all agents, paged
    assert echo["options"][3]["label"].startswith("Step 3 · ") and echo["title"].startswith("Turns showing echoing")
    assert not at.checkbox  # no checkbox per turn: the card holds them
    assert box(at, "echoing", 12).label.startswith("Step 12 · Critic · ")  # on the second page
    assert stored(demo_project, item) is None

    box(at, "echoing", 12).check().run()
    box(at, "echoing", 3).check().run()
    assert stored(demo_project, item).value == {"echoing": {"turns": [3, 12], "note": ""}}
    type_card(at, note_key(at, "echoing"), "Critic repeats the plan")
    assert text_card(at, note_key(at, "echoing"))["error"] is None
    # a range: from 9 to 6 (either order) on role_swap
    show(at, "role_swap")
    assert turns_card(at)["title"].startswith("Turns showing role_swap")  # the other behaviour is not drawn
    at.number_input(key=key_of(at.number_input, "role_swap", "from")).set_value(9).run()
    at.number_input(key=key_of(at.number_input, "role_swap", "to")).set_value(6).run()
    at.button(key=key_of(at.button, "role_swap", "add")).click().run()
    ann = stored(demo_project, item)
    assert ann.value == {"echoing": {"turns": [3, 12], "note": "Critic repeats the plan"},
                         "role_swap": {"turns": [6, 7, 8, 9], "note": ""}}
    assert ann.status == "annotated" and ann.annotation_type == "emergent_behavior"
    assert all(box(at, "role_swap", t).value for t in (6, 7, 8, 9))  # boxes follow the range
    assert not box(at, "role_swap", 5).value
    assert any("role\\_swap&#58; 4 turns \\(6–9\\)" in m.value for m in at.markdown)  # (md: a colon as &#58;)

    # remove part of the range, then a single box
    show(at, "role_swap")
    at.number_input(key=key_of(at.number_input, "role_swap", "from")).set_value(8).run()
    at.number_input(key=key_of(at.number_input, "role_swap", "to")).set_value(13).run()
    at.button(key=key_of(at.button, "role_swap", "remove")).click().run()
    box(at, "echoing", 3).uncheck().run()
    assert stored(demo_project, item).value == {
        "echoing": {"turns": [12], "note": "Critic repeats the plan"},
        "role_swap": {"turns": [6, 7], "note": ""}}

    at2 = open_page(make_app(demo_project, item=item), PAGE)  # a new session (a refresh)
    assert [t for t in range(14) if box(at2, "echoing", t).value] == [12]
    assert [t for t in range(14) if box(at2, "role_swap", t).value] == [6, 7]
    box(at2, "role_swap", 0)  # back to the first pages
    box(at2, "echoing", 0)
    assert text_card(at2, note_key(at2, "echoing"))["stored"] == "Critic repeats the plan"
    assert any("saved at once" in c.value for c in at2.caption)

    # clearing everything leaves no row: "not annotated" again
    type_card(at2, note_key(at2, "echoing"), "")
    box(at2, "echoing", 12).uncheck().run()
    show(at2, "role_swap")
    at2.button(key=key_of(at2.button, "role_swap", "remove")).click().run()  # range 0-0: nothing
    at2.number_input(key=key_of(at2.number_input, "role_swap", "to")).set_value(13).run()
    at2.button(key=key_of(at2.button, "role_swap", "remove")).click().run()
    assert stored(demo_project, item) is None
    for b in ("echoing", "role_swap", "sycophantic_agreement", "ignored_critique"):
        show(at2, b)
        assert sum("No turns marked for this behaviour yet." in c.value for c in at2.caption) == 1


def test_reviewed_nothing_to_flag_is_distinct(demo_project):
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), PAGE)
    assert not clean_card(at)["disabled"]
    click_clean(at)
    ann = stored(demo_project, item)
    assert ann.status == "reviewed_clean" and ann.value == {}
    assert any("Reviewed, nothing to flag" in c.value for c in at.caption)
    box(at, "ignored_critique", 8).check().run()
    ann = stored(demo_project, item)
    assert ann.status == "annotated" and ann.value == {"ignored_critique": {"turns": [8], "note": ""}}
    assert not any("Reviewed, nothing to flag" in c.value for c in at.caption)
    click_clean(at)  # marked: "nothing to flag" changes nothing
    assert stored(demo_project, item).value == {"ignored_critique": {"turns": [8], "note": ""}}
    assert "turns or notes are marked" in clean_card(at)["error"]


def test_no_note_when_not_allowed(tmp_path):
    project = write_project(tmp_path, schemes=[{
        "annotation_type": "emergent_behavior", "name": "emergent", "behaviors": ["loop"],
        "allow_note": False}])
    at = open_page(make_app(project, item="research-003"), PAGE)
    assert not at.text_area and not text_cards(at)
    box(at, "loop", 3).check().run()  # the step without an agent is a turn too
    assert stored(project, "research-003").value == {"loop": {"turns": [3], "note": ""}}


def test_long_run_is_paged(tmp_path):
    steps = [{"agent": ["A", "B", "C"][i % 3], "content": f"turn {i} <b>bold</b> [link](http://x)"}
             for i in range(45)]
    data = tmp_path / "long.jsonl"
    data.write_text(json.dumps({"id": "long", "text": "long run", "steps": steps}) + "\n")
    project = write_project(tmp_path, data_files=[str(data)], annotation_schemes=[{
        "annotation_type": "emergent_behavior", "name": "emergent", "behaviors": ["loop"]}])
    at = open_page(make_app(project, item="long"), PAGE)
    assert len(page_turns(at)) == PAGE_SIZE
    # text, not Markdown: the card writes it with textContent (app/ui/instant.py)
    assert turns_card(at)["options"][1]["label"] == "Step 1 · B · turn 1 <b>bold</b> [link](http://x)"
    assert any(f"Steps 0–{PAGE_SIZE - 1} of 45 (page 1/{-(-45 // PAGE_SIZE)})" in c.value for c in at.caption)
    for _ in range(45 // PAGE_SIZE):
        at.button(key=key_of(at.button, "loop", "next")).click().run()
    assert page_turns(at) == list(range(45 // PAGE_SIZE * PAGE_SIZE, 45))
    box(at, "loop", 44).check().run()
    at.number_input(key=key_of(at.number_input, "loop", "from")).set_value(10).run()
    at.number_input(key=key_of(at.number_input, "loop", "to")).set_value(25).run()
    at.button(key=key_of(at.button, "loop", "add")).click().run()
    assert stored(project, "long").value == {"loop": {"turns": list(range(10, 26)) + [44], "note": ""}}
    assert any("17 turns \\(10–25, 44\\)" in m.value for m in at.markdown)


def test_the_behaviour_shown_is_kept_across_items_and_pages(demo_project):
    at = open_page(make_app(demo_project, item="trip-planner-001"), PAGE)
    show(at, "role_swap")
    at.switch_page("pages/radio.py").run()  # another page: the radio is not drawn there
    at.switch_page(f"pages/{PAGE}.py").run()
    assert at.radio(key=shown_key()).value == "role_swap"


def test_a_behaviours_range_is_kept_while_another_is_shown(demo_project):
    """Streamlit forgets an undrawn widget's value: From/To of a behaviour come back as they were
    after another behaviour was shown, and a range is then added with them."""
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), PAGE)
    show(at, "role_swap")
    at.number_input(key=key_of(at.number_input, "role_swap", "from")).set_value(4).run()
    at.number_input(key=key_of(at.number_input, "role_swap", "to")).set_value(7).run()
    show(at, "echoing")
    assert at.number_input(key=key_of(at.number_input, "echoing", "from")).value == 0  # its own range
    show(at, "role_swap")
    assert at.number_input(key=key_of(at.number_input, "role_swap", "from")).value == 4
    assert at.number_input(key=key_of(at.number_input, "role_swap", "to")).value == 7
    at.button(key=key_of(at.button, "role_swap", "add")).click().run()
    assert stored(demo_project, item).value == {"role_swap": {"turns": [4, 5, 6, 7], "note": ""}}
    assert not at.exception and not [w for w in at.warning if "Session State" in w.value]


def test_overview_follows_every_tick(demo_project):
    """Issue 27: the overview at the top agrees with the turns below after every click (it said
    "no turns" above "Marked: 1 turn")."""
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), PAGE)
    def overview():  # the markdown as read (md() escapes ":" and brackets)
        return " ".join(m.value for m in at.markdown).replace("&#58;", ":").replace("\\", "")

    box(at, "echoing", 3).check().run()
    assert "echoing: 1 turn (3)" in overview(), overview()
    assert any(c.value.startswith("Marked: 1 turn") for c in at.caption)
    box(at, "echoing", 4).check().run()
    assert "echoing: 2 turns" in overview()
    box(at, "echoing", 3).uncheck().run()
    box(at, "echoing", 4).uncheck().run()
    assert "echoing: no turns" in overview()
    assert stored(demo_project, item) is None
