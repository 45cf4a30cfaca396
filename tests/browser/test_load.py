"""Load: 16 sessions at once, each opening and using every page, on one real server.

Run with `make test-long` (marked `long`). With st.Page objects shared between sessions (once
built under an lru_cache in app/ui/nav.py) a few concurrent page loads were enough for a
session to die with "StreamlitAPIException: This page cannot be called directly".
"""
from __future__ import annotations

import asyncio
import re
import threading

import pytest

from tests.browser.conftest import ARGS, CHROMIUM, Server
from tests.conftest import write_project

pytestmark = [pytest.mark.browser, pytest.mark.long]
SESSIONS = 16
ITEM = "trip-planner-001"
DEAD = "cannot be called directly"


async def _settled(pg, timeout: float = 180_000) -> None:
    await pg.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    await pg.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                               timeout=timeout)
    await pg.wait_for_timeout(200)


async def _problems(pg, where: str) -> list[str]:
    """The exceptions a page shows (Streamlit draws them as stException elements)."""
    shown = pg.locator('[data-testid="stException"]')
    return [f"{where}: {await shown.nth(i).inner_text()}" for i in range(await shown.count())]


async def _session(browser, url: str, who: str, found: list[str]) -> None:
    """Open the app, then every page through the menu, using each a little (a click)."""
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = await ctx.new_page()
    pg.set_default_timeout(300_000)  # 16 sessions on a small machine: a page may take a while
    try:
        await pg.goto(f"{url}/?annotator={who}&item={ITEM}", timeout=180_000)
        await pg.get_by_text("Signed in as").wait_for(timeout=180_000)
        await _settled(pg)
        await pg.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stSidebar\"] a').length > 10", timeout=180_000)
        menu = pg.locator('[data-testid="stSidebar"]').get_by_role("link")
        titles = [t.strip().splitlines()[-1] for t in await menu.all_inner_texts()]  # (after an icon's name)
        assert len(titles) > 10 and titles[-1] == "Summary", titles  # every page of the project
        assert "Outcome" in titles, titles  # (the page used below)
        for i, title in enumerate(titles):
            await pg.locator('[data-testid="stSidebar"]').get_by_role("link").nth(i).click()
            await _settled(pg)
            found += await _problems(pg, f"{who} {title}")
            if title == "Outcome":  # use it: an answer on its instant card, saved
                await pg.locator(".bi-card button.bi-opt").filter(has_text=re.compile(r"^failure\d?$")).first.click()
                await pg.wait_for_function("() => [...document.querySelectorAll('.bi-status')]"
                                           ".some(s => s.textContent.startsWith('Saved'))", timeout=180_000)
                await _settled(pg)
                found += await _problems(pg, f"{who} {title} after a click")
        await pg.goto(f"{url}/summary?annotator={who}", timeout=180_000)  # a page opened by its address
        await _settled(pg)
        found += await _problems(pg, f"{who} summary by address")
    except Exception as e:  # noqa: BLE001 - reported by the test, with what the page showed
        found.append(f"{who}: {type(e).__name__}: {e}; page: {(await pg.inner_text('body'))[:500]}")
    finally:
        await ctx.close()


async def _all_at_once(url: str, found: list[str]) -> None:
    from playwright.async_api import async_playwright
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            await asyncio.gather(*(_session(browser, url, f"user{i}", found) for i in range(SESSIONS)))
        finally:
            await browser.close()


def test_sixteen_sessions_use_every_page_at_once(tmp_path):
    import os
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests skipped: Debian's Chromium not found at {CHROMIUM}")
    srv = Server(write_project(tmp_path)).start()
    found: list[str] = []
    try:
        # a thread of its own: an asyncio loop beside the sync Playwright of other tests
        worker = threading.Thread(target=lambda: asyncio.run(_all_at_once(srv.url, found)))
        worker.start()
        worker.join(1800)
        assert not worker.is_alive(), "the sessions did not finish in 30 minutes"
    finally:
        srv.stop()
    log = srv.proc.stdout.read().decode(errors="replace")
    assert DEAD not in log, log[-5000:]
    assert "Traceback" not in log, log[-5000:]
    assert not found, "\n".join(found)[:5000]
