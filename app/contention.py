"""Find resource contention between agents' tool calls.

Two calls contend when they use the same resource, their half-open time
intervals [start, end) overlap, and (by default) different agents made them.
A contention region is a connected component of that relation with at least
two calls, so a chain A-B-C where only neighbours overlap is one region.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Hashable, Iterable

from app.timeparse import _show, parse_time

__all__ = [
    "Call",
    "Region",
    "normalize_calls",
    "find_regions",
    "find_regions_quadratic",
]

UNKNOWN = "(unknown)"


@dataclass(frozen=True)
class Call:
    """One tool call; start/end are None where invalid, with `problem` set."""

    index: int
    agent: str
    tool: str
    resource: str
    start: float | None
    end: float | None
    problem: str | None = None


@dataclass(frozen=True)
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
    for i, raw in enumerate(raw_calls):
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
    regions = []
    for comp in components:
        if len(comp) < 2:
            continue
        members = [calls[p] for p in comp]
        agents: dict[str, None] = {}
        for c in sorted(members, key=lambda c: (c.start, c.index)):
            agents.setdefault(c.agent, None)
        regions.append(
            Region(
                index=0,
                resource=members[0].resource,
                start=min(c.start for c in members),
                end=max(c.end for c in members),
                calls=tuple(sorted(c.index for c in members)),
                agents=tuple(agents),
            )
        )
    regions.sort(key=lambda r: (r.start, r.resource, r.calls[0]))
    return [
        Region(i, r.resource, r.start, r.end, r.calls, r.agents)
        for i, r in enumerate(regions)
    ]


class _Group:
    """Active calls of one agent on one resource, in a min-heap by end.

    `merged` means every active member is already in the component of
    `anchor` (which may itself have expired: components only grow), so a new
    call needs a single union with the anchor instead of one per member.
    """

    __slots__ = ("heap", "merged", "anchor")

    def __init__(self, end: float, pos: int) -> None:
        self.heap: list[tuple[float, int]] = [(end, pos)]
        self.merged = True
        self.anchor = pos


def find_regions(calls: list[Call], same_agent: bool = False) -> list[Region]:
    """Return contention regions by a sweep over start times, per resource.

    Calls are sorted by (start, index); each agent's active calls sit in a
    heap by end and expire lazily once end <= the current start. A new call
    is unioned with the active calls of other agents (any agent when
    same_agent), but with just one union for a group that is fully merged.
    Every member scanned, and every non-empty group visited, is a contending
    partner of the new call; empty groups are paid for by their expirations.
    Time O(n log n + k) for n calls and k contending pairs, often far less
    than k; all pairs are never compared. Space O(n).
    """
    uf = _UnionFind(len(calls))
    by_resource: dict[str, list[int]] = {}
    for pos, c in enumerate(calls):
        if _usable(c):
            by_resource.setdefault(c.resource, []).append(pos)

    for positions in by_resource.values():
        positions.sort(key=lambda p: (calls[p].start, calls[p].index))
        groups: dict[Hashable, _Group] = {}
        dropped = 0
        for p in positions:
            c = calls[p]
            own = None if same_agent else c.agent
            for key, grp in list(groups.items()):
                heap = grp.heap
                while heap and heap[0][0] <= c.start:
                    heapq.heappop(heap)
                if not heap:
                    del groups[key]
                    dropped += 1
                    continue
                if key == own and not same_agent:
                    continue
                if grp.merged:
                    uf.union(p, grp.anchor)
                else:
                    for _, q in heap:
                        uf.union(p, q)
                    grp.merged, grp.anchor = True, p
            # Dicts keep deleted slots until they grow; rebuilding bounds the
            # cost of iterating `groups` by its live size (amortized O(1)).
            if dropped > len(groups):
                groups, dropped = dict(groups), 0
            grp = groups.get(own)
            if grp is None:
                groups[own] = _Group(c.end, p)
            else:
                if grp.merged and uf.find(p) != uf.find(grp.anchor):
                    grp.merged = False
                heapq.heappush(grp.heap, (c.end, p))

    components: dict[int, list[int]] = {}
    for positions in by_resource.values():
        for p in positions:
            components.setdefault(uf.find(p), []).append(p)
    return _build_regions(calls, components.values())


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
