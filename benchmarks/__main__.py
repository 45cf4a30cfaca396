"""Run Baton's benchmarks, one after another (each also runs alone: `python -m benchmarks.NAME`).

    .venv/bin/python -m benchmarks [--only derive,saves] [--quick] [-- extra options are not passed]

Every benchmark prints its figures as Markdown tables, with the ratios it compares measured in
the same run, and says for each target whether it is met. Generated items are seeded. They are
not tests: nothing here asserts a time, and `make test` never runs them.

    derive   derivations at 100,000 steps / calls; sweep vs quadratic; `python -m app derive`
             vs a bare json.load process
    saves    one save with 0, 10,000 and 100,000 annotations stored; stored values minimal
    summary  the summary from the stored rows at 20,000 / 100,000 / 1,000,000 rows, fresh processes
    readers  TRAIL samples and a 50 MB span tree vs the json module; peak memory
    server   one rerun of each page at 50 / 500 / 2,000 / 5,000 steps (AppTest)
    browser  headless Chromium: page ready, click → updated, save + next item, tab memory,
             against a trivial Streamlit page's round trip
    traversal  headless Chromium: the traversal review's "Next step" at 2,000 steps, against the
             trivial page's round trip
    clicks   headless Chromium: click → painted / stored, next item, cold load, long tasks on every
             surface, beside Potato (installed in a scratch virtualenv) and the instant prototypes

`--quick` runs smaller sizes (a smoke run of every benchmark in a few minutes).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

ORDER = ["derive", "saves", "summary", "readers", "server", "browser", "traversal", "clicks"]
QUICK = {
    "derive": ["--sizes", "5000,10000,20000", "--quadratic", "500,1000", "--process-size", "20000", "--repeat", "2"],
    "saves": ["--stored", "0,2000,10000", "--saves", "60"],
    "summary": ["--rows", "20000,100000"],
    "readers": ["--mb", "10", "--repeat", "2"],
    "server": ["--sizes", "50,500", "--runs", "3"],
    "browser": ["--sizes", "50,500", "--clicks", "2", "--trivial", "10"],
    "traversal": ["--steps", "500", "--at", "200", "--clicks", "3", "--trivial", "10"],
    "clicks": ["--sizes", "50,500", "--clicks", "3"],
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated benchmark names (default: all, in order)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes: a smoke run")
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else ORDER
    unknown = [n for n in names if n not in ORDER]
    if unknown:
        ap.error(f"unknown benchmark(s) {unknown}; choose among {ORDER}")
    status = 0
    for name in names:
        print(f"\n## benchmarks.{name}  (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)\n", flush=True)
        t = time.perf_counter()
        mod = importlib.import_module(f"benchmarks.{name}")
        rc = mod.main(QUICK[name] if args.quick else [])
        status = status or rc
        print(f"\n({name}: {time.perf_counter() - t:.0f} s)", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
