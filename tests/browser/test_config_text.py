"""Config text in headless Chromium: labels, options, captions, tooltips and descriptions that
hold Markdown are painted as the literal text, and the browser fetches nothing they name.

Before: radio options, likert end labels and multiselect tooltips rendered Markdown: the
`![x](http://…)` image was requested, `:red[x]` was coloured, `$x$` became KaTeX and `[a](b)`
a link.
"""
from __future__ import annotations

import pytest

from tests.browser.conftest import Server, wait_app
from tests.conftest import write_project
from tests.test_untrusted_text import HOSTILE, hostile_schemes

pytestmark = pytest.mark.browser
LEAK = "leak.invalid"


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    srv = Server(write_project(tmp_path_factory.mktemp("labels"), schemes=hostile_schemes())).start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("path", ["radio", "likert", "multiselect"])
def test_config_markdown_is_shown_as_text_and_fetches_nothing(hostile_server, page, path):
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{hostile_server.url}/{path}?annotator=alice")
    page.get_by_text("Signed in as").wait_for(timeout=20000)
    wait_app(page)
    for target in page.locator('[data-testid="stTooltipHoverTarget"]').all():  # open every tooltip
        target.hover()
        page.wait_for_timeout(300)
        assert "\\" not in page.locator('[data-testid="stTooltipContent"]').last.inner_text()
    page.wait_for_timeout(500)
    assert not [u for u in asked if LEAK in u], asked
    main = page.locator('[data-testid="stMain"]')
    bad = main.locator(f"img[src*='{LEAK}'], .katex, a[href='b'], a[href*='{LEAK}']")
    assert bad.count() == 0, bad.first.evaluate("e => e.outerHTML")
    assert main.locator("span[style*='color']:text-is('x'), [class*='red']:text-is('x')").count() == 0
    text = main.inner_text().replace("\u2060", "")  # md() breaks bare URLs with a word joiner
    shown = {"radio": HOSTILE, "likert": [f"1 {HOSTILE[0]}", f"5 {HOSTILE[1]}"], "multiselect": HOSTILE}[path]
    for literal in shown:
        assert literal in text, (path, literal, text[:2000])
    if path == "radio":
        assert f"{HOSTILE[0]} {HOSTILE[2]}" in text  # the description
