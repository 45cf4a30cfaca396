"""Find resource contention between agents' tool calls.

Two calls contend when they use the same resource, their half-open time
intervals [start, end) overlap, and (by default) different agents made them.
A contention region is a connected component of that relation with at least
two calls, so a chain A-B-C where only neighbours overlap is one region.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Iterable

from .timeparse import _show, parse_time

__all__ = [
    "Call",
    "Region",
    "normalize_calls",
    "find_regions",
    "find_regions_quadratic",
]

UNKNOWN = "(unknown)"


@dataclass(slots=True)
class Call:
    """One tool call; start/end are None where invalid, with `problem` set."""

    index: int
    agent: str
    tool: str
    resource: str
    start: float | None
    end: float | None
    problem: str | None = None


@dataclass(slots=True)
class Region:
    """A maximal group of calls connected by pairwise contention."""

    index: int
    resource: str
    start: float
    end: float
    calls: tuple[int, ...]
    agents: tuple[str, ...]


def _label(v: object) -> str | None:
    """Return v as display text, or None when it is missing or blank."""
    if v is None:
        return None
    text = str(v)
    return text if text.strip() else None


def normalize_calls(
    raw_calls: list, agent_key: str = "agent", resource_key: str = "resource"
) -> tuple[list[Call], list[str]]:
    """Turn raw call dicts into Calls, one per input entry, plus problem messages.

    Nothing is dropped: a non-dict entry, a missing or unparsable time,
    end < start, or no tool and no resource yields a Call with `problem` set
    (and the bad times None), and find_regions skips it. The resource
    defaults to the tool name; a missing agent becomes "(unknown)".
    """
    calls: list[Call] = []
    problems: list[str] = []
    isfinite = math.isfinite
    for i, raw in enumerate(raw_calls):
        # Fast path, the common case: a dict with numeric times and text (or no) names.
        if type(raw) is dict:
            start, end = raw.get("start"), raw.get("end")
            ts, te = type(start), type(end)
            if (ts is float or ts is int) and (te is float or te is int) and isfinite(start) \
                    and isfinite(end) and end >= start:
                tool, resource, agent = raw.get("tool"), raw.get(resource_key), raw.get(agent_key)
                if (tool is None or type(tool) is str) and (resource is None or type(resource) is str) \
                        and (agent is None or type(agent) is str):
                    tool = tool if tool and tool.strip() else None
                    resource = (resource if resource and resource.strip() else None) or tool
                    if resource is not None:
                        calls.append(Call(i, agent if agent and agent.strip() else UNKNOWN, tool or UNKNOWN,
                                          resource, float(start), float(end), None))
                        continue
        if not isinstance(raw, dict):
            msg = f"calls[{i}]: expected a dict, got {type(raw).__name__}"
            problems.append(msg)
            calls.append(Call(i, UNKNOWN, UNKNOWN, UNKNOWN, None, None, msg))
            continue
        own: list[str] = []
        tool = _label(raw.get("tool"))
        resource = _label(raw.get(resource_key))
        if resource is None:
            resource = tool
        if resource is None:
            # Defaulting to a shared placeholder would make every such call
            # appear to contend with every other one.
            own.append(
                f"calls[{i}].{resource_key}: expected a resource or a tool name, got nothing"
            )
        times: dict[str, float | None] = {}
        for key in ("start", "end"):
            if key not in raw or raw[key] is None:
                times[key] = None
                own.append(
                    f"calls[{i}].{key}: expected a number of seconds or an ISO 8601 time, got nothing"
                )
                continue
            try:
                times[key] = parse_time(raw[key])
            except ValueError as e:
                times[key] = None
                own.append(f"calls[{i}].{key}: {e}")
        start, end = times["start"], times["end"]
        if start is not None and end is not None and end < start:
            own.append(
                f"calls[{i}].end: expected a time at or after start ({_show(raw['start'])}), "
                f"got {_show(raw['end'])}"
            )
            end = None
        problems.extend(own)
        calls.append(
            Call(
                index=i,
                agent=_label(raw.get(agent_key)) or UNKNOWN,
                tool=tool or UNKNOWN,
                resource=resource or UNKNOWN,
                start=start,
                end=end,
                problem="; ".join(own) or None,
            )
        )
    return calls, problems


def _usable(c: Call) -> bool:
    """True if the call can contend: no problem and a non-empty interval."""
    # Zero-length [t, t) is an empty set, so it overlaps nothing.
    return c.problem is None and c.start is not None and c.end is not None and c.end > c.start


class _UnionFind:
    """Disjoint sets over 0..n-1 with union by size and path halving."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> int:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return ra


def _build_regions(calls: list[Call], components: Iterable[list[int]]) -> list[Region]:
    """Make numbered Regions from components (lists of positions in calls)."""
    drafts = []
    for comp in components:
        if len(comp) < 2:
            continue
        # Position breaks ties so hand-built calls sharing an index still
        # give one answer.
        members = sorted((calls[p].start, calls[p].index, p) for p in comp)
        first = calls[members[0][2]]
        agents: dict[str, None] = {}
        end = first.end
        for _start, _index, p in members:
            c = calls[p]
            agents.setdefault(c.agent, None)
            if c.end > end:
                end = c.end
        drafts.append((first.start, first.resource, end, tuple(sorted(m[1] for m in members)), tuple(agents)))
    # numbered by start, then resource, then first call
    drafts.sort(key=lambda d: (d[0], d[1], d[3][0]))
    return [Region(i, resource, start, end, members, agents)
            for i, (start, resource, end, members, agents) in enumerate(drafts)]


def _sweep(calls: list[Call], positions: list[int], uf: _UnionFind, same_agent: bool) -> None:
    """Union contending calls among `positions` (one resource, sorted by start).

    Active calls are held in blocks, one per connected component, each
    counting its active calls per agent. A block is filed as "mixed" (two or
    more agents) or under its sole agent. A new call of agent h is unioned once
    with every block that is not sole-h (with same_agent, all calls share one
    agent key and every block qualifies); the merged result is a single block.
    So after each call only that block can be mixed, and sole blocks belong to
    at most two agents: finding targets is O(1) plus the blocks merged, and
    merging only reduces the number of blocks.
    """
    live: dict[int, dict[str, int]] = {}  # block root -> agent -> active calls
    mixed: set[int] = set()
    sole: dict[str, set[int]] = {}
    heap: list[tuple[float, int]] = []  # (end, position) of active calls

    def key(p: int) -> str:
        return "" if same_agent else calls[p].agent

    def file(root: int) -> None:
        counts = live[root]
        if len(counts) > 1:
            mixed.add(root)
        else:
            sole.setdefault(next(iter(counts)), set()).add(root)

    def unfile(root: int) -> None:
        counts = live[root]
        if len(counts) > 1:
            mixed.discard(root)
        else:
            agent = next(iter(counts))
            sole[agent].discard(root)
            if not sole[agent]:
                del sole[agent]

    for p in positions:
        c, h = calls[p], key(p)
        while heap and heap[0][0] <= c.start:  # half-open: end == start is gone
            q = heapq.heappop(heap)[1]
            r, a = uf.find(q), key(q)
            counts = live[r]
            if counts[a] > 1:
                counts[a] -= 1
            elif len(counts) > 2:
                del counts[a]
            else:
                unfile(r)
                del counts[a]
                if counts:
                    # Copy to compact: a shrunk dict keeps dead slots that
                    # next(iter()) in file/unfile would otherwise rescan.
                    live[r] = dict(counts)
                    file(r)
                else:
                    del live[r]
        targets = list(mixed)
        for agent, roots in sole.items():
            if same_agent or agent != h:
                targets.extend(roots)
        counts, root = {h: 1}, p
        for r in targets:
            unfile(r)
            other = live.pop(r)
            # Fold the smaller count table into the larger; all but one
            # target are sole blocks, so this is O(1) per target.
            if len(other) > len(counts):
                counts, other = other, counts
            for a, n in other.items():
                counts[a] = counts.get(a, 0) + n
            root = uf.union(root, r)
        live[root] = counts
        file(root)
        heapq.heappush(heap, (c.end, p))


def find_regions(calls: list[Call], same_agent: bool = False) -> list[Region]:
    """Return contention regions by a sweep over start times, per resource.

    Calls are sorted by (start, index) and expire from a heap by end once
    end <= the current start. A new call joins every active connected
    component holding an active call of another agent (any agent when
    same_agent) with one union per component, never per pair (see _sweep).
    Time O(n log n) for n calls, independent of the number k of contending
    pairs, so within O(n log n + k); space O(n).
    """
    by_resource: dict[str, list[tuple]] = {}
    for pos, c in enumerate(calls):
        if _usable(c):
            by_resource.setdefault(c.resource, []).append((c.start, c.index, pos))
    uf: _UnionFind | None = None
    components: list[list[int]] = []

    def settle(cluster: list[int]) -> None:
        """A cluster of transitively overlapping calls (any agents): its regions."""
        nonlocal uf
        if len(cluster) < 2:
            return
        if not same_agent:
            first = calls[cluster[0]].agent
            if all(calls[p].agent == first for p in cluster):
                return  # one agent only: nothing contends
        if len(cluster) == 2:  # two overlapping calls (of two agents, or same_agent)
            components.append(cluster)
            return
        if uf is None:
            uf = _UnionFind(len(calls))
        _sweep(calls, cluster, uf, same_agent)
        parts: dict[int, list[int]] = {}
        for p in cluster:
            parts.setdefault(uf.find(p), []).append(p)
        components.extend(parts.values())

    # Every region lies inside one cluster of calls whose intervals overlap transitively,
    # whatever their agents; most clusters are single calls or one agent's, and are skipped
    # without the sweep's bookkeeping.
    for entries in by_resource.values():
        entries.sort()  # by (start, index), then position
        cluster: list[int] = []
        reach = -math.inf
        for start, _index, p in entries:
            if start >= reach:  # half-open: a call starting at the reach does not overlap
                if len(cluster) > 1:
                    settle(cluster)
                cluster = [p]
            else:
                cluster.append(p)
            end = calls[p].end
            if end > reach:
                reach = end
        settle(cluster)
    return _build_regions(calls, components)


def find_regions_quadratic(calls: list[Call], same_agent: bool = False) -> list[Region]:
    """Reference implementation: test every pair, O(n^2). For tests only."""
    usable = [p for p, c in enumerate(calls) if _usable(c)]
    adjacent: dict[int, list[int]] = {p: [] for p in usable}
    for i, a in enumerate(usable):
        for b in usable[i + 1 :]:
            ca, cb = calls[a], calls[b]
            if (
                ca.resource == cb.resource
                and (same_agent or ca.agent != cb.agent)
                and max(ca.start, cb.start) < min(ca.end, cb.end)
            ):
                adjacent[a].append(b)
                adjacent[b].append(a)
    seen: set[int] = set()
    components = []
    for p in usable:
        if p in seen:
            continue
        seen.add(p)
        stack, comp = [p], []
        while stack:
            q = stack.pop()
            comp.append(q)
            for r in adjacent[q]:
                if r not in seen:
                    seen.add(r)
                    stack.append(r)
        components.append(comp)
    return _build_regions(calls, components)
