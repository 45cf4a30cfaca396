"""The summary page in a served app follows saves: after Refresh, the numbers of the scheme
saved are computed again (the other schemes' parts are kept, app/summary.Parts) and drawn."""
from __future__ import annotations

from app.store.storage import AnnotationStore
from app.project.workspace import open_project
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


def test_decisive_steps_are_listed_when_asked(server, page):
    """The records the summary counts one by one come on demand: the toggle under the failure
    charts lists every decisive step (a table more), with the acting-agent share above."""
    save = Saver(server.config)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Coder", 5))
    page.goto(f"{server.url}/summary?annotator=carol")
    page.get_by_text("2 annotators").wait_for(timeout=30000)
    wait_app(page)
    page.get_by_role("tab", name="Failures").click()
    panel = page.get_by_role("tabpanel", name="Failures")
    panel.get_by_text("the blamed agent acts at the decisive step in 50% (1 of 2)").wait_for(timeout=15000)
    tables = panel.locator('[data-testid="stDataFrame"]')
    # (the tab's own tables, blame and the histogram, drawn before counting)
    page.wait_for_function("""() => document.querySelectorAll(
        '[role="tabpanel"]:not([hidden]) [data-testid="stDataFrame"]').length >= 2""", timeout=15000)
    wait_app(page)
    before = tables.count()
    panel.get_by_text("List every decisive step").click()
    page.wait_for_function(f"""() => document.querySelectorAll(
        '[role="tabpanel"]:not([hidden]) [data-testid="stDataFrame"]').length > {before}""", timeout=15000)
    wait_app(page)
    assert tables.count() == before + 1
    assert page.locator('[data-testid="stException"]').count() == 0
