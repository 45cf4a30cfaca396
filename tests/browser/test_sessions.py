"""Refresh, back and forward, two tabs of one annotator, a server restart, in headless Chromium:
nothing lost, nothing duplicated, the page shows what is on disk.

Streamlit starts a new session with empty state on every refresh, new tab and reconnection,
so everything shown must come from disk; the URL carries the annotator (or, with tokens, a
one-time session ticket) and the item.
"""
from __future__ import annotations

import re

import pandas as pd
import pytest

from app.project import access
from app.store.storage import AnnotationStore
from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project

pytestmark = pytest.mark.browser
ITEM1, ITEM2 = "trip-planner-001", "code-team-002"


def open_page(pg, url: str) -> None:
    pg.goto(url)
    pg.get_by_text("Signed in as").wait_for(timeout=20000)
    wait_app(pg)


def option(pg, label: str):
    """The outcome's option `label` on its instant card (issue 31: its text ends with its key)."""
    return pg.locator(".bi-card button.bi-opt").filter(has_text=re.compile("^" + re.escape(label) + r"\d?$")).first


def choose(pg, label: str) -> None:
    option(pg, label).click()
    pg.wait_for_function("() => [...document.querySelectorAll('.bi-status')].some(s => s.textContent.startsWith('Saved'))")
    wait_app(pg)


def checked(pg, label: str) -> bool:
    return option(pg, label).get_attribute("aria-checked") == "true"


def history(pg, step: int) -> None:
    pg.evaluate(f"history.go({step})")
    pg.wait_for_timeout(800)
    wait_app(pg)


def rows(server, **key) -> pd.DataFrame:
    df = pd.read_parquet(server.config.parent / "annotations")
    for k, v in key.items():
        df = df[df[k] == v]
    return df


def test_two_tabs_of_one_annotator(server, browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    a, b = ctx.new_page(), ctx.new_page()
    url = f"{server.url}/radio?annotator=alice&item={ITEM1}"
    open_page(a, url)
    choose(a, "failure")
    open_page(b, url)  # the second tab shows what the first saved
    assert checked(b, "failure")
    choose(b, "success")  # changed in the second tab...
    a.reload()
    a.get_by_text("Signed in as").wait_for()
    wait_app(a)
    assert checked(a, "success") and not checked(a, "failure")  # ...the first shows it after a refresh
    # done in both tabs: still one done mark, one outcome
    a.get_by_role("button", name="Done with this item").click()
    wait_app(a)
    b.get_by_role("button", name="Done with this item").click()
    wait_app(b)
    assert len(rows(server, item_id=ITEM1, annotator="alice", scheme="outcome")) == 1
    assert rows(server, item_id=ITEM1, annotator="alice", scheme="outcome").iloc[0].value == '{"success": "true"}'
    assert len(rows(server, item_id=ITEM1, annotator="alice", scheme="_item")) == 1
    assert len(list((server.config.parent / "annotations").rglob("*.parquet"))) == 2
    ctx.close()


def test_back_and_forward_keep_item_and_values(server, page):
    pg = page
    open_page(pg, f"{server.url}/radio?annotator=alice&item={ITEM1}")
    choose(pg, "failure")
    pg.get_by_role("button", name="Item ▶").click()
    wait_app(pg)
    assert f"item={ITEM2}" in pg.url
    choose(pg, "partial")
    history(pg, -1)  # back: the previous item, with its answer
    assert f"item={ITEM1}" in pg.url and checked(pg, "failure")
    history(pg, 1)  # forward: the next one, with its answer
    assert f"item={ITEM2}" in pg.url and checked(pg, "partial")
    pg.get_by_role("link", name="Notes").click()  # another scheme's page, then back and forward
    wait_app(pg)
    notes = pg.locator("textarea").first
    notes.fill("the planner forgot the budget")
    notes.press("Control+Enter")
    pg.get_by_text("Saved ·").first.wait_for()
    wait_app(pg)
    history(pg, -1)
    assert "/radio" in pg.url and f"item={ITEM2}" in pg.url and checked(pg, "partial")
    history(pg, 1)
    assert "/notes" in pg.url and pg.locator("textarea").first.input_value() == "the planner forgot the budget"
    store = AnnotationStore(server.config.parent / "annotations")
    assert store.load(ITEM1, "alice", "outcome").value == {"failure": "true"}
    assert store.load(ITEM2, "alice", "outcome").value == {"partial": "true"}
    assert store.load(ITEM2, "alice", "notes").value == {"text_box": "the planner forgot the budget"}
    assert len(store.all()) == 3


def test_server_restart_keeps_everything(server, page):
    pg = page
    open_page(pg, f"{server.url}/radio?annotator=alice&item={ITEM2}")
    choose(pg, "failure")
    before = rows(server)
    server.stop()
    server.start()  # same project, same port: the open tab reconnects
    pg.reload()
    pg.get_by_text("Signed in as").wait_for(timeout=30000)
    wait_app(pg)
    assert f"item={ITEM2}" in pg.url and checked(pg, "failure")
    assert "Saved ·" in pg.inner_text("body")
    pd.testing.assert_frame_equal(rows(server), before)  # nothing lost, nothing added


def test_token_sign_in_survives_refresh_and_restart(tmp_path, browser):
    token = "alice-token-0123456789abcdef"
    cfg = write_project(tmp_path)
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(
        f'[baton.annotators.alice]\ntoken_sha256 = "{access.hash_token(token)}"\n')
    srv = Server(cfg).start()
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    try:
        pg.goto(srv.url)
        wait_app(pg)
        pg.get_by_label("Your access token").fill(token)
        pg.get_by_role("button", name="Sign in").click()
        pg.get_by_text("Signed in as").wait_for(timeout=20000)
        wait_app(pg)
        first = re.search(r"session=([^&]+)", pg.url).group(1)
        assert token not in pg.url
        pg.goto(f"{srv.url}/radio?session={first}&item={ITEM1}")  # a refresh: a new session
        pg.get_by_text("Signed in as").wait_for(timeout=20000)
        wait_app(pg)
        choose(pg, "failure")
        second = re.search(r"session=([^&]+)", pg.url).group(1)
        assert second != first  # the ticket rotated
        srv.stop()
        srv.start()
        pg.reload()
        pg.get_by_text("Signed in as alice").wait_for(timeout=30000)  # survives the restart
        wait_app(pg)
        assert checked(pg, "failure")
        # the URL from before the refresh (from history, a screen share) signs nobody in
        other = browser.new_context().new_page()
        other.goto(f"{srv.url}/?session={first}")
        other.get_by_label("Your access token").wait_for(timeout=20000)
        assert "Signed in as" not in other.inner_text("body")
        other.context.close()
        assert len(AnnotationStore(tmp_path / "annotations").all()) == 1
    finally:
        ctx.close()
        srv.stop()
