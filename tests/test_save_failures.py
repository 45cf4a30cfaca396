"""A save that fails (a read-only or full disk, an annotation folder that is a file) says so in
words on the card, never as a traceback with server paths; the control shows again what is on
disk, text typed stays in its box for a retry, and `check` refuses such a folder up front.

Tests run as root, where chmod does not stop writes: a failing disk is the store's save
raising (as the OS would), or an annotation folder that is a regular file.
"""
from __future__ import annotations

import errno

import pytest

from app.store.storage import AnnotationStore
from app.ui.state import widget_key
from app.ui.surfaces.tool_call_review import PAGE_SIZE
from tests.conftest import (click_card, instant_card, instant_cards, make_app, open_page, text_card, type_card,
                            write_project)

ITEM = "trip-planner-001"
SECRET_PATH = "/srv/baton/private/annotations/alice"
NOT_WRITABLE = "not saved: the annotation folder is not writable"


def everything_shown(at) -> str:
    kinds = ("error", "warning", "info", "caption", "markdown", "text", "exception")
    cards = [str(c["error"] or "") for c in instant_cards(at).values()]  # (what the instant cards say)
    return "\n".join([str(getattr(e, "value", "")) for kind in kinds for e in getattr(at, kind)] + cards)


@pytest.fixture
def read_only(monkeypatch):
    """The store's writes fail as on a read-only folder; `undo()` lets them through again."""
    real_save, real_delete = AnnotationStore.save, AnnotationStore.delete

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", SECRET_PATH)

    monkeypatch.setattr(AnnotationStore, "save", refuse)
    monkeypatch.setattr(AnnotationStore, "delete", refuse)

    class Switch:
        @staticmethod
        def undo():
            monkeypatch.setattr(AnnotationStore, "save", real_save)
            monkeypatch.setattr(AnnotationStore, "delete", real_delete)
    return Switch


def test_a_failed_choice_says_so_and_returns_to_what_is_on_disk(demo_project, read_only):
    at = open_page(make_app(demo_project, item=ITEM), "radio")
    click_card(at, widget_key("radio", "outcome"), ["failure"])
    assert not at.exception, [e.value for e in at.exception]
    shown = everything_shown(at)
    assert NOT_WRITABLE in shown.lower() and SECRET_PATH not in shown and "Permission denied" not in shown
    card = instant_card(at, widget_key("radio", "outcome"))
    assert card["stored"] == [] and NOT_WRITABLE in card["error"].lower()  # the card: what is on disk, nothing
    store = AnnotationStore(demo_project.parent / "annotations")
    assert store.load(ITEM, "alice", "outcome") is None
    read_only.undo()  # the folder is writable again: the next click saves, and the note goes
    click_card(at, widget_key("radio", "outcome"), ["failure"])
    assert store.load(ITEM, "alice", "outcome").value == {"failure": "true"}
    assert NOT_WRITABLE not in everything_shown(at).lower()


def test_typed_text_is_kept_in_its_box_to_retry(demo_project, read_only):
    at = open_page(make_app(demo_project, item=ITEM), "text")
    key = widget_key("text", "notes")
    type_card(at, key, "the planner forgot the budget")
    card = text_card(at, key)
    # the card says so in words, without paths; what is stored is nothing (the browser keeps the
    # typed words in the box: tests/browser/test_instant_text.py)
    assert NOT_WRITABLE in card["error"].lower() and "kept in the box" in card["error"]
    assert SECRET_PATH not in card["error"] and "Permission denied" not in card["error"]
    assert card["stored"] == ""
    read_only.undo()
    type_card(at, key, "the planner forgot the budget!")
    assert AnnotationStore(demo_project.parent / "annotations").load(ITEM, "alice", "notes").value == {
        "text_box": "the planner forgot the budget!"}
    assert text_card(at, key)["error"] is None


def test_a_card_says_not_saved_and_its_control_returns(demo_project, read_only):
    at = open_page(make_app(demo_project, item=ITEM), "tool_call_review")
    verdict = widget_key("toolreview", "tool_review", "slot", 1 % PAGE_SIZE, "verdict")
    notes = widget_key("toolreview", "tool_review", "slot", 1 % PAGE_SIZE, "notes")
    at.text_input(key=notes).input("looked up the wrong date").run()
    click_card(at, verdict, ["wrong_args"])  # an instant card: what the browser sends on the click
    assert not at.exception, [e.value for e in at.exception]
    assert NOT_WRITABLE in instant_card(at, verdict)["error"].lower()  # the card says so
    assert instant_card(at, verdict)["stored"] == []  # nothing on disk
    assert at.text_input(key=notes).value == "looked up the wrong date"  # kept to retry


def test_done_that_fails_stays_on_the_item_and_says_so(demo_project, read_only):
    at = open_page(make_app(demo_project, item=ITEM), "radio")
    at.button(key=widget_key("done")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert NOT_WRITABLE in everything_shown(at).lower()
    assert at.query_params["item"] in (ITEM, [ITEM])


def test_an_annotation_folder_that_is_a_file(tmp_path):
    (tmp_path / "annotations").write_text("not a folder")
    cfg = write_project(tmp_path)
    at = open_page(make_app(cfg, item=ITEM), "radio")
    click_card(at, widget_key("radio", "outcome"), ["failure"])
    assert not at.exception, [e.value for e in at.exception]
    assert NOT_WRITABLE in everything_shown(at).lower()
    assert instant_card(at, widget_key("radio", "outcome"))["stored"] == []
    home = make_app(cfg)
    home.run()  # the items page lists progress from that folder: no traceback either
    assert not home.exception, [e.value for e in home.exception]


@pytest.mark.parametrize("make", ["file", "under a file"])
def test_check_refuses_an_annotation_folder_that_cannot_be_written(tmp_path, capsys, make):
    from app.__main__ import main
    (tmp_path / "blocker").write_text("x")
    out = tmp_path / "blocker" if make == "file" else tmp_path / "blocker" / "annotations"
    cfg = write_project(tmp_path, output_annotation_dir=str(out))
    assert main(["check", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "output_annotation_dir: not a folder" in err and str(tmp_path / "blocker") in err, err
