"""Accuracy of annotators' failure attributions against the gold labels items carry.

Gold shapes read (``Item.gold``):

- Who&When: ``{"mistake_agent", "mistake_step" (int step index), "mistake_reason"}``;
- TRAIL / AgentRx: ``{"failures": [{"step", "agent", "category", "root_cause", "impact", ...}],
  "mistake_agent", "mistake_step"}``. Where ``mistake_agent`` / ``mistake_step`` are missing,
  the failure marked ``root_cause`` (else the earliest failure) stands in for them.

Measures, per annotator, as the Who&When paper reports them (Zhang et al., ICML 2025):

- ``agent_accuracy``: the responsible agent named equals the gold agent (names compared with
  surrounding blanks removed and case ignored), over the items with a gold agent that the
  annotator attributed;
- ``step_accuracy``: the decisive step equals the gold step, over the items with a gold step the
  annotator attributed; ``step_accuracy_within_k``: it is within ±k steps;
- an attribution with no agent (or no step) counts as wrong for that measure; items the
  annotator marked "reviewed, nothing to attribute" count as wrong on both (gold says the run
  failed); items without an attribution from the annotator are not counted (``n`` says how many
  were);
- where gold lists several failures: ``failure_step_hit``: the decisive step is one of the gold
  failure steps (±k), and ``step_tag_recall``: of the gold failure steps, the share the annotator
  tagged with a failure mode in a step review (trajectory_eval).

The confusion between agents pairs each gold agent with the agent the annotator named.

No Streamlit here: plain rows in, plain dicts out.
"""
from __future__ import annotations

from typing import Any, Iterable

from app.types.base import as_int as _int

NO_AGENT = "(none)"


def _name(x: Any) -> str | None:
    if x is None or (isinstance(x, float) and x != x):
        return None
    s = str(x).strip()
    return s or None


def same_agent(a: Any, b: Any) -> bool:
    a, b = _name(a), _name(b)
    return a is not None and b is not None and a.casefold() == b.casefold()


def normalize(gold: dict | None) -> dict | None:
    """{"agent", "step", "failures": [{"step", "agent"}]} from an item's gold, or None."""
    if not isinstance(gold, dict):
        return None
    failures = []
    for f in gold.get("failures") or []:
        if isinstance(f, dict):
            failures.append({"step": _int(f.get("step")), "agent": _name(f.get("agent")),
                             "root_cause": bool(f.get("root_cause"))})
    agent, step = _name(gold.get("mistake_agent")), _int(gold.get("mistake_step"))
    if (agent is None or step is None) and failures:
        ranked = sorted(failures, key=lambda f: (not f["root_cause"], f["step"] is None, f["step"] or 0))
        agent = agent if agent is not None else ranked[0]["agent"]
        step = step if step is not None else ranked[0]["step"]
    if agent is None and step is None and not failures:
        return None
    return {"agent": agent, "step": step, "failures": failures}


def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


FIELDS = ("n", "n_agent", "agent", "n_step", "step", "near", "n_fail", "fail_hit")


def accuracy_tally(attributions: Iterable[dict], golds: dict[str, dict], k: int = 1,
                   step_tags: dict[tuple[str, str], set[int]] | None = None) -> dict:
    """The counts :func:`accuracy_from` finishes (app/tally.py: they add up over items).

    `attributions`: rows ``{"item_id", "annotator", "agent", "step", "status"}`` (one per
    item and annotator); `golds`: item id -> :func:`normalize` output; `step_tags`:
    (item id, annotator) -> step indices tagged with a failure mode.
    """
    per: dict[tuple[str, str], int] = {}
    confusion: dict[tuple[str, str], int] = {}
    rows: dict[tuple, int] = {}

    def add(counts: dict, key, n=1) -> None:
        if n:
            counts[key] = counts.get(key, 0) + n

    for a in attributions:
        g = golds.get(a["item_id"])
        if not g:
            continue
        who = a["annotator"]
        add(per, (who, "n"))
        agent, step = _name(a.get("agent")), _int(a.get("step"))
        agent_ok = exact = near = None
        if g["agent"] is not None:
            agent_ok = same_agent(agent, g["agent"])
            add(per, (who, "n_agent"))
            add(per, (who, "agent"), int(agent_ok))
            add(confusion, (g["agent"], agent or NO_AGENT))
        if g["step"] is not None:
            add(per, (who, "n_step"))
            exact = step is not None and step == g["step"]
            near = step is not None and abs(step - g["step"]) <= k
            add(per, (who, "step"), int(exact))
            add(per, (who, "near"), int(near))
        fsteps = [f["step"] for f in g["failures"] if f["step"] is not None]
        if fsteps:
            add(per, (who, "n_fail"))
            add(per, (who, "fail_hit"), int(step is not None and any(abs(step - s) <= k for s in fsteps)))
        # one record per attribution (annotator first: the store's order)
        add(rows, (who, a["item_id"], g["agent"], agent, g["step"], step, agent_ok, exact, near))

    recall: dict[tuple[str, int], int] = {}
    for (item_id, who), tagged in (step_tags or {}).items():
        g = golds.get(item_id)
        fsteps = {f["step"] for f in (g or {}).get("failures", []) if f["step"] is not None}
        if not fsteps:
            continue
        add(recall, (who, 0), len(fsteps & set(tagged)))
        add(recall, (who, 1), len(fsteps))
    return {k_: v for k_, v in (("per", per), ("confusion", confusion), ("rows", rows), ("recall", recall)) if v}


def accuracy_from(t: dict, k: int = 1) -> dict:
    """Per-annotator accuracy, the agent confusion and a per-item table from :func:`accuracy_tally`."""
    per: dict[str, dict[str, int]] = {}
    for (who, f), n in (t.get("per") or {}).items():
        per.setdefault(who, dict.fromkeys(FIELDS, 0))[f] = n
    recall: dict[str, list[int]] = {}
    for (who, i), n in (t.get("recall") or {}).items():
        recall.setdefault(who, [0, 0])[i] = n
    out: dict[str, dict] = {}
    for who in sorted(set(per) | set(recall)):
        c = per.get(who, dict.fromkeys(FIELDS, 0))
        res = {"n": c["n"], "agent_accuracy": _rate(c["agent"], c["n_agent"]),
               "step_accuracy": _rate(c["step"], c["n_step"]),
               "step_accuracy_within_k": _rate(c["near"], c["n_step"]), "k": k,
               "n_agent": c["n_agent"], "n_step": c["n_step"]}
        if c["n_fail"]:
            res["failure_step_hit"] = _rate(c["fail_hit"], c["n_fail"])
        if who in recall:
            res["step_tag_recall"] = _rate(*recall[who])
        out[who] = res
    conf = [{"gold_agent": g, "annotated_agent": p, "count": n}
            for (g, p), n in sorted((t.get("confusion") or {}).items(), key=lambda x: (x[0][0], x[0][1]))]
    rows = [{"item_id": i, "annotator": who, "gold_agent": ga, "agent": a, "gold_step": gs, "step": st,
             "agent_correct": ok, "step_correct": exact, "step_within_k": near}
            for (who, i, ga, a, gs, st, ok, exact, near), c in sorted((t.get("rows") or {}).items(),
                                                                      key=lambda x: (str(x[0][0]), str(x[0][1])))
            for _ in range(c)]
    return {"by_annotator": out, "confusion": conf, "items": rows}


def accuracy(attributions: Iterable[dict], golds: dict[str, dict], k: int = 1,
             step_tags: dict[tuple[str, str], set[int]] | None = None) -> dict:
    """Per-annotator accuracy, the agent confusion and a per-item table (see accuracy_tally)."""
    return accuracy_from(accuracy_tally(attributions, golds, k, step_tags), k)
