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
  text as `content` and the input messages as `input` (for the conversation view); an LLM
  span inside another one is the same call recorded twice (LangChain + OpenAI
  instrumentation) and is part of the outer one's step, not a step of its own;
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
from typing import Any

from app.project.problems import Problem
from app.traces.trace import Item
from app.traces.readers.spans import (AGENT, DEFAULT_AGENT, LLM, RESOURCE_KEYS, TOOL, TOOL_KINDS, Problems, Span,  # noqa: F401 (TOOL: for the readers)
                                        maybe_json)

# --- the tree → the item -----------------------------------------------------------------------

def descendants(span: Span):
    """Every span below `span`, without recursion."""
    todo = list(span.children)
    while todo:
        below = todo.pop()
        yield below
        todo.extend(below.children)


def trace_item(data: dict, trace_id: str, fmt: str, path, problems: Problems, reported: list,
               steps_from: str = "LLM or tool spans"):
    """The item of one trace of an export that holds many: a warning when it has no steps, its
    problems added to `reported` under the trace's name."""
    if not data["steps"]:
        problems.add("", f"no {steps_from}: the trace has no steps", "warning")
    reported.extend(convert_problems(problems, path, f"trace {trace_id}, "))
    return Item(trace_id, data, f"{path} trace {trace_id}", fmt, data["text"], None)


def _walk(roots: list[Span]):
    """Pre-order (span, enclosing agent span or None) without recursion."""
    stack = [(r, None) for r in reversed(roots)]
    while stack:
        span, agent = stack.pop()
        yield span, agent
        inner = span if span.kind == AGENT else agent
        stack.extend((c, inner) for c in reversed(span.children))


def _nested_llm(roots: list[Span]) -> dict[int, Span]:
    """id(LLM span) -> the outermost LLM span around it, for LLM spans inside another one.

    Two instrumentations of one call (LangChain's ChatOpenAI span around the OpenAI SDK's
    ChatCompletion span) record the same LLM call twice: it is one step."""
    out: dict[int, Span] = {}
    stack = [(r, None) for r in roots]
    while stack:
        span, outer = stack.pop()
        if span.kind == LLM:
            if outer is not None:
                out[id(span)] = outer
            else:
                outer = span
        stack.extend((c, outer) for c in span.children)
    return out


def _merge_into(outer: Span, inner: Span) -> None:
    """What the outer record of a doubly recorded LLM call lacks, taken from the inner one."""
    if not outer.output and inner.output:
        outer.output = inner.output
    if not outer.output_calls and inner.output_calls:
        outer.output_calls = inner.output_calls
    if outer.messages is None and inner.messages is not None:
        outer.messages = inner.messages
    if not outer.model and inner.model:
        outer.model = inner.model
    if not outer.status and inner.status:
        outer.status, outer.status_message = inner.status, inner.status_message


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
    inside_llm = _nested_llm(roots)
    for i, (span, encl) in enumerate(order):
        span.order = i
        agent_of[id(span)] = name_of(span, encl)
        if span.kind == LLM and id(span) in inside_llm:
            _merge_into(inside_llm[id(span)], span)
        elif span.kind == LLM:
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
    return [Problem(str(path), f"{prefix}{where}" if prefix and where else (prefix.rstrip(", ") or where),
                    message, level) for where, message, level in problems]
