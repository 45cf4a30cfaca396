"""Plain chat logs: OpenAI `messages` and Anthropic messages.

A record `{"messages": [...], "id"?, "system"?}` is one conversation; a file that is only a
list (or JSON Lines) of messages is one conversation named after the file. Every message is
one step, in order:
- the agent is the message's `name` (OpenAI's multi-agent convention), else its role
  (`user`, `assistant`, ...); a tool result (OpenAI `role: "tool"`, or an Anthropic user
  message holding only `tool_result` blocks) belongs to the agent whose call it answers;
- tool calls: OpenAI `tool_calls` / `function_call` and Anthropic `tool_use` blocks, with
  their results matched by call id (app/toolcall.py reads them from the steps as they are);
- system prompts before the first message (OpenAI `role: "system"` messages, Anthropic's
  top-level `system`) are kept as the item's `system`, not as steps.
"""
from __future__ import annotations

import sys

from app.traces.trace import Item, agent_name, content_text
from app.traces.readers.context import Context
from app.traces.readers.conversations import read_conversations

NAME = "chat"
SHAPE = 'a chat log ({"messages": [{"role", "content", "name"?, "tool_calls"?}]}) or a list of messages'
_ROLES = {"system", "user", "assistant", "tool", "function", "developer", "model"}


def _is_message(record) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("role"), str)
            and record["role"] in _ROLES and ("content" in record or "tool_calls" in record)
            and "steps" not in record and "history" not in record)


def detect(record) -> bool:
    if isinstance(record, dict) and "steps" not in record and "history" not in record:
        msgs = record.get("messages")
        if isinstance(msgs, list) and msgs and all(isinstance(m, dict) and "role" in m for m in msgs):
            return True
    return _is_message(record)


def _only_tool_results(content) -> bool:
    return (isinstance(content, list) and bool(content)
            and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content))


def conversation(messages: list, system=None, problems: list | None = None) -> tuple[list[dict], str]:
    """(steps, system prompt) of a list of messages; what is misread is added to `problems`
    as (message index, text)."""
    callers: dict[str, str] = {}  # call id -> agent that made it
    last_caller = None
    steps: list[dict] = []
    system_parts = [content_text(system)] if system else []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            steps.append({"agent": agent_name(None), "content": "" if m is None else str(m)})
            continue
        role = str(m.get("role") or "")
        if role in ("system", "developer") and not steps and not m.get("name"):
            system_parts.append(content_text(m.get("content")))
            continue
        content = m.get("content")
        if role in ("tool", "function"):  # a result: the caller's, by call id, else the last caller
            agent = callers.get(str(m.get("tool_call_id")), last_caller or "tool")
        elif role == "user" and _only_tool_results(content):
            ids = [str(b.get("tool_use_id")) for b in content]
            agent = next((callers[i] for i in ids if i in callers), last_caller or "tool")
        else:
            agent = agent_name(m.get("name") or role or None)
        step = dict(m)
        step["agent"] = agent
        calls = m.get("tool_calls")
        if calls is None:
            calls = []
        elif isinstance(calls, list):
            calls = [tc for tc in calls if isinstance(tc, dict)]
        else:  # kept in the step as read; app/toolcall.py reads a list only
            if problems is not None:
                problems.append((i, f"tool_calls: expected a list of tool calls, got {type(calls).__name__}; "
                                    "ignored"))
            calls = []
        if isinstance(content, list):
            calls += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        if calls or isinstance(m.get("function_call"), dict):
            last_caller = agent
        for tc in calls:
            if tc.get("id") is not None:
                callers[str(tc["id"])] = agent
        steps.append(step)
    return steps, "\n\n".join(p for p in system_parts if p)


def _item(messages: list, record: dict, item_id: str, source: str, ctx: Context, problems: list) -> Item:
    steps, system = conversation(messages, record.get("system"), problems)
    text = record.get(ctx.text_key)
    if not isinstance(text, str) or not text:
        text = next((content_text(s.get("content")) for s in steps
                     if s.get("role") == "user" and not _only_tool_results(s.get("content"))), "")
    data = {k: v for k, v in record.items() if k != "messages"}
    data.update({ctx.id_key: item_id, ctx.text_key: text, "steps": steps})
    if system:
        data["system"] = system
    gold = record.get("gold") if isinstance(record.get("gold"), dict) else None
    return Item(item_id, data, source, NAME, text, gold)


def read(records, ctx: Context):
    return read_conversations(records, ctx, sys.modules[__name__], _is_message, _item)
