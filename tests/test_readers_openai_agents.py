"""OpenAI Agents SDK spans (Span.export() / Trace.export(), the SDK's documented export shape),
as JSON Lines and as the tracing backend's {"data": [...]} payload."""
import json

from app.traces.derive import derive
from app.traces.readers import read_file

T = "trace_0123456789abcdef0123456789abcdef"


def _span(sid, parent, start, end, data, trace=T, error=None):
    return {"object": "trace.span", "id": sid, "trace_id": trace, "parent_id": parent,
            "started_at": f"2025-03-01T10:00:{start}Z", "ended_at": f"2025-03-01T10:00:{end}Z",
            "span_data": data, "error": error}


def run(trace=T):
    return [
        {"object": "trace", "id": trace, "workflow_name": "Customer service", "group_id": None, "metadata": None},
        _span("span_a1", None, "00.000", "05.000", {"type": "agent", "name": "Triage Agent",
                                                    "handoffs": ["Billing Agent"], "tools": ["lookup"]}, trace),
        _span("span_g1", "span_a1", "00.100", "01.000", {
            "type": "generation", "model": "gpt-4o", "input": [{"role": "user", "content": "Refund my order 42"}],
            "output": [{"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"order": 42}'}}]}]}, trace),
        _span("span_f1", "span_a1", "01.100", "01.600", {"type": "function", "name": "lookup",
                                                         "input": '{"order": 42}', "output": '{"status": "paid"}'}, trace),
        _span("span_h1", "span_a1", "02.000", "02.010", {"type": "handoff", "from_agent": "Triage Agent",
                                                         "to_agent": "Billing Agent"}, trace),
        _span("span_a2", None, "02.100", "04.000", {"type": "agent", "name": "Billing Agent", "tools": ["refund"]}, trace),
        _span("span_r1", "span_a2", "02.200", "03.000", {"type": "response", "response_id": "resp_1"}, trace),
        _span("span_f2", "span_a2", "03.100", "03.900", {"type": "function", "name": "refund", "input": '{"order": 42}',
                                                         "output": None}, trace, error={"message": "Error running tool",
                                                                                        "data": {"tool_name": "refund"}}),
        _span("span_gd", None, "00.000", "00.050", {"type": "guardrail", "name": "no_pii", "triggered": False}, trace),
    ]


def _check(it):
    d = derive(it.data)
    assert it.format == "openai_agents" and it.id == T
    assert d.agents == ["Triage Agent", "Billing Agent"]
    assert [s.id for s in d.steps] == ["span_g1", "span_r1"]
    assert [(h.src, h.dst, h.step) for h in d.handoffs] == [("Triage Agent", "Billing Agent", 1)]
    assert [(t.tool, t.step, t.arguments, t.result) for t in d.tool_calls] == [
        ("lookup", 0, {"order": 42}, '{"status": "paid"}'), ("refund", 1, {"order": 42}, None)]
    assert [(c.agent, c.tool, round(c.end - c.start, 3)) for c in d.calls] == [
        ("Triage Agent", "lookup", 0.5), ("Billing Agent", "refund", 0.8)]
    assert it.text == "Refund my order 42"
    assert it.data["trace"]["workflow_name"] == "Customer service"
    assert it.data["steps"][1]["tool_calls"][0]["status"] == "error"
    assert "resp_1" in it.data["steps"][1]["content"]  # a Responses API call without its text in the export


def test_json_lines_of_spans_are_one_item_per_trace(tmp_path):
    other = "trace_ffffffffffffffffffffffffffffffff"
    lines = run() + run(other)
    p = tmp_path / "spans.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == []
    assert [it.id for it in items] == [T, other]
    _check(items[0])


def test_backend_payload_data_list(tmp_path):
    p = tmp_path / "ingest.json"
    p.write_text(json.dumps({"data": run()}))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == [] and len(items) == 1
    _check(items[0])


def test_span_without_trace_id_and_unknown_type_are_reported(tmp_path):
    spans = run()[1:3] + [dict(_span("span_x", None, "09.000", "09.500", {"type": "teleport"}), trace_id=None)]
    p = tmp_path / "bad.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in spans))
    items, problems = read_file(p, data_format="openai_agents")
    assert any("no trace_id" in p.message for p in problems)
    assert any("unknown span_data type 'teleport'" in p.message for p in problems)
    assert {it.id for it in items} == {T, "bad"}
