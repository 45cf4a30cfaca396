"""In headless Chromium: page ready, click → screen updated on each surface, save + next item
ready, and the tab's memory, for runs of 50, 500, 2,000 and 5,000 steps (as many timed calls).

    .venv/bin/python -m benchmarks.browser [--sizes 50,500,2000,5000] [--clicks 3] [--trivial 20]
                                           [--surfaces radio,handoff_review] [--seed 0]

Debian's /usr/bin/chromium through Playwright (never a downloaded browser), launched with the
browser tests' arguments. One Baton server on a generated project (three runs of each size;
every annotation type, `show_if` removed so every surface is asked), and in the same run a
trivial Streamlit page (a button and a counter) whose button round trip is the yardstick.

How things are timed, all inside the page with `performance.now()`:

- *click → screen updated*: a capture listener stamps the click; a MutationObserver stamps
  every DOM change; once nothing has changed for 600 ms, the time of the last change minus
  the click is the latency (the DOM then shows the result: the check that the expected text is
  there, e.g. "Saved" or "flagged: info_loss", is made and reported). Changes inside the
  contention chart drawn ahead, unseen, for the next item, changes to nodes no longer in the
  document and to Plotly's off-page text-measuring SVG are not screen updates: they do not end
  a latency. They do keep the page from being quiet, and so does a drawing ahead still due, so
  the next click waits until that drawing is done and 600 ms have passed without any change.
  Clicks are dispatched
  with `element.click()` so no mouse hover adds tooltips. The trivial page is timed the same
  way: its button, until the counter text changed, measured again around each size (the
  machine's load drifts during a long run) and the ratios use the figure taken with that size.
- *page ready*: from navigation start to the last DOM change before 600 ms of quiet.
- *save + next item ready*: "Done with this item → next" until the next run is shown and the
  page is quiet; four in a row on each of three pages, the largest judged, the median shown.
- *tab memory*: after a forced garbage collection, CDP `Performance.getMetrics`
  JSHeapUsedSize (the page and its same-origin component iframes), with the DOM node count.
- the interaction graph: a real click on an agent on the vis-network canvas (its position read
  from the network object), until the page is quiet again with the summary line changed, and
  until the network's last drawing of the new state (its `afterDrawing` event, stamped on the
  page's clock; the drawing is the one with the nodes renamed, see app/graph.clicks_prefix).

Targets: click → updated within 2x the trivial round trip at every size; next item ready
under 300 ms at 2,000 steps and under 1 s at 5,000; tab memory under 150 MB at 2,000 steps.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from benchmarks.gen import table, verdict, write_project

from app.ui.surfaces.tool_call_review import PAGE_SIZE as TOOL_PAGE  # noqa: E402

from tests.browser.conftest import ARGS, CHROMIUM, Server, _free_port  # noqa: E402

QUIET_MS = 600
PER_SIZE = 5  # runs of each size: four "Done → next" per page and size (the largest is judged)

INIT_JS = """
(() => {
  if (window.top !== window) return;
  const b = window.__bench = {last: 0, any: 0, t0: null, armed: false, changes: 0};
  // the contention chart drawn ahead for the next item is unseen (app/ui/timeline_chart.py): its
  // drawing is background work, not the screen being updated; nor is a change to a node no
  // longer in the document (Plotly builds parts of a drawing before putting them in), or in
  // Plotly's text-measuring SVG (placed 10,000 px off the page)
  const unseen = (m) => { const e = m.target.nodeType === 1 ? m.target : m.target.parentElement;
    return !e || !e.isConnected || !!e.closest('.baton-timeline[aria-hidden], #js-plotly-tester'); };
  // any change (seen or not) keeps the page from being quiet; only seen ones end a latency
  new MutationObserver((ms) => { const t = performance.now(); b.any = t;
    if (ms.some((m) => !unseen(m))) { b.last = t; b.changes++; } })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const stamp = () => { if (b.armed) { b.t0 = performance.now(); b.armed = false; } };
  document.addEventListener('click', stamp, true);
  document.addEventListener('pointerdown', stamp, true);
})();
"""

# Streamlit shows this while a script runs (after a short delay), and the contention chart may
# have a drawing ahead still due (app/ui/timeline_chart.py): never "quiet" while either is so
RUNNING = ("!!document.querySelector('[data-testid=\"stStatusWidget\"]') || Array.from("
           "document.querySelectorAll('.baton-timeline-box')).some((b) => b.__pending)")


def settle(pg, timeout: float = 60.0) -> dict:
    """Wait until the page had no DOM change for QUIET_MS; the last change and click times."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = pg.evaluate(f"() => ({{now: performance.now(), last: window.__bench.last, any: window.__bench.any,"
                        f" t0: window.__bench.t0, running: {RUNNING}}})")
        if not s["running"] and s["now"] - s["any"] >= QUIET_MS and (s["t0"] is None or s["last"] > s["t0"]):
            return s
        pg.wait_for_timeout(50)
    raise TimeoutError("the page did not settle")


def arm(pg) -> None:
    pg.evaluate("() => { window.__bench.t0 = null; window.__bench.armed = true; }")


def timed_click(pg, locator, expect: str | None = None, real: bool = False) -> tuple[float, bool]:
    """(ms from click to the last DOM change, whether `expect` is on the page afterwards)."""
    locator.wait_for(state="attached", timeout=30000)
    settle(pg)
    arm(pg)
    if real:
        locator.click()
    else:
        locator.evaluate("el => el.click()")
    s = settle(pg)
    if s["t0"] is None:
        raise RuntimeError("the click was not seen")
    ok = True
    if expect is not None:
        ok = pg.evaluate("(t) => document.body.textContent.includes(t)", expect)
    return s["last"] - s["t0"], ok


def heap_mb(pg) -> tuple[float, int]:
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("HeapProfiler.enable")
    cdp.send("HeapProfiler.collectGarbage")
    cdp.send("Performance.enable")
    m = {x["name"]: x["value"] for x in cdp.send("Performance.getMetrics")["metrics"]}
    cdp.detach()
    return m["JSHeapUsedSize"] / 1e6, int(m["Nodes"])


def goto_ready(pg, url: str, ready) -> float:
    pg.goto(url)
    ready(pg).first.wait_for(state="attached", timeout=120000)
    s = settle(pg, 120)
    return s["last"]


# --- the trivial page -----------------------------------------------------------------------------

TRIVIAL = """
import streamlit as st
st.session_state.setdefault("n", 0)
if st.button("Click me"):
    st.session_state.n += 1
st.write(f"Clicked {st.session_state.n} times")
"""


class Trivial:
    """The trivial page, served for the whole run, so that its round trip can be measured again
    beside each size (the machine's load drifts; a ratio compares figures taken together)."""

    def __init__(self, browser):
        self.tmp = tempfile.TemporaryDirectory()
        app = Path(self.tmp.name) / "trivial.py"
        app.write_text(textwrap.dedent(TRIVIAL))
        port = _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=self.tmp.name, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.ctx.add_init_script(INIT_JS)
        self.pg = self.ctx.new_page()
        for _ in range(150):
            try:
                self.pg.goto(f"http://127.0.0.1:{port}/")
                break
            except Exception:
                time.sleep(0.2)
        self.pg.get_by_text("Clicked 0 times").wait_for(timeout=60000)
        self.n = 0
        self.clicks(3)  # warm-up

    def clicks(self, k: int) -> list[float]:
        button = self.pg.get_by_role("button", name="Click me")
        out = []
        for _ in range(k):
            self.n += 1
            ms, ok = timed_click(self.pg, button, expect=f"Clicked {self.n} times")
            assert ok, "the trivial page did not count the click"
            out.append(ms)
        return out

    def close(self):
        self.ctx.close()
        self.proc.terminate()
        self.proc.wait(10)
        self.tmp.cleanup()


# --- Baton's surfaces ------------------------------------------------------------------------------

def done_button(pg):
    return pg.get_by_role("button", name=re.compile("^Done with this item"))


def _container_of(pg, heading: str):
    """The bordered box of a scheme (its subheader is the scheme name)."""
    return pg.locator('[data-testid="stVerticalBlockBorderWrapper"]').filter(
        has=pg.get_by_role("heading", name=heading, exact=True)).last


def _label(pg, text: str, scope=None):
    scope = scope or pg
    return scope.locator("label").filter(has_text=re.compile(f"^{re.escape(text)}$")).first


def _box(pg, name):
    return pg.get_by_role("checkbox", name=name).first


def _opt(pg, text: str):
    """The first option `text` of an instant card (app/ui/instant.py; its key hint follows the label)."""
    return pg.locator(".bi-card button.bi-opt").filter(has_text=re.compile(f"^{re.escape(text)}\\d?$")).first


def _card_opt(pg, title: str, k: int):
    """The k-th option of the instant card whose options' group is named `title`."""
    return pg.locator(".bi-card").filter(has=pg.locator(f".bi-opts[aria-label='{title}']")) \
        .locator("button.bi-opt").nth(k)


def _cell(pg, row: str, score: int):
    """A score in a row of an agent scorecard's card (its radio row is named "dimension of agent")."""
    return pg.locator(f".bi-card .bi-row[aria-label='{row}'] button.bi-opt").nth(score - 1)


def _turn(pg, text: re.Pattern):
    """A turn on the emergent-behaviour page's instant card of turns."""
    return pg.locator(".bi-card button.bi-opt").filter(has_text=text).first


def _region_label(pg, label: str):
    """The first region card's radio `label` (app/ui/region_cards.py: painted at once, saved behind)."""
    return pg.locator(f".baton-regions section.card input[type=radio][value='{label}']").first


def _critical(pg, agent: str):
    """The agent on the graph's critical-path card (an instant card, the agent's colour beside it)."""
    return pg.locator(".bi-card:has(.bi-opts[aria-label='Critical path (agents)']) button.bi-opt").filter(
        has_text=re.compile(f"^{re.escape(agent)}\\d?$")).first


def _handoff(pg, state: str):
    """A state on the graph's card of its first handoff pair (titled "A → B (n handoffs)")."""
    return pg.locator(".bi-card:has(.bi-opts[aria-label*=' → ']) button.bi-opt").filter(
        has_text=re.compile(f"^{re.escape(state)}\\d?$")).first


# surfaces whose choices are instant cards: clicks.py times those from the click to the first
# change (painted in the browser) and to the card's "Saved" (stored)
INSTANT = {"radio", "multiselect", "likert", "failure_attribution", "handoff_review", "tool_call_review_verdict", "trajectory_eval",
            "emergent_behavior", "tool_contention_label", "failure_attribution_agent", "agent_scorecard",
            "agent_scorecard_cell", "agent_interaction_graph", "agent_interaction_graph_handoff"}


# Each surface: its page and a list of (what, locator factory, expected text after the click);
# the clicks of a surface alternate through the list, so a toggle goes on and off again.
def surfaces(n: int) -> dict:
    first_turn = re.compile(r"^Step 0 · ")
    return {
        "radio": ("radio", [
            ("choose a label (instant card)", lambda pg: _opt(pg, "failure"), "Saved"),
            ("choose another (instant card)", lambda pg: _opt(pg, "success"), "Saved")]),
        "multiselect": ("multiselect", [
            ("tick a label (instant card)", lambda pg: _opt(pg, "loop"), "Saved"),
            ("untick it (clear)", lambda pg: _opt(pg, "loop"), "Saved")]),
        "likert": ("likert", [
            ("rate 4 (instant card)", lambda pg: _opt(pg, "4"), "Saved"),
            ("rate 2 (instant card)", lambda pg: _opt(pg, "2"), "Saved")]),
        "failure_attribution": ("failure_attribution", [
            ("no failure to attribute (instant card)", lambda pg: _opt(pg, "No failure to attribute"),
             "Reviewed, nothing to flag"),
            ("take it back (clear)", lambda pg: _opt(pg, "No failure to attribute"), "Not annotated yet")]),
        "agent_interaction_graph": ("agent_interaction_graph", [
            ("put an agent on the critical path (instant card)", lambda pg: _critical(pg, "Planner"),
             "Critical path: Planner"),
            ("take it off (clear)", lambda pg: _critical(pg, "Planner"), "Critical path: none marked")]),
        "agent_interaction_graph_handoff": ("agent_interaction_graph", [
            ("flag a handoff critical (instant card)", lambda pg: _handoff(pg, "★ critical"), ": ★ critical"),
            ("back to normal", lambda pg: _handoff(pg, "normal"), "Flagged handoffs: none flagged")]),
        "handoff_review": ("handoff_review", [
            ("flag a handoff (instant card)", lambda pg: _opt(pg, "info_loss"), "flagged: info_loss"),
            ("unflag it (clear)", lambda pg: _opt(pg, "info_loss"), "not judged yet")]),
        "failure_attribution_agent": ("failure_attribution", [
            ("choose the responsible agent (instant card)", lambda pg: _card_opt(pg, "Responsible agent", 0),
             "Saved · "),
            ("choose another (instant card)", lambda pg: _card_opt(pg, "Responsible agent", 1), "Saved · ")]),
        "agent_scorecard": ("agent_scorecard", [
            ("tick a milestone (instant card)", lambda pg: _box(pg, "plan produced"),
             "Milestones: 1 of 3 reached"),
            ("untick it", lambda pg: _box(pg, "plan produced"), "Milestones: 0 of 3 reached")]),
        "agent_scorecard_cell": ("agent_scorecard", [
            ("score a cell 4 (instant card of rows)", lambda pg: _cell(pg, "role fidelity of Planner", 4),
             "1 of "),
            ("score it 2", lambda pg: _cell(pg, "role fidelity of Planner", 2), "1 of ")]),
        "tool_contention": ("tool_contention", [
            ("select a region from the list (fragment: chart and list)",
             lambda pg: pg.get_by_role("button", name="Select", exact=True).first, "selected from the list"),
            ("select another", lambda pg: pg.get_by_role("button", name="Select", exact=True).first,
             "selected from the list")]),
        "tool_contention_label": ("tool_contention", [
            ("label a region (instant radio)", lambda pg: _region_label(pg, "deadlock"), "1 labelled"),
            ("unlabel it (clear)", lambda pg: _region_label(pg, "unlabelled"), "0 labelled")]),
        "emergent_behavior": ("emergent_behavior", [
            ("mark a turn (instant card)", lambda pg: _turn(pg, first_turn), "Marked: 1 turn"),
            ("unmark it (clear)", lambda pg: _turn(pg, first_turn), "No turns marked")]),
        "tool_call_review": ("tool_call_review", [
            ("later calls (fragment)", lambda pg: pg.get_by_role("button", name="Later ▶").last,
             f"Call {TOOL_PAGE} · "),
            ("earlier calls (fragment)", lambda pg: pg.get_by_role("button", name="◀ Earlier").last, "Call 0 · ")]),
        "tool_call_review_verdict": ("tool_call_review", [
            ("give a verdict (instant card)", lambda pg: _opt(pg, "wrong_args"), "Call 0: verdict wrong"),
            ("take it back (clear)", lambda pg: _opt(pg, "wrong_args"), "Call 0: no verdict")]),
        "trajectory_eval": ("trajectory_eval", [
            ("judge a step (instant card)", lambda pg: _opt(pg, "incorrect"), "Step 0: incorrect"),
            ("judge it again (instant card)", lambda pg: _opt(pg, "correct"), "Step 0: correct")]),
        "trace": ("radio", [
            ("later steps of the trace", lambda pg: pg.get_by_role("button", name="Later ▶").first, "Steps 10–19"),
            ("earlier steps", lambda pg: pg.get_by_role("button", name="◀ Earlier").first, "Steps 0–9")]),
        # the trace's Layout control (app/ui/layout_view.py): each click draws another layout's page
        "layout": ("radio", [
            ("lay the trace out as lanes", lambda pg: _layout(pg, "Lanes"), "──"),
            ("as a board", lambda pg: _layout(pg, "Board"), "Who spoke how often:"),
            ("as a tree", lambda pg: _layout(pg, "Tree"), "step(s)"),
            ("as steps", lambda pg: _layout(pg, "Steps"), "Steps 0–9")]),
    }


def _layout(pg, name: str):
    """A button of the trace's Layout control (a segmented control: a radio group of buttons)."""
    return pg.get_by_role("radiogroup", name="Layout").get_by_role("radio", name=name, exact=True)


# What a surface's page needs before its clicks are timed: the trace's step list (generated runs
# are group chats, laid out as a board; the trace's paging is the step list's)
SETUP = {"trace": lambda pg: _layout(pg, "Steps")}


# node positions on the canvas, as tests/browser/test_graph.py reads them
from tests.browser.test_graph import FIND_NETWORK, FRAME, node_position  # noqa: E402

# each time the network finishes a drawing, stamped on the top page's clock
DRAWN_JS = """(canvas) => {""" + FIND_NETWORK + """
  if (net && !net.__benchHooked) {
    net.__benchHooked = true;
    net.on('afterDrawing', () => { window.top.__bench.drawn = window.top.performance.now(); });
  }
  return !!net;
}"""


def graph_click(pg, node: str, clicks: int) -> tuple[float, float, bool]:
    """A real click on an agent of the canvas, the `clicks`-th: (ms until the page is quiet with
    the summary line changed, ms until the graph on screen draws the new state, whether the click
    was applied)."""
    canvas = pg.frame_locator(FRAME).locator("canvas")
    pos = node_position(pg, node, clicks, seconds=30, pause_ms=50)
    assert pos, f"node {node} not drawn"
    marked = "() => document.body.textContent.includes('Critical path: none marked')"
    before = pg.evaluate(marked)
    settle(pg)
    pg.wait_for_timeout(1000)  # a click of its own, not the second half of a double-click (app/graph)
    assert canvas.evaluate(DRAWN_JS), "no network drawn"
    arm(pg)
    canvas.evaluate("""c => c.ownerDocument.addEventListener('pointerdown', () => {
        const b = window.top.__bench; if (b.armed) { b.t0 = window.top.performance.now(); b.armed = false; }
    }, {capture: true, once: true})""")
    canvas.click(position={"x": pos["x"], "y": pos["y"]})
    s = settle(pg)
    if s["t0"] is None:
        raise RuntimeError("the canvas click was not seen")
    # the drawing that shows the click: its nodes renamed, and the network's last drawing since
    drawn = node_position(pg, node, clicks + 1, seconds=30, pause_ms=25)
    t_drawn = pg.evaluate("() => window.__bench.drawn") if drawn else None
    return s["last"] - s["t0"], (t_drawn - s["t0"]) if t_drawn else float("nan"), pg.evaluate(marked) != before


def measure_graph(pg, clicks: int) -> list[tuple]:
    return [graph_click(pg, "n0", k) for k in range(clicks)]


def run_size(browser, base: str, n: int, clicks: int, names: list[str], graph: bool) -> tuple[list[dict], dict]:
    rows = []
    info = {}
    table_ = surfaces(n)
    for name in names:
        page_name, actions = table_[name]
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        ctx.add_init_script(INIT_JS)
        pg = ctx.new_page()
        url = f"{base}/{page_name}?annotator=bench&item=run-{n}-0"
        ready = goto_ready(pg, url, done_button)
        if name in SETUP:
            timed_click(pg, SETUP[name](pg))
        mem, nodes = heap_mb(pg)
        lat, all_ok = [], True
        for k in range(-2, clicks):  # two first clicks (on, off) warm the server up: not timed
            what, loc, expect = actions[k % len(actions)]
            try:
                ms, ok = timed_click(pg, loc(pg), expect)
            except Exception:
                shot = Path(tempfile.gettempdir()) / f"baton-bench-{name}-{n}.png"
                pg.screenshot(path=str(shot), full_page=True)
                print(f"{name} at {n} steps: '{what}' failed; the page is in {shot}", file=sys.stderr)
                raise
            if k >= 0:
                lat.append(ms)
                all_ok &= ok
        rows.append({"size": n, "surface": name, "page ready ms": ready, "click ms (median)": statistics.median(lat),
                     "click ms (max)": max(lat), "result shown": "yes" if all_ok else "NO",
                     "JS heap MB": mem, "DOM nodes": nodes})
        ctx.close()
    # save + next item ready, on the heaviest surfaces and the plainest
    for page_name in ("radio", "tool_contention", "trajectory_eval"):
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        ctx.add_init_script(INIT_JS)
        pg = ctx.new_page()
        goto_ready(pg, f"{base}/{page_name}?annotator=bench&item=run-{n}-0", done_button)
        times = []
        for k in range(1, PER_SIZE):
            ms, ok = timed_click(pg, done_button(pg), expect=f"run-{n}-{k}")
            assert ok, f"done → next did not show run-{n}-{k}"
            times.append(ms)
        info[f"next item ms ({page_name})"] = max(times)
        info[f"next item median ms ({page_name})"] = statistics.median(times)
        ctx.close()
    if graph:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        ctx.add_init_script(INIT_JS)
        pg = ctx.new_page()
        goto_ready(pg, f"{base}/agent_interaction_graph?annotator=bench&item=run-{n}-0", done_button)
        g = measure_graph(pg, clicks)
        info["graph canvas click → page updated ms"] = statistics.median(x[0] for x in g)
        info["graph canvas click → new drawing ms"] = statistics.median(x[1] for x in g)
        info["graph clicks applied"] = "yes" if all(x[2] for x in g) else "NO"
        ctx.close()
    return rows, info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.browser", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50,500,2000,5000")
    ap.add_argument("--clicks", type=int, default=4, help="timed clicks per surface and size")
    ap.add_argument("--trivial", type=int, default=20, help="timed clicks on the trivial page")
    ap.add_argument("--surfaces", help="comma-separated (default: all)")
    ap.add_argument("--no-graph", action="store_true", help="skip the canvas clicks on the graph")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"Debian's Chromium not found at {CHROMIUM} (apt-get install chromium): browser benchmark skipped")
        return 0
    sizes = [int(x) for x in args.sizes.split(",")]
    names = args.surfaces.split(",") if args.surfaces else list(surfaces(0))
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)", flush=True)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        trivial = Trivial(browser)
        config = write_project(Path(tmp), sizes, per_size=PER_SIZE, seed=args.seed)
        server = Server(config).start()
        rows, infos, base = [], [], {}
        try:
            for n in sizes:
                before = trivial.clicks(args.trivial // 2)
                r, info = run_size(browser, server.url, n, args.clicks, names, not args.no_graph)
                after = trivial.clicks(args.trivial - args.trivial // 2)
                base[n] = statistics.median(before + after)
                print(f"trivial Streamlit page, button → counter updated, around the {n:,}-step runs: median "
                      f"{base[n]:.0f} ms (before {statistics.median(before):.0f}, after "
                      f"{statistics.median(after):.0f}), max {max(before + after):.0f} ms", flush=True)
                for row in r:
                    row["click / trivial"] = row["click ms (median)"] / base[n]
                rows += r
                infos.append({"size": n, **info})
                print(table(r, title=f"{n:,} steps"), flush=True)
                print(table([infos[-1]]), flush=True)
        finally:
            server.stop()
            trivial.close()
            browser.close()
    # --- the verdicts ---------------------------------------------------------------------------
    print("\n### Summary (click ratios against the trivial page's round trip measured around each size)\n")
    summary = []
    for n in sizes:
        rs = [r for r in rows if r["size"] == n]
        info = next(i for i in infos if i["size"] == n)
        worst = max(rs, key=lambda r: r["click ms (median)"])
        base_ms = base[n]
        nxt = max(v for k, v in info.items() if k.startswith("next item ms"))
        nxt_median = max(v for k, v in info.items() if k.startswith("next item median"))
        heap = max(r["JS heap MB"] for r in rs)
        row = {"steps": n, "trivial ms": base_ms, "page ready ms (max)": max(r["page ready ms"] for r in rs),
               "slowest click ms": worst["click ms (median)"], "on": worst["surface"],
               "click / trivial": worst["click ms (median)"] / base_ms,
               "click target (≤ 2x)": verdict(worst["click ms (median)"] <= 2 * base_ms),
               "next item ms (max)": nxt, "next item median ms (slowest page)": nxt_median,
               "JS heap MB (max)": heap}
        if n == 2000:
            row["next item target"] = verdict(nxt < 300) + " (< 300 ms)"
            row["memory target"] = verdict(heap < 150) + " (< 150 MB)"
        elif n == 5000:
            row["next item target"] = verdict(nxt < 1000) + " (< 1 s)"
        if "graph canvas click → page updated ms" in info:
            row["graph canvas click ms"] = info["graph canvas click → page updated ms"]
            row["graph / trivial"] = info["graph canvas click → page updated ms"] / base_ms
        summary.append(row)
    print(table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
