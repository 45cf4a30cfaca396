"""Seeded generated items and projects for the benchmarks (no Streamlit here).

An item is one multi-agent run in Potato's item format: `n` steps by several agents (the
acting agent changes often, so there are many handoffs), a Potato tool call on about a
third of the steps, and `n` timed calls `{agent, tool, resource, start, end}` on a few
shared resources, overlapping often enough to give many contention regions. The same seed
always gives the same item.
"""
from __future__ import annotations

import gc
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

AGENTS = ["Planner", "Researcher", "Coder", "Reviewer", "Executor", "Critic"]
TOOLS = ["search", "read_file", "write_file", "run_tests", "query_db", "http_get"]
RESOURCES = ["db", "filesystem", "web", "gpu"]
WORDS = ("agent tool search result file answer plan step code error page query value list table model "
         "trace call output input the of and to in is for on with check test fix run").split()


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def make_item(item_id: str, n_steps: int, n_calls: int | None = None, seed: int = 0) -> dict:
    """One run of `n_steps` steps and `n_calls` (default `n_steps`) timed calls."""
    rng = random.Random(f"{seed}:{item_id}")
    n_calls = n_steps if n_calls is None else n_calls
    agent = AGENTS[0]
    steps = []
    for i in range(n_steps):
        if i and rng.random() < 0.45:  # a handoff
            agent = rng.choice([a for a in AGENTS if a != agent])
        step = {"agent": agent, "content": _text(rng, rng.randint(8, 40))}
        if rng.random() < 0.33:
            step["tool_calls"] = [{"name": rng.choice(TOOLS),
                                   "args": {"query": _text(rng, 3), "n": rng.randint(1, 9)}}]
        steps.append(step)
    # Timed calls: starts spread over the run, mean duration a bit above the mean gap per
    # resource, so that roughly a third of the calls end up in contention regions.
    calls = []
    span = max(n_calls, 1) * 1.0
    for _ in range(n_calls):
        start = rng.uniform(0, span)
        calls.append({"agent": rng.choice(AGENTS), "tool": rng.choice(TOOLS), "resource": rng.choice(RESOURCES),
                      "start": round(start, 3), "end": round(start + rng.expovariate(1 / 1.2), 3)})
    calls.sort(key=lambda c: c["start"])
    return {"id": item_id, "text": f"Generated run {item_id}: " + _text(rng, 20), "steps": steps, "calls": calls}


def schemes() -> list[dict]:
    """Every annotation type, configured as in the demo project."""
    import yaml
    cfg = yaml.safe_load((ROOT / "configs" / "demo.yaml").read_text())
    out = []
    for s in cfg["annotation_schemes"]:
        s = dict(s)
        s.pop("show_if", None)  # ask every scheme on every item: all surfaces are measured
        out.append(s)
    return out


def write_project(folder: Path, sizes: list[int], per_size: int = 1, seed: int = 0,
                  calls: dict[int, int] | None = None) -> Path:
    """A project under `folder` with `per_size` items of each size (ids `run-<n>-<k>`)."""
    import yaml
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "items.jsonl"
    with data.open("w") as f:
        for n in sizes:
            for k in range(per_size):
                item = make_item(f"run-{n}-{k}", n, (calls or {}).get(n, n), seed)
                f.write(json.dumps(item) + "\n")
    cfg = {"annotation_task_name": "Baton benchmark", "data_files": [str(data)],
           "item_properties": {"id_key": "id", "text_key": "text"},
           "output_annotation_dir": str(folder / "annotations"), "annotation_schemes": schemes()}
    path = folder / "project.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


# --- output -------------------------------------------------------------------------------------

def table(rows: list[dict], cols: list[str] | None = None, title: str | None = None) -> str:
    """A Markdown table (numbers formatted), printed as is and pasted into notes."""
    if not rows:
        return ""
    cols = cols or list(dict.fromkeys(c for r in rows for c in r))  # every row's columns, in first-seen order

    def fmt(v):
        if isinstance(v, float):
            if v != v:
                return "–"
            return f"{v:,.0f}" if abs(v) >= 1000 else (f"{v:.3g}" if abs(v) < 1 else f"{v:,.1f}")
        if isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}"
        return "–" if v is None else str(v)

    cells = [[fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ([f"\n### {title}\n"] if title else [])
    lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(cols, widths)) + " |")
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += ["| " + " | ".join(v.rjust(w) for v, w in zip(row, widths)) + " |" for row in cells]
    return "\n".join(lines)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


class Timer:
    def __enter__(self):
        self.t = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.s = time.perf_counter() - self.t


def best_of(fn, repeat: int) -> tuple[float, object]:
    """(the fastest of `repeat` runs of fn in seconds, the last run's result); a full collection
    before each run, so garbage left by the previous one is not collected inside the timing."""
    best, out = math.inf, None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out
