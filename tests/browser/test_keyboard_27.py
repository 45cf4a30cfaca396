"""An item of the demo annotated by keyboard alone (app/ui/keyboard.py): a label by its number,
a handoff's flag and rating by number keys after j/k, the next page by Alt+J, done by d."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.browser.conftest import wait_app

pytestmark = pytest.mark.browser
ITEM = "code-team-002"


def ready(pg):
    """The page drawn and its keys listening."""
    wait_app(pg, 120000)
    pg.wait_for_function("() => window.__batonKeys && document.querySelector('[data-testid=stMain] label')",
                         timeout=60000)
    pg.locator('[data-testid="stMain"] h1').first.click()  # focus the page, on no control


def key(pg, k: str):
    pg.keyboard.press(k)
    pg.wait_for_timeout(400)
    wait_app(pg, 60000)


def test_one_item_by_keyboard_only(server, page):
    pg = page
    pg.goto(f"{server.url}/outcome?annotator=alice&item={ITEM}")
    ready(pg)
    key(pg, "j")
    assert pg.locator(".baton-kb-current").count() == 1
    key(pg, "3")  # outcome: the third label, failure
    pg.get_by_text("Saved ·").first.wait_for(timeout=30000)
    key(pg, "Alt+J")  # the next scheme's page
    pg.wait_for_url(lambda u: "/attribution" in u, timeout=30000)
    wait_app(pg, 120000)
    pg.goto(f"{server.url}/handoffs?annotator=alice&item={ITEM}")  # (the step between: selects, by Tab)
    ready(pg)
    key(pg, "j")
    key(pg, "j")
    key(pg, "1")  # the first choice of the first handoff's card: its first flag
    pg.wait_for_timeout(1500)
    wait_app(pg, 60000)
    key(pg, "d")  # done with this item → the next one
    pg.wait_for_url(lambda u: f"item={ITEM}" not in u, timeout=30000)
    df = pd.read_parquet(server.config.parent / "annotations")
    mine = df[(df.item_id == ITEM) & (df.annotator == "alice")]
    assert mine[mine.scheme == "outcome"].iloc[0].value == '{"failure": "true"}'
    assert len(mine[mine.scheme == "handoffs"]) == 1
    assert len(mine[mine.scheme == "_item"]) == 1


def test_a_key_lands_on_the_outlined_card_after_a_rerun_resets_its_class(server, page):
    """A rerun may draw the outlined card anew or reset its class (React sets the container's
    class again): the next number key still goes to that card, not to the page's first."""
    pg = page
    pg.goto(f"{server.url}/handoffs?annotator=alice&item={ITEM}")
    ready(pg)
    key(pg, "j")
    key(pg, "j")
    key(pg, "j")  # the third card: handoff 2's
    outlined = pg.locator(".baton-kb-current").inner_text()
    pg.evaluate("() => document.querySelectorAll('.baton-kb-current').forEach(c => c.classList.remove('baton-kb-current'))")
    key(pg, "1")  # its first flag
    assert pg.locator(".baton-kb-current").inner_text().split("\n")[0] == outlined.split("\n")[0]  # (outlined again)
    store = server.config.parent / "annotations"
    for _ in range(60):
        df = pd.read_parquet(store)
        mine = df[(df.item_id == ITEM) & (df.annotator == "alice") & (df.scheme == "handoffs")]
        if len(mine):
            break
        pg.wait_for_timeout(500)
    assert len(mine), "nothing saved"
    value = json.loads(mine.iloc[0].value)
    assert outlined.startswith("Handoff 2 ·") and [h["index"] for h in value] == [2], (value, outlined)
