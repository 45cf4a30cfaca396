"""Writes the summary's golden files from the summary as it stands (run once, before a rewrite).

    .venv/bin/python -m tests.golden.make_golden

Two studies, each a project, its stored rows as one Parquet file and the summary's JSON under
several filters:

- `generated/`: the benchmark's generated study (benchmarks/summary.py `generate`), every
  scheme of the demo project, 4 annotators an item;
- `real/`: the demo project's real runs (Potato-format demo runs, Who&When, TRAIL, with their
  gold), annotated by generated but valid values of every scheme, plus the odd rows a store can
  hold: reviewed-clean and cleared rows, done marks, a stale handoff, a step past the run's end.
"""
from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# (name, summarize() keyword arguments)
VARIANTS = [
    ("all", {}),
    ("k0", {"k": 0}),
    ("k3", {"k": 3}),
    ("two_annotators", {"annotators": None}),  # filled with the study's first two annotators
    ("some_schemes", {"schemes": ["attribution", "handoffs", "scorecard", "mast_steps", "symptoms"]}),
    ("some_items", {"items": None}),  # filled with every third item
]


def _variants(rows: pa.Table, item_ids: list[str]) -> list[tuple[str, dict]]:
    who = sorted(set(rows["annotator"].to_pylist()))
    out = []
    for name, kw in VARIANTS:
        kw = dict(kw)
        if "annotators" in kw:
            kw["annotators"] = who[:2]
        if "items" in kw:
            kw["items"] = item_ids[::3]
        out.append((name, kw))
    return out


def _write(folder: Path, ws, rows: pa.Table) -> None:
    from app._old.labels import frame
    from app._old.summary import summarize
    pq.write_table(rows, folder / "rows.parquet")
    out = {}
    for name, kw in _variants(rows, [it.id for it in ws.items]):
        out[name] = {"kwargs": kw, "summary": summarize(ws, frame(rows), **kw)}
    (folder / "summaries.json").write_text(json.dumps(out, sort_keys=True, indent=0, ensure_ascii=False))


def generated(folder: Path) -> None:
    from benchmarks.summary import generate
    with tempfile.TemporaryDirectory() as tmp:
        ws, _der, path = generate(Path(tmp), 6_000, 4, seed=7)
        rows = pq.read_table(path)
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(tmp) / "items.jsonl", folder / "items.jsonl")
        (folder / "project.yaml").write_text((Path(tmp) / "project.yaml").read_text().replace(str(Path(tmp)) + "/", ""))
        from app.project.workspace import open_project
        _write(folder, open_project(folder / "project.yaml"), rows)


def real(folder: Path) -> None:
    import yaml
    from app.store.storage import SCHEMA, sort_rows
    from app._old.summary import Derived
    from app.project.workspace import open_project
    from benchmarks.summary import _variants as valid_values
    folder.mkdir(parents=True, exist_ok=True)
    cfg = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())
    cfg["data_files"] = ["../../../data/demo_runs.jsonl", "../../../data/whowhen", "../../../data/trail"]
    cfg["output_annotation_dir"] = "annotations"
    (folder / "project.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    ws = open_project(folder / "project.yaml")
    der = Derived.of(ws)
    rng = random.Random(11)
    pool = ["ana", "bo", "cy", "dee", "eli"]
    cols = {n: [] for n in SCHEMA.names}

    def add(item, who, scheme, typ, value, status="annotated"):
        cols["item_id"].append(item)
        cols["annotator"].append(who)
        cols["scheme"].append(scheme)
        cols["annotation_type"].append(typ)
        cols["value"].append(value)
        cols["status"].append(status)
        cols["trace_hash"].append("h")
        cols["updated_at"].append(1_740_000_000_000_000)
        cols["seconds_spent"].append(round(rng.uniform(2, 90), 3))

    for it in ws.items:
        per = [(s, valid_values(der.get(it.id, s), s, rng)) for s in ws.project.schemes]
        for who in rng.sample(pool, rng.randint(2, 4)):
            for s, vs in per:
                if rng.random() < 0.1:
                    continue  # not every annotator answers every scheme
                status = "reviewed_clean" if rng.random() < 0.05 else ("cleared" if rng.random() < 0.03 else "annotated")
                add(it.id, who, s.name, s.type, vs[0] if rng.random() < 0.55 else rng.choice(vs), status)
            if rng.random() < 0.7:
                add(it.id, who, "_item", "_item", json.dumps({"done": True}))
    # odd rows: a handoff that the trace does not have, a decisive step past the run's end,
    # a contention region that does not exist, a scheme no longer configured
    first = ws.items[0].id
    add(first, "zed", "handoffs", "handoff_review",
        json.dumps([{"index": 999, "step": 3, "from": "X", "to": "Y", "flags": ["info_loss"], "quality": 2}]))
    add(first, "zed", "attribution", "failure_attribution",
        json.dumps({"responsible_agent": "Nobody", "decisive_step": 10_000, "reason": "past the end"}))
    add(first, "zed", "contention", "tool_contention", json.dumps({"contentions": {"77": "deadlock"}}))
    add(first, "zed", "retired", "radio", json.dumps({"yes": "true"}))
    cols["updated_at"] = pa.array(cols["updated_at"], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    _write(folder, ws, sort_rows(pa.table({k: cols[k] for k in SCHEMA.names}, schema=SCHEMA)))


def main() -> int:
    from app.store.storage import SCHEMA  # noqa: F401  (fails early when run outside the repo)
    generated(HERE / "generated")
    real(HERE / "real")
    return 0


if __name__ == "__main__":
    sys.exit(main())
