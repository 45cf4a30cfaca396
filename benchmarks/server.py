"""Server side: one rerun of each page at 50, 500, 2,000 and 5,000 steps (as many timed calls),
with the parsed item and its derivations cached.

    .venv/bin/python -m benchmarks.server [--sizes 50,500,2000,5000] [--runs 5] [--pages radio,handoff_review]

On a generated project holding one run of each size, every page is opened in
`streamlit.testing.v1.AppTest` (the whole app: sidebar, trace view, surfaces) and run once
to warm the caches; then `--runs` reruns are timed and the median is reported in ms, with
the growth from the smallest to the largest size. A rerun is what a click on anything
outside a fragment costs on the server (the browser benchmark measures what a person sees).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.gen import ROOT, table, write_project

PAGES = ["home", "radio", "failure_attribution", "agent_interaction_graph", "handoff_review", "agent_scorecard",
         "tool_contention", "emergent_behavior", "tool_call_review", "trajectory_eval", "likert", "multiselect",
         "text", "summary"]


def _app(config: Path, item: str):
    from streamlit.testing.v1 import AppTest
    os.environ["BATON_CONFIG"] = str(config)
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    at.query_params["annotator"] = "bench"
    at.query_params["item"] = item
    return at


def rerun_ms(config: Path, item: str, page: str, runs: int) -> float:
    at = _app(config, item)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
        at.run()  # first run of the page: reads and derives the item (cached from here on)
    if at.exception:
        raise RuntimeError(f"{page} at {item}: {[e.value for e in at.exception]}")
    at.run()  # warm-up rerun
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.server", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="50,500,2000,5000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pages", help="comma-separated page names (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    pages = args.pages.split(",") if args.pages else PAGES
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    with tempfile.TemporaryDirectory() as tmp:
        config = write_project(Path(tmp), sizes, seed=args.seed)
        rows = []
        for page in pages:
            row = {"page": page}
            for n in sizes:
                row[f"{n:,} steps ms"] = rerun_ms(config, f"run-{n}-0", page, args.runs)
            row["growth"] = row[f"{sizes[-1]:,} steps ms"] / row[f"{sizes[0]:,} steps ms"]
            rows.append(row)
            print(f"  {page}: " + ", ".join(f"{v:.0f}" for k, v in row.items() if k.endswith("ms")), flush=True)
    print(table(rows, title=f"One rerun of each page, median of {args.runs} (ms), item and derivations cached"))
    print(f"\ngrowth = ms at {sizes[-1]:,} steps / ms at {sizes[0]:,} steps ({sizes[-1] // sizes[0]}x the steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
