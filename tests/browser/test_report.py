"""The HTML report opened from disk in headless Chromium: self-contained, charts drawn offline,
and trace text shown as text (no script from a trace runs)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app.store.storage import Annotation, AnnotationStore
from app.project.workspace import open_project
from tests.conftest import ROOT, write_project

pytestmark = pytest.mark.browser

EVIL_AGENT = '<img src=x onerror="window.__pwned=1">'
EVIL_AGENT2 = "</script><script>window.__pwned=2</script>"
EVIL_TEXT = "<script>window.__pwned=3</script> & <b>bold?</b>"


def project(tmp_path):
    data = tmp_path / "runs.jsonl"
    steps = [{"agent": "Planner", "content": "plan"}, {"agent": EVIL_AGENT, "content": EVIL_TEXT},
             {"agent": EVIL_AGENT2, "content": "more"}, {"agent": "Planner", "content": "done"}]
    data.write_text(json.dumps({"id": "evil-run", "text": "Task <i>with</i> markup", "steps": steps}) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)])
    ws = open_project(cfg)
    st = AnnotationStore(ws.project.output_dir)
    th = ws.by_id["evil-run"].trace_hash

    def save(who, scheme, value):
        st.save(Annotation("evil-run", who, scheme, ws.project.scheme(scheme).type, value, "annotated", th, None, 5))
    for who, step in (("alice", 1), ("bob", 2)):
        save(who, "attribution", {"responsible_agent": EVIL_AGENT, "decisive_step": step, "reason": EVIL_TEXT})
        save(who, "handoffs", [{"index": 0, "step": 1, "from": "Planner", "to": EVIL_AGENT, "flags": ["info_loss"],
                                "quality": 1}])
        save(who, "scorecard", {"agents": {EVIL_AGENT: {"contribution": 2 if who == "alice" else 5}},
                                "team": {}, "milestones": {}})
        save(who, "graph", {"critical_nodes": [EVIL_AGENT2], "edges": {}})
    return cfg


def test_report_offline_and_escaped(tmp_path, page):
    cfg = project(tmp_path)
    out = tmp_path / "report.html"
    r = subprocess.run([sys.executable, "-m", "app", "report", str(cfg), "-o", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert EVIL_AGENT not in html and EVIL_AGENT2 not in html and "<script>window.__pwned" not in html

    requests, dialogs = [], []
    page.on("request", lambda req: requests.append(req.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(out.as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=20000)
    page.wait_for_timeout(500)
    assert page.evaluate("() => window.__pwned") is None
    assert not dialogs
    assert [u for u in requests if not u.startswith(("file:", "data:", "blob:"))] == []
    assert page.title().startswith("Baton demo")
    body = page.inner_text("body")
    assert "Failure attribution: attribution" in body and "A few runs" in body
    assert EVIL_AGENT in body and EVIL_TEXT in body  # shown as text, literally
    assert page.locator("img").count() == 0 and page.locator("b:has-text('bold?')").count() == 0
    assert page.locator(".js-plotly-plot").count() >= 5
    # the charts' labels carry the agent name as text too
    svg_text = page.evaluate("() => Array.from(document.querySelectorAll('.main-svg text'))"
                             ".map(t => t.textContent).join(' | ')")
    assert "onerror" in svg_text
