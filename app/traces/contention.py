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
from operator import attrgetter, itemgetter

from app.traces.timed_calls import Call

__all__ = ["Region", "find_regions", "find_regions_quadratic"]


@dataclass(slots=True)
class Region:
    """A maximal group of calls connected by pairwise contention."""

    index: int
    resource: str
    start: float
    end: float
    calls: tuple[int, ...]
    agents: tuple[str, ...]


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


_start, _end, _agent, _index = attrgetter("start"), attrgetter("end"), attrgetter("agent"), attrgetter("index")


def _draft(comp: list[Call]) -> tuple:
    """A region before numbering, from a component: two or more calls sorted by (start,
    index, position in the input), the position breaking ties so hand-built calls sharing an
    index still give one answer."""
    first = comp[0]
    if len(comp) == 2:  # most regions: the same draft, without the general one's calls
        second = comp[1]
        i, j = first.index, second.index
        ids = (i, j) if i <= j else (j, i)
        a, b = first.agent, second.agent
        # the first of equal ends, like max()
        return (first.start, first.resource, ids[0], second.end if second.end > first.end else first.end, ids,
                (a, b) if a != b else (a,))
    ids = sorted(map(_index, comp))
    # max() keeps the first of equal ends, like a running "if end > latest"
    return (first.start, first.resource, ids[0], max(map(_end, comp)), tuple(ids),
            tuple(dict.fromkeys(map(_agent, comp))))


def _number(drafts: list[tuple]) -> list[Region]:
    """Regions from drafts, numbered by start, then resource, then first call."""
    drafts.sort(key=itemgetter(0, 1, 2))
    return [Region(i, resource, start, end, members, agents)
            for i, (start, resource, _first, end, members, agents) in enumerate(drafts)]


def _sweep(calls: list[Call], uf: _UnionFind) -> None:
    """Union (by position) contending calls of different agents among `calls` (one resource,
    sorted by start).

    Active calls are held in blocks, one per connected component, each
    counting its active calls per agent. A block is filed as "mixed" (two or
    more agents) or under its sole agent. A new call of agent h is unioned once
    with every block that is not sole-h; the merged result is a single block.
    So after each call only that block can be mixed, and sole blocks belong to
    at most two agents: finding targets is O(1) plus the blocks merged, and
    merging only reduces the number of blocks.
    """
    live: dict[int, dict[str, int]] = {}  # block root -> agent -> active calls
    mixed: set[int] = set()
    sole: dict[str, set[int]] = {}
    heap: list[tuple[float, int]] = []  # (end, position) of active calls

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

    for p in range(len(calls)):
        c = calls[p]
        h = c.agent
        while heap and heap[0][0] <= c.start:  # half-open: end == start is gone
            q = heapq.heappop(heap)[1]
            r, a = uf.find(q), calls[q].agent
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
            if agent != h:
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


# Clusters of at most this many calls are settled by testing their pairs: cheaper than the
# sweep's bookkeeping at that size, and a constant bound keeps the whole O(n log n).
_PAIRWISE_MAX = 12


def _usable_by_resource(calls: list[Call]) -> list[list[Call]]:
    """The calls that can contend (see _usable), per resource, sorted by (start, index,
    position in the input)."""
    by_resource: dict[str, list[Call]] = {}
    unsorted: set[str] = set()
    for c in calls:
        # _usable inlined: this runs once per call, and a function call costs more than the test
        if c.problem is None and c.start is not None and c.end is not None and c.end > c.start:
            group = by_resource.get(c.resource)
            if group is None:
                by_resource[c.resource] = [c]
            else:
                # Calls usually come in time order: noticing it here, while each call is at hand,
                # saves sorting (a pass over the calls per sort key).
                last = group[-1]
                if c.start < last.start or (c.start == last.start and c.index < last.index):
                    unsorted.add(c.resource)
                group.append(c)
    for resource in unsorted:
        group = by_resource[resource]
        group.sort(key=_index)  # stable sorts: by index, then by start, give (start, index, position)
        group.sort(key=_start)
    return list(by_resource.values())


def _clusters(group: list[Call]) -> list[list[Call]]:
    """Split calls (one resource, sorted by start) into clusters whose intervals overlap
    transitively, whatever their agents; return those of two or more calls (every region
    lies inside one, and most clusters are single calls)."""
    out: list[list[Call]] = []
    cluster: list[Call] = []
    reach = -math.inf  # the latest end so far
    for c in group:
        if c.start >= reach:  # half-open: a call starting at the reach overlaps none before it
            if len(cluster) > 1:
                out.append(cluster)
            cluster = [c]
        else:
            cluster.append(c)
        if c.end > reach:
            reach = c.end
    if len(cluster) > 1:
        out.append(cluster)
    return out


def _pairwise(cluster: list[Call]) -> list[list[Call]]:
    """The components (of two or more calls, of different agents) of a small cluster sorted
    by start, by testing every pair."""
    label = list(range(len(cluster)))  # each member's component, named by its first member
    for j in range(1, len(cluster)):
        start, agent = cluster[j].start, cluster[j].agent
        for i in range(j):
            # i starts first, so the two overlap iff j starts before i ends
            if start < cluster[i].end and cluster[i].agent != agent:
                a, b = label[i], label[j]
                if a != b:
                    if b < a:
                        a, b = b, a
                    label = [a if x == b else x for x in label]
    if not any(label):
        return [cluster]  # the common case: one component
    parts: dict[int, list[Call]] = {}
    for c, x in zip(cluster, label):
        parts.setdefault(x, []).append(c)
    return [part for part in parts.values() if len(part) > 1]


def _swept(cluster: list[Call]) -> list[list[Call]]:
    """The components (of two or more calls) of a cluster sorted by start, by _sweep."""
    uf = _UnionFind(len(cluster))
    _sweep(cluster, uf)
    parts: dict[int, list[Call]] = {}
    for p, c in enumerate(cluster):  # in cluster order, so each part stays sorted
        parts.setdefault(uf.find(p), []).append(c)
    return [part for part in parts.values() if len(part) > 1]


def find_regions(calls: list[Call], same_agent: bool = False) -> list[Region]:
    """Return contention regions by a sweep over start times, per resource.

    Calls are sorted by (start, index) and split into clusters of transitively overlapping
    calls. Overlaps connect a cluster, so it is one region when every overlap counts (all
    its agents differ, or same_agent) and none when one agent made it all. Otherwise a small
    cluster is settled pair by pair, a larger one swept: calls expire from a heap by end
    once end <= the current start, and a new call joins every active connected component
    holding an active call of another agent with one union per component, never per pair
    (see _sweep). Time O(n log n) for n calls, independent of the number k of contending
    pairs, so within O(n log n + k); space O(n).
    """
    drafts: list[tuple] = []
    for group in _usable_by_resource(calls):
        for cluster in _clusters(group):
            n_agents = len(set(map(_agent, cluster)))
            if same_agent or n_agents == len(cluster):
                parts = [cluster]
            elif n_agents == 1:
                continue
            elif len(cluster) <= _PAIRWISE_MAX:
                parts = _pairwise(cluster)
            else:
                parts = _swept(cluster)
            for part in parts:
                drafts.append(_draft(part))
    return _number(drafts)


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
    components: list[list[int]] = []
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
        if len(comp) > 1:
            comp.sort(key=lambda p: (calls[p].start, calls[p].index, p))
            components.append(comp)
    return _number([_draft([calls[p] for p in comp]) for comp in components])
