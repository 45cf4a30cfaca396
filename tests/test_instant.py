"""The instant choice cards (app/ui/instant.py): which clicks from the browser are saved, in
which order, what a failed save leaves; the fragment card in AppTest."""
from __future__ import annotations

import errno
import json

import pytest
from streamlit.testing.v1 import AppTest

from app.ui.instant import NOT_SAVED, Ack, Row, apply, checked_value, instant_choice, newer

OPTIONS = ["info_loss", "garbling", "goal_drift"]


def test_checked_value_keeps_card_order_and_refuses_what_the_card_cannot_send():
    assert checked_value({"value": ["goal_drift", "info_loss"]}, OPTIONS, True) == ["info_loss", "goal_drift"]
    assert checked_value({"value": []}, OPTIONS, True) == []
    assert checked_value({"value": ["<img src=x>"]}, OPTIONS, True) is None
    assert checked_value({"value": ["garbling", "garbling"]}, OPTIONS, True) is None
    assert checked_value({"value": ["garbling", "info_loss"]}, OPTIONS, False) is None
    assert checked_value({"value": "garbling"}, OPTIONS, True) is None
    assert checked_value(None, OPTIONS, True) is None
    assert checked_value({"value": [1]}, OPTIONS, True) is None


ROWS = [Row("role fidelity", ("0:1", "0:2", "0:3")), Row("contribution", ("1:1", "1:2", "1:3"))]
GRID = [o for r in ROWS for o in r.options]


def test_checked_value_of_a_card_of_rows_takes_one_pick_per_row_at_most():
    assert checked_value({"value": ["1:3", "0:2"]}, GRID, False, ROWS) == ["0:2", "1:3"]  # the card's order
    assert checked_value({"value": ["1:1"]}, GRID, False, ROWS) == ["1:1"]
    assert checked_value({"value": []}, GRID, False, ROWS) == []
    assert checked_value({"value": ["0:1", "0:3"]}, GRID, False, ROWS) is None  # two in one row
    assert checked_value({"value": ["0:1", "0:1"]}, GRID, False, ROWS) is None
    assert checked_value({"value": ["2:1"]}, GRID, False, ROWS) is None  # no such option
    assert checked_value({"value": ["0:1"]}, GRID + ["x"], False, ROWS[:1]) == ["0:1"]
    assert checked_value({"value": ["x"]}, GRID + ["x"], False, ROWS) is None  # an option of no row
    assert checked_value({"value": ["0:1", "1:2"]}, GRID, False) is None  # (without rows: a radio)


def test_a_burst_on_a_card_of_rows_lands_as_its_last_state():
    saved: list[list[str]] = []
    ack = Ack()
    clicks = [["0:1"], ["0:1", "1:2"], ["0:3", "1:2"], ["0:3", "1:1", "0:2"], ["1:1"]]
    for seq, value in enumerate(clicks, 1):
        ack = apply({"mount": "m", "seq": seq, "value": value}, GRID, False, ack, saved.append, rows=ROWS)
    assert saved == [["0:1"], ["0:1", "1:2"], ["0:3", "1:2"], ["1:1"]] and ack.seq == 5  # (the 4th refused)


def test_a_card_of_rows_must_split_its_options_and_be_a_radio():
    for rows, options, multi in ((ROWS, GRID, True), (ROWS, GRID[::-1], False), (ROWS[:1], GRID, False)):
        with pytest.raises(ValueError):
            instant_choice("k", title="t", options=options, load=list, save=print, multi=multi, rows=rows)


def test_newer_orders_clicks_within_a_mount_and_accepts_a_new_mount():
    last = Ack("m1", 5)
    assert newer({"mount": "m1", "seq": 6}, last)
    assert not newer({"mount": "m1", "seq": 5}, last)
    assert not newer({"mount": "m1", "seq": 3}, last)
    assert newer({"mount": "m2", "seq": 1}, last)  # a refreshed page
    assert not newer({"mount": "m1", "seq": True}, last)
    assert not newer({"mount": "m1", "seq": 0}, Ack())


def test_a_burst_lands_as_its_last_state_in_order_whatever_arrives_late():
    saved: list[list[str]] = []
    acked: list[int] = []
    ack = Ack()
    events = [{"mount": "m", "seq": k, "value": OPTIONS[: k % 3]} for k in range(1, 21)]
    # triggers overtaken by a rerun arrive late or twice: older ones must not overwrite newer
    arrival = events[:5] + [events[2], events[9], events[7]] + events[10:] + [events[19], events[4]]
    for ev in arrival:
        before = ack
        ack = apply(ev, OPTIONS, True, ack, saved.append)
        if ack is not before:
            acked.append(ack.seq)
    assert saved[-1] == OPTIONS[: 20 % 3] and ack.seq == 20
    assert acked == sorted(acked) and len(set(acked)) == len(acked) == len(saved)


def test_a_failed_save_is_acknowledged_with_words_and_no_path():
    def save(value):
        raise PermissionError(errno.EACCES, "Permission denied", "/srv/secret/annotations/x.parquet")
    ack = apply({"mount": "m", "seq": 1, "value": ["garbling"]}, OPTIONS, True, Ack(), save)
    assert ack.seq == 1 and ack.error and ack.error.startswith(NOT_SAVED)
    assert "not writable" in ack.error and "/srv" not in ack.error
    full = apply({"mount": "m", "seq": 2, "value": []}, OPTIONS, True, ack,
                 lambda v: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space")))
    assert "disk is full" in full.error


def test_an_invalid_event_saves_nothing():
    saved = []
    ack = apply({"mount": "m", "seq": 1, "value": ["<b>x</b>"]}, OPTIONS, True, Ack(), saved.append)
    assert saved == [] and ack == Ack()


def _fragment_app():
    import streamlit as st

    from app.ui.instant_fragment import fragment_choice
    st.session_state.setdefault("db", ["garbling"])

    def save(value):
        if st.session_state.get("fail"):
            raise PermissionError(13, "denied")
        st.session_state.db = list(value)

    fragment_choice("card", title="Flags <b>x</b>", options=["info_loss", "garbling"],
                    labels={"info_loss": "**bold** [link](http://x)"},
                    load=lambda: list(st.session_state.db), save=save)


def test_fragment_card_saves_and_says_so():
    at = AppTest.from_function(_fragment_app, default_timeout=60).run()
    assert [c.value for c in at.checkbox] == [False, True]
    assert at.text[-1].value == "Saved"
    at.checkbox[0].check().run()
    assert at.session_state["db"] == ["info_loss", "garbling"]
    assert at.text[-1].value == "Saved"
    at.checkbox[0].uncheck().run()
    at.checkbox[1].uncheck().run()
    assert at.session_state["db"] == []
    assert at.text[-1].value == "Not annotated yet"


def test_fragment_card_failed_save_says_why_and_shows_what_is_stored():
    at = AppTest.from_function(_fragment_app, default_timeout=60).run()
    at.session_state["fail"] = True
    at.checkbox[1].uncheck().run()
    assert at.session_state["db"] == ["garbling"]
    assert [c.value for c in at.checkbox] == [False, True]  # back to what is stored
    assert at.text[-1].value.startswith(NOT_SAVED) and "not writable" in at.text[-1].value


def test_fragment_card_labels_and_title_are_text():
    at = AppTest.from_function(_fragment_app, default_timeout=60).run()
    assert at.text[0].value == "Flags <b>x</b>"
    label = at.checkbox[0].label
    assert "\\*\\*bold\\*\\*" in label and "\\[link\\]" in label


def _instant_app():
    import streamlit as st

    from app.ui.instant import instant_choice
    instant_choice("card", title="Flags", options=["info_loss", "garbling"], load=lambda: ["garbling"],
                   save=lambda v: None)
    st.text("after")


def test_instant_card_mounts_in_apptest():
    at = AppTest.from_function(_instant_app, default_timeout=60).run()
    assert not at.exception
    assert at.text[-1].value == "after"


def _instant_saving_app():
    import streamlit as st

    from app.ui.instant import instant_choice
    st.session_state.setdefault("db", [])

    def save(value):
        if st.session_state.get("fail"):
            raise OSError(28, "No space left on device")
        st.session_state.db = list(value)

    instant_choice("card", title="Flags", options=["info_loss", "garbling"],
                   load=lambda: list(st.session_state.db), save=save)


def _component(at):
    return next(e for e in at.main if getattr(e, "type", "") == "bidi_component" or
                getattr(getattr(e, "proto", None), "component_name", "") == "baton_instant_choice")


def test_instant_card_saves_a_trigger_and_sends_the_ack_back():
    from tests.conftest import send_trigger
    at = AppTest.from_function(_instant_saving_app, default_timeout=60).run()
    element = _component(at)
    send_trigger(at, element, "change", {"mount": "m", "seq": 2, "value": ["garbling"]})
    assert at.session_state["db"] == ["garbling"]
    data = json.loads(_component(at).proto.json)
    assert data["stored"] == ["garbling"] and data["ack"] == {"mount": "m", "seq": 2, "value": ["garbling"], "holds": ""}
    send_trigger(at, _component(at), "change", {"mount": "m", "seq": 1, "value": []})  # late: ignored
    assert at.session_state["db"] == ["garbling"]
    at.session_state["fail"] = True
    send_trigger(at, _component(at), "change", {"mount": "m", "seq": 3, "value": []})
    data = json.loads(_component(at).proto.json)
    assert data["stored"] == ["garbling"] and "disk is full" in data["error"]
