"""OTLP/JSON trace exports: `{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans"}]}]}`.

A file may hold one export, a list of them, or JSON Lines of them (the OpenTelemetry file
exporter); spans are grouped by trace id across all of them, one item per trace. Attribute
values are OTLP AnyValues (`stringValue`, `intValue`, `doubleValue`, `boolValue`,
`bytesValue`, `arrayValue`, `kvlistValue`); ids may be hex or base64 and are read as hex.
Agent identity: an OpenInference AGENT span or a GenAI `invoke_agent` span, a
`gen_ai.agent.name` / `agent.name` attribute, else the resource's `service.name` (unless it
is OpenTelemetry's default `unknown_service`), else `agent`. Span links are kept in the
item's `trace.spans`.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import sys

from app.traces.trace import Item
from app.traces.readers import spans as span_fields, spantree as st
from app.traces.readers.context import wrong_shape

NAME = "otlp"
SHAPE = 'an OTLP/JSON export ({"resourceSpans": [{"resource", "scopeSpans": [{"spans": [...]}]}]})'
_HEX = re.compile(r"[0-9a-fA-F]+")


def detect(record) -> bool:
    return isinstance(record, dict) and isinstance(record.get("resourceSpans", record.get("resource_spans")), list)


def hex_id(value) -> str | None:
    """OTLP ids as lower-case hex (OTLP/JSON uses hex; protobuf's JSON mapping uses base64)."""
    if value in (None, ""):
        return None
    s = str(value)
    if len(s) in (16, 32) and _HEX.fullmatch(s):
        return s.lower()
    try:
        raw = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return s
    return raw.hex() if len(raw) in (8, 16) else s


def any_value(v, where: str, key: str, problems: st.Problems):
    """The Python value of an OTLP AnyValue."""
    if isinstance(v, dict) and len(v) == 1:
        (k, x), = v.items()
        if k == "stringValue":
            return x if isinstance(x, str) else str(x)
        if k == "boolValue":
            return bool(x)
        if k == "intValue":
            try:
                return int(x)
            except (TypeError, ValueError):
                pass
        elif k == "doubleValue":
            try:
                return float(x)
            except (TypeError, ValueError):
                pass
        elif k == "bytesValue":
            return x
        elif k == "arrayValue" and isinstance(x, dict):
            return [any_value(e, where, key, problems) for e in x.get("values") or []]
        elif k == "kvlistValue" and isinstance(x, dict):
            return {kv.get("key"): any_value(kv.get("value"), where, key, problems)
                    for kv in x.get("values") or [] if isinstance(kv, dict)}
    if v is None or v == {}:
        return None
    problems.add(where, f"attribute {key}: unknown value shape {json.dumps(v, default=str)[:80]} "
                 '(expected an OTLP AnyValue such as {"stringValue": ...}); kept as JSON text')
    return json.dumps(v, ensure_ascii=False, default=str)


def attributes(raw, where: str, problems: st.Problems) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        problems.add(where, f"attributes: expected a list of {{key, value}}, got {type(raw).__name__}; ignored")
        return {}
    out = {}
    for i, kv in enumerate(raw):
        if not isinstance(kv, dict) or "key" not in kv:
            problems.add(where, f"attributes[{i}]: expected {{key, value}}, got {json.dumps(kv, default=str)[:60]}; "
                         "skipped")
            continue
        out[str(kv["key"])] = any_value(kv.get("value"), where, str(kv["key"]), problems)
    return out


def _nanos(v):
    if v in (None, "", 0, "0"):
        return None
    try:
        return int(v) / 1e9
    except (TypeError, ValueError):
        return v  # let the core report it


def read(records, ctx):
    items: list[Item] = []
    problems = []
    file_probs = st.Problems()
    traces: dict[str, list] = {}  # trace id -> [(raw span, where, service, scope)]
    for record, rwhere in records:
        if not detect(record):
            problems.append(wrong_shape(ctx, rwhere, sys.modules[__name__], record))
            continue
        base = f"{rwhere}, " if rwhere else ""
        rs_list = record.get("resourceSpans", record.get("resource_spans"))
        for i, rs in enumerate(rs_list):
            w = f"{base}resourceSpans[{i}]"
            if not isinstance(rs, dict):
                file_probs.add(w, f"expected an object, got {type(rs).__name__}; skipped")
                continue
            res = rs.get("resource") if isinstance(rs.get("resource"), dict) else {}
            rattrs = attributes(res.get("attributes"), f"{w}.resource", file_probs)
            service = rattrs.get("service.name")
            service = str(service) if service and not str(service).startswith("unknown_service") else None
            scopes = rs.get("scopeSpans", rs.get("scope_spans", rs.get("instrumentationLibrarySpans")))
            if not isinstance(scopes, list):
                file_probs.add(w, f"scopeSpans: expected a list, got {type(scopes).__name__}; skipped")
                continue
            for j, ss in enumerate(scopes):
                sw = f"{w}.scopeSpans[{j}]"
                spans = ss.get("spans") if isinstance(ss, dict) else None
                if not isinstance(spans, list):
                    file_probs.add(sw, "spans: expected a list of spans; skipped")
                    continue
                for k, sp in enumerate(spans):
                    where = f"{sw}.spans[{k}]"
                    if not isinstance(sp, dict):
                        file_probs.add(where, f"expected a span object, got {type(sp).__name__}; skipped")
                        continue
                    tid = hex_id(sp.get("traceId", sp.get("trace_id"))) or "(no trace id)"
                    traces.setdefault(tid, []).append((sp, where, service))
    problems.extend(st.convert_problems(file_probs, ctx.path))
    for tid, spans in traces.items():
        probs = st.Problems()
        intern = span_fields.Interner()
        seen = st.SeenIds(probs)
        entries = []
        for n, (sp, where, service) in enumerate(spans):
            sid = hex_id(sp.get("spanId", sp.get("span_id")))
            name = str(sp.get("name") or "")
            if sid is None:
                sid = f"(no id {n})"
                probs.add(where, f"span {name!r} has no spanId; read as {sid}")
            sid = seen.check(sid, sp, f"span {sid} ({name})" if name else f"span {sid}")
            if sid is None:
                continue
            wh = f"span {sid}" + (f" ({name})" if name else "")
            span = st.Span(id=sid, parent=hex_id(sp.get("parentSpanId", sp.get("parent_span_id"))), name=name,
                           where=wh, service=service)
            span.start, span.end = span_fields.times(_nanos(sp.get("startTimeUnixNano")), _nanos(sp.get("endTimeUnixNano")),
                                            None, wh, probs)
            status = sp.get("status") if isinstance(sp.get("status"), dict) else {}
            if status.get("code") in ("STATUS_CODE_ERROR", 2, "2", "ERROR"):
                span.status = "error"
                span.status_message = str(status.get("message") or "")
            links = sp.get("links")
            if isinstance(links, list) and links:
                span.links = [{"trace_id": hex_id(ln.get("traceId")), "span_id": hex_id(ln.get("spanId"))}
                              for ln in links if isinstance(ln, dict)]
            span_fields.fill_from_attributes(span, attributes(sp.get("attributes"), wh, probs), probs, intern)
            entries.append((span, None))
        roots = st.assemble(entries, probs, container="export")
        data = st.build_item(roots, tid, NAME, problems=probs)
        items.append(st.trace_item(data, tid, NAME, ctx.path, probs, problems))
    return items, problems
