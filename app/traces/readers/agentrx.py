"""AgentRx-style gold (Barke et al., 2026): several failures per run, one marked as the root cause.

Read in three shapes:
- a Who&When-shaped run (`history`, read as `whowhen` reads it) that also carries AgentRx's
  annotation fields: `failures` [{`failure_id`, `step_number`, `failure_category`,
  `step_reason`, `failed_agent`, ...}] and `root_cause_failure_id` (or `root_cause:
  {"failure_id"}`), `failure_summary`, `root_cause_reason`;
- an AgentRx trajectory `{"trajectory_id", "instruction", "steps": [{"index", "substeps":
  [{"role", "content"}]}]}` (one step per AgentRx step, the agent from the substeps' role),
  with or without the annotation fields;
- an annotation alone (`trajectory_id`, `failures`, no steps): joined by id to the run read
  from another file (an id that differs only by a `<domain>_` prefix also matches, and a
  Magentic-One annotation's id matches the Who&When run whose `question_ID` it is).

Substep roles lose their Magentic-One tag (`Orchestrator (thought)` is Orchestrator). The root
cause's `reason_for_root_cause` (in `root_cause`) is kept, and is the mistake reason when the
annotation has no `root_cause_reason`.

`step_number` is AgentRx's 1-based step number (for a trajectory, the step whose `index` it
is; for a history, entry `step_number - 1`); a failure may instead give `step`, a 0-based
step index. Normalised gold:

    {"failures": [{"step", "agent", "category", "root_cause", "impact", "description",
                   "failure_id"}],
     "mistake_agent", "mistake_step", "mistake_reason", "mistake_basis", "failure_summary"}

with `mistake_*` from the root cause (a Who&When run's own `mistake_*` are kept if present).
"""
from __future__ import annotations

import sys
from pathlib import Path

from app.traces.trace import Item, agent_name
from app.traces.readers import spantree as st
from app.traces.readers import whowhen
from app.traces.readers.context import SidecarGold, source_of, wrong_shape

NAME = "agentrx"
SHAPE = ('an AgentRx run or annotation ({"trajectory_id", "steps": [{"index", "substeps"}]} or a '
         'Who&When run, with "failures": [...] and "root_cause_failure_id")')


def _is_trajectory(record) -> bool:
    steps = record.get("steps")
    return (isinstance(steps, list) and bool(steps) and isinstance(steps[0], dict) and "substeps" in steps[0])


def detect(record) -> bool:
    if not isinstance(record, dict):
        return False
    if isinstance(record.get("failures"), list):
        return True
    return "trajectory_id" in record and _is_trajectory(record)


def _untagged(role) -> str:
    m = whowhen._TAGGED.match(role) if isinstance(role, str) else None
    return (m.group(1) if m and m.group(1) else str(role)).strip()


def _trajectory_item(record: dict, source: str, ctx, single: bool, problems: st.Problems) -> Item:
    tid = record.get("trajectory_id") or record.get(ctx.id_key)
    if tid in (None, ""):
        if not single:
            raise ValueError("AgentRx trajectory has no trajectory_id")
        tid = ctx.path.stem
    steps = []
    numbered = sorted(((i, s) for i, s in enumerate(record["steps"]) if isinstance(s, dict)),
                      key=lambda e: e[1].get("index") if isinstance(e[1].get("index"), int) else 10**9)
    for pos, (i, s) in enumerate(numbered):
        if "index" in s and not isinstance(s["index"], int):
            problems.add(f"steps[{i}]", f"index: expected a whole number, got {type(s['index']).__name__}; "
                         "placed after the numbered steps")
        subs = s.get("substeps")
        if subs is None:
            subs = []
        elif not isinstance(subs, list):
            problems.add(f"steps[{i}]", "substeps: expected a list of substeps ({role, content}), "
                         f"got {type(subs).__name__}; read as an empty step")
            subs = []
        subs = [x for x in subs if isinstance(x, dict)]
        # Magentic-One roles carry a tag: "Orchestrator (thought)" and "Orchestrator (-> WebSurfer)"
        # are both the Orchestrator
        roles = list(dict.fromkeys(_untagged(x["role"]) for x in subs if x.get("role")))
        if len(roles) <= 1:
            content = "\n\n".join(str(x.get("content") or "") for x in subs)
        else:
            content = "\n\n".join(f"{x.get('role')}: {x.get('content') or ''}" for x in subs)
        steps.append({"agent": agent_name(roles[0] if roles else None), "content": content,
                      "index": s.get("index", pos + 1), "substeps": subs})
    text = record.get("instruction") or ""
    data = {k: v for k, v in record.items() if k != "steps"}
    data.update({ctx.id_key: str(tid), ctx.text_key: text, "steps": steps})
    return Item(str(tid), data, source, NAME, str(text), None)


def _position(data: dict, f: dict) -> int | None:
    steps = data.get("steps") or []
    if isinstance(f.get("step"), int):
        return f["step"] if 0 <= f["step"] < len(steps) else None
    n = f.get("step_number")
    try:
        n = int(n)
    except (TypeError, ValueError):
        return None
    # whole-number indexes only: an annotation may be joined to any item, whose steps' `index`
    # can be anything (an object or a list would not even be a dict key)
    indexed = {s["index"]: i for i, s in enumerate(steps) if isinstance(s, dict) and isinstance(s.get("index"), int)}
    if indexed:
        return indexed.get(n)
    return n - 1 if 1 <= n <= len(steps) else None


def normalise(raw: dict, data: dict):
    """(gold, [(where, message, level)]) of an AgentRx annotation for an item's data."""
    problems = st.Problems()
    root = raw.get("root_cause_failure_id")
    rc = raw.get("root_cause") if isinstance(raw.get("root_cause"), dict) else {}
    if root is None:
        root = rc.get("failure_id")
    reason = raw.get("root_cause_reason") or rc.get("reason_for_root_cause")
    steps = data.get("steps") or []
    failures = []
    for i, f in enumerate(raw.get("failures") or []):
        if not isinstance(f, dict):
            problems.add(f"failures[{i}]", f"expected a failure object, got {type(f).__name__}; skipped")
            continue
        step = _position(data, f)
        if step is None and (f.get("step") is not None or f.get("step_number") is not None):
            problems.add(f"failures[{i}]", f"step {f.get('step', f.get('step_number'))!r} is not a step of the run "
                         f"({len(steps)} steps); kept without a step")
        agent = f.get("failed_agent") or f.get("agent")
        if not agent and step is not None and isinstance(steps[step], dict):
            agent = steps[step].get("agent")
        is_root = bool(f.get("root_cause")) or (root is not None and str(f.get("failure_id")) == str(root))
        failures.append({"step": step, "agent": agent, "category": f.get("failure_category", f.get("category")),
                         "root_cause": is_root, "impact": f.get("impact"),
                         "description": f.get("step_reason") or f.get("description") or "",
                         "failure_id": f.get("failure_id"),
                         **({"category_reason": f["category_reason"]} if f.get("category_reason") else {})})
    if root is not None and not any(f["root_cause"] for f in failures):
        problems.add("root_cause_failure_id", f"names failure {root!r}, which is not among the failures")
    chosen, basis = st.choose_mistake(failures)
    gold = {"failures": failures,
            "mistake_agent": chosen["agent"] if chosen else None,
            "mistake_step": chosen["step"] if chosen else None,
            "mistake_reason": (reason if basis == "root cause" else None)
            or (chosen["description"] if chosen else ""),
            "mistake_basis": basis, "failure_summary": raw.get("failure_summary", "")}
    if rc.get("reason_for_root_cause"):
        gold["reason_for_root_cause"] = rc["reason_for_root_cause"]
    return gold, problems


def _merge(item: Item, raw: dict, source: str = ""):
    gold, problems = normalise(raw, item.data)
    own = item.gold or {}
    if own.get("mistake_agent") is not None or own.get("mistake_step") is not None:
        for k in ("mistake_agent", "mistake_step", "mistake_reason"):
            gold[k] = own.get(k)
        gold["mistake_basis"] = "the run's own gold"
        if "mistake_step_raw" in own:
            gold["mistake_step_raw"] = own["mistake_step_raw"]
    if source:
        gold["source"] = source
    item.gold = gold
    item.data["gold"] = gold
    item._hash = ""
    return problems


def read(records, ctx):
    items, problems = [], []
    single = len(records) == 1 and records[0][1] == ""
    for record, where in records:
        src = source_of(ctx.path, where)
        prefix = f"{where}, " if where else ""
        if not detect(record):
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
            continue
        probs = st.Problems()
        try:
            if isinstance(record.get("history"), list):
                item = whowhen.to_item(record, src, id_key=ctx.id_key, text_key=ctx.text_key,
                                       file=Path(ctx.path), single=single)
                item.format = NAME
                item.data.pop("failures", None)
                problems.extend(ctx.problem(w, m, "warning") for w, m in whowhen.gold_problems(item))
            elif _is_trajectory(record):
                item = _trajectory_item(record, src, ctx, single, probs)
            else:  # an annotation alone
                tid = record.get("trajectory_id", record.get("question_ID", record.get(ctx.id_key)))
                if tid in (None, ""):
                    raise ValueError("AgentRx annotation has no trajectory_id")
                ctx.golds.append(SidecarGold(str(tid), record, src, _merge))
                continue
        except (ValueError, KeyError, TypeError) as e:
            problems.append(ctx.problem(where or "record", f"{e}; skipped"))
            continue
        if isinstance(record.get("failures"), list):
            probs.extend(_merge(item, record))
        if probs:
            problems.extend(st.convert_problems(probs, ctx.path, f"{prefix}run {item.id}, "))
        items.append(item)
    return items, problems
