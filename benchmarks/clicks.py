"""Clicks as an annotator feels them (issue 31), Baton beside Potato and a trivial Streamlit page,
on generated items of 50, 500, 2,000 and 5,000 steps, in headless Chromium.

    .venv/bin/python -m benchmarks.clicks [--sizes 50,500,2000,5000] [--clicks 3] [--surfaces radio,...]
                                          [--no-potato] [--no-prototypes] [--no-baton]

Measured, all on the page's own clock (`performance.now()`), medians of `--clicks` timed clicks
after two untimed ones:

- *click → painted*: from the click to the animation frame after the last change on screen
  (a MutationObserver stamps changes, `requestAnimationFrame` the frame that shows them; the
  page is then quiet for 600 ms, as in benchmarks/browser.py, whose `settle` this reuses).
- *click → stored*: until the card acknowledges what the store holds. On Baton's pages today the
  rerun that saves also draws the result, so it is the same moment as painted; on Potato it is
  the end of the `/updateinstance` request the click sends; on the prototypes
  (app/ui/instant.py) the card's status line saying "Saved" / "Not annotated yet".
- *text* (the text card, app/ui/instant_text.py): *keystroke → painted*, from a key's keydown to
  the animation frame after the box's `input` (typing is the browser's own), median over the keys
  typed; *pause → stored*, from the end of the pause after the last key (the card sends the text
  500 ms after typing stops) until the card's status line says "Saved"; and keystroke → stored.
- *next item → interactive*: "Done → next" (Potato: "Next") until the next item's id is shown
  and the page is quiet.
- *cold load*: a fresh browser context, navigation start to the last change before 600 ms of
  quiet; *long tasks*: the longest `longtask` entry (PerformanceObserver) while the page loaded
  and was clicked.

Potato (`potato-annotation` 2.12.1, GPL: run, never imported or copied) is installed by this
benchmark in a scratch virtualenv (BATON_POTATO_VENV, default under the system's temp folder)
and run on the same generated items with its own project for the multi-agent schemes
(configs/potato_multi_agent.yaml: Potato's documented snippets), the same clicks timed: a
handoff flag, a step's MAST verdict, a scorecard milestone.

The prototypes: the demo page benchmarks/pages/instant_demo.py, both modes (Components v2 card,
fragment card) at 50 and 2,000 steps, and the burst: 20 clicks in 2 s on one card, until the
card says "Saved", with whether the store then holds the last state.

The machine's load drifts: the trivial page's round trip is measured again beside each size
and the ratios use it.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.browser import INIT_JS as BASE_JS, INSTANT, RUNNING, Trivial, arm, done_button, surfaces
from benchmarks.gen import ROOT, make_item, table, write_project
from tests.browser.conftest import ARGS, CHROMIUM, Server, _free_port

POTATO = "potato-annotation==2.12.1"
QUIET_MS = 600
PER_SIZE = 4

# long tasks and the frame after the last change, on top of benchmarks/browser.py's stamps
INIT_JS = BASE_JS + """
(() => {
  if (window.top !== window) return;
  const b = window.__bench;
  b.long = 0; b.painted = 0;
  performance.setResourceTimingBufferSize(1000000);  // Potato's saves are found among its requests
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) b.long = Math.max(b.long, e.duration); })
    .observe({type: 'longtask', buffered: true}); } catch (e) { b.long = -1; }
  new MutationObserver(() => requestAnimationFrame(() => { b.painted = performance.now(); }))
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  document.addEventListener('click', () => requestAnimationFrame(() => {
    if (b.painted < b.t0) b.painted = performance.now(); }), true);
})();
"""


def settle(pg, timeout: float = 90.0, running: str = RUNNING) -> dict:
    """Quiet for QUIET_MS (no change at all) and, after a click, a change seen since it."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = pg.evaluate(f"() => ({{now: performance.now(), last: window.__bench.last, any: window.__bench.any,"
                        f" t0: window.__bench.t0, painted: window.__bench.painted, long: window.__bench.long,"
                        f" running: {running}}})")
        if not s["running"] and s["now"] - s["any"] >= QUIET_MS and (
                s["t0"] is None or (s["last"] > s["t0"] and s["painted"] >= s["last"])):
            return s
        pg.wait_for_timeout(50)
    raise TimeoutError("the page did not settle")


def click(pg, locator, running: str = RUNNING) -> dict:
    """Click (element.click(): no hover effects) and settle; the page's stamps."""
    locator.wait_for(state="attached", timeout=60000)
    settle(pg, running=running)
    arm(pg)
    locator.evaluate("el => el.click()")
    s = settle(pg, running=running)
    if s["t0"] is None:
        raise RuntimeError("the click was not seen")
    return s


def painted_ms(s: dict) -> float:
    return max(s["painted"], s["last"]) - s["t0"]


def new_page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.add_init_script(INIT_JS)
    return ctx, ctx.new_page()


def cold(pg, url: str, ready, running: str = RUNNING) -> float:
    pg.goto(url, timeout=180000)
    ready(pg).first.wait_for(state="attached", timeout=180000)
    return settle(pg, 180, running)["last"]


def median(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def next_item(pg, button, expect: str, running: str = RUNNING) -> float:
    """ms from the click until `expect` is on the page (then wait for quiet, untimed)."""
    settle(pg, running=running)
    t = time.perf_counter()
    button(pg).first.click()
    pg.wait_for_function("(t) => document.body.innerText.includes(t)", arg=expect, timeout=120000)
    ms = (time.perf_counter() - t) * 1e3
    settle(pg, running=running)
    return ms


# --- Baton, every surface of the current UI ----------------------------------------------------------

def baton_size(browser, base: str, n: int, clicks: int, names: list[str]) -> list[dict]:
    rows = []
    for name in names:
        if name == TEXT:
            rows.append(text_row(browser, base, n, clicks))
            continue
        page_name, actions = surfaces(n)[name]
        ctx, pg = new_page(browser)
        load = cold(pg, f"{base}/{page_name}?annotator=bench&item=run-{n}-0", done_button)
        times, stored, shown = [], [], True
        for k in range(-2, clicks):
            what, loc, expect = actions[k % len(actions)]
            if name in INSTANT:  # painted in the browser, then saved behind: two times
                painted, saved = instant_click(pg, loc(pg))
            else:
                s = click(pg, loc(pg))
                painted = saved = painted_ms(s)
            if k >= 0:
                times.append(painted)
                stored.append(saved)
                shown &= pg.evaluate("(t) => document.body.textContent.includes(t)", expect)
        long = pg.evaluate("() => window.__bench.long")
        nxt = [next_item(pg, done_button, f"run-{n}-{k}:") for k in (1, 2)] if name in ("radio", "trajectory_eval") else []
        rows.append({"tool": "Baton", "steps": n, "surface": name, "click → painted ms": median(times),
                     "click → stored ms": median(stored), "shown": "yes" if shown else "NO",
                     "next item ms": median(nxt), "cold load ms": load, "longest task ms": long})
        ctx.close()
    return rows


# --- Baton's text card: typing, then the save after a pause -------------------------------------------

TEXT = "text"
PAUSE_MS = 500  # app/ui/instant_text.PAUSE_MS

TYPING_JS = """(box) => { const b = window.__bench, status = box.closest('.bt-card').querySelector('.bt-status');
  b.keys = []; b.lastInput = null; b.sawSaving = false; b.tSaved = null;
  if (box.__benchHooked) return;
  box.__benchHooked = true;
  box.addEventListener('keydown', (e) => { b.keys.push({down: e.timeStamp, painted: null}); }, true);
  box.addEventListener('input', () => {
    const k = b.keys[b.keys.length - 1];
    b.lastInput = performance.now();
    requestAnimationFrame(() => { if (k && k.painted === null) k.painted = performance.now(); });
  });
  new MutationObserver(() => {
    if (status.dataset.state === 'saving') b.sawSaving = true;
    else if (status.dataset.state === 'saved' && b.sawSaving && b.tSaved === null) b.tSaved = performance.now();
  }).observe(status, {subtree: true, childList: true, attributes: true, characterData: true}); }"""


def text_row(browser, base: str, n: int, rounds: int) -> dict:
    """Words typed into the text card of the demo's `text` scheme (real keys, 60 ms apart), each
    round until the card says "Saved"."""
    ctx, pg = new_page(browser)
    load = cold(pg, f"{base}/text?annotator=bench&item=run-{n}-0", done_button)
    box = pg.locator(".bt-card .bt-box").first
    box.wait_for(timeout=60000)
    painted, stored, typed_stored = [], [], []
    for k in range(-2, rounds):
        settle(pg)
        box.focus()
        box.evaluate(TYPING_JS)
        pg.keyboard.type(f" word{k + 2}", delay=60)
        pg.wait_for_function("() => window.__bench.tSaved !== null", timeout=60000)
        b = pg.evaluate("() => window.__bench")
        if k >= 0:
            painted.append(median([x["painted"] - x["down"] for x in b["keys"] if x["painted"] is not None]))
            stored.append(b["tSaved"] - (b["lastInput"] + PAUSE_MS))
            typed_stored.append(b["tSaved"] - b["lastInput"])
    shown = box.input_value().endswith(f" word{rounds + 1}")
    long = pg.evaluate("() => window.__bench.long")
    ctx.close()
    return {"tool": "Baton", "steps": n, "surface": "text (keystroke / pause → stored)",
            "click → painted ms": median(painted), "click → stored ms": median(stored),
            "keystroke → stored ms": median(typed_stored), "shown": "yes" if shown else "NO",
            "next item ms": float("nan"), "cold load ms": load, "longest task ms": long}


# --- Potato ------------------------------------------------------------------------------------------

def potato_venv() -> Path:
    venv = Path(os.environ.get("BATON_POTATO_VENV", Path(tempfile.gettempdir()) / "baton-potato-venv"))
    exe = venv / "bin" / "potato"
    if not exe.exists():
        print(f"installing {POTATO} into a scratch virtualenv {venv} (not a dependency of Baton) …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", POTATO], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return exe


class Potato:
    """Potato's own server on the generated items, with its multi-agent project."""

    def __init__(self, exe: Path, folder: Path, sizes: list[int]):
        import yaml
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "items.jsonl").open("w") as f:
            for n in sizes:
                for k in range(PER_SIZE):
                    f.write(json.dumps(make_item(f"run-{n}-{k}", n)) + "\n")
        cfg = yaml.safe_load((ROOT / "configs" / "potato_multi_agent.yaml").read_text())
        self.port = _free_port()
        cfg.update({"data_files": ["items.jsonl"], "task_dir": ".", "output_annotation_dir": "out/",
                    "output_annotation_format": "json", "user_config": {"allow_all_users": True, "users": []},
                    "login": {"type": "url_direct", "url_argument": "PROLIFIC_PID"}, "require_no_password": True})
        (folder / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (folder / "potato.log").open("w")
        self.proc = subprocess.Popen([str(exe), "start", "config.yaml", "-p", str(self.port)], cwd=folder,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 240
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Potato stopped: see {folder / 'potato.log'}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2):
                    return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("Potato did not start in 240 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


STORED_JS = """(t0) => { const e = performance.getEntriesByType('resource')
  .filter((r) => r.name.includes('/updateinstance') && r.startTime >= t0 && r.responseEnd > 0);
  return e.length ? e[0].responseEnd - t0 : null; }"""

POTATO_CLICKS = {
    "handoff flag": lambda pg: pg.locator('.hr-flag[data-idx="0"][data-f="info_loss"]'),
    "step review (MAST verdict)": lambda pg: pg.locator('.traj-step-card[data-step-index="0"] .traj-correctness-btn').nth(
        pg.evaluate("() => (window.__potatoTurn = ((window.__potatoTurn || 0) + 1) % 2)")),
    "scorecard milestone": lambda pg: pg.locator(".asc-ms-cb").first,
}


def potato_size(browser, potato: Potato, sizes: list[int], n: int, clicks: int, user: str) -> list[dict]:
    """One annotator per size, so that each size starts on its own first item."""
    rows = []
    ctx, pg = new_page(browser)
    # Potato assigns items in order: skip to this size's first item with "Next"
    load = cold(pg, f"{potato.url}/?PROLIFIC_PID={user}", lambda p: p.locator("#next-btn"), "false")
    order = [f"run-{m}-{k}" for m in sizes for k in range(PER_SIZE)]
    for item in order[1:order.index(f"run-{n}-0") + 1]:
        next_item(pg, lambda p: p.locator("#next-btn"), item + ":", "false")
    for name, loc in POTATO_CLICKS.items():
        painted, stored = [], []
        for k in range(-2, clicks):
            s = click(pg, loc(pg), "false")
            if k >= 0:
                painted.append(painted_ms(s))
                st = pg.evaluate(STORED_JS, s["t0"])
                stored.append(st if st is not None else float("nan"))
        rows.append({"tool": "Potato", "steps": n, "surface": name, "click → painted ms": median(painted),
                     "click → stored ms": median(stored), "shown": "yes", "next item ms": float("nan"),
                     "cold load ms": load, "longest task ms": pg.evaluate("() => window.__bench.long")})
    nxt = [next_item(pg, lambda p: p.locator("#next-btn"), f"run-{n}-{k}:", "false") for k in (1, 2)]
    for r in rows:
        r["next item ms"] = median(nxt)
    ctx.close()
    return rows


# --- the prototypes (app/ui/instant.py) ------------------------------------------------------------

STATUS_JS = """([sel, idx]) => { const b = window.__bench; b.statusAt = null; b.statusSeen = [];
  // the card is found again on each change: a fragment's rerun may draw it as new nodes
  const read = () => { const c = document.querySelectorAll(sel)[idx];
    return c ? c.innerText.split('\\n').filter(Boolean).pop() : null; };
  b.statusStart = read();
  if (b.statusObserver) b.statusObserver.disconnect();
  b.statusObserver = new MutationObserver(() => { b.statusSeen.push([performance.now(), read()]); });
  b.statusObserver.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true}); }"""


def instant_click(pg, locator) -> tuple[float, float]:
    """A click on an instant card of a surface: (ms to the first change in the page, ms to the
    card's "Saved" after its "Saving…"), then the page settled."""
    locator.wait_for(state="attached", timeout=60000)
    settle(pg)
    # an instant card, or a region card of the contention list (its status line is its last line too)
    sel = ".bi-card, .baton-regions section.card"
    idx = locator.evaluate("(b, sel) => [...document.querySelectorAll(sel)].indexOf(b.closest(sel))", sel)
    pg.evaluate(STATUS_JS, [sel, idx])
    s = click(pg, locator)
    deadline, t_saved = time.time() + 60, None
    while t_saved is None and time.time() < deadline:
        seen = pg.evaluate("() => window.__bench.statusSeen")
        left = False
        for t, text in seen:
            if t < s["t0"]:
                continue
            if text == "Saving…":
                left = True
            elif left and text and text.startswith("Saved"):
                t_saved = t
                break
        if t_saved is None:
            pg.wait_for_timeout(100)
    return painted_first(seen, s), (t_saved - s["t0"]) if t_saved else float("nan")


def proto_clicks(browser, demo, mode: str, n: int, clicks: int) -> dict:
    ctx, pg = new_page(browser)
    card_sel = ".bi-card" if mode == "instant" else '[class*="st-key-fcard-"]'
    load = cold(pg, f"{demo.url}/?item=run-{n}-0&mode={mode}", lambda p: p.get_by_text("Outcome of the run"))

    def option(p):
        if mode == "instant":
            return p.locator(".bi-card").first.locator("button.bi-opt", has_text="garbling")
        return p.locator(card_sel).first.get_by_role("checkbox", name="garbling", exact=True)

    painted, stored, on = [], [], False
    for k in range(-2, clicks):
        settle(pg)
        pg.evaluate(STATUS_JS, [card_sel, 0])
        s = click(pg, option(pg))
        on = not on
        want = "Saved" if (on or mode == "instant") else "Not annotated yet"
        left0 = pg.evaluate("() => window.__bench.statusStart") != want
        deadline, t_stored = time.time() + 60, None
        while t_stored is None and time.time() < deadline:  # a rerun may start after the page went quiet
            seen = pg.evaluate("() => window.__bench.statusSeen")
            t_stored = stored_at(seen, s["t0"], want, left0)
            if t_stored is None:
                pg.wait_for_timeout(100)
        if k >= 0:
            painted.append(painted_first(seen, s))
            stored.append((t_stored - s["t0"]) if t_stored else float("nan"))
    ctx.close()
    return {"prototype": mode, "steps": n, "click → painted ms": median(painted), "click → stored ms": median(stored),
            "cold load ms": load}


def stored_at(seen: list, t0: float, want: str, left: bool) -> float | None:
    """When the card's status first said `want` after the click, having said something else
    since the click or before it (the instant card says "Saving…" in between)."""
    for t, text in seen:
        if t < t0:
            continue
        if text != want:
            left = True
        elif left:
            return t
    return None


def painted_first(seen: list, s: dict) -> float:
    """The instant card paints its options before any server reply: the first change after the
    click (its frame follows within one frame; the settle's painted stamp is the last frame)."""
    after = [t for t, _ in seen if t >= s["t0"]]
    return (after[0] - s["t0"]) if after else float("nan")


def burst(browser, demo, mode: str, n: int) -> dict:
    from app.store.storage import AnnotationStore
    ctx, pg = new_page(browser)
    item = f"run-{n}-0"
    cold(pg, f"{demo.url}/?item={item}&mode={mode}&annotator=burst-{mode}", lambda p: p.get_by_text("Outcome of the run"))
    names = ["info_loss", "garbling", "goal_drift"]
    state: set[str] = set()
    head = pg.get_by_text(re.compile("^Handoff at step")).first.text_content()
    scheme = "handoff-" + re.search(r"step (\d+)", head).group(1)
    t = time.perf_counter()
    for k in range(20):
        f = names[(k * 7) % 3]
        if mode == "instant":
            loc = pg.locator(".bi-card").first.locator("button.bi-opt", has_text=f)
        else:
            loc = pg.locator('[class*="st-key-fcard-"]').first.get_by_role(
                "checkbox", name=re.compile("^" + re.escape(f).replace("_", r"\\?_") + "$"))
        loc.evaluate("el => el.click()")
        state ^= {f}
        pg.wait_for_timeout(max(0, 100 * (k + 1) - (time.perf_counter() - t) * 1e3))
    spread = (time.perf_counter() - t) * 1e3
    want = [x for x in names if x in state]
    deadline = time.time() + 60
    got = None
    while time.time() < deadline:
        ann = AnnotationStore(demo.out).load(item, f"burst-{mode}", scheme)
        got = list(ann.value) if ann else []
        busy = pg.evaluate(f"() => {RUNNING}") or (mode == "instant" and pg.locator(".bi-card .bi-status").first
                                                     .text_content() != "Saved")
        if got == want and not busy:
            break
        pg.wait_for_timeout(100)
    done = (time.perf_counter() - t) * 1e3 - spread
    ctx.close()
    return {"prototype": mode, "steps": n, "20 clicks over ms": spread, "last click → stored ms": done,
            "stored = last state": "yes" if got == want else f"NO ({got} ≠ {want})"}


# --- the run -------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.clicks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50,500,2000,5000")
    ap.add_argument("--clicks", type=int, default=3)
    ap.add_argument("--surfaces", help="comma-separated Baton surfaces (default: all of benchmarks.browser, "
                    "and text)")
    ap.add_argument("--no-potato", action="store_true")
    ap.add_argument("--no-prototypes", action="store_true")
    ap.add_argument("--no-baton", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"Debian's Chromium not found at {CHROMIUM}: benchmark skipped")
        return 0
    sizes = [int(x) for x in args.sizes.split(",")]
    names = args.surfaces.split(",") if args.surfaces else [*surfaces(0), TEXT]
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)", flush=True)
    from playwright.sync_api import sync_playwright
    rows, protos, bursts, trivial_ms = [], [], [], {}
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        trivial = Trivial(browser)
        ctx, pg = new_page(browser)
        trivial_load = cold(pg, trivial.pg.url, lambda p: p.get_by_text("Clicked"))
        trivial_long = pg.evaluate("() => window.__bench.long")
        ctx.close()
        server = potato = demo = None
        try:
            if not args.no_baton:
                server = Server(write_project(Path(tmp) / "baton", sizes, per_size=PER_SIZE)).start()
            if not args.no_potato:
                potato = Potato(potato_venv(), Path(tmp) / "potato", sizes)
            if not args.no_prototypes:
                from tests.browser.test_instant import DemoServer
                (Path(tmp) / "demo").mkdir()
                demo = DemoServer(Path(tmp) / "demo", sorted({50, 2000} | set(sizes)))
            for n in sizes:
                before = trivial.clicks(5)
                r = []
                if server:
                    r += baton_size(browser, server.url, n, args.clicks, names)
                if potato:
                    r += potato_size(browser, potato, sizes, n, args.clicks, f"bench{n}")
                after = trivial.clicks(5)
                trivial_ms[n] = median(before + after)
                for row in r:
                    row["painted / trivial"] = row["click → painted ms"] / trivial_ms[n]
                    row["stored / trivial"] = row["click → stored ms"] / trivial_ms[n]
                    row["load / trivial"] = row["cold load ms"] / trivial_load
                rows += r
                print(f"\ntrivial page around {n:,} steps: click → counter {trivial_ms[n]:.0f} ms", flush=True)
                print(table(r, title=f"{n:,} steps"), flush=True)
            if demo:
                for n in (50, 2000):
                    t_before = trivial.clicks(3)
                    for mode in ("instant", "fragment"):
                        row = proto_clicks(browser, demo, mode, n, args.clicks)
                        protos.append(row)
                        bursts.append(burst(browser, demo, mode, n))
                    base = median(t_before + trivial.clicks(3))
                    for row in protos[-2:]:
                        row["trivial ms"] = base
                        row["stored / trivial"] = row["click → stored ms"] / base
                    print(table(protos[-2:] + [], title=f"prototypes, {n:,} steps"), flush=True)
        finally:
            for s in (server, potato, demo):
                if s:
                    s.stop()
            trivial.close()
            browser.close()
    print("\n### The issue's table: click → painted, median ms (ratio to the trivial page's round trip)\n")
    pivot = []
    for n in sizes:
        row = {"steps": n}
        for r in rows:
            if r["steps"] == n:
                row[f"{r['tool']}, {r['surface']}"] = f"{r['click → painted ms']:.0f} ({r['painted / trivial']:.2f}x)"
        row["Streamlit trivial page"] = f"{trivial_ms.get(n, float('nan')):.0f}"
        pivot.append(row)
    if pivot:
        print(table(pivot))
        print(f"\ntrivial page: cold load {trivial_load:.0f} ms, longest task {trivial_long:.0f} ms")
    if protos:
        print(table(protos, title="Prototypes (app/ui/instant.py): Components v2 card vs fragment card"))
        print(table(bursts, title="Burst: 20 clicks in 2 s on one card"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
