"""Injection, checked in headless Chromium: one hostile project, visited page by page.

Agent names, step texts, the task, tool names and arguments, resource names, the item id and
the stored annotations (a reason, free text, notes) carry HTML, script and Markdown. On every
page (items, each annotation surface, the summary with all its tabs, the HTML report it
downloads) and in every frame (the graph's component iframe too): no script ran (no
`window.__pwned`, no dialog, the title unchanged), no injected element exists (`img[src=x]`,
`a[href^=javascript]`, event-handler attributes, injected bold or links from Markdown), and the
hostile text is on the page as text. The timeline's hover label is checked too.

The same check walks every scheme's page (and the summary) of Potato's example projects
(tests/data/potato_examples*/), whose surfaces read other fields of an item (conversations,
responses, chain-of-thought reasoning, thoughts and actions): each project is opened with its
config as it is and its data copied with hostile markup before every string of every item.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

from app.store.storage import Annotation, AnnotationStore
from app.project.workspace import open_project
from tests.browser.conftest import Server, wait_app
from tests.conftest import ROOT, demo_pages, write_project

pytestmark = pytest.mark.browser

A_IMG = '<img src=x onerror="window.__pwned=1">'
A_MD = "**MDBOLD** [MDLINK](javascript:window.__pwned=2) ![MDIMG](x)"
A_SCRIPT = "</script><script>window.__pwned=3</script>"
TEXT = ('<script>window.__pwned=4</script><b>HTMLBOLD</b> <svg onload="window.__pwned=5"></svg> '
        ':red[RED] $x^2$ <a href="javascript:window.__pwned=6">ALINK</a>')
TOOL = '<img src=x onerror="alert(7)">'
ARGS = {"q": '<img src=x onerror="window.__pwned=8">', "md": "[ARGLINK](javascript:alert(9))"}
RESOURCE = '<iframe src="javascript:window.__pwned=10"></iframe>'
ITEM = "evil-<b>ITEMBOLD</b>-[ITEMLINK](javascript:x)"
REASON = "<img src=x onerror=\"window.__pwned=11\"> **REASONBOLD**"
AGENTS = [A_IMG, A_MD, A_SCRIPT]
BOXES = {"text", "failure_attribution", "radio"}  # pages whose text cards hold REASON (saved below)
# what must be on each page as text (a prefix, since long texts are cut)
PAGES = {"": [ITEM[:20]],
         **{page: [A_IMG] for page in demo_pages()},
         "summary": [A_IMG]}
# injected elements; Markdown or HTML that rendered would make an element whose whole text is the
# marked word (a name shown as text, in a bold badge, is "**MDBOLD** [MDLINK](...)" instead)
BAD = ("img[src='x'], a[href^='javascript'], [onerror], [onload], iframe[src^='javascript'], "
       + ", ".join(f"{tag}:text-is('{word}')" for tag, word in [
           ("strong", "MDBOLD"), ("b", "HTMLBOLD"), ("b", "ITEMBOLD"), ("strong", "REASONBOLD"), ("a", "MDLINK"),
           ("a", "ALINK"), ("a", "ARGLINK"), ("a", "ITEMLINK"), ("img", "MDIMG")]))


def hostile_project(tmp: Path) -> Path:
    steps = []
    for i in range(8):
        step = {"agent": AGENTS[i % 3], "content": f"{TEXT} step {i}"}
        if i % 2 == 0:
            step["tool_calls"] = [{"id": f"c{i}", "type": "function",
                                   "function": {"name": TOOL, "arguments": json.dumps(ARGS)}}]
        steps.append(step)
    calls = [{"agent": AGENTS[i % 3], "tool": TOOL, "resource": RESOURCE, "start": i * 10, "end": i * 10 + 25}
             for i in range(4)]
    data = tmp / "runs.jsonl"
    data.write_text(json.dumps({"id": ITEM, "text": f"Task: {TEXT}", "steps": steps, "calls": calls}) + "\n"
                    + json.dumps({"id": "plain", "text": "plain", "steps": [{"agent": "A", "content": "x"}]}) + "\n")
    cfg = write_project(tmp, data_files=[str(data)])
    ws = open_project(cfg)
    store = AnnotationStore(ws.project.output_dir)
    th = ws.by_id[ITEM].trace_hash

    def save(who, scheme, value):
        store.save(Annotation(ITEM, who, scheme, ws.project.scheme(scheme).type, value, "annotated", th, None, 3))

    for who, step in (("alice", 1), ("bob", 2)):
        save(who, "outcome", {"failure": "true"})
        save(who, "attribution", {"responsible_agent": A_IMG, "decisive_step": step, "reason": REASON})
        save(who, "orchestration", {"group_chat": "true", "free_response": REASON})
        save(who, "notes", {"text_box": REASON})
        save(who, "graph", {"critical_nodes": [A_MD], "edges": {}})
        save(who, "scorecard", {"agents": {A_IMG: {"contribution": 1 if who == "alice" else 5}},
                                "team": {}, "milestones": {}})
    return cfg


@pytest.fixture(scope="module")
def evil_server(tmp_path_factory):
    srv = Server(hostile_project(tmp_path_factory.mktemp("evil"))).start()
    yield srv
    srv.stop()


def watch(pg) -> list:
    dialogs: list = []
    pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return dialogs


def assert_clean(pg, dialogs, where: str) -> None:
    assert not dialogs, (where, dialogs)
    assert "pwned" not in pg.title(), where
    for frame in pg.frames:
        assert frame.evaluate("() => window.__pwned === undefined"), (where, frame.url)
        bad = frame.locator(BAD)
        assert bad.count() == 0, (where, frame.url, bad.first.evaluate("e => e.outerHTML"))


def text_of_all_frames(pg) -> str:
    return "\n".join(f.evaluate("() => document.body ? document.body.textContent : ''") for f in pg.frames)


@pytest.mark.parametrize("path", list(PAGES))
def test_page_shows_hostile_text_as_text(evil_server, page, path):
    dialogs = watch(page)
    page.goto(f"{evil_server.url}/{path}?annotator=alice&item={quote(ITEM)}")
    page.get_by_text("Signed in as").wait_for(timeout=20000)
    wait_app(page)
    page.wait_for_timeout(800)  # components (graph iframe, charts) draw after the script ends
    assert page.locator('[data-testid="stException"]').count() == 0, page.inner_text("body")[:2000]
    assert_clean(page, dialogs, path)
    text = text_of_all_frames(page)
    if path == "tool_contention":  # the timeline's hover label shows the names as text
        shown = ".baton-timeline:not([aria-hidden])"  # (the next item's chart may be drawn unseen)
        box = page.locator(f"{shown} .barlayer .point").first.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.locator(f"{shown} .hoverlayer .hovertext").first.wait_for(timeout=5000)
        hover = page.locator(f"{shown} .hoverlayer").first.text_content()
        assert TOOL in hover and RESOURCE in hover, hover
        assert_clean(page, dialogs, "timeline hover")
    if path == "summary":  # every tab drawn; chart labels show the names as they are
        for tab in page.get_by_role("tab").all():
            tab.click()
            page.wait_for_timeout(150)
            assert_clean(page, dialogs, f"summary tab {tab.inner_text()}")
        text += page.evaluate("() => Array.from(document.querySelectorAll('.main-svg text'))"
                              ".map(t => t.textContent).join(' | ')")
    for expected in PAGES[path]:
        assert expected in text, (path, expected)
    if path in BOXES:  # the stored reason, free text and notes: in their text cards' boxes, as typed
        page.locator(".bt-box").first.wait_for(timeout=20000)
        assert REASON in page.locator(".bt-box").evaluate_all("(bs) => bs.map(b => b.value)"), path


def test_summary_html_report_shows_hostile_text_as_text(evil_server, page, tmp_path):
    dialogs = watch(page)
    page.goto(f"{evil_server.url}/summary?annotator=alice")
    page.get_by_text("Signed in as").wait_for(timeout=20000)
    wait_app(page)
    page.get_by_role("tab", name="Export & report").click()
    with page.expect_download(timeout=30000) as dl:
        page.get_by_role("button", name="HTML report").click()
    report = tmp_path / "report.html"
    dl.value.save_as(report)
    html = report.read_text(encoding="utf-8")
    assert A_IMG not in html and "<script>window.__pwned" not in html
    page.goto(report.as_uri())
    page.wait_for_timeout(1500)
    assert_clean(page, dialogs, "HTML report")
    assert A_IMG in page.inner_text("body")


# --- Potato's example projects -------------------------------------------------------------------

POTATO_EXAMPLES = sorted((ROOT / "tests" / "data").glob("potato_examples*/*.yaml"))
# before every string of every item: HTML, script, Markdown and Streamlit's colour and maths syntax
POISON = f"{A_IMG} {A_MD} {TEXT} "
KEPT = {"type"}  # strings that give a part of a record its shape (a tool call's "function")


def poisoned(value, key: str | None = None):
    """`value` with POISON before each of its strings (JSON held in a string: inside it)."""
    if isinstance(value, dict):
        return {k: poisoned(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [poisoned(v, key) for v in value]
    if isinstance(value, str) and key not in KEPT:
        try:
            inner = json.loads(value)
        except ValueError:
            return POISON + value
        if isinstance(inner, (dict, list)):
            return json.dumps(poisoned(inner))
        return POISON + value
    return value


def hostile_copy(config: Path, tmp: Path) -> Path:
    """The example project's folder copied under tmp, its config as it is, every item poisoned."""
    folder = tmp / config.parent.name
    shutil.copytree(config.parent, folder, ignore=shutil.ignore_patterns("annotation_output"))
    for data in (folder / "data").iterdir():
        if data.suffix == ".jsonl":
            lines = [json.dumps(poisoned(json.loads(line))) for line in data.read_text().splitlines() if line.strip()]
            data.write_text("\n".join(lines) + "\n")
        elif data.suffix == ".json":
            data.write_text(json.dumps(poisoned(json.loads(data.read_text()))))
    return folder / config.name


def potato_pages() -> list:
    """(example project, url path) for each scheme's page of each example project, and its summary."""
    from app.ui.nav import scheme_urls
    out = []
    for config in POTATO_EXAMPLES:
        ws = open_project(config)
        for url in [*scheme_urls(ws).values(), "summary"]:
            out.append(pytest.param(config, url, id=f"{config.parent.name}/{config.stem}/{url}"))
    return out


@pytest.fixture(scope="module")
def potato_servers(tmp_path_factory):
    """A server per hostile copy of an example project, started when first asked for."""
    started: dict[Path, tuple[Server, str]] = {}

    def server_of(config: Path) -> tuple[Server, str]:
        if config not in started:
            for srv, _ in started.values():  # one at a time: the machine is small
                srv.stop()
            copy = hostile_copy(config, tmp_path_factory.mktemp("evil-potato"))
            started.clear()
            started[config] = (Server(copy).start(), open_project(copy).items[0].id)
        return started[config]

    yield server_of
    for srv, _ in started.values():
        srv.stop()


@pytest.mark.parametrize("config, path", potato_pages())
def test_potato_example_pages_show_hostile_text_as_text(potato_servers, page, config, path):
    srv, item = potato_servers(config)
    dialogs = watch(page)
    page.goto(f"{srv.url}/{path}?annotator=alice&item={quote(item)}")
    page.get_by_text("Signed in as").wait_for(timeout=30000)
    wait_app(page)
    page.wait_for_timeout(800)  # components (charts) draw after the script ends
    assert page.locator('[data-testid="stException"]').count() == 0, page.inner_text("body")[:2000]
    assert_clean(page, dialogs, path)
    if path == "summary":  # every tab drawn
        for tab in page.get_by_role("tab").all():
            tab.click()
            page.wait_for_timeout(150)
            assert_clean(page, dialogs, f"summary tab {tab.inner_text()}")
    else:  # the item's trace, with the fields this scheme's surface reads, as text
        assert A_IMG in text_of_all_frames(page), (path, page.inner_text("body")[:2000])
