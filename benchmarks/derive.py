"""Derivations: handoffs, graph edges, tool calls and contention regions at scale.

    .venv/bin/python -m benchmarks.derive [--sizes 12500,25000,50000,100000] [--quadratic 500,1000,2000,4000]
                                          [--process-size 100000] [--repeat 3] [--seed 0]

1. In process, on generated runs of n steps and n timed calls: the time of each derivation
   and of the whole `derive()`, with the growth from one size to the next against n log n.
   Target: the whole derivation at 100,000 steps / calls well under 1 s. Also timed as the app
   caches it (app/ui/shell: the collector paused until the result is frozen).
2. The contention sweep against the quadratic reference (`find_regions_quadratic`) on the
   same calls, at sizes where the quadratic method is feasible: both times and the ratio
   (the results are checked equal).
3. Whole processes: `python -m app derive` on a project holding one run of 100,000 steps and
   100,000 timed calls, against a bare `python -c "json.load(...)"` of the same file.
   Target: at most 5x.
"""
from __future__ import annotations

import argparse
import gc
import math
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.gen import ROOT, best_of, make_item, table, verdict, write_project

from app.traces.contention import find_regions, find_regions_quadratic  # noqa: E402
from app.traces.timed_calls import normalize_calls  # noqa: E402
from app.traces.derive import count_edges, derive, find_handoffs, no_gc  # noqa: E402
from app.traces.toolcall import extract_tool_calls  # noqa: E402
from app.traces.trace import read_steps  # noqa: E402


def as_the_app_does(data: dict):
    """derive() as app/ui/shell caches it: the collector paused until the result is frozen, so
    no collection walks the new objects (unfrozen again here, for the next repetition)."""
    with no_gc():
        d = derive(data)
        gc.freeze()
    gc.unfreeze()
    return d


def in_process(sizes: list[int], repeat: int, seed: int) -> list[dict]:
    rows = []
    prev = None
    for n in sizes:
        data = make_item(f"d{n}", n, n, seed)
        steps = read_steps(data)
        agents = [s.agent for s in steps]
        calls, _ = normalize_calls(data["calls"])
        t_steps = best_of(lambda: read_steps(data), repeat)[0]
        t_hand = best_of(lambda: count_edges(find_handoffs(steps)), repeat)[0]
        t_tools = best_of(lambda: extract_tool_calls([s.raw for s in steps], lambda i: agents[i]), repeat)[0]
        t_norm = best_of(lambda: normalize_calls(data["calls"]), repeat)[0]
        t_regions = best_of(lambda: find_regions(calls), repeat)[0]
        t_all = best_of(lambda: derive(data), repeat)[0]
        t_app = best_of(lambda: as_the_app_does(data), repeat)[0]
        d = derive(data)
        row = {"n": n, "steps ms": t_steps * 1e3, "handoffs+edges ms": t_hand * 1e3, "tool calls ms": t_tools * 1e3,
               "calls ms": t_norm * 1e3, "regions ms": t_regions * 1e3, "derive() ms": t_all * 1e3,
               "as cached by the app ms": t_app * 1e3,
               "handoffs": len(d.handoffs), "tool calls": len(d.tool_calls), "regions": len(d.contentions)}
        if prev is not None:
            pn, pt = prev
            row["growth"] = t_all / pt
            row["n log n growth"] = (n * math.log(n)) / (pn * math.log(pn))
        prev = (n, t_all)
        rows.append(row)
    return rows


def sweep_vs_quadratic(sizes: list[int], repeat: int, seed: int) -> list[dict]:
    rows = []
    for n in sizes:
        calls, _ = normalize_calls(make_item(f"q{n}", 0, n, seed)["calls"])
        fast = find_regions(calls)
        slow = find_regions_quadratic(calls)
        assert fast == slow, f"sweep and quadratic differ at n={n}"
        t_fast = best_of(lambda: find_regions(calls), repeat)[0]
        t_slow = best_of(lambda: find_regions_quadratic(calls), max(1, repeat - 1))[0]
        rows.append({"calls": n, "regions": len(fast), "sweep ms": t_fast * 1e3, "quadratic ms": t_slow * 1e3,
                     "quadratic / sweep": t_slow / t_fast})
    return rows


def _proc(argv: list[str], repeat: int) -> float:
    return best_of(lambda: subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL), repeat)[0]


def whole_process(n: int, repeat: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = write_project(Path(tmp), [n], seed=seed)
        data = Path(tmp) / "items.jsonl"
        t_json = _proc([sys.executable, "-c", f"import json; json.load(open({str(data)!r}))"], repeat)
        t_derive = _proc([sys.executable, "-m", "app", "derive", str(cfg)], repeat)
        size = data.stat().st_size / 1e6
    return {"steps / calls": n, "file MB": size, "json.load process s": t_json,
            "app derive process s": t_derive, "ratio": t_derive / t_json, "target": "≤ 5x",
            "verdict": verdict(t_derive / t_json <= 5)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.derive", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="12500,25000,50000,100000")
    ap.add_argument("--quadratic", default="500,1000,2000,4000")
    ap.add_argument("--process-size", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    rows = in_process(sizes, args.repeat, args.seed)
    print(table(rows, title="Derivations in process (best of %d)" % args.repeat))
    big = rows[-1]
    print(f"\nwhole derive() at {big['n']:,}: {big['derive() ms']:.0f} ms, as the app caches it "
          f"{big['as cached by the app ms']:.0f} ms — target < 1,000 ms: {verdict(big['derive() ms'] < 1000)}")
    q = [int(x) for x in args.quadratic.split(",") if x]
    if q:
        print(table(sweep_vs_quadratic(q, args.repeat, args.seed), title="Contention: sweep vs quadratic"))
    if args.process_size:
        print(table([whole_process(args.process_size, args.repeat, args.seed)],
                    title="Whole process: python -m app derive vs json.load (best of %d)" % args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
