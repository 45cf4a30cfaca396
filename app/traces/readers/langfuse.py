"""Langfuse trace exports: a trace `{"id", "name", "input", "observations": [...]}` (the public
API's trace object), or a file of bare observations grouped by `traceId`.

An observation is `{"id", "traceId", "type", "name", "parentObservationId", "startTime",
"endTime", "input", "output", "level", "statusMessage", "model", "metadata"}`. Types map to
span kinds: AGENT names an agent (its `name`), GENERATION is an LLM step (input: a list of
messages, `{"messages": [...]}` or text; output: a message or text), TOOL and RETRIEVER are
tool calls (input = arguments, output = result; a `resource` in metadata overrides the
tool name as the contended resource), SPAN/CHAIN/EVENT only shape the tree. Level ERROR
marks the observation as failed.

Older SDKs (v2, and their LangChain callback) type only GENERATIONs; agents and tools are plain
SPANs. In a trace with no AGENT, TOOL or RETRIEVER observation, a SPAN leaf beside a GENERATION
(or named like a tool a GENERATION requested) is a tool call (input = arguments, output =
result), and a SPAN with GENERATIONs below it is an agent (LangChain's own `Runnable*`, prompt
and parser spans excepted). In a trace with no agent, spans belong to the trace's `name` (else
its root span's), not to a made-up agent.
"""
from __future__ import annotations

import json
import sys

from app.traces.trace import Item
from app.traces.readers import spans as span_fields, spantree as st
from app.traces.readers.context import wrong_shape

NAME = "langfuse"
SHAPE = 'a Langfuse trace ({"id", "observations": [{"id", "type", "parentObservationId", ...}]})'
TYPES = {"GENERATION": st.LLM, "AGENT": st.AGENT, "TOOL": st.TOOL, "RETRIEVER": "RETRIEVER",
         "CHAIN": "CHAIN", "SPAN": "", "EVENT": "EVENT", "EMBEDDING": "EMBEDDING",
         "EVALUATOR": "EVALUATOR", "GUARDRAIL": "GUARDRAIL"}


def _is_observation(record) -> bool:
    return (isinstance(record, dict) and "traceId" in record and isinstance(record.get("type"), str)
            and record["type"].upper() in TYPES and "id" in record)


def detect(record) -> bool:
    if isinstance(record, dict) and isinstance(record.get("observations"), list):
        return True
    return _is_observation(record)


def _messages(value, intern):
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m for m in value):
        return [span_fields.message_of(m, intern) for m in value]
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return [{"role": "user", "content": intern(text)}]


def _output(value, intern):
    if isinstance(value, dict) and "tool_calls" not in value and isinstance(value.get("additional_kwargs"), dict) \
            and isinstance(value["additional_kwargs"].get("tool_calls"), list):  # a LangChain AIMessage
        value = {**value, "tool_calls": value["additional_kwargs"]["tool_calls"]}
    if isinstance(value, dict) and ("content" in value or "tool_calls" in value or "choices" in value):
        return span_fields._output_of(value, intern)
    if isinstance(value, str):
        return intern(value), None
    if value is None:
        return None, None
    return intern(json.dumps(value, ensure_ascii=False, default=str)), None


def _span(obs: dict, where: str, problems: st.Problems, intern) -> st.Span:
    oid = str(obs.get("id"))
    name = str(obs.get("name") or "")
    wh = f"observation {oid}" + (f" ({name})" if name else "")
    kind = TYPES.get(str(obs.get("type", "")).upper())
    if kind is None:
        problems.add(wh, f"unknown observation type {obs.get('type')!r}; read as a plain span", "note")
        kind = ""
    parent = st.parent_id(obs.get("parentObservationId"), "parentObservationId", wh, problems)
    span = st.Span(id=oid, parent=parent, name=name, kind=kind, where=wh)
    span.start, span.end = span_fields.times(obs.get("startTime"), obs.get("endTime"), None, wh, problems)
    if str(obs.get("level") or "").upper() == "ERROR":
        span.status = "error"
        span.status_message = str(obs.get("statusMessage") or "")
    meta = obs.get("metadata") if isinstance(obs.get("metadata"), dict) else {}
    span.attrs = {k: meta[k] for k in st.RESOURCE_KEYS if k in meta}
    if kind == st.AGENT:
        span.agent_name = name or meta.get("agent_name") or None
        span.task = obs.get("input")
    elif kind == st.LLM:
        span.messages = _messages(obs.get("input"), intern)
        span.output, span.output_calls = _output(obs.get("output"), intern)
        span.model = obs.get("model")
    elif kind in st.TOOL_KINDS:
        span.tool = name or None
        span.arguments = st.maybe_json(obs.get("input"))
        if "output" in obs:
            span.result, span.has_result = obs.get("output"), True
    else:
        span.task = obs.get("input")
        if "output" in obs:  # kept in case the span turns out to be a tool call (older SDKs)
            span.result, span.has_result = obs.get("output"), True
    agent = meta.get("agent") or meta.get("agent_name")
    if kind != st.AGENT and isinstance(agent, str) and agent.strip():
        span.agent_name = agent.strip()
    return span




def plain_spans(roots: list[st.Span]) -> None:
    """Older SDKs (and their LangChain callback) record agents and tools as plain SPAN
    observations. Read them as documented: a SPAN leaf beside a GENERATION (or beside a span
    holding one), or named like a tool a GENERATION requested, is a tool call; a SPAN (not one of
    LangChain's own runnables) with GENERATIONs below it is an agent, named after itself."""
    spans = [s for r in roots for s in [r, *st.descendants(r)]]
    siblings = {id(c): p.children for p in spans for c in p.children}
    # a span that is, or holds, a GENERATION (AgentExecutor's RunnableSequence around the LLM call)
    has_llm = {id(s) for s in spans if s.kind == st.LLM or any(d.kind == st.LLM for d in st.descendants(s))}
    requested = {str((c.get("function") or {}).get("name") or c.get("name"))
                 for s in spans if s.kind == st.LLM for c in (s.output_calls or []) if isinstance(c, dict)}
    for s in spans:
        if s.kind == "" and not s.children and s.name and not span_fields.INTERNAL.match(s.name) and (
                s.name in requested or any(id(c) in has_llm for c in siblings.get(id(s), ()) if c is not s)):
            s.kind, s.tool = st.TOOL, s.name
            s.arguments = st.maybe_json(s.task)
            s.task = None
    for s in spans:
        if s.kind == "" and s.name and not span_fields.INTERNAL.match(s.name) and any(
                d.kind == st.LLM for d in st.descendants(s)):
            s.kind, s.agent_name = st.AGENT, s.name


def _item(trace_id: str, observations: list, where: str, ctx, text=None, name=None):
    problems = st.Problems()
    intern = span_fields.Interner()
    seen = st.SeenIds(problems)
    entries = []
    for i, obs in enumerate(observations):
        w = f"{where}observations[{i}]"
        if not isinstance(obs, dict) or obs.get("id") in (None, ""):
            problems.add(w, "expected an observation object with an id; skipped")
            continue
        oid = seen.check(str(obs["id"]), obs, f"observation {obs['id']}")
        if oid is None:
            continue
        span = _span(obs, w, problems, intern)
        span.id = oid
        entries.append((span, None))
    roots = st.assemble(entries, problems, container="trace")
    default = st.DEFAULT_AGENT
    if not any(s.kind in (st.AGENT, *st.TOOL_KINDS) for s, _ in entries):
        plain_spans(roots)
    if not any(s.kind == st.AGENT for s, _ in entries):  # spans outside agents: the trace's own name
        default = name or next((r.name for r in roots if r.name and not span_fields.INTERNAL.match(r.name)),
                               None) or default
    task = st.task_text(text) if text is not None else None
    data = st.build_item(roots, trace_id, NAME, default_agent=default, text=task or None, problems=problems)
    if not data["steps"]:
        problems.add("", "no GENERATION or TOOL observations: the trace has no steps", "warning")
    return Item(trace_id, data, f"{ctx.path} trace {trace_id}", NAME, data["text"], None), problems


def read(records, ctx):
    items, problems = [], []
    loose: dict[str, list] = {}
    for record, where in records:
        if isinstance(record, dict) and isinstance(record.get("observations"), list):
            tid = str(record.get("id") or record.get("traceId") or (where and f"{ctx.path.stem}-{where.split()[-1]}")
                      or ctx.path.stem)
            item, probs = _item(tid, record["observations"], "", ctx, record.get("input"),
                                str(record["name"]) if record.get("name") else None)
            gold = record.get("gold") if isinstance(record.get("gold"), dict) else None
            if gold:
                item.gold = item.data["gold"] = gold
            items.append(item)
            problems.extend(st.convert_problems(probs, ctx.path, f"{where + ', ' if where else ''}trace {tid}, "))
        elif _is_observation(record):
            tid = record["traceId"]
            if tid is None or tid == "" or isinstance(tid, (dict, list)):
                got = "null" if tid is None else "an empty text" if tid == "" else type(tid).__name__
                tid = ctx.path.stem
                problems.append(ctx.problem(where or "record", f"traceId: expected an id (text or a number), "
                                            f"got {got}; read as part of trace {tid}", "warning"))
            loose.setdefault(str(tid), []).append(record)
        else:
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
    for tid, obs in loose.items():
        item, probs = _item(tid, obs, "", ctx)
        items.append(item)
        problems.extend(st.convert_problems(probs, ctx.path, f"trace {tid}, "))
    return items, problems
