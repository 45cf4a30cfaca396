"""The instant choice cards (app/ui/instant.py) in headless Chromium, on the demo page
benchmarks/pages/instant_demo.py: a burst of 20 clicks in 2 s lands as its last state, a failed
save says why and shows what is stored again, and markup in labels and titles is shown as text."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from benchmarks.gen import make_item
from tests.browser.conftest import _free_port
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

DEMO = ROOT / "benchmarks" / "pages" / "instant_demo.py"


class DemoServer:
    """`streamlit run` of the demo page on generated items, annotations in `folder`."""

    def __init__(self, folder: Path, sizes: list[int]):
        self.items = folder / "items.jsonl"
        self.out = folder / "annotations"
        with self.items.open("w") as f:
            for n in sizes:
                f.write(json.dumps(make_item(f"run-{n}-0", n)) + "\n")
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, BATON_DEMO_ITEMS=str(self.items), BATON_DEMO_OUT=str(self.out))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(DEMO), "--server.port", str(self.port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=1):
                    return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("the demo page did not start in 90 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def demo(tmp_path):
    srv = DemoServer(tmp_path, [50])
    yield srv
    srv.stop()


def open_demo(page, demo, **params):
    query = "&".join(f"{k}={urllib.request.quote(str(v))}" for k, v in {"item": "run-50-0", **params}.items())
    page.goto(f"{demo.url}/?{query}")
    page.locator(".bi-card").nth(3).wait_for(timeout=90000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=90000)


def stored(demo, scheme: str):
    from app.store.storage import AnnotationStore
    ann = AnnotationStore(demo.out).load("run-50-0", "bench", scheme)
    return None if ann is None else list(ann.value)


def first_card(page):
    return page.locator(".bi-card").first


def test_burst_of_20_clicks_in_2_s_lands_as_the_last_state(page, demo):
    open_demo(page, demo)
    card = first_card(page)
    scheme = "handoff-" + card.locator(".bi-title").text_content().split()[3].rstrip(":")
    buttons = [card.locator("button.bi-opt", has_text=f) for f in ("info_loss", "garbling", "goal_drift")]
    expected: set[str] = set()
    names = ["info_loss", "garbling", "goal_drift"]
    for k in range(20):  # 20 clicks, 100 ms apart: faster than the saves under load
        i = (k * 7) % 3
        buttons[i].click()
        expected ^= {names[i]}
        # painted at once, in the browser, before any save came back
        assert buttons[i].get_attribute("aria-checked") == ("true" if names[i] in expected else "false")
        page.wait_for_timeout(100)
    status = card.locator(".bi-status")
    page.wait_for_function("(el) => el.textContent === 'Saved'", arg=status.element_handle(), timeout=60000)
    want = [n for n in names if n in expected]
    assert stored(demo, scheme) in ((want or None), want)
    shown = [n for n, b in zip(names, buttons) if b.get_attribute("aria-checked") == "true"]
    assert shown == want
    # a refresh shows what was acknowledged
    open_demo(page, demo)
    card = first_card(page)
    again = [n for n in names if card.locator("button.bi-opt", has_text=n).get_attribute("aria-checked") == "true"]
    assert again == want


def test_keys_choose_and_the_radio_keeps_one(page, demo):
    open_demo(page, demo)
    radio = page.locator(".bi-card").nth(3)
    radio.focus()
    page.keyboard.press("2")
    page.keyboard.press("3")
    status = radio.locator(".bi-status")
    page.wait_for_function("(el) => el.textContent === 'Saved'", arg=status.element_handle(), timeout=60000)
    assert radio.locator("button[aria-checked=true]").count() == 1
    assert stored(demo, "outcome") == ["failure"]


def test_a_failed_save_says_why_and_returns_to_what_is_stored(page, demo):
    open_demo(page, demo, fail=1)
    card = first_card(page)
    button = card.locator("button.bi-opt", has_text="garbling")
    button.click()
    assert button.get_attribute("aria-checked") == "true"  # painted at once
    status = card.locator(".bi-status")
    page.wait_for_function("(el) => el.dataset.state === 'failed'", arg=status.element_handle(), timeout=60000)
    assert "not writable" in status.text_content() and "Not saved" in status.text_content()
    assert button.get_attribute("aria-checked") == "false"  # back to what is stored (nothing)


HOSTILE = ['<img src=x onerror="window.__pwned=1">', "</script><script>window.__pwned=2</script>",
           "**MDBOLD** [MDLINK](javascript:window.__pwned=3)", '<b id="inj">HTMLBOLD</b>']


def test_markup_in_labels_is_shown_as_text(page, demo):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    labels = urllib.request.quote(json.dumps(HOSTILE))
    for mode in ("instant", "fragment"):
        page.goto(f"{demo.url}/?item=run-50-0&mode={mode}&labels={labels}")
        page.get_by_text("Outcome of the run").first.wait_for(timeout=90000)
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=90000)
        page.wait_for_timeout(1000)
        body = page.locator("body").inner_text()
        for text in (HOSTILE[0], HOSTILE[1], HOSTILE[3]):
            assert text in body, (mode, text)
        assert page.evaluate("() => window.__pwned") is None
        assert page.locator("img[src=x], #inj, a[href^=javascript], script:has-text('__pwned')").count() == 0
        assert page.locator("strong:has-text('MDBOLD')").count() == 0
    assert dialogs == []
    # the instant card holds the hostile label as one button's text (with its key hint), and
    # saves the option's value, not its label
    open_demo(page, demo, labels=json.dumps(HOSTILE))
    b = first_card(page).locator("button.bi-opt").first
    assert b.text_content() == HOSTILE[0] + "1"
    b.click()
    status = first_card(page).locator(".bi-status")
    page.wait_for_function("(el) => el.textContent === 'Saved'", arg=status.element_handle(), timeout=60000)
