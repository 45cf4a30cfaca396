"""LangSmith run trees: `{"id", "name", "run_type", "start_time", "end_time", "inputs",
"outputs", "error", "child_runs": [run], "parent_run_id", "trace_id", "extra": {"metadata"}}`.

A file holds one root run with its `child_runs` nested (what `Client.read_run(...,
load_child_runs=True)` and the run-tree export give), or a list / JSON Lines of runs linked by
`parent_run_id` (what `list_runs` gives), grouped by `trace_id` (else the root's id): one item
per trace.

run_type: `llm` is an LLM step (`inputs.messages` [[message]] or `inputs.prompts`; the text of
`outputs.generations[0][0]`, its `message` tool calls requested), `tool` and `retriever` are
timed tool calls (`inputs.input` or `inputs` as the arguments, `outputs.output` or `outputs` as
the result), `chain` and the rest shape the tree. Messages may be LangChain-serialised
(`{"lc": 1, "id": [..., "AIMessage"], "kwargs": {...}}`) or plain.

Agents: a chain run that is a LangGraph node (its `extra.metadata.langgraph_node` is its own
name) is an agent; without such nodes, each chain run directly under the root that is not one of
LangChain's own runnables (`Runnable*`, prompt templates, output parsers) is one; every run
belongs to its nearest enclosing agent, runs outside all of them to the root run's name.
"""
from __future__ import annotations

import sys

from app.traces.trace import Item, content_text
from app.traces.readers import spans as span_fields, spantree as st
from app.traces.readers.context import wrong_shape

NAME = "langsmith"
SHAPE = 'a LangSmith run ({"id", "run_type", "inputs", "outputs", "child_runs" | "parent_run_id"})'
RUN_TYPES = {"llm", "chain", "tool", "retriever", "prompt", "parser", "embedding"}
INTERNAL = span_fields.INTERNAL
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function",
          "HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system", "ToolMessage": "tool",
          "AIMessageChunk": "assistant", "FunctionMessage": "function", "ChatMessage": "user"}


def detect(record) -> bool:
    # (a run_type of any JSON type may arrive: a list or a dict is not a run type, and not hashable)
    return (isinstance(record, dict) and isinstance(record.get("run_type"), str) and record["run_type"] in RUN_TYPES
            and ("child_runs" in record or "parent_run_id" in record or "inputs" in record))


def message(m, intern) -> dict:
    """A LangChain message (serialised or plain) as {role, content, name?, tool_calls?}."""
    if not isinstance(m, dict):
        return {"role": "", "content": intern(content_text(m))}
    if m.get("lc") is not None and isinstance(m.get("kwargs"), dict):
        cls = m.get("id")[-1] if isinstance(m.get("id"), list) and m["id"] else ""
        kw = m["kwargs"]
        out = {"role": _ROLES.get(str(cls), str(kw.get("role") or cls)), "content": intern(content_text(kw.get("content")))}
        src = kw
    else:
        role = m.get("role") or _ROLES.get(str(m.get("type")), m.get("type"))
        out = {"role": str(role or ""), "content": intern(content_text(m.get("content")))}
        src = m
    if src.get("name"):
        out["name"] = str(src["name"])
    calls = src.get("tool_calls")
    if not isinstance(calls, list):
        ak = src.get("additional_kwargs") if isinstance(src.get("additional_kwargs"), dict) else {}
        calls = ak.get("tool_calls") if isinstance(ak.get("tool_calls"), list) else None
    if calls:
        out["tool_calls"] = calls
    if src.get("tool_call_id") is not None:
        out["tool_call_id"] = src["tool_call_id"]
    return out


def _llm_input(inputs, intern):
    if not isinstance(inputs, dict):
        return None
    msgs = inputs.get("messages")
    if isinstance(msgs, list) and msgs and isinstance(msgs[0], list):
        msgs = msgs[0]  # one prompt per batch entry; a run holds one
    if isinstance(msgs, list):
        return [message(m, intern) for m in msgs]
    prompts = inputs.get("prompts")
    if isinstance(prompts, list) and prompts:
        return [{"role": "user", "content": intern(str(prompts[0]))}]
    return None


def _llm_output(outputs, intern):
    if not isinstance(outputs, dict):
        return (intern(outputs), None) if isinstance(outputs, str) else (None, None)
    gens = outputs.get("generations")
    if isinstance(gens, list) and gens:
        g = gens[0][0] if isinstance(gens[0], list) and gens[0] else gens[0]
        if isinstance(g, dict):
            if isinstance(g.get("message"), dict):
                m = message(g["message"], intern)
                return (m["content"] or intern(str(g.get("text") or ""))), m.get("tool_calls")
            return intern(str(g.get("text") or "")), None
    if "content" in outputs or "tool_calls" in outputs or "choices" in outputs:
        return span_fields._output_of(outputs, intern)
    if isinstance(outputs.get("output"), (dict, str)):
        return _llm_output(outputs["output"], intern) if isinstance(outputs["output"], dict) else (
            intern(outputs["output"]), None)
    return None, None


def _flatten(root: dict, where: str):
    """(run, nested-under run or None, where) for a run and its child_runs, without recursion."""
    todo = [(root, None, where)]
    while todo:
        run, parent, w = todo.pop()
        yield run, parent, w
        kids = run.get("child_runs")
        if isinstance(kids, list):
            todo.extend((c, run, f"{w}.child_runs[{i}]") for i, c in reversed(list(enumerate(kids)))
                        if isinstance(c, dict))


def _span(run: dict, where: str, problems: st.Problems, intern) -> st.Span:
    rid = str(run.get("id"))
    name = str(run.get("name") or "")
    wh = f"run {rid}" + (f" ({name})" if name else "")
    rt = run.get("run_type")
    kind = {"llm": st.LLM, "tool": st.TOOL, "retriever": "RETRIEVER"}.get(rt, "CHAIN")
    span = st.Span(id=rid, parent=st.parent_id(run.get("parent_run_id"), "parent_run_id", wh, problems, nested=True),
                   name=name, kind=kind, where=wh)
    span.start, span.end = span_fields.times(run.get("start_time"), run.get("end_time"), None, wh, problems)
    if run.get("error"):
        span.status, span.status_message = "error", str(run["error"])
    inputs, outputs = run.get("inputs"), run.get("outputs")
    if kind == st.LLM:
        span.messages = _llm_input(inputs, intern)
        span.output, span.output_calls = _llm_output(outputs, intern)
        extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
        params = extra.get("invocation_params") if isinstance(extra.get("invocation_params"), dict) else {}
        model = params.get("model") or params.get("model_name")
        span.model = str(model) if model else None
    elif kind in st.TOOL_KINDS:
        span.tool = name
        args = inputs.get("input", inputs) if isinstance(inputs, dict) and set(inputs) == {"input"} else inputs
        span.arguments = st.maybe_json(args)
        if outputs is not None:
            out = outputs.get("output", outputs) if isinstance(outputs, dict) and set(outputs) == {"output"} else outputs
            span.result, span.has_result = out, True
    else:
        if isinstance(inputs, dict):
            for key in ("input", "question", "query", "task"):
                if isinstance(inputs.get(key), str):
                    span.task = inputs[key]
                    break
        elif isinstance(inputs, str):
            span.task = inputs
    return span


def _node(run: dict) -> str | None:
    extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
    meta = extra.get("metadata") if isinstance(extra.get("metadata"), dict) else run.get("metadata")
    node = meta.get("langgraph_node") if isinstance(meta, dict) else None
    return node if isinstance(node, str) else None


def _item(tid: str, runs: list, ctx, problems: st.Problems):
    intern = span_fields.Interner()
    seen = st.SeenIds(problems)
    entries, by_id, raw_of = [], {}, {}
    for n, (run, nested, where) in enumerate(runs):
        rid = run.get("id")
        if rid in (None, ""):
            rid = f"(no id {n})"
            problems.add(where, f"run has no id; read as {rid}")
        sid = seen.check(str(rid), {k: v for k, v in run.items() if k != "child_runs"}, f"run {rid}")
        if sid is None:
            continue
        span = _span(run, where, problems, intern)
        span.id = sid
        by_id[id(run)] = span
        raw_of[id(span)] = run
        entries.append((span, by_id.get(id(nested)) if nested is not None else None))
    roots = st.assemble(entries, problems, container="trace")
    spans = [s for s, _ in entries]
    nodes = [s for s in spans if s.kind == "CHAIN" and _node(raw_of[id(s)]) == s.name and not INTERNAL.match(s.name)]
    if not nodes:
        nodes = [c for r in roots for c in r.children if c.kind == "CHAIN" and c.name and not INTERNAL.match(c.name)
                 and any(d.kind in (st.LLM, *st.TOOL_KINDS) for d in st.descendants(c))]
    for s in nodes:
        s.kind, s.agent_name = st.AGENT, s.name
    root_name = next((r.name for r in roots if r.name and not INTERNAL.match(r.name)), None)
    data = st.build_item(roots, tid, NAME, default_agent=root_name or st.DEFAULT_AGENT, problems=problems)
    if not data["steps"]:
        problems.add("", "no llm or tool runs: the trace has no steps", "warning")
    return Item(tid, data, f"{ctx.path} trace {tid}", NAME, data["text"], None)




def read(records, ctx):
    problems, items = [], []
    traces: dict[str, list] = {}
    for record, where in records:
        if not detect(record):
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
            continue
        tid = record.get("trace_id") or (record.get("id") if record.get("parent_run_id") in (None, "") else None)
        tid = str(tid) if tid not in (None, "") and not isinstance(tid, (dict, list)) else ctx.path.stem
        traces.setdefault(tid, []).extend(_flatten(record, where or "run"))
    for tid, runs in traces.items():
        probs = st.Problems()
        items.append(_item(tid, runs, ctx, probs))
        problems.extend(st.convert_problems(probs, ctx.path, f"trace {tid}, "))
    return items, problems
