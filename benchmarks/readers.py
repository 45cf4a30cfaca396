"""Reader throughput and memory on the TRAIL samples and a seeded 50 MB span tree.

    .venv/bin/python -m benchmarks.readers [--mb 50] [--seed 7] [--keep PATH] [--repeat 3]

For each file: its size, the best time of plain `json.load` and of Baton's reader
(`app.readers.read_file`: parse, build steps/tool calls/timed calls/gold, drop the raw
tree), the rate in MB/s, the peak memory of each (tracemalloc) and the memory the items
still hold once read. The generated trace is TRAIL-shaped (a manager handing off to a
`search_agent`, tool spans, gold beside it) and, like real TRAIL traces, every LLM span
repeats the whole conversation so far in its input, twice (flattened messages and the
`input.value` JSON).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.traces.readers import read_file  # noqa: E402
from benchmarks.gen import best_of  # noqa: E402

SAMPLES = ROOT.parent / "shared" / "datasets" / "trail"
WORDS = ("agent tool search result file answer plan step code error page query value list table "
         "model trace call output input the of and to in is for on with").split()


def _text(rng: random.Random, n: int) -> str:
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


class _Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.t = datetime(2025, 3, 19, 16, 0, tzinfo=timezone.utc)
        self.n = 0

    def sid(self) -> str:
        self.n += 1
        return f"{self.rng.getrandbits(64):016x}"

    def span(self, name, kind, attrs, seconds, children=(), parent=None):
        start = self.t
        self.t += timedelta(seconds=seconds)
        sid = self.sid()
        attrs = dict(attrs, **({"openinference.span.kind": kind} if kind else {}))
        kids = [c(sid) for c in children]
        return {"timestamp": start.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "trace_id": "bench", "span_id": sid,
                "parent_span_id": parent, "span_name": name, "duration": f"PT{seconds:.6f}S",
                "status_code": "Ok", "status_message": "", "span_attributes": attrs, "logs": [],
                "child_spans": kids}

    def llm(self, messages, output):
        attrs = {"input.value": json.dumps({"messages": messages}), "llm.model_name": "bench-model",
                 "llm.output_messages.0.message.role": "assistant",
                 "llm.output_messages.0.message.content": output,
                 "output.value": json.dumps({"role": "assistant", "content": output})}
        for i, m in enumerate(messages):
            attrs[f"llm.input_messages.{i}.message.role"] = m["role"]
            attrs[f"llm.input_messages.{i}.message.content"] = m["content"]
        return lambda parent: self.span("LiteLLMModel.__call__", "LLM", attrs, self.rng.uniform(1, 9),
                                        parent=parent)

    def tool(self, name, result):
        attrs = {"tool.name": name, "input.value": json.dumps({"args": [], "kwargs": {"query": "q"}}),
                 "output.value": result}
        return lambda parent: self.span(name, "TOOL", attrs, self.rng.uniform(0.1, 3), parent=parent)


def generate(path: Path, mb: float = 50, seed: int = 7) -> Path:
    """A seeded TRAIL-shaped trace of about `mb` megabytes (and its gold) at `path`."""
    g = _Gen(seed)
    target = mb * 1e6
    conv = {"manager": [{"role": "system", "content": _text(g.rng, 3000)},
                        {"role": "user", "content": "New task:\n" + _text(g.rng, 800)}],
            "search_agent": []}
    steps, size, locations = [], 0, []
    while size < target:
        out = "Thought: " + _text(g.rng, g.rng.randint(300, 1500))
        msgs = list(conv["manager"])
        llm = g.llm(msgs, out)
        kids = [llm]
        size += 2 * sum(len(m["content"]) for m in msgs) + 2 * len(out)
        conv["manager"] += [{"role": "assistant", "content": out}]
        if g.rng.random() < 0.3:  # hand off to the sub-agent
            sub = [{"role": "system", "content": _text(g.rng, 2000)},
                   {"role": "user", "content": "You're a helpful agent named 'search_agent'. " + _text(g.rng, 400)}]
            sub_kids = []
            for _ in range(g.rng.randint(1, 3)):
                o = "Calling web_search: " + _text(g.rng, 300)
                sub_kids += [g.llm(list(sub), o), g.tool("web_search", _text(g.rng, 1500))]
                size += 2 * sum(len(m["content"]) for m in sub) + 1900
                sub += [{"role": "assistant", "content": o}, {"role": "tool-response", "content": _text(g.rng, 1500)}]
            task = json.dumps({"task": sub[1]["content"]})
            kids.append(lambda parent, sk=sub_kids, task=task: g.span(
                "ToolCallingAgent.run", "AGENT", {"input.value": task}, 1.0, sk, parent))
            obs = "Here is the final answer from your managed agent 'search_agent': " + _text(g.rng, 800)
        else:
            kids.append(g.tool("inspect_file_as_text", _text(g.rng, 1200)))
            obs = "Observation: " + _text(g.rng, 1200)
        conv["manager"] += [{"role": "tool-response", "content": obs}]
        n = len(steps) + 1
        steps.append(lambda parent, kids=kids, n=n: g.span(f"Step {n}", "CHAIN", {}, 1.0, kids, parent))
    root = g.span("CodeAgent.run", "AGENT", {"input.value": json.dumps({"task": conv["manager"][1]["content"]}),
                                             "smolagents.managed_agents.0.name": "search_agent"}, 1.0, steps)

    def llm_ids(s):
        if s["span_attributes"].get("openinference.span.kind") == "LLM":
            yield s["span_id"]
        for c in s["child_spans"]:
            yield from llm_ids(c)
    ids = list(llm_ids(root))
    locations = g.rng.sample(ids, min(5, len(ids)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"trace_id": "bench", "spans": [root]}))
    gold = path.parent.parent / "gold" / "bench.json"
    gold.parent.mkdir(parents=True, exist_ok=True)
    gold.write_text(json.dumps({"trace_id": "bench", "errors": [
        {"category": "Formatting Errors", "location": loc, "evidence": "", "description": "seeded",
         "impact": g.rng.choice(["LOW", "MEDIUM", "HIGH"])} for loc in locations], "scores": []}))
    return path


def _peak(fn) -> tuple[float, float]:
    """(peak MB while running, MB still held by the result)."""
    gc.collect()
    tracemalloc.start()
    result = fn()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak / 1e6, held / 1e6


def measure(path: Path, repeat: int) -> dict:
    mb = path.stat().st_size / 1e6

    def plain():
        with path.open(encoding="utf-8") as f:
            return json.load(f)

    def baton():
        items, problems = read_file(path)
        assert items, problems
        return items
    t_json, t_read = best_of(plain, repeat)[0], best_of(baton, repeat)[0]
    (p_json, h_json), (p_read, h_read) = _peak(plain), _peak(baton)
    items = baton()
    d = items[0].data
    return {"file": path.name, "MB": mb, "json.load s": t_json, "read s": t_read,
            "json MB/s": mb / t_json, "read MB/s": mb / t_read, "read/json": t_read / t_json,
            "peak json MB": p_json, "peak read MB": p_read, "held json MB": h_json, "held items MB": h_read,
            "steps": len(d["steps"]), "calls": len(d["calls"]),
            "≤ 3x json": "met" if t_read / t_json <= 3 else "MISSED"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.readers", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50, help="size of the generated trace (default 50)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="timing runs per file; the best is kept")
    ap.add_argument("--keep", help="write the generated trace under this folder and keep it")
    ap.add_argument("--no-samples", action="store_true", help="only the generated trace")
    args = ap.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)", flush=True)
    paths = [] if args.no_samples else sorted(p for d in ("gaia", "swe-bench") for p in (SAMPLES / d).glob("*.json"))
    tmp = None
    if args.keep:
        folder = Path(args.keep)
    else:
        tmp = tempfile.TemporaryDirectory()
        folder = Path(tmp.name)
    t = time.perf_counter()
    gen = generate(folder / "bench" / "bench.json", args.mb, args.seed)
    print(f"generated {gen} ({gen.stat().st_size / 1e6:.1f} MB, seed {args.seed}) in "
          f"{time.perf_counter() - t:.1f} s")
    cols = ["file", "MB", "json.load s", "read s", "json MB/s", "read MB/s", "read/json", "peak json MB",
            "peak read MB", "held json MB", "held items MB", "steps", "calls", "≤ 3x json"]
    print("  ".join(f"{c:>13}" for c in cols))
    for p in paths + [gen]:
        row = measure(p, args.repeat if p is not gen else max(1, args.repeat - 1))
        print("  ".join(f"{row[c][:13] if isinstance(row[c], str) else row[c]:>13.3f}"
                        if isinstance(row[c], float) else f"{str(row[c])[:13]:>13}" for c in cols))
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
