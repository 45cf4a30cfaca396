"""Extract tool calls (and their results) from trace steps of many shapes.

Supported shapes: Potato-style {"name", "args"}, OpenAI tool_calls and the
legacy function_call, Anthropic tool_use/tool_result content blocks, ReAct
`action` strings like search_web('SF weather'), and steps that are
themselves a tool call ({"tool", "args", "result"}).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Callable

__all__ = ["ToolCall", "extract_tool_calls"]

UNKNOWN = "(unknown)"
_ARG_KEYS = ("args", "arguments", "input", "parameters", "tool_input")
_RESULT_KEYS = ("result", "output", "observation")
_RESULT_SET = frozenset(_RESULT_KEYS)
# `name(...)` with the whole remainder inside the parentheses.
_CALL_TEXT = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*\((.*)\)\s*", re.DOTALL)


@dataclass(slots=True)
class ToolCall:
    """One tool call; index is its position over the whole trace."""

    index: int
    step: int
    agent: str
    tool: str
    arguments: Any
    call_id: str | None = None
    result: Any = None


# Internal draft of a call: (tool, arguments, call_id, has_result, result).
_Draft = tuple


def _first(d: dict, keys: tuple[str, ...]) -> tuple[bool, Any]:
    """Return (found, value) for the first of keys present in d."""
    for k in keys:
        if k in d:
            return True, d[k]
    return False, None


def _result(d: dict) -> tuple[bool, Any]:
    """_first(d, _RESULT_KEYS): most calls and steps have none, which one C-level test finds."""
    return (False, None) if _RESULT_SET.isdisjoint(d) else _first(d, _RESULT_KEYS)


def _name(v: Any) -> str | None:
    """Tool name as text, or None when missing or blank."""
    if type(v) is str:  # the common case, as below without the conversions
        return v.strip() or None
    if v is None or isinstance(v, (dict, list)):
        return None
    text = str(v).strip()
    return text or None


def _call_id(d: dict) -> str | None:
    v = d.get("id", d.get("call_id"))
    return None if v is None else str(v)


def _parse_json_args(v: Any) -> Any:
    """OpenAI sends arguments as a JSON string; keep the raw text if invalid."""
    if isinstance(v, str):
        try:
            return json.loads(v)
        except (ValueError, RecursionError):  # RecursionError: nested thousands deep
            return v
    return v


def _from_entry(entry: Any) -> _Draft | None:
    """Parse one entry of `tool_calls` / a `tool_call` dict, or None."""
    if not isinstance(entry, dict):
        if isinstance(entry, str):
            return (entry, None, None, False, None) if entry.strip() else None
        return None
    fn = entry.get("function")
    if isinstance(fn, dict):  # OpenAI
        tool = _name(fn.get("name")) or UNKNOWN
        args = _parse_json_args(fn.get("arguments"))
    else:
        tool = _name(entry.get("name")) or _name(entry.get("tool")) or UNKNOWN
        args = _first(entry, _ARG_KEYS)[1]
    has_result, result = _result(entry)
    return tool, args, _call_id(entry), has_result, result


def _from_action(action: Any) -> _Draft | None:
    """Parse a ReAct-style `action`: a dict or text such as tool('arg')."""
    if isinstance(action, dict):
        tool = _name(action.get("name")) or _name(action.get("tool"))
        # An action dict without a tool name (e.g. a final answer) is no call.
        if tool is None:
            return None
        return tool, _first(action, _ARG_KEYS)[1], _call_id(action), False, None
    if isinstance(action, str) and action.strip():
        m = _CALL_TEXT.fullmatch(action)
        if m:
            return m.group(1), m.group(2), None, False, None
        return action.strip(), None, None, False, None
    return None


def _step_drafts(step: dict) -> list[_Draft]:
    """Tool calls made in one step.

    The shapes are alternatives: the first that yields calls wins, so a step
    describing one call two ways (say `tool` plus `action`) is not counted
    twice. Structured shapes come before the free-form `action`.
    """
    tc = step.get("tool_calls")
    if isinstance(tc, list):
        drafts = []
        for entry in tc:  # a loop: half the time of list(filter(...)) for the usual one entry
            draft = _from_entry(entry)
            if draft:
                drafts.append(draft)
        if drafts:
            return drafts
    if isinstance(step.get("tool_call"), dict):
        return [_from_entry(step["tool_call"])]
    if isinstance(step.get("function_call"), dict):
        # Legacy OpenAI: the body of a modern entry's "function", no id.
        return [_from_entry({"function": step["function_call"]})]
    content = step.get("content")
    if isinstance(content, list):
        drafts = [
            (
                _name(b.get("name")) or UNKNOWN,
                b.get("input"),
                _call_id(b),
                False,
                None,
            )
            for b in content
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
        if drafts:
            return drafts
    tool = step.get("tool")
    if isinstance(tool, dict):
        return [_from_entry(tool)]
    if _name(tool):
        # Only `call_id`: a step's own "id" usually names the step, not a call.
        cid = step.get("call_id")
        args = _first(step, _ARG_KEYS)[1]
        return [(_name(tool), args, None if cid is None else str(cid), False, None)]
    draft = _from_action(step.get("action"))
    return [draft] if draft else []


def _step_results(step: dict) -> list[tuple[str, Any]]:
    """(call id, result) pairs a step reports for earlier calls."""
    out = []
    if step.get("role") == "tool" and step.get("tool_call_id") is not None:
        out.append((str(step["tool_call_id"]), step.get("content")))
    content = step.get("content")
    if isinstance(content, list):
        for b in content:
            if (
                isinstance(b, dict)
                and b.get("type") == "tool_result"
                and b.get("tool_use_id") is not None
            ):
                out.append((str(b["tool_use_id"]), b.get("content")))
    return out


# Keys any call shape (or a tool result) needs; a step without them (and without content
# blocks) makes and answers no call.
_NO_CALL_KEYS = frozenset({"tool_calls", "tool_call", "function_call", "tool", "action", "role"})


def extract_tool_calls(steps: list, agent_of: Callable[[int], str]) -> list[ToolCall]:
    """Return every tool call in the trace, in step order then in-step order.

    `step` is the position in `steps` (non-dict steps are skipped but still
    counted) and `agent_of(step)` names the caller. A result is attached from
    an OpenAI role="tool" message or an Anthropic tool_result block matched by
    id (first unanswered call with that id), from a `result`/`output` inside
    the call entry, or from the step's own result/output/observation when the
    step made exactly one call.
    """
    calls: list[ToolCall] = []
    waiting: dict[str, list[int]] = {}  # call id -> unanswered call indexes
    for s, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        content = step.get("content")
        if _NO_CALL_KEYS.isdisjoint(step) and type(content) is not list:
            continue  # the common step without any call shape: skipped without the checks below
        role = step.get("role")
        # A role="tool" message answers a call; it never makes one.
        drafts = [] if role == "tool" else _step_drafts(step)
        if drafts:
            agent = agent_of(s)
            step_has, step_result = _result(step)
            for tool, args, cid, has_result, result in drafts:
                if not has_result and step_has and len(drafts) == 1:
                    has_result, result = True, step_result
                i = len(calls)
                calls.append(ToolCall(i, s, agent, tool, args, cid, result))
                if not has_result and cid is not None:
                    waiting.setdefault(cid, []).append(i)
        if role is None and not isinstance(content, list):
            continue  # only a tool message or content blocks answer calls
        for cid, result in _step_results(step):
            pending = waiting.get(cid)
            if pending:
                i = pending.pop(0)
                calls[i] = replace(calls[i], result=result)
    return calls
