"""A session ticket is no long-lived bearer credential: it ends when idle (1 hour unless the
project or the secrets say otherwise), sign-out ends every session of that annotator, and a
removed account's sessions stop at their next click.

Before: a ticket in a URL stayed valid for 12 hours, and a session once signed in stayed
signed in (its session state) whatever happened to its ticket or account.
"""
from __future__ import annotations

import os
import time

from app.project import access
from app.store.storage import AnnotationStore
from app.ui import state
from tests.conftest import click_card, make_app, open_page, write_project

TOKEN = "alice-token-0123456789abcdef"
BOB = "bob-token-0123456789abcdef"
ITEM = "trip-planner-001"


def secure(tmp_path, extra: str = "", **project) -> tuple:
    cfg = write_project(tmp_path, **project)
    (tmp_path / ".streamlit").mkdir()
    secrets = tmp_path / ".streamlit" / "secrets.toml"
    secrets.write_text(extra + f'[baton.annotators.alice]\ntoken_sha256 = "{access.hash_token(TOKEN)}"\n'
                       f'[baton.annotators.bob]\ntoken_sha256 = "{access.hash_token(BOB)}"\n')
    return cfg, secrets


def signed_in(cfg, token: str = TOKEN):
    at = make_app(cfg, annotator=None, item=ITEM)
    at.run()
    at.text_input[0].input(token)
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def ticket_of(at) -> str:
    t = at.query_params["session"]
    return t[0] if isinstance(t, list) else t


def signed_out(at) -> bool:
    return at.session_state[state.ANNOTATOR] is None and any(
        t.label == "Your access token" for t in at.text_input)


def later(monkeypatch, seconds: float) -> None:
    now = time.time() + seconds
    monkeypatch.setattr(access.time, "time", lambda: now)


def test_tickets_expire_when_idle_and_each_use_restarts_the_clock(tmp_path):
    t = access.Tickets(tmp_path / "t.json", ttl=3600)
    ticket = t.issue("alice", now=0)
    assert t.touch(ticket, now=3000) == "alice"  # used: idle again from 3000
    assert t.active(ticket, now=6000) == "alice"
    assert t.active(ticket, now=6601) is None and t.touch(ticket, now=6601) is None
    assert t.redeem(ticket, now=6601) is None  # nor can a new session take it over


def test_the_idle_time_comes_from_the_secrets_then_the_project_then_one_hour():
    assert access.idle_seconds(None, None) == 3600
    assert access.idle_seconds(None, 5) == 300
    assert access.idle_seconds(2, 5) == 120


def test_an_idle_session_ends_at_its_next_click(tmp_path, monkeypatch):
    cfg, _ = secure(tmp_path)
    at = signed_in(cfg)
    at.switch_page("pages/radio.py")
    at.run()
    assert at.radio  # signed in, annotating
    later(monkeypatch, 3601)
    at.run()  # the next click, an hour and a second later
    assert not at.exception
    assert any("Sign in first" in i.value for i in at.info)
    assert not at.radio


def test_a_url_ticket_idle_past_its_time_signs_nobody_in(tmp_path, monkeypatch):
    cfg, _ = secure(tmp_path, session_idle_minutes=10)  # the project's setting
    ticket = ticket_of(signed_in(cfg))
    later(monkeypatch, 601)
    at = make_app(cfg, annotator=None)
    at.query_params["session"] = ticket
    at.run()
    assert signed_out(at)


def test_the_secrets_idle_setting_wins_over_the_project(tmp_path, monkeypatch):
    cfg, _ = secure(tmp_path, extra="[baton]\nsession_idle_minutes = 1\n", session_idle_minutes=600)
    at = signed_in(cfg)
    later(monkeypatch, 61)
    at.run()
    assert signed_out(at)


def test_sign_out_ends_every_session_of_that_annotator(tmp_path):
    cfg, _ = secure(tmp_path)
    first, second, bob = signed_in(cfg), signed_in(cfg), signed_in(cfg, BOB)
    copied = ticket_of(second)
    first.button(key=state.widget_key("home", "sign-out")).click().run()
    assert signed_out(first)
    second.switch_page("pages/radio.py")
    second.run()  # the other tab's next click
    assert any("Sign in first" in i.value for i in second.info) and not second.radio
    again = make_app(cfg, annotator=None)
    again.query_params["session"] = copied  # its URL no longer signs anyone in
    again.run()
    assert signed_out(again)
    bob.run()  # another annotator is untouched
    assert bob.session_state[state.ANNOTATOR] == "bob"


def test_a_removed_account_stops_at_its_next_click(tmp_path):
    cfg, secrets = secure(tmp_path)
    at = open_page(signed_in(cfg, BOB), "radio")
    click_card(at, "outcome", ["failure"])
    store = AnnotationStore(tmp_path / "annotations")
    assert store.load(ITEM, "bob", "outcome") is not None
    before = secrets.stat()
    secrets.write_text(f'[baton.annotators.alice]\ntoken_sha256 = "{access.hash_token(TOKEN)}"\n')
    os.utime(secrets, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    click_card(at, "outcome", ["success"])  # the next click
    assert not at.exception
    assert store.load(ITEM, "bob", "outcome").value == {"failure": "true"}  # not saved
    at.run()
    assert any("Sign in first" in i.value for i in at.info) and not at.radio


def test_an_ended_session_is_told_why_on_the_sign_in_page(tmp_path, monkeypatch):
    cfg, _ = secure(tmp_path)
    at = signed_in(cfg)
    later(monkeypatch, 3601)
    at.run()
    assert signed_out(at) and any("session ended" in i.value for i in at.info)
