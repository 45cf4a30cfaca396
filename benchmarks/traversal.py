"""The traversal review's forward pass in headless Chromium: "Next step" (and the error flag)
click → screen updated, on a run of 2,000 steps half walked, against a trivial Streamlit page's
button round trip measured in the same run.

    .venv/bin/python -m benchmarks.traversal [--steps 2000] [--at 1000] [--clicks 10] [--trivial 20]

The project holds one generated run (benchmarks/gen.py) and one traversal scheme with the demo's
MAST modes; `--at` steps of its forward pass are stored before the page opens (each "next" then
saves a value of that many entries and more). Timing as benchmarks/browser.py: a click stamped in
the page, the last DOM change before 600 ms of quiet, the expected text then checked on the page.

Target: "Next step" click → updated within 2x the trivial round trip at 2,000 steps.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import yaml

from benchmarks.browser import INIT_JS, Trivial, settle, timed_click
from benchmarks.gen import ROOT, make_item, table, verdict
from tests.browser.conftest import ARGS, CHROMIUM, Server


def write(folder: Path, n: int, at: int) -> tuple[Path, str]:
    from app.project.workspace import open_project
    from app.store.storage import Annotation, AnnotationStore
    item = make_item(f"run-{n}", n)
    (folder / "items.jsonl").write_text(json.dumps(item) + "\n")
    demo = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())
    scheme = next(s for s in demo["annotation_schemes"] if s["name"] == "traversal")
    cfg = {"annotation_task_name": "traversal benchmark", "data_files": [str(folder / "items.jsonl")],
           "item_properties": {"id_key": "id", "text_key": "text"},
           "output_annotation_dir": str(folder / "annotations"), "annotation_schemes": [scheme]}
    path = folder / "project.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    ws = open_project(path)
    it = ws.by_id[item["id"]]
    value = {"forward": {str(i): {"flag": "error", "note": "looks off"} if i % 97 == 5 else {"flag": "fine"}
                         for i in range(at)},
             "backward": {}, "root_causes": []}
    AnnotationStore(ws.project.output_dir).save(Annotation(it.id, "alice", "traversal", scheme["annotation_type"],
                                                           value, "annotated", it.trace_hash,
                                                           datetime.now(timezone.utc), 1.0))
    return path, it.id


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.traversal", description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--at", type=int, default=1000, help="forward steps stored before the page opens")
    ap.add_argument("--clicks", type=int, default=10)
    ap.add_argument("--trivial", type=int, default=20)
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"Debian's Chromium not found at {CHROMIUM}: traversal benchmark skipped")
        return 0
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        trivial = Trivial(browser)
        config, item = write(Path(tmp), args.steps, args.at)
        server = Server(config).start()
        try:
            before = trivial.clicks(args.trivial // 2)
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
            ctx.add_init_script(INIT_JS)
            pg = ctx.new_page()
            pg.goto(f"{server.url}/traversal_review?annotator=alice&item={item}")
            pg.get_by_text(f"Forward pass: step {args.at + 1} of {args.steps:,}".replace(",", "")).wait_for(
                timeout=120000)
            settle(pg, 120)
            nxt = pg.get_by_role("button", name="Next step ▶")
            flag = pg.get_by_role("button", name="Flag / unflag")
            timed_click(pg, nxt)  # warm-up: the first click fetches scripts
            next_ms, flag_ms, ok = [], [], True
            for k in range(args.clicks):
                place = args.at + 3 + k  # (1-based; the warm-up click moved one on)
                ms, seen = timed_click(pg, nxt, expect=f"Forward pass: step {place} of {args.steps}")
                next_ms.append(ms)
                ok = ok and seen
                if k % 2 == 0:
                    ms, _ = timed_click(pg, flag)
                    flag_ms.append(ms)
            ctx.close()
            after = trivial.clicks(args.trivial - args.trivial // 2)
        finally:
            server.stop()
            trivial.close()
            browser.close()
    base = statistics.median(before + after)
    nm, fm = statistics.median(next_ms), statistics.median(flag_ms)
    print(table([{"steps": args.steps, "stored forward entries": args.at, "trivial ms": base,
                  "next step ms (median)": nm, "next step ms (max)": max(next_ms), "next / trivial": nm / base,
                  "flag ms (median)": fm, "flag / trivial": fm / base, "expected text seen": ok,
                  "target (next ≤ 2x trivial)": verdict(nm <= 2 * base)}],
                title="Traversal review, forward pass"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
