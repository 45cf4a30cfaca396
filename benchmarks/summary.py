"""Summary: the whole summary from the stored rows alone, in a fresh process, at 20,000, 100,000
and 1,000,000 rows; after one save; and a page rerun without a save.

    .venv/bin/python -m benchmarks.summary [--rows 20000,100000,1000000] [--annotators 7] [--seed 0]

A generated project of small runs (12 steps, 6 timed calls) and a Parquet file with the store's
schema holding the rows: every item judged by `--annotators` annotators (of a pool of 30) on
every scheme of the demo configuration, plus the per-item done marks. Values are valid for
their type and refer to the runs' real handoffs, steps, calls and regions, annotators
disagreeing now and then.

Each size runs in a new process (`--one`): the project opened, then timed: the rows read and
framed as the summary page reads them, and the summary computed (its numbers; the records of
disagreements are listed per scheme on demand). The reference is pyarrow reading the same file.
Targets: 20,000 rows < 1 s, 100,000 < 2 s, 1,000,000 < 8 s.

After one save (at the middle size): the page reads the rows again and computes the summary
afresh (the store's fingerprint changed). Target: < 1 s at 100,000 rows.
A page rerun without a save: the summary is taken from memory by the rows' fingerprint (the
work: the cache key and the lookup). Target: < 50 ms.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks.gen import ROOT, best_of, table, verdict, write_project

from app.project.workspace import open_project  # noqa: E402
from app.store.storage import SCHEMA, sort_rows  # noqa: E402
from app.summary.rows import Derivations, frame  # noqa: E402
from app.summary.summarize import fingerprint, summarize  # noqa: E402

STEPS, CALLS = 12, 6
TARGETS = {20_000: 1.0, 100_000: 2.0, 1_000_000: 8.0}


def _variants(d, scheme, rng: random.Random) -> list[str]:
    """A few valid values of this scheme for this run (annotators pick among them)."""
    t, o = scheme.type, scheme.options
    agents = d.agents or ["(unknown)"]
    out = []
    for _ in range(3):
        a = rng.choice(agents)
        st = rng.randrange(max(len(d.steps), 1))
        if t == "radio":
            v = {rng.choice([x["name"] if isinstance(x, dict) else x for x in o["labels"]]): "true"}
        elif t == "likert":
            v = {f"scale_{o['size']}": str(rng.randint(1, o["size"]))}
        elif t == "multiselect":
            labels = [x["name"] if isinstance(x, dict) else x for x in o["labels"]]
            v = {x: "true" for x in rng.sample(labels, rng.randint(1, 2))}
        elif t == "text":
            v = {"text_box": "looked fine"}
        elif t == "failure_attribution":
            v = {"responsible_agent": a, "decisive_step": st, "reason": "it went wrong here"}
        elif t == "agent_interaction_graph":
            e = rng.choice(d.edges) if d.edges else None
            v = {"critical_nodes": [a], "edges": {f"{e[0]}->{e[1]}": rng.choice(["critical", "problematic"])}
                 if e else {}}
        elif t == "handoff_review":
            h = rng.choice(d.handoffs) if d.handoffs else None
            v = [{"index": h.index, "step": h.step, "from": h.src, "to": h.dst,
                  "flags": rng.sample(o["flags"], rng.randint(0, 2)), "quality": rng.randint(1, 5)}] if h else []
        elif t == "agent_scorecard":
            v = {"agents": {x: {dim: rng.randint(1, o["scale"]) for dim in o["agent_dimensions"]} for x in agents[:3]},
                 "team": {dim: rng.randint(1, o["scale"]) for dim in o["team_dimensions"]},
                 "milestones": {m: rng.random() < 0.5 for m in o["milestones"]}}
        elif t == "tool_contention":
            v = {"contentions": {str(r.index): rng.choice(o["contention_labels"]) for r in d.contentions[:2]}}
        elif t == "emergent_behavior":
            v = {rng.choice(o["behaviors"]): {"turns": sorted(rng.sample(range(len(d.steps)), 2)), "note": ""}}
        elif t == "tool_call_review":
            c = rng.choice(d.tool_calls) if d.tool_calls else None
            v = [{"index": c.index, "step": c.step, "tool": c.tool,
                  "verdict": rng.choice(o.get("verdict_options") or ["correct", "wrong_tool", "wrong_args"]),
                  "notes": ""}] if c else []
        elif t == "trajectory_eval":
            et = rng.choice(o["error_types"])
            v = {"steps": [{"step_index": st, "agent": d.steps[st].agent if d.steps else a,
                            "correctness": "incorrect",
                            "errors": [{"type": et["name"], "subtype": rng.choice(et["subtypes"])}],
                            "severity": None, "rationale": ""}]}
        elif t == "traversal_review":
            et = rng.choice(o["error_types"])
            first, later = sorted(rng.sample(range(max(len(d.steps), 2)), 2))
            v = {"forward": {str(i): {"flag": "fine"} for i in range(len(d.steps))},
                 "backward": {str(first): {"verdict": "root_cause", "caused_by": None},
                              str(later): {"verdict": rng.choice(["consequence", "redundant"]),
                                           "caused_by": first}},
                 "root_causes": [first]}
            for i in (first, later):
                v["forward"][str(i)] = {"flag": "error", "modes": [{"type": et["name"], "subtype": et["subtypes"][0]}]}
            if v["backward"][str(later)]["verdict"] == "redundant":
                v["backward"][str(later)]["caused_by"] = None
        else:
            v = {}
        out.append(json.dumps(v))
    return out


def generate(folder: Path, n_rows: int, n_annotators: int, seed: int):
    """(workspace, None, path of the Parquet file of the stored rows)."""
    rng = random.Random(seed)
    from benchmarks.gen import schemes as all_schemes
    per_item = n_annotators * (len(all_schemes()) + 1)
    n_items = math.ceil(n_rows / per_item)
    cfg = write_project(folder, [STEPS], per_size=n_items, seed=seed, calls={STEPS: CALLS})
    ws = open_project(cfg)
    derivations = Derivations.of(ws)
    pool = [f"annotator-{k:02d}" for k in range(30)]
    cols = {name: [] for name in SCHEMA.names}
    done = json.dumps({"done": True})
    now = int(time.time() * 1e6)
    made = 0
    for it in ws.items:
        per_scheme = [(s, _variants(derivations.getter(s)(it.id), s, rng)) for s in ws.project.schemes]
        for who in rng.sample(pool, n_annotators):
            for s, vs in per_scheme + [(None, [done])]:
                if made >= n_rows:
                    break
                cols["item_id"].append(it.id)
                cols["annotator"].append(who)
                cols["scheme"].append(s.name if s else "_item")
                cols["annotation_type"].append(s.type if s else "_item")
                cols["value"].append(vs[0] if rng.random() < 0.6 else rng.choice(vs))
                cols["status"].append("annotated")
                cols["trace_hash"].append(it.trace_hash)  # (as the app saves: made on the trace as it is)
                cols["updated_at"].append(now)
                cols["seconds_spent"].append(rng.uniform(2, 90))
                made += 1
    cols["updated_at"] = pa.array(cols["updated_at"], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    path = folder / "annotations.parquet"
    pq.write_table(sort_rows(pa.table({k: cols[k] for k in SCHEMA.names}, schema=SCHEMA)), path)
    return ws, None, path


def one(project: Path, rows_file: Path, saved_file: Path | None) -> dict:
    """The timings of one size, in this (fresh) process."""
    ws = open_project(project)
    t_arrow, _ = best_of(lambda: pq.read_table(rows_file), 2)
    t = time.perf_counter()
    rows = frame(pq.read_table(rows_file))
    found = summarize(ws, rows, disagreements=False)
    took = time.perf_counter() - t
    out = {"rows": len(rows), "items": found["counts"]["items"], "pyarrow read s": t_arrow, "summary s": took,
           "ratio to read": took / t_arrow}
    if saved_file is not None:
        t = time.perf_counter()
        summarize(ws, frame(pq.read_table(saved_file)), disagreements=False)
        out["after one save s"] = time.perf_counter() - t
        # (the page fingerprints the rows when it reads them, then looks the summary up by it)
        key = (ws.stamp, fingerprint(rows), json.dumps({"annotators": None, "k": 1}, sort_keys=True))
        cache = {key: found}
        t = time.perf_counter()
        for _ in range(100):
            cache.get((ws.stamp, key[1], json.dumps({"annotators": None, "k": 1}, sort_keys=True)))
        out["rerun without a save ms"] = (time.perf_counter() - t) * 10
    return out


def _saved(rows_file: Path, out: Path) -> None:
    """The rows after one save: the first scorecard judgement given another judgement's value."""
    tbl = pq.read_table(rows_file)
    schemes, values = tbl["scheme"].to_pylist(), tbl["value"].to_pylist()
    at = [i for i, s in enumerate(schemes) if s == "scorecard"]
    values[at[0]] = values[at[-1]]
    pq.write_table(tbl.set_column(tbl.schema.get_field_index("value"), "value", pa.array(values, pa.string())), out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.summary", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="20000,100000,1000000", help="comma-separated store sizes")
    ap.add_argument("--annotators", type=int, default=7, help="annotators per item (of a pool of 30)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--one", nargs=3, metavar=("PROJECT", "ROWS", "SAVED"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        project, rows_file, saved = args.one
        print(json.dumps(one(Path(project), Path(rows_file), Path(saved) if saved != "-" else None)))
        return 0
    sizes = [int(x) for x in args.rows.split(",")]
    middle = sorted(sizes)[len(sizes) // 2]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            folder = Path(tmp) / str(n)
            _ws, _none, path = generate(folder, n, args.annotators, args.seed)
            saved = "-"
            if n == middle:
                saved = str(folder / "saved.parquet")
                _saved(path, Path(saved))
            run = subprocess.run([sys.executable, "-m", "benchmarks.summary", "--one", str(folder / "project.yaml"),
                                  str(path), saved], cwd=ROOT, capture_output=True, text=True, check=True)
            got = json.loads(run.stdout.strip().splitlines()[-1])
            target = TARGETS.get(n)
            got["target s"] = target
            got["met"] = verdict(got["summary s"] < target) if target else "–"
            if "after one save s" in got:
                got["after one save met"] = verdict(got["after one save s"] < 1.0)
                got["rerun met"] = verdict(got["rerun without a save ms"] < 50)
            results.append(got)
            print(table([got], title=f"{n:,} rows, a fresh process"), flush=True)
    print(table(results, title="The summary from the stored rows alone"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
