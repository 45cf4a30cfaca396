"""Arize Phoenix span exports, one item per trace.

Two documented shapes:
- the REST API's `GET /v1/projects/{project}/spans` response `{"data": [span], "next_cursor"}`
  (or a bare list / JSON Lines of its spans), a span being `{"id", "name", "context":
  {"trace_id", "span_id"}, "span_kind", "parent_id", "start_time", "end_time", "status_code",
  "status_message", "attributes": {...}, "events"}`;
- the spans dataframe (`Client().get_spans_dataframe()`) saved with `to_parquet` or
  `to_json(orient="records", lines=True)`: one row per span with columns `name`, `span_kind`,
  `parent_id`, `start_time`, `end_time`, `status_code`, `status_message`, `context.span_id`,
  `context.trace_id` and `attributes.<OpenInference key>` (`attributes.llm.input_messages`
  holding a list of `{"message.role", "message.content", ...}`).

Attributes are OpenInference, nested or dotted: both are flattened to the dotted keys that
app/traces/readers/spans.py reads (agents, LLM messages, tool names, arguments, results), so a
Phoenix export derives what the same spans give as OTLP.
"""
from __future__ import annotations

import sys
from datetime import datetime

from app.traces.readers import spans as span_fields, spantree as st
from app.traces.readers.context import wrong_shape

NAME = "phoenix"
SHAPE = ('a Phoenix span ({"context": {"trace_id", "span_id"}, "span_kind", "attributes"}, a spans '
         'dataframe row with "context.span_id", or {"data": [spans]})')


def _is_span(record) -> bool:
    if not isinstance(record, dict):
        return False
    if "context.span_id" in record and "context.trace_id" in record:
        return True
    ctx = record.get("context")
    return isinstance(ctx, dict) and "span_id" in ctx and "trace_id" in ctx and (
        "span_kind" in record or "attributes" in record)


def detect(record) -> bool:
    if _is_span(record):
        return True
    data = record.get("data") if isinstance(record, dict) else None
    return isinstance(data, list) and bool(data) and all(_is_span(x) for x in data[:5])


def flatten(value, prefix: str, out: dict) -> dict:
    """Nested attributes as OpenInference's dotted keys; a list of objects gets its indexes
    (`llm.input_messages.0.message.role`), other lists and scalars stay values."""
    todo = [(prefix, value)]
    while todo:
        key, v = todo.pop()
        if isinstance(v, dict) and v:
            todo.extend((f"{key}.{k}" if key else str(k), x) for k, x in v.items())
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            todo.extend((f"{key}.{i}", x) for i, x in enumerate(v))
        elif key:
            out[key] = v
    return out


def _time(v):
    """ISO text, or epoch seconds: pandas' to_json writes datetimes as epoch milliseconds by
    default (and can write micro- or nanoseconds)."""
    if isinstance(v, datetime):
        return v.isoformat()
    if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > 1e11:
        for scale in (1e3, 1e6, 1e9):  # the first that gives a time before the year 5138
            if abs(v) / scale < 1e11:
                return v / scale
    return v


def _fields(raw: dict) -> dict:
    """A REST span or a dataframe row as {trace, span, parent, name, kind, start, end, status,
    message, attrs}."""
    if "context.span_id" in raw:
        attrs: dict = {}
        for k, v in raw.items():
            if k.startswith("attributes."):
                flatten(v, k[len("attributes."):], attrs)
        return {"trace": raw.get("context.trace_id"), "span": raw.get("context.span_id"), "attrs": attrs,
                **{k: raw.get(k) for k in ("parent_id", "name", "span_kind", "start_time", "end_time",
                                           "status_code", "status_message")}}
    ctx = raw["context"]
    attrs = flatten(raw.get("attributes") if isinstance(raw.get("attributes"), dict) else {}, "", {})
    return {"trace": ctx.get("trace_id"), "span": ctx.get("span_id"), "attrs": attrs,
            **{k: raw.get(k) for k in ("parent_id", "name", "span_kind", "start_time", "end_time",
                                       "status_code", "status_message")}}


def read(records, ctx):
    problems, items = [], []
    traces: dict[str, list] = {}
    for record, rwhere in records:
        if not detect(record):
            problems.append(wrong_shape(ctx, rwhere, sys.modules[__name__], record))
            continue
        wrapped = not _is_span(record)
        batch = record["data"] if wrapped else [record]
        for i, raw in enumerate(batch):
            where = f"{rwhere + ', ' if rwhere else ''}data[{i}]" if wrapped else rwhere
            if not _is_span(raw):
                problems.append(ctx.problem(where or "record", "expected a Phoenix span; skipped", "warning"))
                continue
            f = _fields(raw)
            tid = f["trace"]
            if tid in (None, "") or isinstance(tid, (dict, list)):
                problems.append(ctx.problem(where or "record", f"span has no trace id; read as part of trace "
                                            f"{ctx.path.stem}", "warning"))
                tid = ctx.path.stem
            traces.setdefault(str(tid), []).append((f, raw, where))
    for tid, rows in traces.items():
        probs = st.Problems()
        intern = span_fields.Interner()
        seen = st.SeenIds(probs)
        entries = []
        for n, (f, raw, where) in enumerate(rows):
            sid = f["span"]
            if sid in (None, ""):
                sid = f"(no id {n})"
                probs.add(where, f"span has no span_id; read as {sid}")
            name = str(f.get("name") or "")
            sid = seen.check(str(sid), raw, f"span {sid}")
            if sid is None:
                continue
            wh = f"span {sid}" + (f" ({name})" if name else "")
            kind = str(f.get("span_kind") or "").upper()
            span = st.Span(id=sid, parent=st.parent_id(f.get("parent_id"), "parent_id", wh, probs), name=name,
                           kind="" if kind in ("", "UNKNOWN") else kind, where=wh)
            span.start, span.end = span_fields.times(_time(f.get("start_time")), _time(f.get("end_time")), None, wh,
                                                     probs)
            if str(f.get("status_code") or "").upper() == "ERROR":
                span.status, span.status_message = "error", str(f.get("status_message") or "")
            span_fields.fill_from_attributes(span, f["attrs"], probs, intern)
            entries.append((span, None))
        roots = st.assemble(entries, probs, container="export")
        data = st.build_item(roots, tid, NAME, problems=probs)
        items.append(st.trace_item(data, tid, NAME, ctx.path, probs, problems))
    return items, problems
