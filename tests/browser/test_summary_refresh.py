"""The summary page in a served app follows saves: after Refresh, the numbers of the scheme
saved are computed again (the other schemes' parts are kept, app/summary.Parts) and drawn."""
from __future__ import annotations

from app.storage import AnnotationStore
from app.workspace import open_project
from tests.browser.conftest import wait_app
from tests.summary_data import CODE, Saver, attribution


BLAME_TEXT = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map((p) => Array.from(p.querySelectorAll('.main-svg text')).map((t) => t.textContent).join(' | '))
    .filter((t) => t.includes('How often each agent is blamed')).join(' || ')"""


def blamed(page, agent: str) -> str:
    """The text of the chart of blame (app/summary_charts.blame), in the Failures tab, once it
    names `agent` (the charts draw after the tab is shown, and again after a refresh) or after
    15 s: the caller's assertions say what was missing."""
    page.get_by_role("tab", name="Failures").click()
    try:
        page.wait_for_function(f"() => ({BLAME_TEXT})().includes({agent!r})", timeout=15000)
    except Exception:  # (Playwright's TimeoutError) the text as it is, for the assertions
        pass
    return page.evaluate(BLAME_TEXT)


def test_summary_page_after_a_save_and_refresh(server, page):
    save = Saver(server.config)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "alice", "outcome", {"failure": "true"})
    page.goto(f"{server.url}/summary?annotator=carol")
    page.get_by_text("1 annotators").wait_for(timeout=30000)
    wait_app(page)
    assert "2 judgements" in page.inner_text("body")
    before = blamed(page, "Coder")
    assert "Coder" in before and "Tester" not in before

    save(CODE, "bob", "attribution", attribution("Tester", 7))
    page.get_by_role("button", name="Refresh").click()
    page.get_by_text("3 judgements").wait_for(timeout=30000)
    wait_app(page)
    after = blamed(page, "Tester")
    assert "Coder" in after and "Tester" in after
    assert page.locator('[data-testid="stException"]').count() == 0
    assert len(AnnotationStore(open_project(server.config).project.output_dir).to_table()) == 3
