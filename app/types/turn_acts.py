"""What Potato's turn-tagging schemes share (consensus_tracking, context_attribution): an act
per turn of the item's conversation, with a link to an earlier turn for the acts that refer to
one (an agreement to the proposal it agrees with, a hallucinated context to the turn it misuses).

Stored as Potato stores it, a list of `{"turn": 4, "act": "agreement", "ref": 1, "agent_id":
"critic"}`: `turn` and `ref` are positions in the list named by `turns_key` (from 0, every
entry counted), `agent_id` the turn's agent when it was tagged (its `agent_id`, else the agent
read with `agent_key`, `speaker` by default), so a turn that another agent now takes is not
silently relabelled (Potato writes "" for a turn without one; `ref` is absent until a linked act's
turn is chosen). One act per turn.

Summary: each act's count, acts per agent, how many linked acts name their turn. Agreement: per
turn of every item two or more annotators judged, nominal on the act (a turn an annotator left
untagged counts as "(none)"); nominal on the turn linked to, where two or more linked one.

`make()` builds the type; each scheme module gives its name, its default acts and linked acts.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from app.project import validators as v
from app.project.validators import show
from app.stats.agreement import judgements, nominal, with_default
from app.stats.counting import count, in_order
from app.traces.derive import Derivation
from app.traces.trace import Step
from app.types.base import AnnotationType, Key, Scheme, as_int, hidden_input
from app.types.choices import NONE, label_counts
from app.types.options import names
from app.types.panel import SchemeRows


def turn_agent(step: Step) -> str:
    """A turn's agent as Potato records it: its `agent_id`, else the agent read from the turn."""
    raw = step.raw if isinstance(step.raw, dict) else {}
    given = raw.get("agent_id")
    return given.strip() if isinstance(given, str) and given.strip() else step.agent


def acts(scheme: Scheme) -> list[str]:
    return scheme.get("acts") or []


def linked(scheme: Scheme) -> list[str]:
    return [a for a in scheme.get("linked_acts") or [] if a in acts(scheme)]


def entries(value: Any) -> list[dict]:
    """The well-formed entries of a stored value, by turn (anything else dropped)."""
    out = {}
    for e in value if isinstance(value, list) else []:
        if isinstance(e, dict) and as_int(e.get("turn")) is not None and isinstance(e.get("act"), str):
            ref = as_int(e.get("ref"))
            agent = e.get("agent_id")
            out[as_int(e["turn"])] = {"turn": as_int(e["turn"]), "act": e["act"], "ref": ref,
                                      "agent_id": agent if isinstance(agent, str) and agent else None}
    return [out[t] for t in sorted(out)]


def entry(step: Step, act: str, ref: int | None) -> dict:
    return {"turn": step.index, "act": act, "ref": ref, "agent_id": turn_agent(step)}


def put(value: Any, new: dict) -> list[dict]:
    """The stored value with one turn's entry set."""
    return sorted([e for e in entries(value) if e["turn"] != new["turn"]] + [new], key=lambda e: e["turn"])


def drop(value: Any, turn: int) -> list[dict]:
    return [e for e in entries(value) if e["turn"] != turn]


def coerce(value: Any, scheme: Scheme) -> Any:
    """Potato's list as it is (its hidden-input wrapper taken off); a mapping of turn to act also read."""
    value = hidden_input(value, lambda x: isinstance(x, list))
    if isinstance(value, dict) and value and all(as_int(k) is not None for k in value):
        return [{"turn": as_int(k), "act": x} if isinstance(x, str) else {"turn": as_int(k), **x}
                for k, x in value.items() if isinstance(x, (str, dict))]
    return value


def validate(value: Any, scheme: Scheme, derivation: Derivation | None) -> list[str]:
    if not isinstance(value, list):
        return [f"expected a list of {{turn, act, ref, agent_id}}, got {show(value)}"]
    steps = derivation.steps if derivation is not None else None
    allowed, links = acts(scheme), linked(scheme)
    out, seen = [], set()
    for i, e in enumerate(value):
        where = f"entry {i}"
        if not isinstance(e, dict) or set(e) - {"turn", "act", "ref", "agent_id"}:
            out.append(f"{where}: expected {{turn, act, ref, agent_id}}, got {show(e)}")
            continue
        turn, act, ref = as_int(e.get("turn")), e.get("act"), e.get("ref")
        if turn is None:
            out.append(f"{where}: turn {show(e.get('turn'))} is not a turn number")
            continue
        if turn in seen:
            out.append(f"{where}: turn {turn} is tagged twice")
        seen.add(turn)
        if steps is not None and not 0 <= turn < len(steps):
            out.append(f"{where}: turn {turn} is not in this conversation ({len(steps)} turns)")
            continue
        if act not in allowed:
            out.append(f"{where}: act {show(act)} is not one of {', '.join(allowed)}")
        if ref is not None:
            r = as_int(ref)
            if act not in links:
                out.append(f"{where}: {show(act)} links to no turn (linked acts: {', '.join(links) or 'none'})")
            elif r is None or r == turn or (steps is not None and not 0 <= r < len(steps)):
                out.append(f"{where}: ref {show(ref)} is not another turn of this conversation")
        agent = e.get("agent_id") or None  # (Potato writes "" for a turn with no agent)
        if agent is not None and steps is not None and agent != turn_agent(steps[turn]):
            out.append(f"{where}: turn {turn} is {turn_agent(steps[turn])}'s, not {show(agent)}'s")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    return [{"turn": e["turn"], "act": e["act"], "ref": e["ref"], "agent": e["agent_id"]} for e in entries(value)]


def rollup(scheme_rows: SchemeRows) -> dict:
    table, scheme = scheme_rows.table, scheme_rows.scheme
    out = label_counts(scheme_rows, "act", acts(scheme))
    per = count(table, ["agent", "act"]) if {"agent", "act"} <= set(table) else {}
    out["by_agent"] = [{"agent": a, "act": x, "count": per[(a, x)]}
                       for a in in_order(None, {k[0] for k in per}) for x in in_order(acts(scheme), {k[1] for k in per})
                       if (a, x) in per]
    mine = table[table["act"].isin(linked(scheme))] if "act" in table else table
    out["links"] = {"linked_acts": len(mine), "with_ref": int(mine["ref"].notna().sum()) if "ref" in mine else 0}
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    panel = scheme_rows.panel

    def turns(item_id: str) -> list[dict]:
        d = scheme_rows.derive(item_id)
        return [{"turn": s.index, "agent": turn_agent(s)} for s in (d.steps if d else [])]

    objects = panel.objects(turns, lambda o: f"turn {o['turn']} ({o['agent']})")
    given = objects.attach(panel.members(scheme_rows.table), ["turn"])
    table = with_default(judgements(given["unit"], given["rater"], given.get("act", [])), objects.every_rater(), NONE)
    disagreements.add(table, objects.describe, "act")
    refs = given[given["ref"].notna()] if "ref" in given else given
    link = judgements(refs["unit"], refs["rater"], pd.to_numeric(refs.get("ref", []), errors="coerce").astype(np.float64))
    disagreements.add(link, objects.describe, "link", lambda x: f"turn {x:g}")
    return {"act": nominal(table), "link": nominal(link)}


def objects(value: Any, derivation: Derivation | None) -> Any:
    """Each tagged turn and the turn it links to as the conversation is now: their agents, and
    whether the turn is still the agent's it was when tagged."""
    if derivation is None or not isinstance(value, list):
        return None
    steps = derivation.steps

    def agent(i):
        return turn_agent(steps[i]) if i is not None and 0 <= i < len(steps) else None
    return {"turns": {str(e["turn"]): {"agent": agent(e["turn"]), "ref_agent": agent(e["ref"]),
                                       "matches": e["agent_id"] in (None, agent(e["turn"]))}
                      for e in entries(value)}}


def make(name: str, title: str, default_acts: list[str], default_linked: list[str]) -> AnnotationType:
    """The AnnotationType of one turn-tagging scheme type."""
    return AnnotationType(
        name=name, title=title, page=f"pages/{name}.py", trace=True,
        keys={"turns_key": Key(v.nonempty_string, default="conversation", doc="item field holding the turns"),
              "agent_key": Key(v.nonempty_string, default="speaker", doc="turn field naming its agent"),
              "acts": Key(names(1), default=list(default_acts)),
              "linked_acts": Key(names(0), default=list(default_linked), doc="acts that link to another turn"),
              "hint": Key(v.string, default="")},
        section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate,
        objects=objects, looks_like=lambda value: isinstance(value, list),
        headline=lambda measures: measures.get("act"))
