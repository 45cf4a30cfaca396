"""The project's orchestration question and lens (top-level keys `orchestration_scheme` and
`orchestration_lens`), checked with their config paths in every problem.

- The orchestration question is the radio scheme named by `orchestration_scheme`; without that
  key, the first radio scheme whose labels are all pattern names (at least two of them). Its
  answer on an item picks the trace's layout; until there is one, the suggested pattern does.
- `orchestration_lens: {pattern: [scheme, ...]}` names the schemes to look at first for runs of
  a pattern; a pattern not named keeps Baton's default (DEFAULT_LENS below).
"""
from __future__ import annotations

import difflib
from typing import Any

from app.project import validators as v
from app.project.problems import Problem
from app.traces import orchestration as o
from app.traces.orchestration import PATTERNS
from app.types import (agent_interaction_graph as graph, agent_scorecard as scorecard, emergent_behavior as emergent,
                       failure_attribution as attribution, handoff_review as handoffs, radio,
                       tool_call_review as tool_review, tool_contention as contention, trajectory_eval as steps)
from app.types.base import Scheme

SCHEME_KEY, LENS_KEY = "orchestration_scheme", "orchestration_lens"

# The schemes a pattern's lens shows first when the project names none: the first scheme of
# each of these types, in this order (docs/layouts.md says why).
DEFAULT_LENS = {p: tuple(m.TYPE.name for m in mods) for p, mods in {
    o.SINGLE: (steps, tool_review, attribution),
    o.SEQUENTIAL: (handoffs, attribution, scorecard),
    o.HIERARCHICAL: (graph, handoffs, scorecard),
    o.GROUP_CHAT: (emergent, scorecard, attribution),
    o.BLACKBOARD: (contention, emergent, attribution),
    o.DEBATE: (emergent, scorecard, attribution),
    o.HUB: (graph, handoffs, contention),
}.items()}


def _close(value: Any, known) -> str:
    found = difflib.get_close_matches(str(value), sorted(known), n=1, cutoff=0.6)
    return f'; did you mean "{found[0]}"?' if found else ""


def recognised(schemes: list[Scheme]) -> Scheme | None:
    """The first radio scheme whose labels are all pattern names (two or more)."""
    for s in schemes:
        if s.type == radio.TYPE.name:
            names = [lab["name"] for lab in s["labels"]]
            if len(names) >= 2 and all(n in PATTERNS for n in names):
                return s
    return None


def check(raw: dict, schemes: list[Scheme], out: list[Problem], file: str) -> tuple[str | None, dict[str, list[str]]]:
    """(the orchestration scheme's name or None, the lens {pattern: scheme names}), problems added."""
    by_name = {s.name: s for s in schemes}
    name = None
    given = raw.get(SCHEME_KEY)
    if given is not None:
        target = by_name.get(given) if isinstance(given, str) else None
        if target is None:
            out.append(Problem(file, SCHEME_KEY, f"expected the name of a radio scheme, got {v.show(given)}"
                               + (_close(given, by_name) if isinstance(given, str) else "")))
        elif target.type != radio.TYPE.name:
            out.append(Problem(file, SCHEME_KEY, f'expected a radio scheme, "{target.name}" is {target.type}'))
        else:
            name = target.name
    else:
        found = recognised(schemes)
        name = found.name if found is not None else None
    lens: dict[str, list[str]] = {}
    raw_lens = raw.get(LENS_KEY)
    if raw_lens is None:
        return name, lens
    if not isinstance(raw_lens, dict):
        out.append(Problem(file, LENS_KEY, f"expected a mapping of pattern names to lists of scheme names "
                                           f"(e.g. hierarchical_manager: [graph, handoffs]), got {v.show(raw_lens)}"))
        return name, lens
    for pattern, names in raw_lens.items():
        where = f"{LENS_KEY}.{pattern}"
        if pattern not in PATTERNS:
            out.append(Problem(file, where, f"expected a pattern name ({', '.join(PATTERNS)}), got {v.show(pattern)}"
                               + _close(pattern, PATTERNS)))
            continue
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names:
            out.append(Problem(file, where, f"expected a list of scheme names, got {v.show(names)}"))
            continue
        ok = []
        for j, n in enumerate(names):
            if not isinstance(n, str) or n not in by_name:
                out.append(Problem(file, f"{where}[{j}]", f"expected the name of a scheme of the project, got "
                                   f"{v.show(n)}" + (_close(n, by_name) if isinstance(n, str) else "")))
            elif n not in ok:
                ok.append(n)
        lens[pattern] = ok
    return name, lens


def lens_for(pattern: str | None, lens: dict[str, list[str]], schemes: list[Scheme]) -> list[Scheme]:
    """The schemes to look at first for a pattern: the project's lens, else the default order of
    types (the first scheme of each type the project has)."""
    if not pattern:
        return []
    by_name = {s.name: s for s in schemes}
    if pattern in lens:
        return [by_name[n] for n in lens[pattern] if n in by_name]
    out = []
    for t in DEFAULT_LENS.get(pattern, ()):
        found = next((s for s in schemes if s.type == t), None)
        if found is not None:
            out.append(found)
    return out
