"""Saves: the latency of one save with 0, 10,000 and 100,000 annotations already stored.

    .venv/bin/python -m benchmarks.saves [--stored 0,10000,100000] [--saves 200] [--seed 0]

A save here is what the app does on every click: read the key's previous row (for the
running time spent), then write the new row durably (temporary file, fsync, rename, fsync
of the folder). The store is filled first with rows of 20 annotators × 500 items × 10
schemes (written straight to their files, without fsync, to keep the set-up short), then
`--saves` saves are timed, half on new keys of an annotator of their own and half replacing
existing rows: of the annotators already holding rows, or with nothing else stored, the row
saved just before (so every level times the same mix: a save that replaces a row first reads
it). The fill's writes are flushed to disk (`os.sync`) before the timing.
Target: p95 at 100,000 stored within 1.5x of the p95 at 0.

It also checks that a stored value holds only what the annotator set: one judged step of a
2,000-step run stores one step entry, one flagged handoff one handoff entry, one labelled
region one label, and so on (no entry per untouched object).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.gen import make_item, pct, table, verdict

import pyarrow.parquet as pq  # noqa: E402

from app.types import (
    emergent_behavior as behavior, agent_interaction_graph as graph, handoff_review as handoff, agent_scorecard as scorecard, trajectory_eval as stepreview, tool_contention as timeline, tool_call_review as toolreview, values)  # noqa: E402
from app.traces.derive import derive  # noqa: E402
from app.store.storage import Annotation, AnnotationStore, _normalise, _to_table  # noqa: E402

SCHEMES = ["outcome", "attribution", "graph", "handoffs", "scorecard", "contention", "emergent",
           "tool_review", "mast_steps", "notes"]


def _template(scheme: str, rng: random.Random) -> bytes:
    """The Parquet bytes of one row with placeholder item and annotator names of fixed length,
    written uncompressed and without dictionaries so the names appear verbatim."""
    import io
    ann, text = _normalise(Annotation("run-XXXX", "annotator-YY", scheme, "radio", {rng.choice("abc"): "true"},
                                      trace_hash="h", seconds_spent=rng.uniform(1, 60)))
    buf = io.BytesIO()
    pq.write_table(_to_table(ann, text), buf, compression="none", use_dictionary=False)
    return buf.getvalue()


def fill(store: AnnotationStore, n: int, seed: int, start: int = 0) -> float:
    """Write rows start..n-1 straight to their files (no fsync): templates with the names
    patched in, so 100,000 rows take a minute rather than many. Returns seconds taken."""
    rng = random.Random(seed)
    templates = {s: _template(s, rng) for s in SCHEMES}
    t = time.perf_counter()
    per_annotator = 500 * len(SCHEMES)
    made: set = set()
    item = who = scheme = None
    for k in range(start, n):
        who = f"annotator-{k // per_annotator:02d}"
        rest = k % per_annotator
        item, scheme = f"run-{rest // len(SCHEMES):04d}", SCHEMES[rest % len(SCHEMES)]
        data = templates[scheme].replace(b"run-XXXX", item.encode()).replace(b"annotator-YY", who.encode())
        path = store.path_for(item, who, scheme)
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_bytes(data)
    took = time.perf_counter() - t
    if item is not None:  # the patched files are real rows of their keys
        probe = store.load(item, who, scheme)
        assert probe is not None and probe.key == (item, who, scheme), store.problems
    return took


def one_save(store: AnnotationStore, item: str, who: str, scheme: str, value) -> float:
    t = time.perf_counter()
    prev = store.load(item, who, scheme)
    spent = (prev.seconds_spent if prev else 0.0) + 1.0
    store.save(Annotation(item, who, scheme, "radio", value, trace_hash="h", seconds_spent=spent))
    return time.perf_counter() - t


def timed_saves(store: AnnotationStore, n_saves: int, stored: int, seed: int) -> list[float]:
    rng = random.Random(seed + 1)
    for k in range(5):  # warm-up (first writes pay for imports and caches), not timed
        one_save(store, f"warm-{k}", "bench", "outcome", {"a": "true"})
    out = []
    last = None
    for k in range(n_saves):
        if k % 2 == 0:  # a new key of an annotator of its own
            item, who, scheme = last = f"new-{k:05d}", "bench", rng.choice(SCHEMES)
        elif stored == 0:  # nothing else stored: replace the row just saved (the same mix as below)
            item, who, scheme = last
        else:  # replace a row that exists, in a folder full of others
            j = rng.randrange(stored)
            per = 500 * len(SCHEMES)
            who, rest = f"annotator-{j // per:02d}", j % per
            item, scheme = f"run-{rest // len(SCHEMES):04d}", SCHEMES[rest % len(SCHEMES)]
        out.append(one_save(store, item, who, scheme, {rng.choice("abc"): "true"}))
    return out


def minimal_values(seed: int) -> list[dict]:
    """One judgement on a 2,000-step run per type: the stored value holds that and nothing else."""
    d = derive(make_item("v", 2000, 2000, seed))
    step, h, call = d.steps[1234], d.handoffs[500], d.tool_calls[300]
    region = d.contentions[100]
    opts = ["correct", "incorrect"]
    cases = {
        "trajectory_eval": (stepreview.put(None, stepreview.entry(step.index, step.agent, "incorrect", [], None, "",
                                                                  options=opts), severities=[], options=opts),
                            lambda v: len(v["steps"])),
        "handoff_review": (handoff.update(None, h, ["info_loss"], 3, ["info_loss"]), len),
        "tool_call_review": (toolreview.put(None, toolreview.entry(call, "wrong tool", "")), len),
        "tool_contention": (timeline.set_label(None, region.index, "benign"), lambda v: len(v["contentions"])),
        "emergent_behavior": (behavior.set_turn(None, "echoing", 42, True, ["echoing", "role_swap"]),
                              lambda v: sum(len(e["turns"]) for e in v.values())),
        "agent_scorecard": (scorecard.with_agent_score(None, d.agents[0], "coordination", 4, ["plan"], 5),
                            lambda v: sum(len(x) for x in v["agents"].values()) + len(v["team"])
                            + sum(bool(x) for x in v["milestones"].values())),
        "agent_interaction_graph": (graph.set_node(None, d.agents[1], True, d.agents),
                                    lambda v: len(v["critical_nodes"]) + len(v["edges"])),
        "failure_attribution": (values.attribution(step.agent, step.index, ""), lambda v: 1),
    }
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = AnnotationStore(tmp)
        for t, (value, count) in cases.items():
            store.save(Annotation("v", "alice", t, t, value))
            back = store.load("v", "alice", t).value
            text = json.dumps(back)
            rows.append({"type": t, "objects in the run": {"trajectory_eval": len(d.steps),
                                                            "handoff_review": len(d.handoffs),
                                                            "tool_call_review": len(d.tool_calls),
                                                            "tool_contention": len(d.contentions),
                                                            "emergent_behavior": len(d.steps)}.get(t, len(d.agents)),
                         "entries stored": count(back), "bytes": len(text),
                         "only what was set": verdict(count(back) == 1)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.saves", description=__doc__.split("\n\n")[0])
    ap.add_argument("--stored", default="0,10000,100000")
    ap.add_argument("--saves", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", help="fill the stores under this folder (default: a temporary one)")
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    rows = []
    base = None
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        store = AnnotationStore(Path(tmp) / "annotations")
        have = 0
        for n in sorted(int(x) for x in args.stored.split(",")):
            fill_s = fill(store, n, args.seed, have)  # one store, grown from one level to the next
            have = n
            shutil.rmtree(store.root / "bench", ignore_errors=True)  # the timed saves' own keys
            # the fill's writes reach the disk before the timing: the timed saves' fsyncs would
            # otherwise flush them (rows saved by the app were each flushed when saved)
            os.sync()
            times = timed_saves(store, args.saves, n, args.seed)
            ms = [t * 1e3 for t in times]
            p95 = pct(ms, 0.95)
            base = p95 if base is None else base
            rows.append({"stored": n, "fill s": fill_s, "saves": len(ms), "p50 ms": pct(ms, 0.5), "p95 ms": p95,
                         "max ms": max(ms), "p95 / p95 at 0": p95 / base})
    print(table(rows, title="One save (load previous row + durable write)"))
    last = rows[-1]
    print(f"\np95 at {last['stored']:,} / p95 at {rows[0]['stored']:,}: {last['p95 / p95 at 0']:.2f} "
          f"— target ≤ 1.5: {verdict(last['p95 / p95 at 0'] <= 1.5)}")
    print(table(minimal_values(args.seed), title="A stored value holds only what was set (2,000-step run)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
