"""Small literal annotation sets for the summary, agreement, gold and export tests."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from app.store.storage import Annotation, AnnotationStore
from app.project.workspace import open_project
from tests.conftest import ROOT, shared_dataset, write_project

CODE = "code-team-002"  # Manager, Coder, Coder, Tester, Coder, Tester, Manager, Coder, Reviewer, Manager
TRIP = "trip-planner-001"
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
OLDER = "a-trace-hash-of-other-data"  # the trace_hash of a row made before the trace changed


class Saver:
    """Writes annotations the way the app does (type from the project, the item's trace hash)."""

    def __init__(self, config: Path):
        self.ws = open_project(config)
        self.store = AnnotationStore(self.ws.project.output_dir)

    def __call__(self, item: str, who: str, scheme: str, value, status: str = "annotated",
                 seconds: float = 10.0, trace_hash: str | None = None):
        """(`trace_hash`: made on other data, e.g. OLDER; else on the item's trace as it is now)"""
        t = "_item" if scheme == "_item" else self.ws.project.scheme(scheme).type
        return self.store.save(Annotation(item, who, scheme, t, value, status,
                                          trace_hash or self.ws.by_id[item].trace_hash, T0, seconds))


def demo(tmp_path: Path) -> tuple[Path, Saver]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    cfg = write_project(tmp_path)
    return cfg, Saver(cfg)


def whowhen(tmp_path: Path) -> tuple[Path, Saver]:
    """The twelve shared Who&When runs and the four in data/ (skips without ../shared)."""
    cfg = write_project(tmp_path, data_files=[str(shared_dataset("whowhen")), str(ROOT / "data" / "whowhen")])
    return cfg, Saver(cfg)


def attribution(agent, step, reason="") -> dict:
    return {"responsible_agent": agent, "decisive_step": step, "reason": reason}


def same(a: dict, b: dict) -> bool:
    """Two summaries equal as JSON (keys sorted)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def generated_study(folder: Path, seed: int):
    """A generated study (every scheme of the demo, 4 annotators an item, 2,400 rows:
    benchmarks/summary.py's generator): (workspace, derivations, its rows framed)."""
    import pyarrow.parquet as pq
    from app.summary.rows import frame
    from benchmarks.summary import generate
    ws, der, path = generate(folder, 2_400, 4, seed=seed)
    return ws, der, frame(pq.read_table(path))
