"""MAD / MAST records (Cemri et al., "Why Do Multi-Agent LLM Systems Fail?", 2025).

`{"round", "mas_name", "benchmark_name", "trace_id", "trace", "annotations": [{"failure mode":
"<code> <name>\\n\\n<definition>", "annotator_1": bool, "annotator_2": bool, "annotator_3": bool}]}`.

- `trace` is a string: JSON for AG2 (`{"trajectory": [{"content": [lines], "role", "name"}]}`,
  one step per entry, the agent in `name`), a MetaGPT run (`{"content": "<log>"}`) or a raw log.
  A log becomes one step per line group whose agent can be recognised: a loguru line
  `... | INFO | module - Alice(SimpleCoder): ...` (agent: the role in parentheses, the name
  kept as `name`), `[time] FROM: Human TO: ...`, or `[time] NEW MESSAGES:` followed by
  `SimpleCoder: ...`. Lines outside any such group are kept in the item's `log_other`.
- Gold is per trace: `{"failure_modes": [{"mode", "code", "name", "votes", "label"}],
  "labels": [...]}` where `label` is the annotators' majority and `mode` the MAST name the
  labelled name maps to (the codes were renumbered between rounds, so modes are matched by
  name; names that left the final taxonomy keep their own). No step-level gold.
- Item id: `<mas_name>-<benchmark_name>-<round>-<trace_id>`.
"""
from __future__ import annotations

import json
import re

from app.traces.trace import Item, agent_name

NAME = "mast"
SHAPE = 'a MAD record ({"mas_name", "benchmark_name", "trace_id", "trace", "annotations"})'

# Labelled name (any round) -> (final MAST code, final name)
_MODES = {
    "disobey task specification": ("1.1", "Disobey Task Specification"),
    "poor task constraint compliance": ("1.1", "Disobey Task Specification"),
    "disobey role specification": ("1.2", "Disobey Role Specification"),
    "step repetition": ("1.3", "Step Repetition"),
    "loss of conversation history": ("1.4", "Loss of Conversation History"),
    "backtracking interruption": ("1.4", "Loss of Conversation History"),
    "unaware of termination conditions": ("1.5", "Unaware of Termination Conditions"),
    "unaware of stopping conditions": ("1.5", "Unaware of Termination Conditions"),
    "conversation reset": ("2.1", "Conversation Reset"),
    "fail to ask for clarification": ("2.2", "Fail to Ask for Clarification"),
    "fail to elicit clarification": ("2.2", "Fail to Ask for Clarification"),
    "task derailment": ("2.3", "Task Derailment"),
    "derailment from task": ("2.3", "Task Derailment"),
    "information withholding": ("2.4", "Information Withholding"),
    "information witholding": ("2.4", "Information Withholding"),
    "withholding relevant information": ("2.4", "Information Withholding"),
    "ignored other agents input": ("2.5", "Ignored Other Agent's Input"),
    "ignoring suggestions from agents": ("2.5", "Ignored Other Agent's Input"),
    "reasoning-action mismatch": ("2.6", "Reasoning-Action Mismatch"),
    "inconsistency between reasoning and action": ("2.6", "Reasoning-Action Mismatch"),
    "premature termination": ("3.1", "Premature Termination"),
    "ill specified termination condition leading to premature termination": ("3.1", "Premature Termination"),
    "no or incomplete verification": ("3.2", "No or Incomplete Verification"),
    "lack of critical verification": ("3.2", "No or Incomplete Verification"),
    "incorrect verification": ("3.3", "Incorrect Verification"),
    "lack of result verification": ("3.3", "Incorrect Verification"),
}
_CODE = re.compile(r"^\s*(\d+(?:\.\d+)*)\s+(.*)$")
_LOGURU = re.compile(r"^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?)\s*\|\s*\w+\s*\|\s*\S+\s+-\s+(.*)$")
_WHO = re.compile(r"^([A-Za-z_][\w .-]{0,60}?)\(([A-Za-z_][\w .-]{0,60})\):\s?(.*)$", re.S)
_FROM = re.compile(r"^\[([^\]]+)\]\s+FROM:\s*(.+?)\s+TO:\s*(.*)$")
_NEW = re.compile(r"^\[([^\]]+)\]\s+NEW MESSAGES:\s*$")
_SPEAKER = re.compile(r"^([A-Za-z_][\w.-]{0,60}):(?:\s(.*))?$")
_RULE = re.compile(r"^\s*-{10,}\s*$")


def detect(record) -> bool:
    return isinstance(record, dict) and "trace" in record and ("mas_name" in record or (
        isinstance(record.get("annotations"), list) and any(
            isinstance(a, dict) and "failure mode" in a for a in record["annotations"])))


def mode_of(text: str) -> dict:
    """{"code", "name", "mode", "mast_code"} of a labelled failure mode."""
    first = (text or "").strip().split("\n", 1)[0].strip()
    m = _CODE.match(first)
    code, name = (m.group(1), m.group(2).strip()) if m else ("", first)
    key = re.sub(r"\s+", " ", re.sub(r"['’]", "", name.lower())).strip()
    mast_code, mode = _MODES.get(key, ("", name))
    return {"code": code, "name": name, "mode": mode, "mast_code": mast_code}


def gold_of(annotations) -> dict | None:
    if not isinstance(annotations, list):
        return None
    modes = []
    for a in annotations:
        if not isinstance(a, dict) or "failure mode" not in a:
            continue
        votes = [a[k] for k in sorted(a) if k.startswith("annotator")]
        entry = mode_of(str(a["failure mode"]))
        entry["votes"] = votes
        entry["label"] = sum(bool(v) for v in votes) * 2 > len(votes) if votes else False
        modes.append(entry)
    return {"failure_modes": modes, "labels": [m["mode"] for m in modes if m["label"]]}


def log_steps(log: str) -> tuple[list[dict], str]:
    """Steps of a raw multi-agent log, and the text outside every recognised group."""
    steps: list[dict] = []
    other: list[str] = []
    cur: list[str] | None = None  # lines of the open step
    waiting: str | None = None  # time of a NEW MESSAGES header waiting for its speaker

    def open_step(agent, time, first, **extra):
        nonlocal cur
        step = {"agent": agent_name(agent), "content": "", "time": time, **extra}
        steps.append(step)
        cur = [first] if first else []
        step["_lines"] = cur

    for line in log.splitlines():
        if waiting is not None:
            if not line.strip():
                continue
            m = _SPEAKER.match(line)
            if m:
                open_step(m.group(1), waiting, m.group(2) or "")
            else:
                other.append(line)
            waiting = None
            continue
        m = _LOGURU.match(line)
        if m:
            who = _WHO.match(m.group(2))
            if who:
                open_step(who.group(2).strip(), m.group(1), who.group(3), name=who.group(1).strip())
                continue
        m = _FROM.match(line)
        if m:
            open_step(m.group(2).strip(), m.group(1), "", to=m.group(3).strip())
            continue
        m = _NEW.match(line)
        if m:
            waiting, cur = m.group(1), None
            continue
        if _RULE.match(line):
            cur = None
            continue
        (cur if cur is not None else other).append(line)
    for s in steps:
        s["content"] = "\n".join(s.pop("_lines")).strip()
    return steps, "\n".join(line for line in other if line.strip())


def to_item(record: dict, source: str, id_key: str, text_key: str, **_) -> Item:
    parts = [record.get("mas_name"), record.get("benchmark_name"),
             re.sub(r"\W+", "", str(record.get("round") or "").lower()) or None, record.get("trace_id")]
    item_id = str(record.get(id_key) or "-".join(str(p) for p in parts if p not in (None, "")))
    if not item_id:
        raise ValueError("MAD record has no mas_name, benchmark_name or trace_id to name it by")
    trace = record.get("trace")
    if isinstance(trace, str):
        try:
            trace = json.loads(trace)
        except (ValueError, RecursionError):  # RecursionError: nested thousands deep
            pass
    text, other = "", ""
    if isinstance(trace, dict) and isinstance(trace.get("trajectory"), list):
        steps = []
        for e in trace["trajectory"]:
            if not isinstance(e, dict):
                steps.append({"agent": agent_name(None), "content": "" if e is None else str(e)})
                continue
            content = e.get("content")
            if isinstance(content, list) and all(isinstance(x, str) for x in content):
                content = "\n".join(content)
            steps.append({"agent": agent_name(e.get("name") or e.get("role")), "content": content,
                          "role": e.get("role")})
        ps = trace.get("problem_statement")
        text = "\n".join(ps) if isinstance(ps, list) else ("" if ps is None else str(ps))
    elif isinstance(trace, dict) and isinstance(trace.get("content"), str):
        steps, other = log_steps(trace["content"])
        text = str(trace.get("prompt") or "")
    elif isinstance(trace, str):
        steps, other = log_steps(trace)
    else:
        raise ValueError(f"trace: expected AG2 JSON, a MetaGPT run or a log, got {type(trace).__name__}")
    if not steps and other:
        steps = [{"agent": agent_name(None), "content": other}]
        other = ""
    if not text and steps:
        text = str(steps[0].get("content") or "")
        text = text.split("CONTENT:\n", 1)[-1].strip() if text.startswith("ACTION:") else text
    gold = gold_of(record.get("annotations"))
    data = {k: v for k, v in record.items() if k not in ("trace", "annotations")}
    data.update({id_key: item_id, text_key: text, "steps": steps})
    if other:
        data["log_other"] = other
    if isinstance(trace, dict):
        data["trace_meta"] = {k: v for k, v in trace.items() if k not in ("trajectory", "content")}
    if gold:
        data["gold"] = gold
    return Item(item_id, data, source, NAME, text, gold)
