"""Items and their steps.

An item is one run, kept as a dict in Potato's item format (whatever reader produced
it). Steps are read from it per scheme (`steps_key`, `agent_key`) and keep their
position in the trace: step N is step N everywhere, text or not.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

UNKNOWN_AGENT = "(unknown)"


@dataclass
class Item:
    id: str
    data: dict  # the item in Potato's format
    source: str  # "path:line" or "path", for messages
    format: str = "potato"
    text: str = ""
    gold: dict | None = None  # e.g. Who&When {mistake_agent, mistake_step, mistake_reason}
    _hash: str = field(default="", repr=False)

    @property
    def trace_hash(self) -> str:
        """A fingerprint of the item's data, stored with each label to detect edited data."""
        if not self._hash:
            blob = json.dumps(self.data, sort_keys=True, ensure_ascii=False, default=str)
            self._hash = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return self._hash


# Not frozen: a frozen dataclass costs ~0.7 µs more per object, and a trace can hold 100,000s.
@dataclass(slots=True)
class Step:
    index: int
    id: str
    agent: str
    text: str
    raw: Any


def agent_name(value: Any) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        return UNKNOWN_AGENT
    return str(value).strip() if isinstance(value, str) else str(value)


def content_text(content: Any) -> str:
    """Text of a step's content: a string, or the text of OpenAI/Anthropic content blocks."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "tool_result":
                    parts.append(content_text(block.get("content")))
        return "\n".join(p for p in parts if p)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return content["text"]
    return json.dumps(content, ensure_ascii=False, default=str)


def step_text(raw: Any, text_key: str | None = None) -> str:
    """The text shown for a step: `text_key` if given and present, else content, else action."""
    if not isinstance(raw, dict):
        return "" if raw is None else str(raw)
    for key in ([text_key] if text_key else []) + ["content", "text", "action"]:
        if key in raw and raw[key] not in (None, ""):
            return content_text(raw[key])
    return ""


def one_line(text: Any, limit: int | None = None) -> str:
    """Trace text on one line (runs of white space as one space), cut to `limit` characters
    with "…". Only as much of the text is read as the cut needs: labels of a 5,000-step run are
    made on every rerun, and a step's text can be megabytes (the one line of a prefix is a
    prefix of the whole text's one line, so the result is the same)."""
    s = "" if text is None else str(text)
    if limit is None:
        return " ".join(s.split())
    n = max(4 * limit, 256)
    while True:
        line = " ".join(s[:n].split())
        if len(line) > limit:
            return line[: limit - 1] + "…"
        if n >= len(s):
            return line
        n *= 4


def step_label(index: int, agent: str, excerpt: str) -> str:
    """A step as one line of plain text: "Step 3 · Planner · first words…" (escape it before
    showing it as Markdown); `excerpt` is the step's text already cut (see one_line)."""
    return f"Step {index} · {agent} · {excerpt or '(no text)'}"


def raw_steps(data: dict, steps_key: str = "steps") -> list:
    steps = data.get(steps_key)
    return steps if isinstance(steps, list) else []


def read_steps(data: dict, steps_key: str = "steps", agent_key: str = "agent",
               text_key: str | None = None) -> list[Step]:
    """Every entry of the item's step list, in order, as a Step (none dropped)."""
    out = []
    append = out.append
    for i, raw in enumerate(raw_steps(data, steps_key)):
        if type(raw) is dict:
            a = raw.get(agent_key)
            # the common cases inline (agent_name, step_text), the rest through them
            agent = (a.strip() or UNKNOWN_AGENT) if type(a) is str else agent_name(a)
            sid = raw["id"] if "id" in raw else raw.get("step_id")
            sid = str(i) if sid is None else str(sid)
            c = raw.get("content") if text_key is None else None
            text = c if type(c) is str and c else step_text(raw, text_key)
            append(Step(i, sid, agent, text, raw))
        elif isinstance(raw, dict):
            agent = agent_name(raw.get(agent_key))
            sid = raw.get("id", raw.get("step_id"))
            sid = str(i) if sid is None else str(sid)
            append(Step(i, sid, agent, step_text(raw, text_key), raw))
        else:
            append(Step(i, str(i), UNKNOWN_AGENT, step_text(raw, text_key), raw))
    return out
