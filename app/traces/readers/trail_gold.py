"""TRAIL gold (`trail/gold/<trace_id>.json`): span-located errors, read with their trace.

`{"trace_id", "errors": [{"category", "location" (a span id), "evidence", "description",
"impact": "HIGH|MEDIUM|LOW"}], "scores": [{...}]}`. Each error is mapped to the step of its
span (the LLM step itself, the step holding a TOOL span as a tool call, or the first step
inside any other span) and to the agent that span belongs to. Normalised gold:

    {"failures": [{"step", "agent", "category", "root_cause", "impact", "description",
                   "evidence", "location"}],
     "mistake_agent", "mistake_step", "mistake_reason", "mistake_basis",
     "scores": {...}, "source": path of the gold file}

TRAIL marks no root cause, so `mistake_*` come from the earliest error of the highest
impact present (`mistake_basis` says which rule chose it). A gold file read on its own (a
folder of traces and gold) is joined to its trace by id.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from app.traces.readers import spantree as st
from app.traces.readers.context import SidecarGold, wrong_shape

NAME = "trail_gold"
SHAPE = 'TRAIL gold ({"trace_id", "errors": [...], "scores": [...]})'


def detect(record) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("errors"), list)
            and "trace_id" in record and "spans" not in record)


# A trace id names a gold file only when it is a plain file name: an id such as
# "../../x" (or one with a NUL byte, or too long for the filesystem) must not make the
# reader open files outside the gold folder.
_FILE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def find(trace_path: Path, trace_id: str) -> Path | None:
    """TRAIL's layout: gold/<trace_id>.json beside the trace or one folder up."""
    if not isinstance(trace_id, str) or not _FILE_ID.fullmatch(trace_id):
        return None
    for folder in (trace_path.parent, trace_path.parent.parent):
        p = folder / "gold" / f"{trace_id}.json"
        try:
            if p.is_file() and p.resolve() != trace_path.resolve():
                return p
        except (OSError, ValueError):
            continue
    return None


def normalise(raw, data: dict, source: str):
    """(gold, [(where, message, level)]) for a TRAIL gold record and the item it belongs to."""
    problems = st.Problems()
    if not isinstance(raw, dict) or not isinstance(raw.get("errors"), list):
        problems.add("", f"expected {SHAPE}; gold not attached", "warning")
        return None, problems
    failures = []
    for i, e in enumerate(raw["errors"]):
        if not isinstance(e, dict):
            problems.add(f"errors[{i}]", f"expected an error object, got {type(e).__name__}; skipped")
            continue
        loc = e.get("location")
        step, agent = st.locate(data, loc)
        if step is None and agent is None:
            problems.add(f"errors[{i}]", f"location span {loc} is not in the trace; kept without a step or agent")
        failures.append({"step": step, "agent": agent, "category": e.get("category"),
                         "root_cause": bool(e.get("root_cause", False)), "impact": e.get("impact"),
                         "description": e.get("description") or "", "evidence": e.get("evidence"),
                         "location": loc})
    chosen, basis = st.choose_mistake(failures)
    scores = raw.get("scores")
    if isinstance(scores, list):
        scores = scores[0] if len(scores) == 1 else scores
    gold = {"failures": failures,
            "mistake_agent": chosen["agent"] if chosen else None,
            "mistake_step": chosen["step"] if chosen else None,
            "mistake_reason": (chosen["description"] or chosen["category"] or "") if chosen else "",
            "mistake_basis": basis, "scores": scores, "source": source}
    return gold, problems


def attach(item, raw, source: str):
    gold, problems = normalise(raw, item.data, source)
    if gold is not None:
        item.gold = gold
        item.data["gold"] = gold
        item._hash = ""
    return problems


def read(records, ctx):
    problems = []
    for record, where in records:
        if not detect(record):
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
            continue
        source = str(Path(ctx.path).resolve())
        ctx.golds.append(SidecarGold(str(record["trace_id"]), record, source, attach))
    return [], problems
