"""What the annotation surfaces offer, derived from one item's trace.

Agents in first-seen order; a handoff wherever the acting agent changes between
consecutive steps; graph edges are handoffs counted per ordered pair; tool calls and
contention regions numbered deterministically so a stored index always means the
same object.
"""
from __future__ import annotations

import functools
import gc
import sys
import threading
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.traces.contention import Region, find_regions
from app.traces.timed_calls import Call, normalize_calls
from app.traces.toolcall import ToolCall, extract_tool_calls
from app.traces.trace import UNKNOWN_AGENT, Step, one_line, raw_steps, read_steps, step_label

STEP_LABEL = 60  # characters of a step's text in its label (Derivation.step_labels)


@dataclass(slots=True)
class Handoff:
    index: int
    step: int  # the first step of the receiving agent
    src: str
    dst: str


@dataclass
class Derivation:
    agents: list[str]
    steps: list[Step]
    handoffs: list[Handoff]
    edges: list[tuple[str, str, int]]  # (from, to, count) in first-occurrence order
    step_counts: dict[str, int]
    tool_calls: list[ToolCall]
    calls: list[Call]
    contentions: list[Region]
    problems: list[str] = field(default_factory=list)

    @property
    def unknown_steps(self) -> int:
        return self.step_counts.get(UNKNOWN_AGENT, 0)

    @functools.cached_property
    def step_agents(self) -> tuple[str, ...]:
        """The agent of each step, by position, each name one shared (interned) string: the
        summary reads these for every judged step of every item, and a parsed trace holds a
        string per step, scattered in memory; columns built from shared strings were about four
        times faster to build and to code."""
        return tuple(map(sys.intern, [s.agent for s in self.steps]))

    @functools.cached_property
    def edge_columns(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The edges' agents as columns (from, to), interned (see step_agents)."""
        return tuple(sys.intern(e[0]) for e in self.edges), tuple(sys.intern(e[1]) for e in self.edges)

    @functools.cached_property
    def handoff_columns(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...], tuple[str, ...]]:
        """The handoffs as columns (index, step, from, to), agents interned: the summary reads
        every handoff of every reviewed item, and columns joined across items cost a fraction
        of reading each handoff's four fields."""
        hs = self.handoffs
        return (tuple(h.index for h in hs), tuple(h.step for h in hs), tuple(sys.intern(h.src) for h in hs),
                tuple(sys.intern(h.dst) for h in hs))

    @functools.cached_property
    def step_labels(self) -> tuple[str, ...]:
        """Each step's label (trace.step_label), by position: the options of a step picker,
        made once per run, not on every rerun (5,000 steps: ~9 ms a rerun)."""
        return tuple(step_label(s.index, s.agent, one_line(s.text, STEP_LABEL)) for s in self.steps)


def find_handoffs(steps: list[Step]) -> list[Handoff]:
    out: list[Handoff] = []
    for prev, cur in zip(steps, steps[1:]):
        if cur.agent != prev.agent:
            out.append(Handoff(len(out), cur.index, prev.agent, cur.agent))
    return out


def count_edges(handoffs: list[Handoff]) -> list[tuple[str, str, int]]:
    counts: dict[tuple[str, str], int] = {}
    for h in handoffs:
        counts[(h.src, h.dst)] = counts.get((h.src, h.dst), 0) + 1
    return [(a, b, n) for (a, b), n in counts.items()]


@contextmanager
def no_gc():
    """Pause the cyclic garbage collector: the derivations allocate hundreds of thousands of
    small acyclic objects, and the collections they trigger (each walking every live object,
    the parsed trace included) cost a third of the time. Reference counting still frees
    everything; the collector is resumed (if it was running) on the way out.

    Threads (sessions, prefetch) pause it together: it is resumed when the last of them leaves.
    (Each remembering what it found would let one that looked while another had it paused
    pause it for good, once that other had resumed it in between.)"""
    global _paused, _resume
    with _pause_lock:
        if not _paused:
            _resume = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused -= 1
            if not _paused and _resume:
                gc.enable()


_pause_lock = threading.Lock()
_paused = 0  # how many no_gc() blocks are running, in any thread
_resume = False  # whether the collector ran before the first of them


def derive(data: dict, steps_key: str = "steps", agent_key: str = "agent", calls_key: str = "calls",
           resource_key: str = "resource", same_agent: bool = False,
           text_key: str | None = None) -> Derivation:
    with no_gc():
        return _derive(data, steps_key, agent_key, calls_key, resource_key, same_agent, text_key)


def _derive(data, steps_key, agent_key, calls_key, resource_key, same_agent, text_key) -> Derivation:
    steps = read_steps(data, steps_key, agent_key, text_key)
    agents_of_steps = [s.agent for s in steps]
    counts: dict[str, int] = dict(Counter(agents_of_steps))  # in first-seen order
    handoffs = find_handoffs(steps)
    # the entries read_steps read, one Step each
    tool_calls = extract_tool_calls(raw_steps(data, steps_key), agents_of_steps.__getitem__)
    problems: list[str] = []
    raw_calls = data.get(calls_key)
    if raw_calls is None:
        raw_calls = []
    elif not isinstance(raw_calls, list):
        problems.append(f"{calls_key}: expected a list of calls, got {type(raw_calls).__name__}")
        raw_calls = []
    calls, call_problems = normalize_calls(raw_calls, agent_key=agent_key, resource_key=resource_key)
    problems.extend(call_problems)
    agents = list(counts)
    for c in calls:  # agents that only appear in timed calls still took part
        if c.agent not in counts and c.agent not in agents:
            agents.append(c.agent)
    if steps_key not in data and raw_calls == []:
        problems.append(f'no "{steps_key}" list in the item (steps_key)')
    return Derivation(agents, steps, handoffs, count_edges(handoffs), counts, tool_calls, calls,
                      find_regions(calls, same_agent=same_agent), problems)


def to_json(item_id: str, d: Derivation) -> dict[str, Any]:
    """The shape `python -m app derive` prints (times in seconds)."""
    return {
        "id": item_id,
        "agents": d.agents,
        "steps": [{"index": s.index, "id": s.id, "agent": s.agent} for s in d.steps],
        "handoffs": [{"index": h.index, "step": h.step, "from": h.src, "to": h.dst} for h in d.handoffs],
        "edges": [{"from": a, "to": b, "count": n} for a, b, n in d.edges],
        "tool_calls": [{"index": t.index, "step": t.step, "tool": t.tool, "arguments": t.arguments}
                       for t in d.tool_calls],
        "calls": [{"index": c.index, "agent": c.agent, "tool": c.tool, "resource": c.resource,
                   "start": c.start, "end": c.end, **({"problem": c.problem} if c.problem else {})}
                  for c in d.calls],
        "contentions": [{"index": r.index, "resource": r.resource, "start": r.start, "end": r.end,
                         "calls": list(r.calls), "agents": list(r.agents)} for r in d.contentions],
        "problems": d.problems,
    }


def scheme_keys(scheme) -> dict[str, Any]:
    """derive() keyword arguments for a scheme (its steps/agent/calls keys)."""
    opts = scheme.options if scheme is not None else {}
    # (Potato's turn-tagging schemes name their list `turns_key`)
    return {"steps_key": opts.get("turns_key") or opts.get("steps_key", "steps"), "agent_key": opts.get("agent_key", "agent"),
            "calls_key": opts.get("calls_key", "calls"), "resource_key": opts.get("resource_key", "resource"),
            "same_agent": bool(opts.get("include_same_agent", False))}
