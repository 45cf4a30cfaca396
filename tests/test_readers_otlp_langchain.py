"""OTLP from LangChain apps: double instrumentation (a ChatOpenAI span around the OpenAI SDK's
ChatCompletion span) is one step, RunnableAssign<...> spans are not agents, and an export split
over several files is one item."""
import json

from app.traces.derive import derive
from app.traces.readers import load_items, read_file
from app.project.config import load_config
from tests.conftest import write_project
from tests.test_readers_otlp import export, span, sv

T = "c" * 32


def kind(k):
    return {"openinference__span__kind": sv(k)}


def spans():
    call = {"llm__output_messages__0__message__tool_calls__0__tool_call__function__name": sv("lookup"),
            "llm__output_messages__0__message__tool_calls__0__tool_call__function__arguments": sv('{"id": 7}')}
    return [
        span("1" * 16, "AgentExecutor", None, 0, 20, T, **kind("AGENT"), input__value=sv("find order 7")),
        span("2" * 16, "RunnableAssign<agent_scratchpad>", "1" * 16, 0.5, 0.6, T, **kind("AGENT")),
        span("3" * 16, "ChatOpenAI", "1" * 16, 1, 4, T, **kind("LLM"),
             llm__input_messages__0__message__role=sv("user"), llm__input_messages__0__message__content=sv("find order 7"),
             **call),
        span("4" * 16, "ChatCompletion", "3" * 16, 1.1, 3.9, T, **kind("LLM"), **call,
             llm__model_name=sv("gpt-4o")),
        span("5" * 16, "lookup", "1" * 16, 5, 6, T, **kind("TOOL"), tool__name=sv("lookup"),
             input__value=sv('{"id": 7}'), output__value=sv("shipped")),
        span("6" * 16, "ChatOpenAI", "1" * 16, 7, 9, T, **kind("LLM"),
             llm__output_messages__0__message__content=sv("Order 7 has shipped.")),
        span("7" * 16, "ChatCompletion", "6" * 16, 7.1, 8.9, T, **kind("LLM"),
             llm__output_messages__0__message__content=sv("Order 7 has shipped.")),
    ]


def test_double_instrumentation_is_one_step_and_runnables_are_not_agents(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps(export(spans())))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == []
    d = derive(items[0].data)
    assert d.agents == ["AgentExecutor"]
    assert [s.id for s in d.steps] == ["3" * 16, "6" * 16]
    assert [(t.tool, t.step) for t in d.tool_calls] == [("lookup", 0)]  # counted once
    assert items[0].data["steps"][0]["model"] == "gpt-4o"  # what the outer span lacks, from the inner one
    kinds = {r["name"]: r["kind"] for r in items[0].data["trace"]["spans"]}
    assert kinds["RunnableAssign<agent_scratchpad>"] == "CHAIN"


def test_export_split_over_files_is_one_item(tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    s = spans()
    (folder / "batch1.json").write_text(json.dumps(export(s[:4])))
    (folder / "batch2.json").write_text(json.dumps(export(s[4:])))
    cfg = write_project(tmp_path, data_files=[str(folder)])
    project, _ = load_config(cfg)
    items, problems = load_items(project)
    assert not [p for p in problems if "duplicate" in p.message]
    assert [it.id for it in items] == [T]
    d = derive(items[0].data)
    assert [s.id for s in d.steps] == ["3" * 16, "6" * 16] and [t.tool for t in d.tool_calls] == ["lookup"]
    assert any("split over 2 files" in p.message and p.level == "note" for p in problems)


def test_convert_joins_a_split_export_too(tmp_path):
    import subprocess
    import sys
    from tests.conftest import ROOT
    s = spans()
    (tmp_path / "b1.json").write_text(json.dumps(export(s[:4])))
    (tmp_path / "b2.json").write_text(json.dumps(export(s[4:])))
    out = tmp_path / "items.jsonl"
    r = subprocess.run([sys.executable, "-m", "app", "convert", str(tmp_path / "b1.json"), str(tmp_path / "b2.json"),
                        "-o", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 1 and len(json.loads(lines[0])["steps"]) == 2
