"""Find resource contention between agents' tool calls.

Two calls contend when they use the same resource, their half-open time
intervals [start, end) overlap, and (by default) different agents made them.
A contention region is a connected component of that relation with at least
two calls, so a chain A-B-C where only neighbours overlap is one region.
"""

from __future__ import annotations

import heapq
import math
import sys
from dataclasses import dataclass
from operator import attrgetter, itemgetter

from app.traces.timeparse import _show, parse_time

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


def _shown_names(tool: object, resource: object, agent: object) -> tuple[str, str, str] | None:
    """(agent, tool, resource) of a call as normalize_calls shows them, when all three given
    are text or None and there is a resource or a tool; else None (see normalize_calls)."""
    if (tool is None or type(tool) is str) and (resource is None or type(resource) is str) \
            and (agent is None or type(agent) is str):
        tool = tool if tool and tool.strip() else None
        resource = (resource if resource and resource.strip() else None) or tool
        if resource is not None:
            return agent if agent and agent.strip() else UNKNOWN, tool or UNKNOWN, resource
    return None


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
    names: dict[tuple, tuple[str, str, str] | None] = {}  # (tool, resource, agent) as given -> shown
    # finite bounds: an int beyond the largest float (JSON allows one) takes the general path,
    # which reports it, instead of overflowing when made a float
    lowest, highest = -sys.float_info.max, sys.float_info.max
    for i, raw in enumerate(raw_calls):
        # Fast path, the common case: a dict with finite numeric times, end >= start, and names
        # that are text (or missing), the same few over and over: each is checked once.
        if type(raw) is dict:
            start, end = raw.get("start"), raw.get("end")
            ts, te = type(start), type(end)
            # the chain is false for NaN and the infinities, and compares ints with the bounds exactly
            if (ts is float or ts is int) and (te is float or te is int) and lowest <= start <= end <= highest:
                given = raw.get("tool"), raw.get(resource_key), raw.get(agent_key)
                try:
                    shown = names[given]
                except KeyError:
                    shown = names[given] = _shown_names(*given)
                except TypeError:  # a name that is a dict or a list
                    shown = None
                if shown is not None:
                    agent, tool, resource = shown
                    # `* 1.0` (exact) makes a new float beside the new Call, where float() would
                    # keep the data's own, which can lie anywhere in memory: find_regions reads
                    # every start and end several times, and scattered reads cost it a third.
                    calls.append(Call(i, agent, tool, resource, start * 1.0, end * 1.0, None))
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
