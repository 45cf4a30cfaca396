"""The interaction graph's first draw (issue 27 item 4, issue 31: "the graph drawn within 1 s of
navigation"), before and after a change, measured together in one run in headless Chromium.

    .venv/bin/python -m benchmarks.graph_first_draw [--before REV] [--rounds 5] [--items trip-planner-001,run-2000-0]

Two Baton servers on the same project (configs/demo.yaml's data and schemes, plus a generated
2,000-step run, benchmarks/gen.py): one from the working tree, one from the tree of `--before`
(a git revision, extracted with `git archive`), run by the same Python. Their rounds alternate,
so the machine's load drifts over both alike; the ratios compare figures taken side by side.

Timed, on the page's own clock (`performance.now()` of the top page), for each item:

- *link*: in the app, from a click on the sidebar's link to the graph's page (coming from the
  Outcome page of the same item) until the graph's canvas is painted;
- *load*: a new page load of the graph's page (the browser's cache warm: the same context) from
  navigation start until the canvas is painted.

"Painted" is the animation frame after vis-network first writes a label on the canvas in the
component's iframe (the drawing of nodes, handoffs and labels is one synchronous pass; its frame
follows). Also shown: when the graph's iframe was put in the page. Each server and item has one
untimed visit first (the server then holds the item's derivation and layout, as after any visit).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from io import BytesIO
from pathlib import Path

from benchmarks.gen import ROOT, make_item, table
from tests.browser.conftest import ARGS, CHROMIUM, _free_port

BEFORE = "1d4642e"  # the graph surface with toggles and drop-downs, drawn after the trace
GRAPH_LINK = "Critical path and handoffs"  # the graph scheme's title in the sidebar
FRAME = 'iframe[title="streamlit_agraph.agraph"]'

# In the top page: when the graph's iframe is put in, and the frame after vis-network first writes
# a label on its canvas. (Init scripts do not reach the component's iframe document, so the top
# page watches it: each frame until a canvas is there, then that canvas's context is wrapped; the
# canvas is made when the drawing arrives, and vis-network draws it in the same task: an observer
# of the iframe's document sees it inked right after, and stamps the frame that shows it. A canvas
# already there when the iframe's document was first seen is stamped when found: `late` says so.)
INIT_JS = """
(() => {
  if (window.top !== window) return;
  const b = window.__graph = {framed: null, drawn: null, late: false, reset: () => {
    b.framed = null; b.drawn = null; b.late = false; b.seen = null; }};
  const stamp = () => requestAnimationFrame(() => { if (b.drawn === null) b.drawn = performance.now(); });
  const wrap = (canvas, found) => {
    if (canvas.__benchWrapped) return;
    canvas.__benchWrapped = true;
    const ctx = canvas.getContext('2d');
    if (canvas.width && canvas.height) {
      const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < d.length; i += 64) if (d[i]) { b.late = b.late || found; stamp(); break; }
    }
    const fill = ctx.fillText;
    ctx.fillText = function (...args) { if (b.drawn === null) stamp(); return fill.apply(this, args); };
  };
  const watch = () => {
    const frame = document.querySelector('%s');
    if (frame && b.framed === null) b.framed = performance.now();
    const doc = frame && frame.contentDocument;
    if (doc && doc.location.pathname.includes('streamlit_agraph') && b.seen !== doc) {
      b.seen = doc;
      new MutationObserver(() => doc.querySelectorAll('canvas').forEach((c) => wrap(c, false)))
        .observe(doc, {subtree: true, childList: true});
      doc.querySelectorAll('canvas').forEach((c) => wrap(c, true));
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
})();
""" % FRAME.replace("'", "\\'")


def project(folder: Path) -> Path:
    """configs/demo.yaml's data and schemes, and a generated 2,000-step run (`run-2000-0`)."""
    import yaml
    folder.mkdir(parents=True, exist_ok=True)
    runs = folder / "generated.jsonl"
    runs.write_text(json.dumps(make_item("run-2000-0", 2000)) + "\n")
    cfg = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())
    cfg["data_files"] = [str((ROOT / "configs" / p).resolve()) for p in cfg["data_files"]] + [str(runs)]
    cfg["output_annotation_dir"] = str(folder / "annotations")
    path = folder / "project.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    return path


def tree_of(rev: str, folder: Path) -> Path:
    """The repository's files at `rev`, extracted under `folder`."""
    data = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, check=True, capture_output=True).stdout
    folder.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    return folder


class Baton:
    """A Baton server run from the code in `tree`."""

    def __init__(self, tree: Path, config: Path, name: str):
        self.name, self.port = name, _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, "-m", "app", "serve", str(config), "--port", str(self.port),
                                      "--address", "127.0.0.1"], cwd=tree, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the {name} server stopped")
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"the {name} server did not start in 90 s")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _drawn(pg, timeout: float = 120.0) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = pg.evaluate("() => window.__graph && ({framed: window.__graph.framed, drawn: window.__graph.drawn,"
                          " late: window.__graph.late})")
        if got and got["drawn"] is not None:
            return got
        pg.wait_for_timeout(20)
    raise TimeoutError("the graph was not drawn")


def _idle(pg) -> None:
    pg.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120000)
    pg.wait_for_timeout(500)


def by_link(pg, srv: Baton, item: str) -> dict:
    """From the item's Outcome page, the sidebar's link to the graph: ms from the click."""
    pg.goto(f"{srv.url}/outcome?annotator=bench&item={item}", timeout=120000)
    pg.get_by_role("link", name=GRAPH_LINK).first.wait_for(timeout=120000)
    _idle(pg)
    t0 = pg.evaluate("() => { window.__graph.reset(); return performance.now(); }")
    pg.get_by_role("link", name=GRAPH_LINK).first.click()
    got = _drawn(pg)
    _idle(pg)
    return {"framed": got["framed"] - t0 if got["framed"] else float("nan"), "drawn": got["drawn"] - t0,
            "late": got["late"]}


def by_load(pg, srv: Baton, item: str) -> dict:
    """A page load of the item's graph page: ms from navigation start."""
    pg.goto(f"{srv.url}/graph?annotator=bench&item={item}", timeout=120000)
    got = _drawn(pg)
    _idle(pg)
    return {"framed": got["framed"] if got["framed"] else float("nan"), "drawn": got["drawn"], "late": got["late"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.graph_first_draw", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", default=BEFORE, help=f"git revision measured beside the working tree (default {BEFORE})")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--items", default="trip-planner-001,run-2000-0")
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"Debian's Chromium not found at {CHROMIUM}: benchmark skipped")
        return 0
    items = args.items.split(",")
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); before = {args.before}", flush=True)
    from playwright.sync_api import sync_playwright
    times: dict[tuple, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        cfg = project(Path(tmp) / "project")
        servers = [Baton(tree_of(args.before, Path(tmp) / "before"), cfg, "before"), Baton(ROOT, cfg, "after")]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            pages = {}
            for srv in servers:
                ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                ctx.add_init_script(INIT_JS)
                pages[srv.name] = ctx.new_page()
                for item in items:  # untimed: the server derives the item, the browser caches the scripts
                    by_load(pages[srv.name], srv, item)
            for r in range(args.rounds):
                for item in items:
                    for how, fn in (("link", by_link), ("load", by_load)):
                        for srv in servers if r % 2 == 0 else servers[::-1]:
                            times.setdefault((item, how, srv.name), []).append(fn(pages[srv.name], srv, item))
                print(f"round {r + 1} of {args.rounds} done", flush=True)
        finally:
            browser.close()
            for srv in servers:
                srv.stop()
    rows = []
    for item in items:
        for how in ("link", "load"):
            med = {name: {k: statistics.median(t[k] for t in times[(item, how, name)]) for k in ("framed", "drawn")}
                   for name in ("before", "after")}
            rows.append({"item": item, "navigation": how,
                         "before: iframe in ms": med["before"]["framed"], "before: drawn ms": med["before"]["drawn"],
                         "after: iframe in ms": med["after"]["framed"], "after: drawn ms": med["after"]["drawn"],
                         "after / before (drawn)": med["after"]["drawn"] / med["before"]["drawn"],
                         "after within 1 s": "yes" if med["after"]["drawn"] <= 1000 else "no",
                         "after: worst drawn ms": max(t["drawn"] for t in times[(item, how, "after")]),
                         "stamped late": sum(t["late"] for name in ("before", "after") for t in times[(item, how, name)])})
    print(table(rows, title=f"Graph canvas painted after navigation, medians of {args.rounds} (before = {args.before})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
