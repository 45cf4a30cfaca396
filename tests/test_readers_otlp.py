"""OTLP/JSON exports: the two agent-prism samples, and built exports for agents, links,
JSON Lines batches and the messages every malformed part gives."""
import base64
import json

import pytest

from app.traces.derive import derive
from app.traces.readers import read_file
from app.traces.readers.otlp import hex_id
from tests.conftest import TEST_DATA, shared_dataset, shared_files

OTEL = shared_files("otel", stand_in=TEST_DATA / "otel")


def _spans(path):
    out = []
    for batch in json.loads(path.read_text()):
        for rs in batch["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                out += ss["spans"]
    return out


def _kind(sp):
    a = {kv["key"]: kv["value"] for kv in sp.get("attributes", [])}
    return a.get("openinference.span.kind", {}).get("stringValue")


@pytest.mark.parametrize("path", OTEL, ids=lambda p: p.stem)
def test_otel_samples_read_as_one_single_agent_run(path):
    items, problems = read_file(path)
    assert [p for p in problems if p.level != "note"] == []
    assert len(items) == 1 and items[0].format == "otlp"
    spans = _spans(path)
    it = items[0]
    assert it.id == hex_id(spans[0]["traceId"]) and len(it.id) == 32
    d = derive(it.data)
    assert d.agents == ["agent"] and d.handoffs == [] and d.problems == []
    llm = [s for s in spans if _kind(s) == "LLM"]
    assert len([s for s in d.steps if s.raw["kind"] == "LLM"]) == len(llm)
    assert len(it.data["trace"]["spans"]) == len(spans)


def test_smolagents_export_steps_and_requested_tool_calls():
    it = read_file(shared_dataset("otel", "smol_deep_research_agent.json"))[0][0]
    d = derive(it.data)
    assert len(d.steps) == 6 and [t.tool for t in d.tool_calls] == ["web_search", "final_answer"]
    assert d.tool_calls[0].arguments == {"query": "AI 2025 forecasts from Gartner, IDC, Deloitte, McKinsey"}
    # messages come from llm.input_messages.N.message.contents.K.message_content.text
    assert it.data["steps"][3]["input"][1]["content"].startswith("New task:")


def test_rag_export_retriever_is_a_timed_tool_call_and_the_question_is_the_text():
    it = read_file(shared_dataset("otel", "rag_earnings_agent.json"))[0][0]
    d = derive(it.data)
    assert [t.tool for t in d.tool_calls] == ["VectorStoreRetriever"]
    assert len(d.calls) == 1 and d.calls[0].end > d.calls[0].start
    assert it.text == "what was meta's revenue in Q4 2023"


# --- built exports --------------------------------------------------------------------------------

def sv(s):
    return {"stringValue": s}


def span(sid, name, parent=None, start=1, end=2, trace="a" * 32, **attrs):
    return {"traceId": trace, "spanId": sid, "parentSpanId": parent or "", "name": name,
            "startTimeUnixNano": str(int(start * 1e9)), "endTimeUnixNano": str(int(end * 1e9)),
            "attributes": [{"key": k.replace("__", "."), "value": v} for k, v in attrs.items()]}


def export(spans, service="unknown_service"):
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": sv(service)}]},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}


def llm(sid, parent, start, agent=None, text="ok", trace="a" * 32):
    extra = {"gen_ai__agent__name": sv(agent)} if agent else {}
    return span(sid, "chat", parent, start, start + 1, trace, gen_ai__operation__name=sv("chat"),
                gen_ai__prompt__0__role=sv("user"), gen_ai__prompt__0__content=sv("hi"),
                gen_ai__completion__0__content=sv(text), **extra)


def test_genai_agents_tools_links_and_service_names(tmp_path):
    spans = [
        span("1" * 16, "invoke_agent planner", None, 0.5, 20, gen_ai__operation__name=sv("invoke_agent"),
             gen_ai__agent__name=sv("planner")),
        llm("2" * 16, "1" * 16, 1),
        span("3" * 16, "invoke_agent coder", "1" * 16, 3, 10, gen_ai__operation__name=sv("invoke_agent"),
             gen_ai__agent__name=sv("coder")),
        llm("4" * 16, "3" * 16, 4),
        span("5" * 16, "execute_tool", "3" * 16, 5, 7, gen_ai__operation__name=sv("execute_tool"),
             gen_ai__tool__name=sv("run_tests"), gen_ai__tool__call__arguments=sv('{"path": "x"}'),
             peer__service=sv("ci")),
        llm("6" * 16, "1" * 16, 11),
    ]
    spans[1]["links"] = [{"traceId": "b" * 32, "spanId": "c" * 16}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(export(spans, "team-svc")))
    items, problems = read_file(p)
    assert problems == []
    it = items[0]
    d = derive(it.data)
    assert d.agents == ["planner", "coder"]
    assert [(h.src, h.dst) for h in d.handoffs] == [("planner", "coder"), ("coder", "planner")]
    assert [(t.step, t.tool, t.arguments) for t in d.tool_calls] == [(1, "run_tests", {"path": "x"})]
    assert [(c.agent, c.resource, c.start, c.end) for c in d.calls] == [("coder", "ci", 5.0, 7.0)]
    assert it.data["trace"]["spans"][1]["links"] == [{"trace_id": "b" * 32, "span_id": "c" * 16}]
    # no agent spans: the service name is the agent; OpenTelemetry's default name is not
    p.write_text(json.dumps(export([llm("7" * 16, None, 1)], "billing")))
    assert derive(read_file(p)[0][0].data).agents == ["billing"]


def test_json_lines_batches_grouped_by_trace_and_base64_ids(tmp_path):
    tid = base64.b64encode(bytes(range(16))).decode()
    sid = base64.b64encode(bytes(range(8))).decode()
    lines = [export([llm(sid, None, 1, "a", trace=tid)]),
             export([llm("9" * 16, None, 2, "b", trace="f" * 32)]),
             export([llm("8" * 16, None, 3, "c", trace=tid)])]
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines))
    items, problems = read_file(p)
    assert problems == []
    assert [i.id for i in items] == [bytes(range(16)).hex(), "f" * 32]
    assert [s["id"] for s in items[0].data["steps"]] == [bytes(range(8)).hex(), "8" * 16]
    assert derive(items[0].data).agents == ["a", "c"]


def test_malformed_parts_named_and_the_rest_read(tmp_path):
    spans = [llm("1" * 16, None, 1, "a"),
             dict(llm("2" * 16, "d" * 16, 2, "a")),  # parent not in the export
             "not a span",
             llm("3" * 16, None, 3, "a")]
    spans[3]["attributes"].append({"key": "weird", "value": {"mysteryValue": 1}})
    spans[3]["attributes"].append({"key": "plain", "value": "text"})
    spans[0]["attributes"].append("junk")
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(export(spans)))
    items, problems = read_file(p)
    assert len(items) == 1 and len(items[0].data["steps"]) == 3
    text = [f"{x.level}|{x}" for x in problems]
    assert any(t.startswith("warning|") and "resourceSpans[0].scopeSpans[0].spans[2]" in t
               and "expected a span object, got str; skipped" in t for t in text)
    assert any(t.startswith("warning|") and f"span {'3' * 16}" in t and "attribute weird: unknown value shape" in t
               for t in text)
    assert any(f"span {'3' * 16}" in t and "attribute plain: unknown value shape" in t for t in text)
    assert any(f"span {'1' * 16}" in t and "attributes[" in t and "skipped" in t for t in text)
    assert any(t.startswith("note|") and f"span {'2' * 16}" in t and f"parent span {'d' * 16}" in t
               and "not in the export" in t for t in text)
    assert all(str(p) in t for t in text)


def test_a_file_that_is_not_what_it_claims(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"history": [], "question": "q"}))
    items, problems = read_file(p, data_format="otlp")
    assert items == [] and problems[0].level == "error"
    assert "expected an OTLP/JSON export" in problems[0].message and str(p) == problems[0].file
