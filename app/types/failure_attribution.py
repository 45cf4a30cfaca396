"""failure_attribution: which agent caused the failure, at which step, and why (Who&When's question).

Stored as Potato documents it: `{"responsible_agent", "decisive_step", "reason"}`. An empty
agent is "no failure"; a reviewed-clean row is an attribution with nothing to attribute.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from app.project import validators as v
from app.stats.agreement import judgements, nominal, ordinal, with_default, within
from app.stats.counting import count, distinct, order_key
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme, as_int
from app.types.panel import SchemeRows

NO_FAILURE = "(no failure)"  # the agent of an annotator who named none, in agreement


def build(agent: str | None, step: int | None, reason: str = "") -> dict:
    return {"responsible_agent": agent, "decisive_step": None if step is None else int(step), "reason": reason or ""}


def is_empty(value: dict) -> bool:
    return not value.get("responsible_agent") and value.get("decisive_step") is None \
        and not (value.get("reason") or "").strip()


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and bool({"responsible_agent", "decisive_step"} & set(value))


def rows(value: Any, scheme: Scheme) -> list[dict]:
    value = value if isinstance(value, dict) else {}
    agent = value.get("responsible_agent")
    return [{"agent": str(agent) if agent not in (None, "") else None, "step": as_int(value.get("decisive_step")),
             "reason": str(value.get("reason") or "")}]


def placed(scheme_rows: SchemeRows) -> list[tuple]:
    """Each attribution naming a step, placed on its run: (annotator, item, agent, step, the
    run's steps (None: no such item), where in the run (step / (steps - 1)), the agent acting
    at that step (None: no such step))."""
    out = []
    table = scheme_rows.table
    if table.empty:
        return out
    columns = (table[c].tolist() for c in ("annotator", "item_id", "agent", "step"))
    for who, item, agent, step in zip(*columns):
        if step is None or step != step:
            continue
        step = int(step)
        d = scheme_rows.derive(item)
        n = len(d.steps) if d is not None else None
        position = ((step / (n - 1) if n > 1 else 0.0) if n else None)
        acting = d.steps[step].agent if d is not None and 0 <= step < n else None
        out.append((who, item, agent, step, n, position, acting))
    return out


def rollup(scheme_rows: SchemeRows) -> dict:
    """Blame per agent (attributions, runs, annotators), where in their runs the decisive steps
    fall (a fifth of the run each; a step past the end counts in the last), and how often the
    blamed agent is the one acting at the decisive step."""
    table = scheme_rows.table
    if table.empty:
        table = table.assign(agent=[], step=[])
    named = table[table["agent"].notna()]
    blamed, runs = count(named, ["agent"]), distinct(named, ["agent"], "item_id")
    raters = named.groupby("agent")["annotator"].nunique() if len(named) else {}
    whole = sum(blamed.values())
    blame = [{"agent": a, "count": n, "runs": runs.get(a, 0), "annotators": int(raters.get(a, 0)), "share": n / whole}
             for a, n in sorted(blamed.items(), key=lambda x: (-x[1], order_key(x[0])))]
    found = placed(scheme_rows)
    positions = np.asarray([p for *_, p, _act in found if p is not None], dtype=np.float64)
    bins = np.bincount(np.clip(np.trunc(positions * 5), 0, 4).astype(np.int64), minlength=5).tolist()
    known = [act == agent for _w, _i, agent, _s, _n, _p, act in found if act is not None and agent]
    return {"blame": blame,
            "position_histogram": [{"part_of_run": f"{i * 20}–{(i + 1) * 20}%", "count": bins[i]} for i in range(5)],
            "acting_is_blamed": {"count": sum(known), "of": len(known), "share": sum(known) / len(known) if known else None},
            "no_failure": int(table["agent"].isna().sum()) if len(table) else 0, "attributions": int(len(table))}


def positions(scheme_rows: SchemeRows) -> list[dict]:
    """Every attribution naming a step, placed on its run, by annotator and run."""
    found = placed(scheme_rows)
    try:
        found.sort()
    except TypeError:
        found.sort(key=lambda r: (str(r[0]), str(r[1])))
    return [{"item_id": i, "annotator": w, "agent": a, "step": x, "steps": n, "position": p, "acting_agent": act,
             "acting_is_blamed": (act == a) if act is not None and a else None} for w, i, a, x, n, p, act in found]


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    """The agent named (nominal, "no failure" for an annotator who named none) and the
    decisive step (equal, within ±k, interval alpha)."""
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    named = given[given["agent"].map(lambda a: isinstance(a, str))] if len(given) else given
    agents = with_default(judgements(named["item"], named["rater"], named.get("agent", [])), panel.per_item(),
                          NO_FAILURE)
    stepped = given[given["step"].notna()] if len(given) else given
    steps = judgements(stepped["item"], stepped["rater"], [int(x) for x in stepped.get("step", [])])
    step = within(steps, scheme_rows.k)
    step["alpha_interval"] = ordinal(steps, "interval")["alpha"]
    describe = lambda label: lambda unit: (panel.items[unit], label)  # noqa: E731
    disagreements.add(agents, describe("responsible agent"), "attribution")
    disagreements.add(steps, describe("decisive step"), "attribution", gap=scheme_rows.k + 1)
    return {"agent": nominal(agents), "step": step}


def objects(value: Any, derivation) -> Any:
    """The decisive step's agent and text, as the trace is now."""
    if derivation is None or not isinstance(value, dict) or not isinstance(value.get("decisive_step"), int):
        return None
    steps = {s.index: s for s in derivation.steps}
    s = steps.get(value["decisive_step"])
    return {"decisive_step": None if s is None else {"agent": s.agent, "text": cut(s.text, 200)}}


def cut(text: Any, limit: int) -> str:
    """Text cut to `limit` characters (an ellipsis marks the cut)."""
    s = "" if text is None else str(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """The agent one of the run's (or the scheme's `agents`), the step one of the run's; both
    may be left empty (no failure)."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    out = c.keys(value, ["responsible_agent", "decisive_step", "reason"])
    agent = value.get("responsible_agent")
    if agent not in (None, ""):
        allowed = scheme.get("agents") or (derivation.agents if derivation is not None else None)
        out += c.gather(c.agent(agent, allowed, "responsible agent"))
    if value.get("decisive_step") is not None:
        out += c.gather(c.step(value["decisive_step"], derivation, "decisive step"))
    return out + c.gather(c.text(value.get("reason"), "reason"))


FIELDS = (("responsible agent", "responsible_agent"), ("decisive step", "decisive_step"), ("reason", "reason"))


def parts(value: Any, scheme: Scheme) -> dict:
    value = value if isinstance(value, dict) else {}
    found = {(name,): value.get(key) for name, key in FIELDS}
    return {k: x for k, x in found.items() if x not in (None, "") and not (isinstance(x, str) and not x.strip())}


def join(fields: dict, scheme: Scheme) -> dict:
    return build(fields.get(("responsible agent",)), fields.get(("decisive step",)), fields.get(("reason",)) or "")


TYPE = AnnotationType(
    name="failure_attribution", title="Failure attribution", page="pages/failure_attribution.py", trace=True,
    keys={"agents": Key(v.string_list(1), doc="static agent list instead of deriving it from the trace")},
    section="attribution", rows=rows, rollup=rollup, agreement=agreement, listings={"positions": positions},
    looks_like=looks_like, objects=objects, validate=validate, parts=parts, join=join,
    headline=lambda measures: measures.get("agent"))
