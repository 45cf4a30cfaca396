"""End to end in headless Chromium: sign in, attribute a failure, refresh, still there, on disk."""
import re

import pandas as pd
import pytest

from tests.browser.conftest import wait_app

pytestmark = pytest.mark.browser
ITEM = "whowhen-hand-crafted-33"


def choose(pg, label: str, option: str):
    """Pick an option of a Streamlit selectbox by its label."""
    box = pg.get_by_role("combobox", name=label, exact=False).first  # (not its help button)
    box.click()
    pg.get_by_role("option", name=option, exact=False).first.click()
    wait_app(pg)


def test_sign_in_attribute_refresh(server, page):
    pg = page
    pg.goto(server.url)
    wait_app(pg)
    pg.get_by_label("Your annotator name").fill("alice")
    pg.get_by_role("button", name="Sign in").click()
    pg.get_by_text("0 of 7 items done").wait_for()

    pg.goto(f"{server.url}/radio?annotator=alice&item={ITEM}")
    wait_app(pg)
    # the outcome is an instant card (issue 31): its option's text ends with its key
    pg.locator(".bi-card button.bi-opt").filter(has_text=re.compile(r"^failure\d?$")).first.click()
    pg.wait_for_function("() => [...document.querySelectorAll('.bi-status')].some(s => s.textContent.startsWith('Saved'))")

    pg.goto(f"{server.url}/failure_attribution?annotator=alice&item={ITEM}")
    wait_app(pg)
    # the agents are an instant radio card (issues 27, 31: one click or key each); the step a dropdown
    pg.get_by_role("radiogroup", name="Responsible agent").get_by_role("radio", name="WebSurfer", exact=True).click()
    wait_app(pg)
    pg.get_by_text("Saved ·").first.wait_for()
    choose(pg, "Decisive step", "Step 8 ")
    reason = pg.get_by_label("Reason")
    reason.fill("Opened the wrong search result")
    reason.press("Control+Enter")
    wait_app(pg)
    pg.get_by_text("Saved ·").first.wait_for()

    pg.reload()
    pg.get_by_label("Reason").wait_for()
    pg.get_by_text("Saved ·").first.wait_for()
    # the saved choices are shown again (the trace's cards are drawn by a script after the run: wait)
    pg.wait_for_function("() => ['WebSurfer', 'Step 8'].every(t => document.body.innerText.includes(t))",
                         timeout=15000)
    chosen = pg.get_by_role("radiogroup", name="Responsible agent").locator("[aria-checked=true]")
    chosen.first.wait_for(timeout=15000)
    assert chosen.count() == 1 and chosen.get_attribute("data-value") == "WebSurfer"
    assert pg.get_by_label("Reason").input_value() == "Opened the wrong search result"

    df = pd.read_parquet(server.config.parent / "annotations")
    row = df[(df.scheme == "attribution") & (df.item_id == ITEM)].iloc[0]
    assert row.annotator == "alice"
    assert row.value == ('{"responsible_agent": "WebSurfer", "decisive_step": 8, '
                         '"reason": "Opened the wrong search result"}')
