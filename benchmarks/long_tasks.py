"""The browser's longest main-thread task while each page loads (issue 31: "no long task over
200 ms on any page, contention and summary included"), before and after a change, in one run.

    .venv/bin/python -m benchmarks.long_tasks [--before REV] [--rounds 3] [--pages contention,graph,...]
                                               [--items trip-planner-001,run-2000-0]

Two Baton servers on the same project (benchmarks/graph_first_draw.project: the demo's data and
schemes and a generated 2,000-step run), one from the working tree and one from `--before` (a
git revision), their rounds alternating. Each page of each item is loaded in a new tab of a
warm browser (its HTTP cache kept, as for an annotator who opens a page again): from navigation
start until the page has been quiet for 3 s, every `longtask` entry (PerformanceObserver) is
kept. Printed per page: the median over rounds of the longest task, and of the number of tasks
over 200 ms; beside them the same for a trivial Streamlit page (a button and a counter,
benchmarks/browser.TRIVIAL) loaded in the same rounds: what Streamlit's own start costs.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

from benchmarks.browser import TRIVIAL
from benchmarks.gen import ROOT, table
from benchmarks.graph_first_draw import Baton, project, tree_of
from tests.browser.conftest import ARGS, CHROMIUM, _free_port

BEFORE = "HEAD"
PAGES = "outcome,attribution,graph,handoffs,scorecard,contention,emergent,tool_review,mast_steps,traversal,summary"
LIMIT_MS = 200.0

LONG_JS = """
(() => {
  window.__long = [];
  try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
      .observe({type: 'longtask', buffered: true});
  } catch (e) { window.__long = null; }
})();
"""


def _loaded(pg, url: str) -> list[float]:
    """The long tasks (ms) of one page load, until it is quiet: no script run shown and 3 s since."""
    pg.goto(url, timeout=120000)
    pg.wait_for_selector('[data-testid="stApp"]', timeout=120000)
    pg.wait_for_timeout(1000)
    pg.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120000)
    pg.wait_for_timeout(3000)
    got = pg.evaluate("() => window.__long")
    if got is None:
        raise RuntimeError("this browser reports no long tasks")
    return got


def trivial_server(folder: Path) -> tuple[subprocess.Popen, str]:
    """The trivial Streamlit page, served from `folder`: (its process, its url)."""
    app = folder / "trivial.py"
    app.write_text(textwrap.dedent(TRIVIAL))
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false"], cwd=folder,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the trivial page's server did not start in 90 s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.long_tasks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", default=BEFORE, help=f"git revision measured beside the working tree (default {BEFORE})")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pages", default=PAGES, help="url paths of the pages (the demo project's schemes, summary)")
    ap.add_argument("--items", default="trip-planner-001,run-2000-0")
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"Debian's Chromium not found at {CHROMIUM}: benchmark skipped")
        return 0
    pages, items = args.pages.split(","), args.items.split(",")
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); before = {args.before}", flush=True)
    from playwright.sync_api import sync_playwright
    found: dict[tuple, list[list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        cfg = project(Path(tmp) / "project")
        servers = [Baton(tree_of(args.before, Path(tmp) / "before"), cfg, "before"), Baton(ROOT, cfg, "after")]
        trivial, trivial_url = trivial_server(Path(tmp))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            contexts = {}
            plain = browser.new_context(viewport={"width": 1440, "height": 900})
            plain.add_init_script(LONG_JS)
            tab = plain.new_page()
            _loaded(tab, trivial_url)  # untimed
            tab.close()
            for srv in servers:
                ctx = browser.new_context(viewport={"width": 1440, "height": 900})
                ctx.add_init_script(LONG_JS)
                contexts[srv.name] = ctx
                for item in items:  # untimed: the server derives the items, the browser caches the scripts
                    tab = ctx.new_page()
                    for page in pages:
                        _loaded(tab, f"{srv.url}/{page}?annotator=bench&item={item}")
                    tab.close()
            for r in range(args.rounds):
                for item in items:
                    for page in pages:
                        for srv in servers if r % 2 == 0 else servers[::-1]:
                            tab = contexts[srv.name].new_page()
                            found.setdefault((item, page, srv.name), []).append(
                                _loaded(tab, f"{srv.url}/{page}?annotator=bench&item={item}"))
                            tab.close()
                tab = plain.new_page()
                found.setdefault(("–", "trivial Streamlit page", "after"), []).append(_loaded(tab, trivial_url))
                tab.close()
                print(f"round {r + 1} of {args.rounds} done", flush=True)
        finally:
            browser.close()
            for srv in servers:
                srv.stop()
            trivial.kill()
    plain_tasks = found[("–", "trivial Streamlit page", "after")]
    found[("–", "trivial Streamlit page", "before")] = plain_tasks
    rows = []
    for item in items + ["–"]:
        for page in pages if item != "–" else ["trivial Streamlit page"]:
            med = {name: (statistics.median(max(t, default=0.0) for t in found[(item, page, name)]),
                          statistics.median(sum(d > LIMIT_MS for d in t) for t in found[(item, page, name)]))
                   for name in ("before", "after")}
            rows.append({"item": item, "page": page, "before: longest ms": med["before"][0],
                         "after: longest ms": med["after"][0],
                         "after / before": med["after"][0] / med["before"][0] if med["before"][0] else float("nan"),
                         f"before: tasks > {LIMIT_MS:.0f} ms": med["before"][1],
                         f"after: tasks > {LIMIT_MS:.0f} ms": med["after"][1],
                         f"after within {LIMIT_MS:.0f} ms": "yes" if med["after"][0] <= LIMIT_MS else "no"})
    print(table(rows, title=f"Longest main-thread task of a page load, medians of {args.rounds} "
                            f"(before = {args.before})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
