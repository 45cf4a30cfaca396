"""Who&When run files (Zhang et al., ICML 2025): one failed run per file.

Hand-crafted (Magentic-One) runs name the agent in `role` with a tag,
`"Orchestrator (-> WebSurfer)"`; algorithm-generated runs name it in `name`.
`mistake_step` is a string holding a 0-based index into `history`; every history
entry becomes one step, so that index is the step index.
"""
from __future__ import annotations

import re
from pathlib import Path

from app.traces.trace import Item, agent_name

NAME = "whowhen"
SHAPE = 'a Who&When run ({"history": [...], "question", "mistake_agent", ...})'
_TAGGED = re.compile(r"^\s*(.*?)\s*\((.*)\)\s*$")
_GENERIC_ROLES = {"user", "assistant", "system", "tool", "function"}


def detect(record) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("history"), list)
            and ("mistake_agent" in record or "question" in record))


def agent_of(entry: dict) -> str:
    """The acting agent of a history entry: `name`, else `role` without its tag."""
    name = entry.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    role = entry.get("role")
    if isinstance(role, str):
        m = _TAGGED.match(role)
        role = m.group(1) if m and m.group(1) else role
        if role.strip() not in _GENERIC_ROLES:  # "Assistant" (capitalised) is a Magentic-One agent
            return agent_name(role)
    return agent_name(None)


def gold_problems(item: Item) -> list[tuple[str, str]]:
    """(where, message) for gold that points outside the run: a `mistake_step` that is no step
    index of it (999 on a 44-step run, or "step 9")."""
    gold = item.gold or {}
    raw = gold.get("mistake_step_raw")
    if raw in (None, "") or gold.get("mistake_step") is not None:
        return []
    n = len(item.data.get("steps") or [])
    try:
        int(str(raw).strip())
    except ValueError:
        why = "is not a step index (a whole number counting from 0)"
    else:
        why = f"is outside the run ({n} steps: 0 to {n - 1})" if n else "is outside the run (it has no steps)"
    return [(f"run {item.id}, mistake_step", f"gold mistake_step {raw!r} {why}; the gold is kept without a step")]


def _tag(role) -> str:
    m = _TAGGED.match(role) if isinstance(role, str) else None
    return m.group(2) if m else ""


def to_item(record: dict, source: str, id_key: str, text_key: str, file: Path | None = None,
            single: bool = True, **_) -> Item:
    if single and file is not None:
        item_id = f"{file.parent.name}-{file.stem}" if file.parent.name else file.stem
    else:
        item_id = str(record.get("question_ID") or record.get(id_key) or "")
        if not item_id:
            raise ValueError("Who&When record has no question_ID")
    steps = []
    for i, h in enumerate(record["history"]):
        if not isinstance(h, dict):
            steps.append({"agent": agent_name(None), "content": "" if h is None else str(h)})
            continue
        step = {"agent": agent_of(h), "content": h.get("content", ""), "role": h.get("role")}
        if h.get("name") is not None:
            step["name"] = h["name"]
        if _tag(h.get("role")):
            step["tag"] = _tag(h.get("role"))
        steps.append(step)
    gold = None
    if record.get("mistake_agent") is not None or record.get("mistake_step") is not None:
        step_raw = record.get("mistake_step")
        try:
            step = int(str(step_raw).strip())
        except ValueError:
            step = None
        if step is not None and not 0 <= step < len(steps):
            step = None  # outside the run: kept as given in mistake_step_raw, and reported (gold_problems)
        gold = {"mistake_agent": record.get("mistake_agent"), "mistake_step": step,
                "mistake_step_raw": step_raw, "mistake_reason": record.get("mistake_reason", "")}
    data = {k: val for k, val in record.items() if k != "history"}
    data.update({id_key: item_id, text_key: record.get("question", ""), "steps": steps})
    if gold:
        data["gold"] = gold
    return Item(item_id, data, source, NAME, str(record.get("question", "")), gold)
