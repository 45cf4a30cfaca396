"""AutoGen 0.4 (AgentChat) runs: a `TaskResult` `{"messages": [...], "stop_reason"}` as
`model_dump()` writes it, or a file that is only a list (or JSON Lines) of its messages.

A message is `{"source", "type", "content", "models_usage"?, "metadata"?, "created_at"?,
"id"?}`. Every message is one step, in order, of the agent named by `source` (`user` for the
task). By `type`:
- `ToolCallRequestEvent`: `content` is a list of `FunctionCall` `{id, name, arguments}`: the
  step's tool calls (arguments parsed from their JSON text);
- `ToolCallExecutionEvent`: `content` is a list of `FunctionExecutionResult` `{call_id, content,
  is_error, name?}`: each result is attached to the call with its id, and the step shows them;
  with both events' `created_at`, each call is also a timed call (request → result);
- `HandoffMessage`: its `target` is kept; the handoff is the change of agent that follows;
- `TextMessage`, `StopMessage`, `ToolCallSummaryMessage`, `ThoughtEvent`, `MultiModalMessage`
  (text parts kept, images named), `SelectSpeakerEvent` and the rest: their content as text.
"""
from __future__ import annotations

import json
import sys

from app.traces.trace import Item, agent_name, content_text
from app.traces.timeparse import parse_time
from app.traces.readers.context import Context
from app.traces.readers.conversations import read_conversations

NAME = "autogen"
SHAPE = 'an AutoGen TaskResult ({"messages": [{"source", "type", "content"}], "stop_reason"})'


def _is_message(m) -> bool:
    return isinstance(m, dict) and isinstance(m.get("source"), str) and isinstance(m.get("type"), str) and (
        "content" in m)


def detect(record) -> bool:
    if _is_message(record):
        return True
    msgs = record.get("messages") if isinstance(record, dict) else None
    return isinstance(msgs, list) and bool(msgs) and all(_is_message(m) for m in msgs[:5])


def _text(content) -> str:
    if isinstance(content, list):
        parts = []
        for c in content:
            if isinstance(c, str):
                parts.append(c)
            elif isinstance(c, dict) and ("name" in c and "arguments" in c):
                parts.append(f"→ {c.get('name')}({c.get('arguments') or ''})")
            elif isinstance(c, dict) and "call_id" in c:
                parts.append(f"← {c.get('name') or c.get('call_id')}: {content_text(c.get('content'))}")
            elif isinstance(c, dict) and c.get("text"):
                parts.append(str(c["text"]))
            else:
                parts.append("(image)" if isinstance(c, dict) and ("data" in c or "image" in c) else
                             json.dumps(c, ensure_ascii=False, default=str))
        return "\n".join(parts)
    return content_text(content)


def _time(m: dict):
    try:
        return parse_time(m["created_at"]) if m.get("created_at") not in (None, "") else None
    except ValueError:
        return None


def steps_of(messages: list, problems: list) -> tuple[list[dict], list[dict]]:
    """(steps, timed calls) of AutoGen messages; what is misread goes to `problems`
    as (message index, text)."""
    steps: list[dict] = []
    calls: list[dict] = []
    waiting: dict[str, tuple[dict, dict, float | None]] = {}  # call id -> (call entry, step, start)
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            problems.append((i, f"expected a message object, got {type(m).__name__}; kept as an empty step"))
            steps.append({"agent": agent_name(None), "content": "" if m is None else str(m)})
            continue
        typ = str(m.get("type") or "")
        step = {k: v for k, v in m.items() if k not in ("content", "source")}
        step["agent"] = agent_name(m.get("source"))
        content = m.get("content")
        step["content"] = _text(content)
        when = _time(m)
        if when is not None:
            step["start"] = when
        if typ == "ToolCallRequestEvent" and isinstance(content, list):
            step["tool_calls"] = []
            for c in content:
                if not isinstance(c, dict):
                    continue
                args = c.get("arguments")
                try:
                    args = json.loads(args) if isinstance(args, str) else args
                except ValueError:
                    pass
                entry = {"id": c.get("id"), "type": "function", "function": {"name": c.get("name"), "arguments": args}}
                step["tool_calls"].append(entry)
                if c.get("id") is not None:
                    waiting[str(c["id"])] = (entry, step, when)
        elif typ == "ToolCallExecutionEvent" and isinstance(content, list):
            for c in content:
                cid = str(c.get("call_id")) if isinstance(c, dict) else None
                if cid not in waiting:
                    problems.append((i, f"result for call {cid!r}, which no earlier ToolCallRequestEvent made"))
                    continue
                entry, req, start = waiting.pop(cid)
                entry["result"] = c.get("content")
                if c.get("is_error"):
                    entry["status"] = "error"
                name = entry["function"]["name"] or c.get("name") or "(unknown)"
                if start is not None and when is not None and when >= start:
                    calls.append({"agent": req["agent"], "tool": name, "resource": name, "start": start,
                                  "end": when, "call_id": cid})
        elif typ == "HandoffMessage" and m.get("target") is not None:
            step["target"] = m["target"]
        steps.append(step)
    return steps, calls


def _item(messages: list, extra: dict, item_id: str, source: str, ctx: Context, problems: list) -> Item:
    steps, calls = steps_of(messages, problems)
    text = next((s["content"] for s in steps if s.get("agent") == "user" and s.get("content")), "")
    text = extra.get(ctx.text_key) if isinstance(extra.get(ctx.text_key), str) and extra.get(ctx.text_key) else text
    data = {k: v for k, v in extra.items() if k != "messages"}
    data.update({ctx.id_key: item_id, ctx.text_key: text, "steps": steps})
    if calls:
        data["calls"] = calls
    gold = extra.get("gold") if isinstance(extra.get("gold"), dict) else None
    return Item(item_id, data, source, NAME, text, gold)


def read(records, ctx: Context):
    return read_conversations(records, ctx, sys.modules[__name__], _is_message, _item)
