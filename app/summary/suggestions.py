"""How annotators met the suggestions (app/traces/suggestions.py), and whether the suggestions were right.

A suggestion is never stored: what an annotator did with it is read from their answer.

- decisive step, on failure attribution: **accepted** when the decisive step chosen is the one
  suggested, **corrected** when another step is chosen, **ignored** when none is (no step, or
  "no failure to attribute"); on traversal reviews: accepted when the suggested step is among the
  root causes, corrected when other root causes are named, ignored when none are;
- critical path, on the interaction graph: accepted when the critical agents are exactly the
  suggested ones, corrected when others are marked, ignored when none are.

Only judgements of runs that have a suggestion count. Against gold (app/summary/gold.py) for the
runs that have both: how often the suggested step is the gold step (exactly, within ±k), its agent
the gold agent, the gold agent on the suggested path; and, of the accepted and of the corrected
answers, how often the answer is within ±k of gold (does accepting help or bias?).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.summary import gold as goldmod
from app.summary.rows import Derivations
from app.traces import suggestions as sg
from app.types import agent_interaction_graph, failure_attribution
from app.types.registry import TYPES

ACCEPTED, CORRECTED, IGNORED = "accepted", "corrected", "ignored"


def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


def _answers(kind: str, table) -> dict[tuple[str, str], Any]:
    """(item, annotator) -> the answer the outcome is read from: a step (attribution), a set of
    root causes (traversal) or of critical agents (graph)."""
    out: dict[tuple[str, str], Any] = {}
    if table.empty:
        return out
    if kind == failure_attribution.TYPE.name:
        for item, who, step in zip(*(table[c].tolist() for c in ("item_id", "annotator", "step"))):
            out[(item, who)] = None if step is None or step != step else int(step)
        return out
    column, keep = (("agent", None) if kind == agent_interaction_graph.TYPE.name else ("step", "root"))
    for item, who, *rest in zip(*(table[c].tolist() for c in ["item_id", "annotator", column]
                                  + (["kind"] if keep else []))):
        found = out.setdefault((item, who), set())
        value = rest[0]
        if (keep is None or rest[1] == keep) and value is not None and value == value:
            found.add(value if keep is None else int(value))
    return out


def _outcome(kind: str, answer: Any, step: int, path: tuple[str, ...]) -> str:
    if kind == failure_attribution.TYPE.name:
        return IGNORED if answer is None else ACCEPTED if answer == step else CORRECTED
    if kind == agent_interaction_graph.TYPE.name:
        return IGNORED if not answer else ACCEPTED if answer == set(path) else CORRECTED
    return IGNORED if not answer else ACCEPTED if step in answer else CORRECTED


def _right(kind: str, answer: Any, gold: dict, k: int) -> bool | None:
    """Whether an answer agrees with gold (within ±k for steps; the gold agent marked for paths)."""
    if kind == agent_interaction_graph.TYPE.name:
        return None if gold["agent"] is None else any(goldmod.same_agent(a, gold["agent"]) for a in answer or ())
    if gold["step"] is None:
        return None
    steps = [answer] if kind == failure_attribution.TYPE.name else sorted(answer or ())
    return bool(steps) and steps[0] is not None and abs(min(steps) - gold["step"]) <= k


TRAVERSAL = "traversal"  # the summary section of the traversal review (its type named only in its own modules)
ROOTS = next((t.name for t in TYPES.values() if t.section == TRAVERSAL), None)
KINDS = tuple(k for k in (failure_attribution.TYPE.name, ROOTS, agent_interaction_graph.TYPE.name) if k)


def suggested(ws, scheme, item_id: str):
    """(the suggested decisive step, the suggested critical path) of one item for a scheme's
    trace keys (None, None: no suggestion), worked out once per workspace (its items never
    change: a summary after a save reuses them)."""
    derivations = Derivations.of(ws)
    key = (tuple(sorted((scheme.options.get(x) or "") for x in ("steps_key", "agent_key"))), item_id)

    def made_now():
        item, d = ws.by_id.get(item_id), derivations.getter(scheme)(item_id)
        found = sg.decisive_step(item.data, d) if item is not None and d is not None and d.steps else None
        return found, sg.critical_path(item.data, d, found) if found else None
    return derivations.memo("suggestions", key, made_now)


def tally(ws, rows, golds: dict[str, dict], k: int) -> dict | None:
    """What the annotators of one scheme did with the suggestions (None: not a scheme that
    suggestions serve); from that scheme's rows alone."""
    s = rows.scheme
    if s.type not in KINDS:
        return None
    counts = {ACCEPTED: 0, CORRECTED: 0, IGNORED: 0}
    right = {ACCEPTED: [0, 0], CORRECTED: [0, 0]}
    per_item: dict[str, tuple] = {}  # (each item's suggestion looked up once, whoever answered)
    for (item, _who), answer in _answers(s.type, rows.table).items():  # (counts: in any order)
        found = per_item.get(item)
        if found is None:
            found = per_item[item] = suggested(ws, s, item)
        step, path = found
        if step is None:
            continue
        what = _outcome(s.type, answer, step.step, path.agents if path else ())
        counts[what] += 1
        ok = _right(s.type, answer, golds[item], k) if item in golds and what in right else None
        if ok is not None:
            right[what][0] += int(ok)
            right[what][1] += 1
    n = sum(counts.values())
    return {"type": s.type, "judgements_with_suggestion": n, **counts,
            **{f"share_{w}": _rate(c, n) for w, c in counts.items()},
            **{f"{w}_right_within_k": _rate(*right[w]) for w in right}, "k": k}


def accuracy(ws, chosen: list, item_ids: list[str], golds: dict[str, dict], k: int) -> dict | None:
    """The suggestions' own accuracy against gold, on the runs that have gold (None: no scheme
    that suggestions serve); from the items alone."""
    scheme = next((s for s in chosen if s.type in KINDS), None)
    if scheme is None:
        return None
    rows = []
    for item in (i for i in item_ids if i in golds):
        step, path = suggested(ws, scheme, item)
        g = golds[item]
        rows.append({"item_id": item, "suggested_step": step.step if step else None,
                     "gold_step": g["step"], "suggested_agent": step.agent if step else None,
                     "gold_agent": g["agent"], "path": list(path.agents) if path else None,
                     "reason": step.reason if step else None})
    made_rows = [r for r in rows if r["suggested_step"] is not None]
    stepped = [r for r in made_rows if r["gold_step"] is not None]
    agented = [r for r in made_rows if r["gold_agent"] is not None]
    return {
        "runs_with_gold": len(rows), "runs_with_suggestion": len(made_rows), "k": k,
        "step_exact": _rate(sum(r["suggested_step"] == r["gold_step"] for r in stepped), len(stepped)),
        "step_within_k": _rate(sum(abs(r["suggested_step"] - r["gold_step"]) <= k for r in stepped), len(stepped)),
        "agent": _rate(sum(goldmod.same_agent(r["suggested_agent"], r["gold_agent"]) for r in agented),
                       len(agented)),
        "gold_agent_on_path": _rate(sum(any(goldmod.same_agent(a, r["gold_agent"]) for a in r["path"] or ())
                                        for r in agented), len(agented)),
        "runs": rows}
