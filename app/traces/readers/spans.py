"""Spans as the span formats fill them (the normalised fields of `Span`), and the helpers that
read OpenInference and OpenTelemetry GenAI attributes into them (times, kinds, messages,
tool arguments, agent names). app/traces/readers/spantree.py builds an item from a tree of them.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from app.traces.timeparse import parse_duration, parse_time
from app.traces.trace import content_text

DEFAULT_AGENT = "agent"
LLM, TOOL, AGENT = "LLM", "TOOL", "AGENT"
TOOL_KINDS = {"TOOL", "RETRIEVER"}
RESOURCE_KEYS = ("baton.resource", "tool.resource", "resource", "peer.service", "db.system",
                 "db.system.name", "server.address")
_AGENT_NAME_KEYS = ("gen_ai.agent.name", "agent.name")
_NAMED = re.compile(r"""\bagent named ['"]([^'"\n]{1,80})['"]""")
_RUN_SUFFIX = re.compile(r"\.(run|invoke|ainvoke|arun|__call__|execute|step)$")
# LangChain's and LangGraph's own building blocks (RunnableAssign<agent_scratchpad>, RunnableSequence,
# prompt templates, parsers): never an agent, whatever their name contains
INTERNAL = re.compile(r"^(Runnable\w*|ChatPromptTemplate|PromptTemplate|\w*OutputParser|LangGraph|__start__|"
                      r"__end__|ChannelWrite\w*|ChannelRead\w*|_write)(<.*>)?$")
_FLAT = re.compile(r"^(llm\.(?:input|output)_messages|gen_ai\.(?:prompt|completion))\.(\d+)\.(.+)$")


class Interner(dict):
    """Share one string object per distinct text (message contents repeat across spans)."""

    def __call__(self, s):
        if isinstance(s, str) and len(s) > 64:
            return self.setdefault(s, s)
        return s


@dataclass(eq=False)
class Span:
    id: str
    parent: str | None = None
    name: str = ""
    kind: str = ""  # AGENT, LLM, TOOL, CHAIN, RETRIEVER, ... ("" when unknown)
    start: float | None = None
    end: float | None = None
    status: str | None = None  # "error" when the span says so
    status_message: str = ""
    service: str | None = None
    where: str = ""  # for messages
    order: int = 0  # document order, breaks start-time ties
    children: list["Span"] = field(default_factory=list)
    links: list | None = None
    attrs: dict = field(default_factory=dict)  # only the few the core still needs (resource keys)
    # normalised content, filled by the format reader
    agent_name: str | None = None  # AGENT spans; or an explicit agent attribute on any span
    task: Any = None  # an AGENT span's input
    messages: list | None = None  # LLM input messages [{role, content, ...}]
    output: str | None = None  # LLM output text
    output_calls: list | None = None  # tool calls the LLM output requested
    model: str | None = None
    tool: str | None = None
    arguments: Any = None
    result: Any = None
    has_result: bool = False


class Problems(list):
    """(where, message, level) triples collected while reading one trace."""

    def add(self, where: str, message: str, level: str = "warning") -> None:
        self.append((where, message, level))


# --- attribute helpers (OpenInference and OpenTelemetry GenAI conventions) -------------------

def times(start_raw, end_raw=None, duration_raw=None, where="", problems: Problems | None = None):
    """(start, end) in seconds from a start plus an end or an ISO 8601 duration."""
    start = end = None
    try:
        start = parse_time(start_raw) if start_raw is not None else None
    except ValueError as e:
        if problems is not None:
            problems.add(where, f"start time: {e}")
    if start is not None:
        try:
            if end_raw is not None:
                end = parse_time(end_raw)
            elif duration_raw is not None:
                end = start + parse_duration(duration_raw)
        except ValueError as e:
            if problems is not None:
                problems.add(where, f"{'end time' if end_raw is not None else 'duration'}: {e}")
        if end is not None and end < start:
            if problems is not None:
                problems.add(where, "ends before it starts; end time ignored")
            end = None
    elif start_raw is None and problems is not None:
        problems.add(where, "no start time; not placed on the timeline", "note")
    return start, end


def kind_of(attrs: dict) -> str:
    k = attrs.get("openinference.span.kind")
    if isinstance(k, str) and k.strip():
        return k.strip().upper()
    op = attrs.get("gen_ai.operation.name")
    if op in ("chat", "text_completion", "generate_content", "completion"):
        return LLM
    if op == "execute_tool":
        return TOOL
    if op == "invoke_agent":
        return AGENT
    tl = attrs.get("traceloop.span.kind")
    if tl in ("agent", "tool"):
        return tl.upper()
    if any(k.startswith("gen_ai.prompt.") for k in attrs):
        return LLM
    return ""


def _text(value, where, key, problems: Problems, intern: Interner) -> str:
    """Message content as text; blocks joined; other shapes kept as JSON with a warning."""
    if value is None:
        return ""
    if isinstance(value, str):
        return intern(value)
    if isinstance(value, list) and all(isinstance(b, (str, dict)) for b in value):
        return intern(content_text(value))
    problems.add(where, f"attribute {key}: expected text, got {type(value).__name__}; shown as JSON")
    return intern(json.dumps(value, ensure_ascii=False, default=str))


def maybe_json(value):
    """Parse a JSON string that holds an object or a list; anything else as it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # RecursionError: nested thousands deep
            return value
    return value


def _flat_messages(attrs: dict) -> dict[str, dict[int, dict]]:
    """Group flattened `llm.input_messages.N.message.*` (and gen_ai.prompt.N.*) attributes."""
    out: dict[str, dict[int, dict]] = {}
    for key, value in attrs.items():
        if key[:4] not in ("llm.", "gen_") or "." not in key[4:]:
            continue
        m = _FLAT.match(key)
        if m:
            prefix, n, rest = m.group(1), int(m.group(2)), m.group(3)
            if rest.startswith("message."):
                rest = rest[8:]
            out.setdefault(prefix, {}).setdefault(n, {})[rest] = (key, value)
    return out


def _message(parts: dict, where: str, problems: Problems, intern: Interner) -> dict:
    """One message from its flattened parts: role, content (or contents.K), tool calls."""
    msg: dict[str, Any] = {}
    role = parts.get("role")
    msg["role"] = str(role[1]) if role and role[1] is not None else ""
    if "content" in parts:
        key, value = parts["content"]
        msg["content"] = _text(value, where, key, problems, intern)
    else:
        blocks = sorted((int(k.split(".")[1]) if k.split(".")[1].isdigit() else 0, v)
                        for k, v in parts.items() if k.startswith("contents.") and k.endswith(".text"))
        msg["content"] = intern("\n".join(_text(v[1], where, v[0], problems, intern) for _, v in blocks))
    if "name" in parts and parts["name"][1]:
        msg["name"] = str(parts["name"][1])
    calls: dict[int, dict] = {}
    for k, (key, value) in parts.items():
        if k.startswith("tool_calls."):
            bits = k.split(".")
            if len(bits) >= 3 and bits[1].isdigit():
                sub = ".".join(bits[2:]).removeprefix("tool_call.")
                calls.setdefault(int(bits[1]), {})[sub] = value
    if calls:
        msg["tool_calls"] = [_requested(c) for _, c in sorted(calls.items())]
    if "tool_call_id" in parts:
        msg["tool_call_id"] = parts["tool_call_id"][1]
    return msg


def _requested(c: dict) -> dict:
    """A requested tool call from flattened parts, in OpenAI's shape."""
    args = c.get("function.arguments")
    out = {"type": "function", "function": {"name": c.get("function.name"), "arguments": maybe_json(args)}}
    if c.get("id") is not None:
        out["id"] = c["id"]
    return out


def _json_messages(value, intern: Interner) -> list | None:
    """Messages from an `input.value` JSON ({"messages": [...]}) or a list of messages."""
    obj = maybe_json(value)
    if isinstance(obj, dict):
        obj = obj.get("messages")
    if isinstance(obj, list) and obj and all(isinstance(m, dict) and "role" in m for m in obj):
        return [message_of(m, intern) for m in obj]
    return None


def message_of(m: dict, intern: Interner) -> dict:
    """An OpenAI/Anthropic-shaped message as {role, content, name?, tool_calls?}."""
    out: dict[str, Any] = {"role": str(m.get("role", "")), "content": intern(content_text(m.get("content")))}
    if m.get("name"):
        out["name"] = str(m["name"])
    if isinstance(m.get("tool_calls"), list):
        out["tool_calls"] = m["tool_calls"]
    if m.get("tool_call_id") is not None:
        out["tool_call_id"] = m["tool_call_id"]
    return out


def _output_of(value, intern: Interner) -> tuple[str | None, list | None]:
    """(text, requested tool calls) from an `output.value`: a message, a completion or text."""
    obj = maybe_json(value)
    if isinstance(obj, dict):
        if isinstance(obj.get("choices"), list) and obj["choices"]:
            ch = obj["choices"][0]
            obj = ch.get("message", ch) if isinstance(ch, dict) else {}
        if "content" in obj or "tool_calls" in obj:
            calls = obj.get("tool_calls") if isinstance(obj.get("tool_calls"), list) else None
            return intern(content_text(obj.get("content"))), calls
        return intern(json.dumps(obj, ensure_ascii=False, default=str)), None
    if isinstance(obj, str):
        return intern(obj), None
    if obj is None:
        return None, None
    return intern(json.dumps(obj, ensure_ascii=False, default=str)), None


def tool_arguments(value):
    """smolagents/OpenInference tool input `{"args": [], "kwargs": {...}}` as plain arguments."""
    obj = maybe_json(value)
    if isinstance(obj, dict) and set(obj) <= {"args", "kwargs", "sanitize_inputs_outputs"} and "kwargs" in obj:
        if not obj.get("args"):
            return obj["kwargs"]
        return {"args": obj.get("args"), "kwargs": obj.get("kwargs")}
    return obj


def fill_from_attributes(span: Span, attrs: dict, problems: Problems, intern: Interner) -> None:
    """Fill a span's normalised fields from OpenInference / GenAI attributes."""
    span.kind = span.kind or kind_of(attrs)
    for k in _AGENT_NAME_KEYS:
        v = attrs.get(k)
        if isinstance(v, str) and v.strip():
            span.agent_name = v.strip()
            break
    span.attrs = {k: attrs[k] for k in RESOURCE_KEYS if k in attrs}
    if span.kind == AGENT and span.agent_name is None and INTERNAL.match(span.name or ""):
        span.kind = "CHAIN"  # OpenInference marks any chain whose name holds "agent" as an AGENT
    if span.kind not in (LLM, *TOOL_KINDS):
        span.task = attrs.get("input.value")  # an agent's task; the run's input on a root span
    if span.kind == AGENT:
        if span.agent_name is None:
            span.agent_name = agent_span_name(span, attrs)
    elif span.kind == LLM:
        flat = _flat_messages(attrs)
        ins = flat.get("llm.input_messages") or flat.get("gen_ai.prompt")
        if ins:
            span.messages = [_message(p, span.where, problems, intern) for _, p in sorted(ins.items())]
        elif "gen_ai.input.messages" in attrs:
            span.messages = _json_messages(attrs["gen_ai.input.messages"], intern)
        elif "input.value" in attrs:
            span.messages = _json_messages(attrs["input.value"], intern)
        outs = flat.get("llm.output_messages") or flat.get("gen_ai.completion")
        if outs:
            msgs = [_message(p, span.where, problems, intern) for _, p in sorted(outs.items())]
            span.output = intern("\n".join(m["content"] for m in msgs if m.get("content")))
            calls = [c for m in msgs for c in m.get("tool_calls", [])]
            span.output_calls = calls or None
        else:
            for key in ("gen_ai.output.messages", "output.value"):
                if key in attrs:
                    span.output, span.output_calls = _output_of(attrs[key], intern)
                    break
        model = attrs.get("llm.model_name") or attrs.get("gen_ai.request.model")
        span.model = str(model) if model is not None else None
    elif span.kind in TOOL_KINDS:
        name = attrs.get("tool.name") or attrs.get("gen_ai.tool.name")
        span.tool = str(name) if name else span.name
        for key in ("input.value", "gen_ai.tool.call.arguments"):
            if key in attrs:
                span.arguments = tool_arguments(attrs[key])
                break
        for key in ("output.value", "gen_ai.tool.call.result"):
            if key in attrs:
                span.result, span.has_result = attrs[key], True
                break


def agent_span_name(span: Span, attrs: dict) -> str:
    """The name of the agent an AGENT span runs."""
    task = attrs.get("input.value")
    if isinstance(task, str):
        m = _NAMED.search(task[:1000])
        if m:
            return m.group(1).strip()
    if any(k.startswith("smolagents.managed_agents.") for k in attrs):
        return "manager"
    base = _RUN_SUFFIX.sub("", span.name or "").strip()
    return base or DEFAULT_AGENT
