"""A trace recorded as a tree of spans, turned into Potato's item format.

Shared by the span formats (TRAIL, OTLP/JSON, Langfuse). A format reader turns its
spans into `Span`s (filling the normalised fields below from its attributes) and
calls `build_item`, which derives:

- agents: an AGENT span names an agent (explicit name attribute, else `agent named 'X'`
  in its input, else `manager` when it declares managed agents, else its span name
  without `.run`); every span belongs to its nearest enclosing AGENT span; a span
  outside every agent span belongs to the trace's first top-level agent, or, in a
  trace without agent spans, to the span's service name or `agent`;
- steps: one per LLM span, in start order, with the span id as step id, the output
  text as `content` and the input messages as `input` (for the conversation view);
- tool calls: a TOOL (or RETRIEVER) span is a tool call of the latest step of its
  agent started before it (a tool span with no such step becomes a step of its own);
  a step without tool spans keeps the tool calls its LLM output requested;
- timed `calls` [{agent, tool, resource, start, end}] from tool spans (seconds since
  the epoch; resource = a resource attribute, else the tool name);
- `trace`: the compact span tree (id, parent, name, kind, agent, times, status, links)
  and the agent spans with the task each was given (a nested agent span is a handoff).

Memory: strings are referenced, not copied, and equal message texts are shared
(`Interner`), so the repeated conversation prefixes of successive LLM calls are held
once; the raw tree can be dropped as soon as the item is built.
"""
from __future__ import annotations

import bisect
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


# --- the tree → the item -----------------------------------------------------------------------

def _walk(roots: list[Span]):
    """Pre-order (span, enclosing agent span or None) without recursion."""
    stack = [(r, None) for r in reversed(roots)]
    while stack:
        span, agent = stack.pop()
        yield span, agent
        inner = span if span.kind == AGENT else agent
        stack.extend((c, inner) for c in reversed(span.children))


def _requested_text(calls: list) -> str:
    parts = []
    for c in calls:
        fn = c.get("function") if isinstance(c, dict) else None
        name = (fn or {}).get("name") or (c.get("name") if isinstance(c, dict) else None) or "?"
        args = (fn or {}).get("arguments") if fn else (c.get("arguments") if isinstance(c, dict) else None)
        parts.append(f"→ {name}({json.dumps(args, ensure_ascii=False, default=str) if args is not None else ''})")
    return "\n".join(parts)


def build_item(roots: list[Span], trace_id: str, fmt: str, default_agent: str = DEFAULT_AGENT,
               text: str | None = None, problems: Problems | None = None) -> dict:
    """The item (Potato format) for one trace given as span trees."""
    problems = problems if problems is not None else Problems()
    order = list(_walk(roots))
    agent_of: dict[int, str] = {}  # id(span) -> agent name
    root_agent = None
    for span, encl in order:
        if span.kind == AGENT and encl is None and root_agent is None:
            root_agent = span.agent_name or DEFAULT_AGENT

    def name_of(span: Span, encl: Span | None) -> str:
        if span.kind == AGENT:
            return span.agent_name or DEFAULT_AGENT
        if span.agent_name:
            return span.agent_name
        if encl is not None:
            return encl.agent_name or DEFAULT_AGENT
        return root_agent or span.service or default_agent

    llm: list[Span] = []
    tools: list[Span] = []
    agent_spans = []
    for i, (span, encl) in enumerate(order):
        span.order = i
        agent_of[id(span)] = name_of(span, encl)
        if span.kind == LLM:
            llm.append(span)
        elif span.kind in TOOL_KINDS:
            tools.append(span)
        elif span.kind == AGENT:
            agent_spans.append((span, encl))

    def key(s: Span):
        return (s.start if s.start is not None else float("inf"), s.order)

    llm.sort(key=key)
    tools.sort(key=key)
    # tool spans → the latest earlier LLM step of the same agent
    by_agent: dict[str, tuple[list[float], list[Span]]] = {}
    for s in llm:
        starts, spans = by_agent.setdefault(agent_of[id(s)], ([], []))
        starts.append(key(s))
        spans.append(s)
    attached: dict[int, list[Span]] = {}
    own_steps: list[Span] = []
    for t in tools:
        starts, spans = by_agent.get(agent_of[id(t)], ([], []))
        j = bisect.bisect_right(starts, key(t)) - 1
        if j >= 0:
            attached.setdefault(id(spans[j]), []).append(t)
        else:
            own_steps.append(t)
    step_spans = sorted(llm + own_steps, key=key)

    steps, calls = [], []
    for s in step_spans:
        agent = agent_of[id(s)]
        step: dict[str, Any] = {"agent": agent, "id": s.id, "name": s.name, "kind": s.kind or ""}
        if s.kind == LLM:
            step["content"] = s.output if s.output or not s.output_calls else _requested_text(s.output_calls)
            if s.messages is not None:
                step["input"] = s.messages
            if s.model:
                step["model"] = s.model
            tool_spans = attached.get(id(s), [])
        else:  # a tool span with no LLM step before it
            step["content"] = f"(tool call: {s.tool or s.name})"
            tool_spans = [s]
        if s.start is not None:
            step["start"] = s.start
        if s.end is not None:
            step["end"] = s.end
        if s.status:
            step["status"] = s.status
            if s.status_message:
                step["status_message"] = s.status_message
        if tool_spans:
            step["tool_calls"] = []
            for t in tool_spans:
                tc: dict[str, Any] = {"id": t.id, "name": t.tool or t.name, "arguments": t.arguments}
                if t.has_result:
                    tc["result"] = t.result
                if t.status:
                    tc["status"] = t.status
                    if t.status_message:
                        tc["error"] = t.status_message
                step["tool_calls"].append(tc)
                if t.start is not None and t.end is not None:
                    res = next((str(t.attrs[k]) for k in RESOURCE_KEYS if t.attrs.get(k)), None)
                    calls.append({"agent": agent_of[id(t)], "tool": t.tool or t.name,
                                  "resource": res or t.tool or t.name, "start": t.start, "end": t.end,
                                  "span_id": t.id})
                else:
                    problems.add(t.where, "tool span without start and end times; "
                                 "kept as a tool call, not on the timeline", "note")
            if s.kind == LLM and s.output_calls:
                step["requested_tool_calls"] = s.output_calls
        elif s.kind == LLM and s.output_calls:
            step["tool_calls"] = s.output_calls
        steps.append(step)

    spans_out = []
    for span, _ in order:
        row: dict[str, Any] = {"id": span.id, "parent": span.parent, "name": span.name, "kind": span.kind,
                               "agent": agent_of[id(span)], "start": span.start, "end": span.end}
        if span.status:
            row["status"] = span.status
        if span.links:
            row["links"] = span.links
        spans_out.append(row)
    agents_out = [{"span": s.id, "agent": agent_of[id(s)], "parent_agent": agent_of[id(e)] if e else None,
                   "start": s.start, "end": s.end, "task": s.task} for s, e in agent_spans]
    if text is None:
        text = task_text(agent_spans[0][0].task) if agent_spans else None
    if not text:  # a plain-text input of an outer span (a chain's question)
        text = next((s.task for s, _ in order if isinstance(s.task, str) and s.task.strip()
                     and s.task.lstrip()[:1] not in "{[" and len(s.task) < 4000), None)
    if not text:
        text = next((m["content"] for s in llm for m in (s.messages or []) if m.get("role") == "user"), "")
    return {"id": trace_id, "text": text or "", "steps": steps, "calls": calls,
            "trace": {"format": fmt, "trace_id": trace_id, "spans": spans_out, "agents": agents_out}}


def task_text(task) -> str:
    obj = maybe_json(task)
    if isinstance(obj, dict) and isinstance(obj.get("task"), str):
        return obj["task"]
    return obj if isinstance(obj, str) else ("" if obj is None else json.dumps(obj, ensure_ascii=False))


# --- gold located by span --------------------------------------------------------------------

def locate(data: dict, span_id) -> tuple[int | None, str | None]:
    """(step index, agent) of a span: its own step, the step holding it as a tool call, or
    the first step inside it; the agent is the one the span belongs to."""
    steps = data.get("steps") or []
    sid = None if span_id is None else str(span_id)
    for i, s in enumerate(steps):
        if isinstance(s, dict) and str(s.get("id")) == sid:
            return i, s.get("agent")
    for i, s in enumerate(steps):
        for tc in (s.get("tool_calls") or []) if isinstance(s, dict) else []:
            if isinstance(tc, dict) and str(tc.get("id")) == sid:
                return i, s.get("agent")
    spans = (data.get("trace") or {}).get("spans") or []
    row = next((r for r in spans if str(r.get("id")) == sid), None)
    if row is None:
        return None, None
    children: dict[str, list[str]] = {}
    for r in spans:
        if r.get("parent") is not None:
            children.setdefault(str(r["parent"]), []).append(str(r["id"]))
    inside, todo = set(), [sid]
    while todo:
        cur = todo.pop()
        for c in children.get(cur, []):
            if c not in inside:
                inside.add(c)
                todo.append(c)
    for i, s in enumerate(steps):
        if isinstance(s, dict) and str(s.get("id")) in inside:
            return i, row.get("agent")
    return None, row.get("agent")


IMPACT_RANK = {"HIGH": 0, "MEDIUM": 1, "LOW": 2}


def choose_mistake(failures: list[dict]) -> tuple[dict | None, str]:
    """The failure that stands for the run in Who&When-style scoring: the root cause if one is
    marked, else the earliest failure of the highest impact present."""
    roots = [f for f in failures if f.get("root_cause")]
    if roots:
        return roots[0], "root cause"
    if not failures:
        return None, ""
    ranked = sorted(range(len(failures)), key=lambda i: (
        IMPACT_RANK.get(str(failures[i].get("impact") or "").upper(), 3),
        failures[i]["step"] if isinstance(failures[i].get("step"), int) else float("inf"), i))
    f = failures[ranked[0]]
    impact = str(f.get("impact") or "").upper()
    return f, (f"first {impact} impact error" if impact else "first error")


# --- assembling the tree ----------------------------------------------------------------------

class SeenIds:
    """Span ids already read: an identical repeat is read once; a clash gets a new id."""

    def __init__(self, problems: Problems):
        self.first: dict[str, Any] = {}
        self.problems = problems

    def check(self, sid: str, raw: Any, where: str) -> str | None:
        """The id to read the span under, or None to skip an exact repeat."""
        if sid not in self.first:
            self.first[sid] = raw
            return sid
        if self.first[sid] == raw:
            self.problems.add(where, f"span {sid} appears twice, identical; read once", "note")
            return None
        n = 2
        while f"{sid}~{n}" in self.first:
            n += 1
        new = f"{sid}~{n}"
        self.first[new] = raw
        self.problems.add(where, f"span id {sid} is used by two different spans; the second is read as {new}")
        return new


def parent_id(value, key: str, where: str, problems: Problems, nested: bool = False) -> str | None:
    """A span's parent id as the reader found it under `key`, as text as span ids are read (so 7 and
    "7" name the same span); None when there is none. An object or a list is not an id: reported
    and ignored, so the span is read as a top-level span (or under the span it is nested in)."""
    if value is None or isinstance(value, str) and not value:
        return None
    if isinstance(value, (dict, list)):
        problems.add(where, f"{key}: expected an id (text or a number), got {type(value).__name__}; "
                     + ("ignored (the span is read under the span it is nested in)" if nested
                        else "read as a top-level span"))
        return None
    return str(value)


def assemble(entries: list[tuple[Span, Span | None]], problems: Problems, container: str = "file") -> list[Span]:
    """Link spans into trees. A span nested under another (TRAIL's child_spans) stays there;
    otherwise its `parent` id decides. A span whose parent is not there is read as a top-level
    span, with a note; spans caught in a parent cycle are read as top-level spans."""
    by_id = {s.id: s for s, _ in entries}
    roots: list[Span] = []
    missing: dict[str, list[Span]] = {}
    for span, nested in entries:
        if nested is not None:
            if span.parent not in (None, "", nested.id):
                problems.add(span.where, f"names parent {span.parent} but is nested under span {nested.id}; "
                             "read under the span it is nested in", "note")
            span.parent = nested.id
            nested.children.append(span)
        elif span.parent in (None, ""):
            span.parent = None
            roots.append(span)
        elif span.parent in by_id and by_id[span.parent] is not span:
            by_id[span.parent].children.append(span)
        else:
            missing.setdefault(str(span.parent), []).append(span)
            roots.append(span)
    for pid, spans in missing.items():
        ids = ", ".join(s.id for s in spans[:4]) + (f" and {len(spans) - 4} more" if len(spans) > 4 else "")
        problems.add(spans[0].where, f"span(s) {ids} name parent span {pid}, which is not in the {container}; "
                     "read as top-level span(s)", "note")
    reached = {id(s) for s, _ in _walk(roots)}
    if len(reached) < len(entries):
        for span, _ in entries:  # a parent cycle: cut it at the first span met
            if id(span) in reached:
                continue
            parent = by_id.get(span.parent)
            if parent is not None and span in parent.children:
                parent.children.remove(span)
            problems.add(span.where, f"span {span.id} is in a cycle of parent ids; read as a top-level span")
            span.parent = None
            roots.append(span)
            reached |= {id(s) for s, _ in _walk([span])}
    return roots


def convert_problems(problems: Problems, path, prefix: str = ""):
    """Problems of the core as app Problems of a file."""
    from app.project.problems import Problem
    return [Problem(str(path), f"{prefix}{where}" if prefix and where else (prefix.rstrip(", ") or where),
                    message, level) for where, message, level in problems]
