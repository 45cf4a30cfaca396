"""OpenAI Agents SDK traces: the SDK's exported spans, one item per trace.

Read as the SDK exports them (`Span.export()`, `Trace.export()`): JSON Lines (or a list) of
`{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "ended_at",
"span_data": {"type", ...}, "error"}`, with optional `{"object": "trace", "id",
"workflow_name"}` records, or the tracing backend's ingest payload `{"data": [...]}` holding
both. Spans are grouped by `trace_id`, one item per trace, across every record of the file.

span_data types: `agent` (`name`: an agent), `generation` (chat-completions `input` / `output`
message lists, `model`: an LLM step), `response` (a Responses API call, an LLM step whose text
is in `_response`/`output` when the export kept it, else only its `response_id`), `function`
(`name`, `input`, `output`: a timed tool call), `handoff` (`from_agent`, `to_agent`: kept in the
span tree; the handoff itself is the change of agent between steps), `guardrail`, `custom`,
`mcp_tools` (tree only). An `error` marks the span as failed.
"""
from __future__ import annotations

import sys

from app.traces.trace import content_text
from app.traces.readers import spans as span_fields, spantree as st
from app.traces.readers.context import wrong_shape

NAME = "openai_agents"
SHAPE = ('OpenAI Agents SDK spans ({"object": "trace.span", "trace_id", "span_data": {"type": ...}}, '
         'or {"data": [...]} of them)')
_KINDS = {"agent": st.AGENT, "generation": st.LLM, "response": st.LLM, "function": st.TOOL,
          "handoff": "HANDOFF", "guardrail": "GUARDRAIL", "custom": "CHAIN", "mcp_tools": "CHAIN"}


def _is_export(record) -> bool:
    return (isinstance(record, dict) and record.get("object") in ("trace.span", "trace")
            and ("span_data" in record or record.get("object") == "trace"))


def detect(record) -> bool:
    if _is_export(record):
        return True
    data = record.get("data") if isinstance(record, dict) else None
    return isinstance(data, list) and bool(data) and all(_is_export(x) for x in data[:5])


def _messages(value, intern):
    if isinstance(value, str):
        return [{"role": "user", "content": intern(value)}]
    if isinstance(value, list):
        return [span_fields.message_of(m, intern) if isinstance(m, dict) and "role" in m
                else {"role": "", "content": intern(content_text(m.get("content") if isinstance(m, dict) else m))}
                for m in value]
    return None


def _output(value, intern):
    """(text, requested calls) of a generation's output: a list of messages (or items)."""
    if isinstance(value, list):
        texts, calls = [], []
        for m in value:
            if not isinstance(m, dict):
                continue
            if m.get("type") == "function_call":  # a Responses API output item
                calls.append({"type": "function", "id": m.get("call_id") or m.get("id"),
                              "function": {"name": m.get("name"), "arguments": st.maybe_json(m.get("arguments"))}})
                continue
            t = content_text(m.get("content"))
            if t:
                texts.append(t)
            if isinstance(m.get("tool_calls"), list):
                calls += m["tool_calls"]
        return intern("\n".join(texts)), calls or None
    if isinstance(value, str):
        return intern(value), None
    return None, None


def _span(raw: dict, where: str, problems: st.Problems, intern) -> st.Span:
    data = raw.get("span_data") if isinstance(raw.get("span_data"), dict) else {}
    typ = str(data.get("type") or "")
    sid = str(raw.get("id"))
    name = str(data.get("name") or typ)
    wh = f"span {sid}" + (f" ({name})" if name else "")
    kind = _KINDS.get(typ)
    if kind is None:
        problems.add(wh, f"unknown span_data type {typ!r}; read as a plain span", "note")
        kind = ""
    span = st.Span(id=sid, parent=st.parent_id(raw.get("parent_id"), "parent_id", wh, problems), name=name,
                   kind=kind, where=wh)
    span.start, span.end = span_fields.times(raw.get("started_at"), raw.get("ended_at"), None, wh, problems)
    err = raw.get("error")
    if err:
        span.status = "error"
        span.status_message = str(err.get("message") or "") if isinstance(err, dict) else str(err)
    if kind == st.AGENT:
        span.agent_name = str(data.get("name") or "").strip() or None
    elif typ == "generation":
        span.messages = _messages(data.get("input"), intern)
        span.output, span.output_calls = _output(data.get("output"), intern)
        span.model = data.get("model")
    elif typ == "response":
        resp = data.get("_response") if isinstance(data.get("_response"), dict) else {}
        span.messages = _messages(data.get("_input"), intern)
        span.output, span.output_calls = _output(resp.get("output", data.get("output")), intern)
        if not span.output and not span.output_calls:
            span.output = f"(response {data.get('response_id') or sid}; its text is not in the export)"
        span.model = resp.get("model")
    elif kind == st.TOOL:
        span.tool = name
        span.arguments = st.maybe_json(data.get("input"))
        if "output" in data:
            span.result, span.has_result = data.get("output"), True
    elif typ == "handoff":
        span.task = {"from_agent": data.get("from_agent"), "to_agent": data.get("to_agent")}
        span.name = f"handoff {data.get('from_agent') or '?'} → {data.get('to_agent') or '?'}"
    return span


def read(records, ctx):
    problems = []
    traces: dict[str, list] = {}
    names: dict[str, str] = {}
    for record, rwhere in records:
        if not detect(record):
            problems.append(wrong_shape(ctx, rwhere, sys.modules[__name__], record))
            continue
        wrapped = not _is_export(record)  # the backend's {"data": [...]}
        batch = record["data"] if wrapped else [record]
        for i, raw in enumerate(batch):
            where = f"{rwhere + ', ' if rwhere else ''}data[{i}]" if wrapped else rwhere
            if not _is_export(raw):
                problems.append(ctx.problem(where or "record", "expected an exported span or trace object; skipped",
                                            "warning"))
                continue
            if raw["object"] == "trace":
                if raw.get("id") not in (None, "") and raw.get("workflow_name"):
                    names[str(raw["id"])] = str(raw["workflow_name"])
                continue
            tid = raw.get("trace_id")
            if tid in (None, "") or isinstance(tid, (dict, list)):
                problems.append(ctx.problem(where or "record", "span has no trace_id; read as part of trace "
                                            f"{ctx.path.stem}", "warning"))
                tid = ctx.path.stem
            traces.setdefault(str(tid), []).append((raw, where))
    items = []
    for tid, spans in traces.items():
        probs = st.Problems()
        intern = span_fields.Interner()
        seen = st.SeenIds(probs)
        entries = []
        for n, (raw, where) in enumerate(spans):
            sid = raw.get("id")
            if sid in (None, ""):
                sid = f"(no id {n})"
                probs.add(where, f"span has no id; read as {sid}")
            sid = seen.check(str(sid), raw, f"span {sid}")
            if sid is None:
                continue
            span = _span(raw, where, probs, intern)
            span.id = sid
            entries.append((span, None))
        roots = st.assemble(entries, probs, container="trace")
        data = st.build_item(roots, tid, NAME, problems=probs)
        if tid in names:
            data["trace"]["workflow_name"] = names[tid]
        items.append(st.trace_item(data, tid, NAME, ctx.path, probs, problems,
                                   "generation, response or function spans"))
    return items, problems
