"""Summary: the summary's numbers over 1,000,000 generated annotation rows, against pyarrow
just reading the same rows.

    .venv/bin/python -m benchmarks.summary [--rows 1000000] [--annotators 7] [--repeat 2] [--seed 0]
        [--store-rows 20000] [--save-each]

A generated project of small runs (12 steps, 6 timed calls) and a Parquet file with the
store's schema holding `--rows` rows: every item judged by `--annotators` annotators (of a
pool of 30) on every scheme of the demo configuration, plus the per-item done marks. Values
are valid for their type and refer to the run's real handoffs, steps, calls and regions, with
annotators disagreeing now and then, in the store's order, written as the store writes its row
indexes (app/store_index.write_parquet: each text column's values coded once, in one dictionary
page). The summary reads the rows as the store reads its row indexes for it
(app/store_index.read_table: text columns as dictionaries, straight from Parquet's own); the
reference is pyarrow's plain read of the same file. Derivations of the runs
are computed before the timing (the app caches them); their columns, which the app keeps from
a workspace's first summary (app/trace_columns), are built again in every timed summary. What
is timed is the summary core: `app.labels.frame` of the read table and
`app.summary.summarize` (progress, rollups, agreement with the number of objects annotators
disagree on, gold). The records of those objects are listed on demand (the summary page lists
one scheme's when it is opened): the summary with every record listed, and one scheme's list,
are timed too.
Targets: the numbers under 2 s, and within 5x of `pyarrow.parquet.read_table` of the same file.

Then the summary as the app computes it, with the parts of the last summary kept on disk
(app/kept.py) and read by a new process (a new summary.Parts): with the rows unchanged, and
after saves on `--saves` judgements spread over every scheme (values of other judgements of
their scheme) since that summary, the parts brought up to date by the items that changed.
The kept state is copied afresh before each run (untimed), so every run starts from the same
one; the state's own writing, in the background after the summary, is left out. Each result is
checked equal to a summary afresh. Targets: within 5x of the same read.

Then the summary as the summary page computes it after one save (parts kept in memory, rows
read again, checked equal to a summary afresh): after a scorecard save (the costliest) and a
radio choice's, or with `--save-each` after a save on each scheme in turn.

Then the store itself (`--store-rows`, 20,000 by default; 0 skips it): the app keeps one small
Parquet file per annotator, item and scheme, so reading the rows is the summary page's first
cost. Timed: `AnnotationStore.to_table()` on first read (every file opened, the annotator
folders' row indexes written), on a second read (files only stat-ed, rows from the indexes),
as the summary reads it (text columns as dictionaries), after one save (one file opened
again), against pyarrow reading the same files as a dataset.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import shutil

from benchmarks.gen import best_of, table, verdict, write_project

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from app._old import summary as summary_core  # noqa: E402
from app._old import trace_columns  # noqa: E402
from app._old.labels import frame  # noqa: E402
from app.store.storage import SCHEMA, sort_rows  # noqa: E402
from app.store.index import read_table, write_parquet  # noqa: E402
from app.project.workspace import open_project  # noqa: E402

STEPS, CALLS = 12, 6


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
                  "verdict": rng.choice(["correct", "wrong tool", "wrong arguments"]), "notes": ""}] if c else []
        elif t == "trajectory_eval":
            et = rng.choice(o["error_types"])
            v = {"steps": [{"step_index": st, "agent": d.steps[st].agent if d.steps else a,
                            "correctness": "incorrect",
                            "errors": [{"type": et["name"], "subtype": rng.choice(et["subtypes"])}],
                            "severity": None, "rationale": ""}]}
        else:
            v = {}
        out.append(json.dumps(v))
    return out


def generate(folder: Path, n_rows: int, n_annotators: int, seed: int):
    """(workspace, warmed Derived, path of the Parquet file)."""
    rng = random.Random(seed)
    from benchmarks.gen import schemes as all_schemes
    per_item = n_annotators * (len(all_schemes()) + 1)
    n_items = math.ceil(n_rows / per_item)
    cfg = write_project(folder, [STEPS], per_size=n_items, seed=seed, calls={STEPS: CALLS})
    ws = open_project(cfg)
    der = summary_core.Derived.of(ws)  # (the one kept parts of summaries use)
    pool = [f"annotator-{k:02d}" for k in range(30)]
    cols = {name: [] for name in SCHEMA.names}
    done = json.dumps({"done": True})
    now = int(time.time() * 1e6)
    made = 0
    for it in ws.items:
        per_scheme = [(s, _variants(der.get(it.id, s), s, rng)) for s in ws.project.schemes]
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
                cols["trace_hash"].append("h")
                cols["updated_at"].append(now)
                cols["seconds_spent"].append(rng.uniform(2, 90))
                made += 1
    cols["updated_at"] = pa.array(cols["updated_at"], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    # in the store's order (sorted by annotator, item and scheme): the order the app reads rows in
    t = sort_rows(pa.table({k: cols[k] for k in SCHEMA.names}, schema=SCHEMA))
    path = folder / "annotations.parquet"
    write_parquet(t, path)  # (as the store writes its row index)
    return ws, der, path


# the saves timed: a scorecard, the scheme with the most distinct values and judgement rows (the
# costliest to compute again), and a radio choice (one of the cheapest)
SAVES = [("scorecard", [{"agents": {}, "team": {"overall": 1}, "milestones": {}}]),
         ("outcome", [{"partial": "true"}, {"failure": "true"}])]


def after_a_save(ws, der, path: Path, tbl: pa.Table, repeat: int, t_read: float, scheme: str, candidates) -> dict:
    """The summary as the summary page computes it after one save: the parts of schemes whose
    rows are unchanged kept from the summary before (summary.Parts). The save gives one
    judgement of `scheme` a new value (the first of `candidates` it did not hold); the rows are read and framed again, as after any save.
    Alternates between two files that differ in that one value, so each timed summary follows
    a change."""
    first = tbl["scheme"].to_pylist().index(scheme)
    values = tbl["value"].to_pylist()
    values[first] = next(v for v in map(json.dumps, candidates) if v != values[first])
    saved = path.with_name("saved.parquet")
    write_parquet(tbl.set_column(tbl.schema.get_field_index("value"), "value", pa.array(values, pa.string())), saved)
    parts = summary_core.Parts()
    files = iter([path, saved] * (repeat + 2))

    def numbers():
        return summary_core.summarize(ws, frame(read_table(next(files), SCHEMA, dictionary=True)), derived=der,
                                      disagreements=False, parts=parts)
    trace_columns.forget(der)  # the first summary builds its trace columns; the ones after keep them
    t_first, _ = best_of(numbers, 1)
    t_save, kept = best_of(numbers, repeat)
    fresh = summary_core.summarize(ws, frame(read_table(saved if repeat % 2 else path, SCHEMA, dictionary=True)),
                                   derived=der, disagreements=False)
    return {"saved": scheme, "first summary s": t_first, "after one save s": t_save, "ratio to read": t_save / t_read,
            "< 2 s": verdict(t_save < 2), "≤ 5x read": verdict(t_save / t_read <= 5),
            "equal to a summary afresh": json.dumps(kept, sort_keys=True) == json.dumps(fresh, sort_keys=True)}


def _saved(tbl: pa.Table, n: int, seed: int) -> pa.Table:
    """The rows after n saves: judgements (spread over every scheme) given the value of another
    judgement of their scheme."""
    rng = random.Random(seed)
    schemes, values = tbl["scheme"].to_pylist(), tbl["value"].to_pylist()
    by_scheme: dict[str, list[int]] = {}
    for i, sc in enumerate(schemes):
        by_scheme.setdefault(sc, []).append(i)
    names = sorted(by_scheme)
    for j in range(n):
        rows = by_scheme[names[j % len(names)]]
        values[rng.choice(rows)] = values[rng.choice(rows)]
    return tbl.set_column(tbl.schema.get_field_index("value"), "value", pa.array(values, pa.string()))


def kept_on_disk(ws, der, path: Path, tbl: pa.Table, repeat: int, t_read: float, saves: list[int],
                 folder: Path) -> list[dict]:
    """The summary with the last summary's parts kept on disk, read by a new process (see the
    module's docstring)."""
    state = folder / "state"
    parts = summary_core.Parts(state)
    summary_core.summarize(ws, frame(read_table(path, SCHEMA, dictionary=True)), derived=der,
                           disagreements=False, parts=parts)
    parts.flush()
    sizes = {(p.name.split(".", 1)[1] if p.name.count(".") > 1 else p.name): p.stat().st_size for p in state.iterdir()}
    print("kept on disk: " + ", ".join(f"{name} {size / 1e6:.1f} MB" for name, size in sorted(sizes.items())),
          flush=True)
    out = []
    for n in [0] + saves:
        rows_file = path if not n else folder / f"saved-{n}.parquet"
        if n:
            write_parquet(_saved(tbl, n, seed=n), rows_file)

        def numbers():
            work = folder / "work"
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(state, work)
            trace_columns.forget(der)
            # (timed from here: a new process's summary page, the rows read as it reads them)
            t = time.perf_counter()
            parts = summary_core.Parts(work)
            got = summary_core.summarize(ws, frame(read_table(rows_file, SCHEMA, dictionary=True)), derived=der,
                                         disagreements=False, parts=parts)
            took = time.perf_counter() - t
            parts.flush()  # (the new state written in the background: not timed)
            return took, got
        runs = [numbers() for _ in range(repeat)]
        took = min(t for t, _ in runs)
        fresh = summary_core.summarize(ws, frame(read_table(rows_file, SCHEMA, dictionary=True)), derived=der,
                                       disagreements=False)
        out.append({"saves since the last summary": n, "summary s": took, "ratio to read": took / t_read,
                    "< 2 s": verdict(took < 2), "≤ 5x read": verdict(took / t_read <= 5),
                    "equal to a summary afresh": json.dumps(runs[-1][1], sort_keys=True)
                    == json.dumps(fresh, sort_keys=True)})
    return out


def _each_scheme(ws, tbl: pa.Table) -> list[tuple[str, list]]:
    """A save on each scheme: the values of a few other judgements of that scheme, as
    candidates (a scheme whose judgements all hold one value is left out)."""
    schemes, values = tbl["scheme"].to_pylist(), tbl["value"].to_pylist()
    out = []
    for s in ws.project.schemes:
        seen = list(dict.fromkeys(v for sc, v in zip(schemes, values) if sc == s.name and v is not None))[:5]
        if len(seen) > 1:
            out.append((s.name, [json.loads(v) for v in seen]))
    return out


def store_read(n: int, seed: int) -> dict:
    """Whole-store reads of n rows in the real layout, cold, indexed and after one save."""
    from app.store.storage import Annotation, AnnotationStore
    from benchmarks.saves import fill
    with tempfile.TemporaryDirectory() as tmp:
        store = AnnotationStore(tmp)
        fill(store, n, seed)
        past = time.time() - 60  # as files saved a minute ago (past the index's racy window)
        for root, _dirs, files in os.walk(tmp):
            for f in files:
                os.utime(os.path.join(root, f), (past, past))
        t_arrow, _ = best_of(lambda: pq.read_table(tmp), 1)
        t = time.perf_counter()
        rows = AnnotationStore(tmp).to_table().num_rows
        t_cold = time.perf_counter() - t
        t_warm, _ = best_of(lambda: AnnotationStore(tmp).to_table(), 3)
        t_dict, _ = best_of(lambda: AnnotationStore(tmp).to_table(dictionary=True), 3)
        store.save(Annotation("run-0000", "annotator-00", "outcome", "radio", {"b": "true"}))
        t = time.perf_counter()
        AnnotationStore(tmp).to_table()
        t_saved = time.perf_counter() - t
    return {"rows (files)": rows, "pyarrow dataset read s": t_arrow, "first read s": t_cold,
            "indexed read s": t_warm, "as the summary reads it s": t_dict, "after one save s": t_saved,
            "indexed / pyarrow": t_warm / t_arrow}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.summary", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--annotators", type=int, default=7, help="annotators per item (of a pool of 30)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--store-rows", type=int, default=20_000, help="rows of the store-read part (0: skip it)")
    ap.add_argument("--saves", type=int, nargs="*", default=[13, 130, 1300],
                    help="saves since the last summary kept on disk (spread over every scheme)")
    ap.add_argument("--save-each", action="store_true",
                    help="time the summary after a save on every scheme in turn (the saved value: another "
                         "judgement's of that scheme), not only a scorecard and a radio choice")
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        ws, der, path = generate(Path(tmp), args.rows, args.annotators, args.seed)
        for it in ws.items:  # the app caches derivations: warm them for every scheme's keys
            for s in ws.project.schemes:
                der.get(it.id, s)
        der.get(ws.items[0].id, None)
        print(f"generated {args.rows:,} rows on {len(ws.items):,} items in {time.perf_counter() - t:.1f} s "
              f"({path.stat().st_size / 1e6:.1f} MB Parquet)", flush=True)
        t_read, tbl = best_of(lambda: pq.read_table(path), args.repeat + 1)
        # the rows read as the store reads its row indexes for the summary: text columns as
        # dictionaries (app/store_index.read_table)
        read_rows = lambda: frame(read_table(path, SCHEMA, dictionary=True))  # noqa: E731

        def numbers(listed=False):  # from the rows alone: nothing kept from a summary before
            trace_columns.forget(der)
            return summary_core.summarize(ws, read_rows(), derived=der, disagreements=listed)
        t_sum, s = best_of(numbers, args.repeat)
        t_all, full = best_of(lambda: numbers(True), 1)
        rows = [{"rows": tbl.num_rows, "items": len(ws.items), "pyarrow read s": t_read,
                 "summary s (read + frame + summarize)": t_sum, "ratio": t_sum / t_read,
                 "< 2 s": verdict(t_sum < 2), "≤ 5x read": verdict(t_sum / t_read <= 5),
                 "with every disagreement listed s": t_all}]
        print(table(rows, title=f"Summary over {tbl.num_rows:,} rows, nothing kept (best of {args.repeat})"))
        print(table(kept_on_disk(ws, der, path, tbl, args.repeat, t_read, args.saves, Path(tmp) / "kept"),
                    title="The summary with the last summary's parts kept on disk, in a new process "
                          f"(best of {args.repeat})"))
        saves = _each_scheme(ws, tbl) if args.save_each else SAVES
        print(table([after_a_save(ws, der, path, tbl, args.repeat, t_read, scheme, value) for scheme, value in saves],
                    title="The summary page after one save (parts kept: summary.Parts)"))
        c = s["counts"]
        n_dis = sum(a.get("disagreements", 0) for a in s["agreement"].values())
        print(f"\nsummary says: {c['judgements']:,} judgements by {c['annotators']} annotators on {c['items']:,} items; "
              f"{n_dis:,} objects disagreed on ({len(full['disagreements']):,} records when listed)")
        big = max(s["agreement"], key=lambda n: s["agreement"][n].get("disagreements", 0))
        t_one, one = best_of(lambda: summary_core.disagreements(ws, read_rows(), big, derived=der), 1)
        print(f"listing one scheme's on demand ({big}, {len(one):,} records, read included): {t_one:.2f} s")
    if args.store_rows:
        print(table([store_read(args.store_rows, args.seed)],
                    title=f"Reading the store: {args.store_rows:,} rows, one file each"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
