"""The run's orchestration pattern: the names, the layout each is drawn in, the schemes to look
at first, and a pattern suggested from the trace's structure alone (no model, no network).

The suggestion reads three things (docs/layouts.md gives the rules in full):

- the nesting of agent spans (span-tree traces: an agent span inside another is a delegation);
- the handoff graph's degree distribution (a star: one hub, every other agent talks only to it);
- turn-taking (who speaks after whom: does control come back, do two speakers alternate).

Agents that stand for the person asking (`human`, `user`) and steps naming no agent are left out
of the structure: the task arriving is not a handoff inside the team.

Pure: no Streamlit.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from app.traces.derive import Derivation
from app.traces.trace import UNKNOWN_AGENT

SINGLE, SEQUENTIAL, HIERARCHICAL = "single_agent", "sequential_pipeline", "hierarchical_manager"
GROUP_CHAT, BLACKBOARD, DEBATE, HUB = "group_chat", "blackboard", "debate", "hub_and_spoke"
PATTERNS = (SINGLE, SEQUENTIAL, HIERARCHICAL, GROUP_CHAT, BLACKBOARD, DEBATE, HUB)

STEPS, LANES, TREE, BOARD = "steps", "lanes", "tree", "board"
LAYOUTS = (STEPS, LANES, TREE, BOARD)
# sequential -> lanes, hierarchical -> tree, group chat -> board (the issue); the others by kinship:
# a debate is turn-taking between speakers (a board), a hub with its spokes a one-level tree
LAYOUT_OF = {SINGLE: STEPS, SEQUENTIAL: LANES, HIERARCHICAL: TREE, GROUP_CHAT: BOARD, BLACKBOARD: BOARD,
             DEBATE: BOARD, HUB: TREE}

OUTSIDE = {"human", "user"}  # the person asking, not an agent of the team
# an agent that runs what others write (AG2's user proxy, Who&When's Computer_terminal): it takes
# turns, but a run of one agent and its executor is one agent at work, and no debate
EXECUTOR = re.compile(r"proxy|terminal|executor|computer|interpreter|tool", re.IGNORECASE)
HUB_SPOKES = 3  # a star with this many spokes or more is a hub; with fewer, a manager and its workers


@dataclass(frozen=True)
class Suggestion:
    pattern: str
    reason: str  # one line: what in the structure says so


def team_turns(d: Derivation) -> list[tuple[str, int]]:
    """(agent, steps) per turn of the team: consecutive steps of one agent are one turn; the
    person asking and steps without an agent are left out (their neighbours' turns join)."""
    turns: list[list] = []
    for a in d.step_agents:
        if a == UNKNOWN_AGENT or a.strip().lower() in OUTSIDE:
            continue
        if turns and turns[-1][0] == a:
            turns[-1][1] += 1
        else:
            turns.append([a, 1])
    return [(a, n) for a, n in turns]


def agent_span_depth(data: dict) -> tuple[int, dict[str, list[str]]]:
    """How deep agent spans nest (0: none, 1: side by side, 2: one inside another, ...), and the
    agents each agent span runs inside it (its children, by name, first-seen order)."""
    spans = ((data.get("trace") or {}).get("agents") or []) if isinstance(data, dict) else []
    parent = {}
    children: dict[str, list[str]] = {}
    for s in spans:
        if not isinstance(s, dict):
            continue
        a, p = str(s.get("agent")), s.get("parent_agent")
        parent.setdefault(a, None if p is None else str(p))
        if p is not None and str(p) != a:
            kids = children.setdefault(str(p), [])
            if a not in kids:
                kids.append(a)
    depth = 0
    for a in parent:
        n, seen, cur = 1, {a}, parent[a]
        while cur is not None and cur not in seen:
            seen.add(cur)
            n += 1
            cur = parent.get(cur)
        depth = max(depth, n)
    return depth, children


def suggest(data: dict, d: Derivation) -> Suggestion:
    """The pattern the trace's structure suggests, with its reason in one line."""
    if isinstance(data, dict) and isinstance(data.get("blackboard"), list) and data["blackboard"]:
        writers = {str(e.get("agent") or e.get("author") or e.get("writer")) for e in data["blackboard"]
                   if isinstance(e, dict)}
        return Suggestion(BLACKBOARD, f"{len(writers)} agent(s) write {len(data['blackboard'])} entries "
                                      f"to a shared board: {BLACKBOARD}")
    depth, children = agent_span_depth(data)
    if depth >= 2:
        root = next(iter(a for a in children if all(a not in k for k in children.values())), None)
        kids = children.get(root, [])
        flat = all(k not in children for k in kids)
        if depth == 2 and len(kids) >= HUB_SPOKES and flat:
            return Suggestion(HUB, f"{root} runs {len(kids)} agents inside its span, none nested further: {HUB}")
        return Suggestion(HIERARCHICAL, f"{root} runs {_names(kids)} inside its own span (agent spans nested "
                                        f"{depth} deep): {HIERARCHICAL}")
    turns = team_turns(d)
    agents = list(dict.fromkeys(a for a, _ in turns))
    if len(agents) <= 1:
        who = agents[0] if agents else "one agent"
        return Suggestion(SINGLE, f"{who} takes every step: {SINGLE}")
    thinkers = [a for a in agents if not EXECUTOR.search(a)]
    if len(thinkers) == 1:
        others = [a for a in agents if a != thinkers[0]]
        return Suggestion(SINGLE, f"{thinkers[0]} works alone with {_names(others)} running its code or "
                                  f"tools: {SINGLE}")
    if len(turns) == len(agents):
        return Suggestion(SEQUENTIAL, " → ".join(agents[:6]) + (" → …" if len(agents) > 6 else "")
                          + f", each once, none hands back: {SEQUENTIAL}")
    debate = _debate(turns)
    if debate:
        return debate
    pairs = Counter((a, b) for (a, _), (b, _) in zip(turns, turns[1:]))
    neighbours: dict[str, set[str]] = {a: set() for a in agents}
    for a, b in pairs:
        neighbours[a].add(b)
        neighbours[b].add(a)
    first = turns[0][0]
    hub = next((a for a in agents if len(neighbours[a]) == len(agents) - 1
                and all(neighbours[o] == {a} for o in agents if o != a)), None)
    if hub == first:
        spokes = [a for a in agents if a != hub]
        if all(pairs[(hub, s)] and pairs[(s, hub)] for s in spokes):
            if len(spokes) >= HUB_SPOKES:
                return Suggestion(HUB, f"{hub} hands to {len(spokes)} workers and each hands back: {HUB}")
            back = sum(pairs[(s, hub)] for s in spokes)
            return Suggestion(HIERARCHICAL, f"{hub} hands to {_names(spokes)} and gets the work back "
                                            f"{back} time(s): {HIERARCHICAL}")
    at = {a: i for i, a in enumerate(agents)}
    if len(agents) >= 3 and all(abs(at[a] - at[b]) == 1 for a, b in pairs):
        return Suggestion(SEQUENTIAL, " → ".join(agents[:6]) + (" → …" if len(agents) > 6 else "")
                          + f", each hands only to the next (or back to the one before): {SEQUENTIAL}")
    returns = {a for a, b in pairs if b == first}
    back = sum(n for (a, b), n in pairs.items() if b == first)
    involved = sum(n for (a, b), n in pairs.items() if first in (a, b))
    if back >= 2 and len(agents) >= 3 and 2 * involved >= sum(pairs.values()):  # at the centre of the handoffs
        return Suggestion(HIERARCHICAL, f"{first} starts and gets control back {back} times, from "
                                        f"{_names(sorted(returns))}: {HIERARCHICAL}")
    counts = Counter(a for a, _ in turns)
    top, n = counts.most_common(1)[0]
    return Suggestion(GROUP_CHAT, f"{len(agents)} agents take {len(turns)} turns in no fixed order "
                                  f"({top} speaks most, {n} turns): {GROUP_CHAT}")


def _debate(turns: list[tuple[str, int]]) -> Suggestion | None:
    """Two speakers alternating one step at a time, at least four turns, maybe a judge speaking
    once at the end."""
    body = turns
    judge = None
    if len(turns) >= 5 and sum(1 for a, _ in turns if a == turns[-1][0]) == 1:
        body, judge = turns[:-1], turns[-1][0]
    speakers = list(dict.fromkeys(a for a, _ in body))
    if len(speakers) != 2 or len(body) < 4 or any(n != 1 for _, n in body) \
            or any(EXECUTOR.search(a) for a in speakers):
        return None
    tail = f", then {judge} speaks once" if judge else ""
    return Suggestion(DEBATE, f"{speakers[0]} and {speakers[1]} alternate, one step each, {len(body)} turns"
                              f"{tail}: {DEBATE}")


def _names(names: list[str], at_most: int = 3) -> str:
    shown = ", ".join(names[:at_most])
    return shown + (f" and {len(names) - at_most} more" if len(names) > at_most else "")


def layout_of(pattern: str | None) -> str:
    """The layout a pattern is drawn in (the step list for none or an unknown label)."""
    return LAYOUT_OF.get(pattern or "", STEPS)
