"""The handoff review page in AppTest: flags and ratings saved as documented, shown again."""
from __future__ import annotations

import json

from app.store.storage import STATUS_ANNOTATED, STATUS_REVIEWED_CLEAN
from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from app.ui.surfaces.handoff_review import PAGE_SIZE
from app.traces.step_cards import plain
from tests.conftest import clean_card, click_clean, click_card, drawn_cards, instant_card, instant_cards, make_app, open_page, step_cards, write_project

ITEM = "trip-planner-001"
PAGE = "handoff_review"


def _key(*parts, item=ITEM):
    """A control of the surface (page, "nothing to flag"), or of handoff N's card: keyed by its
    place (the card's place on its page), not by item and handoff."""
    if parts and isinstance(parts[0], int):
        return widget_key("handoff", "handoffs", "place", "slot", parts[0] % PAGE_SIZE, *parts[1:])
    return widget_key("handoff", "handoffs", "place", *parts)


def _stored(tmp_path, item=ITEM):
    return AnnotationStore(tmp_path / "annotations").load(item, "alice", "handoffs")


def _flags(at, n: int, item=ITEM) -> list[str]:
    """The flags handoff N's card shows (an instant card: what is stored)."""
    return instant_card(at, _key(n, "flags", item=item))["stored"]


def _quality(at, n: int, item=ITEM) -> int:
    """The rating handoff N's card shows, 0 for "not rated"."""
    shown = instant_card(at, _key(n, "quality", item=item))["stored"]
    return int(shown[0]) if shown else 0


def _tick(at, n: int, flag: str, on: bool = True, item=ITEM):
    now = [f for f in _flags(at, n, item) if f != flag]
    return click_card(at, _key(n, "flags", item=item), now + [flag] if on else now)


def _rate(at, n: int, quality: int, item=ITEM):
    return click_card(at, _key(n, "quality", item=item), [str(quality)] if quality else [])


def _ratings(at) -> list[str]:
    return [k for k in instant_cards(at) if k.endswith("quality")]


def _page(at, n: int, item=ITEM):
    at.selectbox(key=_key("page", item=item)).set_value(n).run()
    return at


def test_flags_and_quality_saved_and_shown_again(demo_project, tmp_path):
    at = open_page(make_app(demo_project), PAGE)
    assert len(_ratings(at)) == PAGE_SIZE  # one rating per handoff of the first demo run, paged
    assert _quality(at, 0) == 0  # "not rated"
    _rate(at, 1, 5)
    _page(at, 1)
    _tick(at, 6, "dropped_constraint")
    _tick(at, 6, "info_loss")
    _rate(at, 6, 2)
    expected = [
        {"index": 1, "step": 5, "from": "FlightAgent", "to": "Planner", "flags": [], "quality": 5},
        {"index": 6, "step": 12, "from": "Planner", "to": "Critic",
         "flags": ["info_loss", "dropped_constraint"], "quality": 2},
    ]
    ann = _stored(tmp_path)
    assert ann.value == expected and ann.status == STATUS_ANNOTATED
    assert any("saved" in m.value for m in at.markdown if m.value.startswith("Handoff 6:"))
    click_clean(at)  # judged: "nothing to flag" changes nothing, and the card says why
    assert _stored(tmp_path).value == expected and "2 handoffs are judged" in clean_card(at)["error"]

    again = open_page(make_app(demo_project), PAGE)
    assert _quality(again, 1) == 5
    assert _quality(again, 0) == 0
    _page(again, 1)
    assert _flags(again, 6) == ["info_loss", "dropped_constraint"]  # (garbling not)
    assert _quality(again, 6) == 2
    assert any(m.value.startswith("Handoff 6: _flagged: info") and "quality 2/5" in m.value for m in again.markdown)

    # un-rating handoff 1 drops it; the rest stays
    _rate(_page(again, 0), 1, 0)
    assert _stored(tmp_path).value == expected[1:]
    _page(again, 1)
    _tick(again, 6, "info_loss", on=False)
    _tick(again, 6, "dropped_constraint", on=False)
    _rate(again, 6, 0)
    assert _stored(tmp_path) is None


def test_cards_show_the_steps_around_each_handoff(demo_project):
    at = open_page(make_app(demo_project), PAGE)
    _page(at, 1)
    cards = [c for c in drawn_cards(at) if "handoff" in c]
    titles = [plain(c)[0] for c in cards]
    assert len(titles) == 3 and "step 11 → step 12" in titles[1] and "Critic" in titles[1]
    lines = plain(cards[1])
    assert "Last step of Planner (step 11)" in lines and "First step of Critic (step 12)" in lines
    assert any(t.startswith("The plan violates two constraints") for t in lines)


def test_reviewed_clean(demo_project, tmp_path):
    at = open_page(make_app(demo_project), PAGE)
    click_clean(at)
    ann = _stored(tmp_path)
    assert ann.status == STATUS_REVIEWED_CLEAN and ann.value == []
    again = open_page(make_app(demo_project), PAGE)
    assert any("Reviewed, nothing to flag" in c.value for c in again.caption)
    _tick(again, 2, "garbling")  # a judgement after all
    ann = _stored(tmp_path)
    assert ann.status == STATUS_ANNOTATED and ann.value[0]["flags"] == ["garbling"]
    assert not any("Reviewed, nothing to flag" in c.value for c in again.caption)


def test_long_trace_is_paged_and_stale_labels_are_not_attached(tmp_path):
    steps = [{"agent": ["A", "B", "C"][i % 3], "content": f"step {i} " + "word " * (80 if i == 7 else 3)}
             for i in range(31)]  # 30 handoffs
    data = tmp_path / "long.jsonl"
    data.write_text(json.dumps({"id": "long", "text": "t", "steps": steps}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    at = open_page(make_app(cfg, item="long"), PAGE)
    assert len(_ratings(at)) == PAGE_SIZE
    _page(at, 5, item="long")
    assert _ratings(at)[0] == _key(25, "quality", item="long")
    assert instant_card(at, _key(25, "quality", item="long"))["title"] == "Quality of handoff 25"
    _tick(at, 25, "garbling", item="long")
    assert _stored(tmp_path, "long").value == [
        {"index": 25, "step": 26, "from": "B", "to": "C", "flags": ["garbling"], "quality": None}]
    # long step text: an excerpt, the full text one click away
    _page(at, 1, item="long")  # handoffs 5-9: step 7 is handed over
    assert any(line.startswith("Full text of step 7") for c in drawn_cards(at) if "handoff" in c for line in plain(c))


def test_entries_made_on_other_data_are_reported_not_attached(tmp_path):
    from app.store.storage import Annotation
    steps = [{"agent": a, "content": a} for a in ["A", "B", "A"]]
    data = tmp_path / "run.jsonl"
    data.write_text(json.dumps({"id": "r", "text": "t", "steps": steps}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    old = [{"index": 1, "step": 7, "from": "X", "to": "Y", "flags": ["garbling"], "quality": 1}]
    AnnotationStore(tmp_path / "annotations").save(
        Annotation("r", "alice", "handoffs", "handoff_review", old, STATUS_ANNOTATED, "other", None, 0.0))
    at = open_page(make_app(cfg, item="r"), PAGE)
    assert any("does not match this trace" in w.value for w in at.warning)
    assert _flags(at, 1, item="r") == []
    assert _quality(at, 1, item="r") == 0
    _rate(at, 1, 3, item="r")
    assert _stored(tmp_path, "r").value == [
        {"index": 1, "step": 2, "from": "B", "to": "A", "flags": [], "quality": 3}]


def test_show_step_turns_the_trace_view(tmp_path):
    steps = [{"agent": "A" if i < 45 else "B", "content": f"s{i}"} for i in range(50)]
    data = tmp_path / "run.jsonl"
    data.write_text(json.dumps({"id": "r", "text": "t", "steps": steps}) + "\n")
    at = open_page(make_app(write_project(tmp_path, data_files=[str(data)]), item="r"), PAGE)
    assert 45 not in [c["step"] for c in step_cards(at)]
    at.button(key=_key(0, "show", item="r")).click().run()
    assert 45 in [c["step"] for c in step_cards(at)]


def test_a_cards_place_takes_the_judgement_of_the_handoff_it_now_holds(demo_project, tmp_path):
    """Cards are keyed by their place on the page: a page turn or the next item puts another
    handoff in the same place, which shows that handoff's stored judgement and no note about
    what was saved for the one before; the page selector is one control, each item's page its own."""
    at = open_page(make_app(demo_project), PAGE)
    _tick(at, 1, "info_loss")
    card1 = lambda a: next(m.value for m in a.markdown if m.value.startswith(("Handoff 1:", "Handoff 6:")))  # noqa: E731
    assert "saved" in card1(at)
    _page(at, 1)  # the same place now holds handoff 6
    assert instant_card(at, _key(6, "quality"))["title"] == "Quality of handoff 6"
    assert _flags(at, 6) == []
    assert card1(at).startswith("Handoff 6: _not judged yet_") and "saved" not in card1(at)
    _page(at, 0)
    assert _flags(at, 1) == ["info_loss"]
    at.button(key=widget_key("nav", "next")).click().run()  # another item: its first page
    other = at.query_params["item"]
    assert (other[0] if isinstance(other, list) else other) != ITEM
    if any(s.key == _key("page") for s in at.selectbox):
        assert at.selectbox(key=_key("page")).value == 0
    assert _flags(at, 1) == []
    assert _stored(tmp_path).value == [
        {"index": 1, "step": 5, "from": "FlightAgent", "to": "Planner", "flags": ["info_loss"], "quality": None}]
