"""LangSmith run trees (the Run schema: run_type, inputs, outputs, child_runs / parent_run_id),
nested as read_run(load_child_runs=True) gives them and flat as list_runs gives them."""
import json

from app.traces.derive import derive
from app.traces.readers import read_file

TRACE = "0f1e2d3c-0000-4000-8000-000000000001"


def _msg(cls, content, **kw):
    return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", cls],
            "kwargs": {"content": content, **kw}}


def _run(rid, name, run_type, start, end, parent=None, inputs=None, outputs=None, children=None, node=None,
         error=None):
    r = {"id": rid, "name": name, "run_type": run_type, "trace_id": TRACE, "parent_run_id": parent,
         "start_time": f"2025-04-02T09:00:{start}", "end_time": f"2025-04-02T09:00:{end}",
         "inputs": inputs or {}, "outputs": outputs, "error": error,
         "extra": {"metadata": {"langgraph_node": node} if node else {}}}
    if children is not None:
        r["child_runs"] = children
    return r


def tree():
    call = {"name": "search", "args": {"q": "GDP of France"}, "id": "call_1", "type": "tool_call"}
    research = _run("r-res", "researcher", "chain", "01.000", "05.000", TRACE, node="researcher", children=[
        _run("r-seq", "RunnableSequence", "chain", "01.100", "02.000", "r-res", children=[
            _run("r-llm1", "ChatOpenAI", "llm", "01.200", "01.900", "r-seq",
                 inputs={"messages": [[_msg("SystemMessage", "You research."), _msg("HumanMessage", "GDP of France?")]]},
                 outputs={"generations": [[{"text": "", "message": _msg("AIMessage", "", tool_calls=[call])}]]})]),
        _run("r-tool", "search", "tool", "02.100", "03.000", "r-res", inputs={"input": "{'q': 'GDP of France'}"},
             outputs={"output": "3.1 trillion USD"}),
        _run("r-llm2", "ChatOpenAI", "llm", "03.100", "04.000", "r-res",
             outputs={"generations": [[{"text": "About 3.1 trillion USD.",
                                         "message": _msg("AIMessage", "About 3.1 trillion USD.")}]]})])
    writer = _run("r-wri", "writer", "chain", "05.100", "07.000", TRACE, node="writer", children=[
        _run("r-llm3", "ChatOpenAI", "llm", "05.200", "06.000", "r-wri",
             outputs={"generations": [[{"text": "France's GDP is about $3.1T."}]]})])
    return _run(TRACE, "LangGraph", "chain", "00.000", "08.000", inputs={"question": "What is the GDP of France?"},
                children=[research, writer])


def _check(it):
    d = derive(it.data)
    assert it.format == "langsmith" and it.id == TRACE
    assert d.agents == ["researcher", "writer"]
    assert [s.id for s in d.steps] == ["r-llm1", "r-llm2", "r-llm3"]
    assert [(h.src, h.dst) for h in d.handoffs] == [("researcher", "writer")]
    assert [(t.tool, t.step, t.result) for t in d.tool_calls] == [("search", 0, "3.1 trillion USD")]
    assert [(c.agent, c.tool, round(c.end - c.start, 3)) for c in d.calls] == [("researcher", "search", 0.9)]
    assert it.data["steps"][0]["input"][1] == {"role": "user", "content": "GDP of France?"}
    assert it.data["steps"][0]["requested_tool_calls"][0]["name"] == "search"
    assert it.text == "What is the GDP of France?"


def test_nested_run_tree(tmp_path):
    p = tmp_path / "run.json"
    p.write_text(json.dumps(tree()))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == [] and len(items) == 1
    _check(items[0])


def _flat(run):
    out, todo = [], [run]
    while todo:
        r = todo.pop(0)
        todo.extend(r.pop("child_runs", []) or [])
        out.append(r)
    return out


def test_flat_runs_from_list_runs(tmp_path):
    p = tmp_path / "runs.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in _flat(tree())))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == [] and len(items) == 1
    _check(items[0])


def test_agent_executor_without_graph_nodes_is_one_agent_named_after_the_root(tmp_path):
    root = _run("x1", "AgentExecutor", "chain", "00.000", "03.000", inputs={"input": "weather in SF?"}, children=[
        _run("x2", "ChatOpenAI", "llm", "00.100", "01.000", "x1", outputs={"generations": [[{"text": "calling"}]]}),
        _run("x3", "get_weather", "tool", "01.100", "02.000", "x1", inputs={"input": "SF"}, outputs={"output": "sunny"})])
    root["trace_id"] = "x1"
    for r in root["child_runs"]:
        r["trace_id"] = "x1"
    p = tmp_path / "ae.json"
    p.write_text(json.dumps(root))
    it = read_file(p)[0][0]
    d = derive(it.data)
    assert d.agents == ["AgentExecutor"] and [t.tool for t in d.tool_calls] == ["get_weather"]
    assert d.tool_calls[0].arguments == "SF"
