"""TRAIL traces (Deshpande et al., Patronus AI, 2025): nested OpenInference span trees.

`{"trace_id", "spans": [span]}` where a span is `{"span_id", "parent_span_id", "span_name",
"timestamp", "duration" (ISO 8601), "status_code", "span_attributes", "child_spans": [span]}`.
A flat list of such spans linked only by `parent_span_id` is read the same way.
Agents, steps, tool calls and timed calls come from `spantree`; a trace without AGENT spans
is one agent, `agent`. Gold errors are read from `gold/<trace_id>.json` in the trace's folder
or its parent (TRAIL's layout) and attached by `trail_gold`.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from app.traces.trace import Item
from app.traces.readers import spans as span_fields, spantree as st
from app.traces.readers import trail_gold
from app.traces.readers.context import wrong_shape

NAME = "trail"
SHAPE = 'a TRAIL trace ({"trace_id", "spans": [{"span_id", "span_attributes", "child_spans", ...}]})'
_SCALARS = (str, int, float, bool, type(None))


def detect(record) -> bool:
    if not isinstance(record, dict) or not isinstance(record.get("spans"), list):
        return False
    spans = record["spans"]
    if not spans:
        return "trace_id" in record
    first = spans[0]
    return isinstance(first, dict) and any(k in first for k in ("span_id", "child_spans", "span_attributes"))


def _attributes(raw: dict, where: str, problems: st.Problems) -> dict:
    attrs = raw.get("span_attributes")
    if attrs is None:
        return {}
    if not isinstance(attrs, dict):
        problems.add(where, f"span_attributes: expected an object, got {type(attrs).__name__}; ignored")
        return {}
    bad = [k for k, v in attrs.items() if not isinstance(v, _SCALARS)
           and not (isinstance(v, list) and all(isinstance(x, _SCALARS) for x in v))]
    if bad:
        attrs = dict(attrs)
        for k in bad:
            problems.add(where, f"attribute {k}: unknown value shape ({type(attrs[k]).__name__}); "
                         "kept as JSON text")
            attrs[k] = json.dumps(attrs[k], ensure_ascii=False, default=str)
    return attrs


def _span(raw: dict, sid: str, where: str, problems: st.Problems, intern: span_fields.Interner,
          nested: bool = False) -> st.Span:
    parent = st.parent_id(raw.get("parent_span_id"), "parent_span_id", where, problems, nested)
    span = st.Span(id=sid, parent=parent, name=str(raw.get("span_name") or ""), where=where, service=None)
    span.start, span.end = span_fields.times(raw.get("timestamp"), None, raw.get("duration"), where, problems)
    code = str(raw.get("status_code") or "")
    if code.lower() in ("error", "status_code_error", "2"):
        span.status = "error"
        span.status_message = str(raw.get("status_message") or "")
    links = raw.get("links")
    if isinstance(links, list) and links:
        span.links = links
    span_fields.fill_from_attributes(span, _attributes(raw, where, problems), problems, intern)
    return span


def trace_item(record: dict, path: Path, where: str = "") -> tuple[Item | None, st.Problems]:
    """One TRAIL trace as an item (with its gold when found beside it)."""
    problems = st.Problems()
    intern = span_fields.Interner()
    spans = record.get("spans")
    tid = record.get("trace_id")
    if tid in (None, ""):
        first = spans[0] if spans and isinstance(spans[0], dict) else {}
        tid = first.get("trace_id") or (path.stem if not where else f"{path.stem}-{where.split()[-1]}")
    tid = str(tid)
    seen = st.SeenIds(problems)
    entries: list[tuple[st.Span, st.Span | None]] = []
    stack = [(raw, None, f"spans[{i}]") for i, raw in reversed(list(enumerate(spans)))]
    nameless = 0
    while stack:
        raw, parent, path_where = stack.pop()
        inside = f"span {parent.id}, " if parent is not None else ""
        if not isinstance(raw, dict):
            problems.add(f"{inside}{path_where}",
                         f"expected a span object, got {type(raw).__name__}; skipped")
            continue
        sid = raw.get("span_id")
        if sid in (None, ""):
            nameless += 1
            sid = f"(no id {nameless})"
            problems.add(f"{inside}{path_where}", f"span {raw.get('span_name')!r} has no span_id; "
                         f"read as {sid}")
        sid = seen.check(str(sid), raw, f"span {sid}")
        if sid is None:
            continue
        wh = f"span {sid}" + (f" ({raw.get('span_name')})" if raw.get("span_name") else "")
        span = _span(raw, sid, wh, problems, intern, nested=parent is not None)
        entries.append((span, parent))
        kids = raw.get("child_spans")
        if kids is None:
            continue
        if not isinstance(kids, list):
            problems.add(wh, f"child_spans: expected a list of spans, got {type(kids).__name__}; ignored")
            continue
        stack.extend((k, span, f"child_spans[{j}]") for j, k in reversed(list(enumerate(kids))))
    roots = st.assemble(entries, problems)
    data = st.build_item(roots, tid, NAME, problems=problems)
    gold = None
    gold_path = trail_gold.find(path, tid)
    if gold_path is not None:
        try:
            raw_gold = json.loads(gold_path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
            problems.add("gold", f"cannot read the gold file {gold_path}: {e}")
        else:
            gold, gp = trail_gold.normalise(raw_gold, data, str(gold_path.resolve()))
            problems.extend((f"gold {gold_path.name}, {w}" if w else f"gold {gold_path.name}", m, lv)
                            for w, m, lv in gp)
            if gold is not None:
                data["gold"] = gold
    if not data["steps"]:
        problems.add("", "no LLM or tool spans: the trace has no steps", "warning")
    source = f"{path} {where}" if where else str(path)
    return Item(tid, data, source, NAME, data["text"], gold), problems


def read(records, ctx):
    items, problems = [], []
    for record, where in records:
        if trail_gold.detect(record):  # a TRAIL folder holds its gold too
            problems.extend(trail_gold.read([(record, where)], ctx)[1])
            continue
        if not detect(record):
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
            continue
        item, probs = trace_item(record, ctx.path, where)
        prefix = f"{where}, " if where else ""
        prefix += f"trace {item.id}, " if item is not None else ""
        problems.extend(st.convert_problems(probs, ctx.path, prefix))
        if ctx.salvaged and item is not None:
            last = item.data["trace"]["spans"][-1]["id"] if item.data["trace"]["spans"] else None
            problems.append(ctx.problem(f"{prefix}span {last}" if last else prefix.rstrip(", "),
                                        f"the file is cut short: {len(item.data['trace']['spans'])} spans read, "
                                        f"the last one read is {last} (it may lack the fields after the cut); "
                                        "later spans are missing", "warning"))
        if item is not None:
            items.append(item)
    return items, problems
