"""Langfuse exports from older SDKs (v2 and its LangChain callback): agents and tools are plain
SPAN observations, only the LLM calls are GENERATIONs."""
import json

from app.traces.derive import derive
from app.traces.readers import read_file


def _obs(oid, typ, name, parent, start, end, **kw):
    return {"id": oid, "traceId": "lf-1", "type": typ, "name": name, "parentObservationId": parent,
            "startTime": f"2025-02-03T14:00:{start}Z", "endTime": f"2025-02-03T14:00:{end}Z", **kw}


def trace():
    call = {"id": "c1", "type": "function", "function": {"name": "search_docs", "arguments": '{"q": "refunds"}'}}
    return {"id": "lf-1", "name": "support-bot", "input": "How do refunds work?", "observations": [
        _obs("o1", "SPAN", "supervisor", None, "00.000", "09.000", input="How do refunds work?"),
        _obs("o2", "GENERATION", "ChatOpenAI", "o1", "00.100", "01.000", model="gpt-4o",
             input=[{"role": "user", "content": "How do refunds work?"}],
             output={"role": "assistant", "content": "", "tool_calls": [call]}),
        _obs("o3", "SPAN", "search_docs", "o1", "01.100", "02.000", input='{"q": "refunds"}',
             output="Refunds take 5 days."),
        _obs("o4", "SPAN", "RunnableSequence", "o1", "02.100", "06.000"),
        _obs("o5", "SPAN", "billing_agent", "o4", "02.200", "05.900"),
        _obs("o6", "GENERATION", "ChatOpenAI", "o5", "02.300", "03.000", output="Refunds take 5 business days."),
        _obs("o7", "SPAN", "ChatPromptTemplate", "o1", "06.100", "06.200"),
        _obs("o8", "GENERATION", "ChatOpenAI", "o1", "06.300", "07.000", output="Done: 5 business days."),
    ]}


def test_plain_spans_are_agents_and_tools(tmp_path):
    p = tmp_path / "lf.json"
    p.write_text(json.dumps(trace()))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == []
    it = items[0]
    d = derive(it.data)
    assert "agent" not in d.agents
    assert d.agents == ["supervisor", "billing_agent"]
    assert [s.agent for s in d.steps] == ["supervisor", "billing_agent", "supervisor"]
    assert [(t.tool, t.step, t.arguments, t.result) for t in d.tool_calls] == [
        ("search_docs", 0, {"q": "refunds"}, "Refunds take 5 days.")]
    assert [(c.agent, c.tool, round(c.end - c.start, 3)) for c in d.calls] == [("supervisor", "search_docs", 0.9)]


def test_plain_spans_without_agent_spans_belong_to_the_trace_name(tmp_path):
    t = trace()
    t["observations"] = [o for o in t["observations"] if o["id"] in ("o2", "o3")]
    for o in t["observations"]:
        o["parentObservationId"] = None
    p = tmp_path / "lf2.json"
    p.write_text(json.dumps(t))
    it = read_file(p)[0][0]
    d = derive(it.data)
    assert d.agents == ["support-bot"] and [t.tool for t in d.tool_calls] == ["search_docs"]


def test_typed_observations_are_read_as_before(tmp_path):
    t = trace()
    for o in t["observations"]:
        if o["id"] == "o3":
            o["type"] = "TOOL"
    p = tmp_path / "lf3.json"
    p.write_text(json.dumps(t))
    d = derive(read_file(p)[0][0].data)
    assert d.agents == ["support-bot"]  # no AGENT observations: typed traces keep their own rules


def test_langchain_agent_executor_under_the_v2_callback(tmp_path):
    """AgentExecutor → RunnableSequence (prompt, ChatOpenAI generation, parser), then the tool
    span beside the sequence, not beside the generation."""
    call = {"id": "c1", "type": "function", "function": {"name": "tavily", "arguments": '{"query": "x"}'}}
    obs = [
        _obs("e1", "SPAN", "AgentExecutor", None, "00.000", "09.000", input={"input": "news?"}),
        _obs("e2", "SPAN", "RunnableSequence", "e1", "00.100", "02.000"),
        _obs("e3", "SPAN", "ChatPromptTemplate", "e2", "00.100", "00.200"),
        _obs("e4", "GENERATION", "ChatOpenAI", "e2", "00.300", "01.800",
             output={"role": "assistant", "content": "", "additional_kwargs": {"tool_calls": [call]}}),
        _obs("e5", "SPAN", "ToolsAgentOutputParser", "e2", "01.850", "01.900"),
        _obs("e6", "SPAN", "tavily", "e1", "02.100", "04.000", input='{"query": "x"}', output="headlines"),
        _obs("e7", "SPAN", "RunnableSequence", "e1", "04.100", "06.000"),
        _obs("e8", "GENERATION", "ChatOpenAI", "e7", "04.200", "05.900", output="Here is the news."),
    ]
    p = tmp_path / "ae.json"
    p.write_text(json.dumps({"id": "lf-2", "name": "news", "observations": obs}))
    d = derive(read_file(p)[0][0].data)
    assert d.agents == ["AgentExecutor"] and len(d.steps) == 2
    assert [(t.tool, t.step, t.result) for t in d.tool_calls] == [("tavily", 0, "headlines")]
    assert len(d.calls) == 1
