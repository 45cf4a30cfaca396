"""A demo project with every item judged by three annotators on every scheme (values valid for
each run, annotators disagreeing now and then): the summary's overview has something to show."""
from __future__ import annotations

import json
import random
from pathlib import Path

from tests.conftest import ROOT, write_project
from tests.summary_data import Saver

ANNOTATORS = ("alice", "bob", "carol")


def seeded_demo(tmp_path: Path, seed: int = 7) -> Path:
    """The demo project (its Potato runs, Who&When and TRAIL runs), judged by ANNOTATORS."""
    from benchmarks.summary import _variants
    from app.summary.rows import Derivations
    tmp_path.mkdir(parents=True, exist_ok=True)
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "demo_runs.jsonl"),
                                              str(ROOT / "data" / "whowhen"), str(ROOT / "data" / "trail")])
    save = Saver(cfg)
    rng = random.Random(seed)
    derivations = Derivations.of(save.ws)
    for it in save.ws.items:
        for s in save.ws.project.schemes:
            variants = _variants(derivations.getter(s)(it.id), s, rng)
            for who in ANNOTATORS:
                value = variants[0] if rng.random() < 0.6 else rng.choice(variants)
                save(it.id, who, s.name, json.loads(value), seconds=rng.uniform(20, 900))
        for who in ANNOTATORS:
            save(it.id, who, "_item", {"done": True})
    return cfg
