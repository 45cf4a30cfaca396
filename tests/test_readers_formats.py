"""MAD/MAST records, AgentRx gold, Langfuse exports and chat logs (OpenAI and Anthropic)."""
import json

import pytest

from app.project.config import DATA_FORMATS, load_config
from app.traces.derive import derive
from app.traces.readers import FORMATS, read_file
from app.traces.readers.mast import mode_of
from app.project.workspace import open_project
from tests.conftest import shared_dataset, write_project


def mad():
    return shared_dataset("mast", "mad_human_sample.json")  # copy in tests/data/mast


# --- MAST -----------------------------------------------------------------------------------------

def test_mad_sample_records():
    items, problems = read_file(mad())
    assert problems == [] and [i.format for i in items] == ["mast"] * 4
    raw = json.loads(mad().read_text())
    got = {i.id: (derive(i.data), i) for i in items}
    assert list(got) == ["AG2-GSM-Plus-round1-2", "AG2-GSM-Plus-round2-7", "MetaGPT-ProgramDev-round1-4",
                         "MetaGPT-MMLU-generlazability-16"]
    # AG2: one step per trajectory entry, the agent in `name`
    for (d, it), r in zip(list(got.values())[:2], raw[:2]):
        traj = json.loads(r["trace"])["trajectory"]
        assert [s.agent for s in d.steps] == [e["name"] for e in traj]
        assert d.agents == ["mathproxyagent", "assistant"]
        assert it.text.startswith(json.loads(r["trace"])["problem_statement"][0][:20])
    # MetaGPT logs: one step per line group whose agent is recognised
    d, it = got["MetaGPT-ProgramDev-round1-4"]
    assert [s.agent for s in d.steps] == ["SimpleCoder", "SimpleTester", "SimpleReviewer", "SimpleTester",
                                          "SimpleReviewer"]
    assert [s.raw["name"] for s in d.steps] == ["Alice", "Bob", "Charlie", "Bob", "Charlie"]
    assert "def detect_palindromes" in d.steps[0].text
    d, it = got["MetaGPT-MMLU-generlazability-16"]
    assert d.agents == ["Human", "SimpleCoder", "SimpleTester", "SimpleReviewer"] and len(d.steps) == 6
    assert it.text.startswith("The following are multiple choice questions")
    assert "Communication Log Ended" in it.data["log_other"]


def test_mad_gold_by_majority_and_mapped_by_name():
    items, _ = read_file(mad())
    raw = json.loads(mad().read_text())
    for it, r in zip(items, raw):
        modes = it.gold["failure_modes"]
        assert len(modes) == len(r["annotations"])
        for m, a in zip(modes, r["annotations"]):
            votes = [a["annotator_1"], a["annotator_2"], a["annotator_3"]]
            assert m["votes"] == votes and m["label"] == (sum(votes) >= 2)
        assert it.gold["labels"] == [m["mode"] for m in modes if m["label"]]
        assert "mistake_step" not in it.gold  # labels are per trace
    # the same mode under its round-1 and its final name and code
    assert mode_of("1.5 Unaware of stopping conditions\n\nLack of ...")["mode"] == "Unaware of Termination Conditions"
    assert mode_of("1.5 Unaware of Termination Conditions\n\n...")["mast_code"] == "1.5"
    assert mode_of("3.3 Ignoring suggestions from agents\n\n...")["mode"] == "Ignored Other Agent's Input"
    assert mode_of("2.5 Ignored Other Agents' Input\n\n...")["mode"] == "Ignored Other Agent's Input"
    assert mode_of("4.2 Lack of result verification\n(no explicit ...")["mode"] == "Incorrect Verification"
    assert mode_of("3.4 Waiting for known information\n\n...")["mode"] == "Waiting for known information"
    assert items[0].gold["labels"] == ["Unaware of Termination Conditions", "Ignored Other Agent's Input"]


# --- AgentRx --------------------------------------------------------------------------------------

FAILURES = [{"failure_id": "f1", "step_number": 2, "failure_category": "Plan Adherence Failure",
             "step_reason": "skipped the check", "failed_agent": "Orchestrator"},
            {"failure_id": "f2", "step_number": 3, "failure_category": "Invention of New Information",
             "step_reason": "made up a number"}]


def test_agentrx_failures_on_a_who_and_when_run(tmp_path):
    run = json.loads(shared_dataset("whowhen", "hand-crafted", "33.json").read_text())
    run.pop("mistake_agent")
    run.pop("mistake_step")
    run.update({"failures": FAILURES, "root_cause_failure_id": "f2", "failure_summary": "wrong total",
                "root_cause_reason": "the number was invented"})
    p = tmp_path / "33.json"
    p.write_text(json.dumps(run))
    items, problems = read_file(p)
    assert problems == [] and items[0].format == "agentrx"
    it = items[0]
    steps = derive(it.data).steps
    g = it.gold
    assert [(f["step"], f["root_cause"]) for f in g["failures"]] == [(1, False), (2, True)]
    assert g["failures"][0]["agent"] == "Orchestrator"
    assert g["failures"][1]["agent"] == steps[2].agent  # no failed_agent: the step's agent
    assert (g["mistake_step"], g["mistake_agent"]) == (2, steps[2].agent)
    assert g["mistake_reason"] == "the number was invented" and g["mistake_basis"] == "root cause"
    assert g["failure_summary"] == "wrong total"


def test_agentrx_trajectory_with_its_annotation_in_another_file(tmp_path):
    traj = {"trajectory_id": "tau_retail_7", "instruction": "return the kettle",
            "steps": [{"index": 2, "substeps": [{"sub_index": 1, "role": "assistant", "content": "looking up"}]},
                      {"index": 1, "substeps": [{"sub_index": 1, "role": "user", "content": "hi"}]},
                      {"index": 3, "substeps": [{"sub_index": 1, "role": "tool", "content": "{}"},
                                                {"sub_index": 2, "role": "assistant", "content": "done"}]}]}
    ann = {"trajectory_id": "7", "failure_summary": "s", "root_cause": {"failure_id": "2"},
           "failures": [{"failure_id": "1", "step_number": 2, "failure_category": "A"},
                        {"failure_id": "2", "step_number": 3, "failure_category": "B", "failed_agent": "assistant"}]}
    (tmp_path / "runs.jsonl").write_text(json.dumps(traj) + "\n")
    (tmp_path / "labels.jsonl").write_text(json.dumps(ann) + "\n" + json.dumps(dict(ann, trajectory_id="99")) + "\n")
    cfg = write_project(tmp_path, data_files=[str(tmp_path / "runs.jsonl"), str(tmp_path / "labels.jsonl")])
    ws = open_project(cfg)
    it = ws.by_id["tau_retail_7"]
    d = derive(it.data)
    assert [s.raw["index"] for s in d.steps] == [1, 2, 3] and d.agents == ["user", "assistant", "tool"]
    assert d.steps[2].text == "tool: {}\n\nassistant: done"
    assert [(f["step"], f["root_cause"]) for f in it.gold["failures"]] == [(1, False), (2, True)]
    assert it.gold["mistake_step"] == 2 and it.gold["mistake_agent"] == "assistant"
    unmatched = [p for p in ws.problems if "'99'" in p.message]
    assert unmatched and unmatched[0].level == "warning" and "no run with that id" in unmatched[0].message


@pytest.mark.parametrize("bad", [7, "hi", {"role": "user", "content": "hi"}])
def test_agentrx_substeps_that_are_not_a_list(tmp_path, bad):
    # a number as a step's substeps skipped the whole trajectory with Python's own "'int' object is
    # not iterable" (found by fuzzing): now the step is read empty and named
    traj = {"trajectory_id": "t7", "steps": [{"index": 1, "substeps": [{"role": "user", "content": "hi"}]},
                                             {"index": 2, "substeps": bad}]}
    p = tmp_path / "runs.jsonl"
    p.write_text(json.dumps(traj) + "\n")
    items, problems = read_file(p)
    assert [i.id for i in items] == ["t7"] and [s["content"] for s in items[0].data["steps"]] == ["hi", ""]
    assert [(x.level, x.file, x.where, x.message) for x in problems] == [
        ("warning", str(p), "line 1, run t7, steps[1]", "substeps: expected a list of substeps "
         f"({{role, content}}), got {type(bad).__name__}; read as an empty step")]


@pytest.mark.parametrize("bad", [{"n": 1}, [1], "1"])
def test_agentrx_step_index_that_is_not_a_number(tmp_path, bad):
    # an object or a list as a step's index raised "TypeError: unhashable type" while placing the
    # failures (found by fuzzing), also for an annotation joined to a Potato run with such a step
    traj = {"trajectory_id": "t7", "steps": [{"index": bad, "substeps": [{"role": "user", "content": "hi"}]},
                                             {"index": 2, "substeps": [{"role": "assistant", "content": "ok"}]}],
            "failures": [{"failure_id": "1", "step_number": 2, "failure_category": "A"}]}
    p = tmp_path / "runs.jsonl"
    p.write_text(json.dumps(traj) + "\n")
    items, problems = read_file(p)
    assert [s["content"] for s in items[0].data["steps"]] == ["ok", "hi"]  # numbered steps first
    assert [f["step"] for f in items[0].gold["failures"]] == [0]
    assert [(x.level, x.where, x.message) for x in problems] == [
        ("warning", "line 1, run t7, steps[0]",
         f"index: expected a whole number, got {type(bad).__name__}; placed after the numbered steps")]
    run = {"id": "r1", "text": "t", "steps": [{"agent": "a", "content": "x", "index": bad},
                                              {"agent": "b", "content": "y"}]}
    ann = {"trajectory_id": "r1", "failures": [{"failure_id": "1", "step_number": 2}]}
    p2 = tmp_path / "both.jsonl"
    p2.write_text(json.dumps(run) + "\n" + json.dumps(ann) + "\n")
    items, problems = read_file(p2)
    assert problems == [] and [f["step"] for f in items[0].gold["failures"]] == [1]  # by position


# --- Langfuse -------------------------------------------------------------------------------------

def obs(oid, type_, name, parent=None, start=0, end=1, **kw):
    return {"id": oid, "traceId": "t1", "type": type_, "name": name, "parentObservationId": parent,
            "startTime": f"2025-01-01T00:00:{start:02d}Z", "endTime": f"2025-01-01T00:00:{end:02d}Z", **kw}


LANGFUSE = {"id": "t1", "name": "support", "input": "refund order 5", "observations": [
    obs("a", "AGENT", "triage", None, 0, 30),
    obs("g1", "GENERATION", "llm", "a", 1, 2, input=[{"role": "system", "content": "be triage"},
                                                     {"role": "user", "content": "refund order 5"}],
        output={"role": "assistant", "content": "handing to billing"}),
    obs("b", "AGENT", "billing", "a", 3, 20),
    obs("g2", "GENERATION", "llm", "b", 4, 5, input="refund order 5", output="calling refund"),
    obs("t", "TOOL", "refund_api", "b", 6, 9, input={"order": 5}, output={"ok": True}, level="ERROR",
        statusMessage="timeout", metadata={"resource": "payments-db"}),
    obs("g3", "GENERATION", "llm", "a", 21, 22, input=[{"role": "user", "content": "done?"}], output="yes"),
]}


def test_langfuse_trace_export(tmp_path):
    p = tmp_path / "lf.json"
    p.write_text(json.dumps(LANGFUSE))
    items, problems = read_file(p)
    assert problems == [] and items[0].format == "langfuse" and items[0].id == "t1"
    it = items[0]
    d = derive(it.data)
    assert d.agents == ["triage", "billing"] and [(h.src, h.dst) for h in d.handoffs] == [
        ("triage", "billing"), ("billing", "triage")]
    assert [(t.step, t.tool, t.arguments, t.result) for t in d.tool_calls] == [(1, "refund_api", {"order": 5},
                                                                                 {"ok": True})]
    assert [(c.agent, c.resource, c.end - c.start) for c in d.calls] == [("billing", "payments-db", 3.0)]
    assert it.data["steps"][1]["tool_calls"][0]["error"] == "timeout"
    assert it.text == "refund order 5" and it.data["steps"][0]["input"][0]["role"] == "system"


def test_langfuse_bare_observations_grouped_by_trace_and_missing_parent(tmp_path):
    rows = [dict(o) for o in LANGFUSE["observations"]]
    rows[3]["parentObservationId"] = "gone"
    rows.append(dict(obs("x", "GENERATION", "llm", None, 1, 2, output="other"), traceId="t2"))
    p = tmp_path / "obs.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows))
    items, problems = read_file(p)
    assert [i.id for i in items] == ["t1", "t2"]
    # g2 lost its parent: read at the top, so it is the root agent's; billing's tool call, with no
    # billing step before it, becomes a step of its own
    steps = items[0].data["steps"]
    assert [(s["id"], s["agent"]) for s in steps] == [("g1", "triage"), ("g2", "triage"), ("t", "billing"),
                                                      ("g3", "triage")]
    assert any(x.level == "note" and "observation g2" in x.where and "parent span gone" in x.message
               for x in problems)


def test_langfuse_parent_observation_id_that_is_not_an_id(tmp_path):
    # an object or a list as parentObservationId used to raise "TypeError: unhashable type"
    rows = [dict(o) for o in LANGFUSE["observations"]]
    rows[3]["parentObservationId"] = ["b"]
    p = tmp_path / "lf.json"
    p.write_text(json.dumps({**LANGFUSE, "observations": rows}))
    items, problems = read_file(p)
    assert [(x.level, x.where, x.message) for x in problems] == [
        ("warning", "trace t1, observation g2 (llm)",
         "parentObservationId: expected an id (text or a number), got list; read as a top-level span")]
    assert [(s["id"], s["agent"]) for s in items[0].data["steps"]] == [("g1", "triage"), ("g2", "triage"),
                                                                       ("t", "billing"), ("g3", "triage")]


@pytest.mark.parametrize("tid, got", [("", "an empty text"), (None, "null"), ({"id": "t1"}, "dict")])
def test_langfuse_bare_observation_without_a_usable_trace_id(tmp_path, tid, got):
    # traceId "" used to give an item with an empty id (found by fuzzing); null gave the id "None"
    rows = [dict(o) for o in LANGFUSE["observations"]]
    rows[1]["traceId"] = tid
    p = tmp_path / "obs.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows))
    items, problems = read_file(p)
    assert [i.id for i in items] == ["t1", "obs"]
    assert [s["id"] for s in items[1].data["steps"]] == ["g1"]
    assert [(x.level, x.file, x.where, x.message) for x in problems if x.level != "note"] == [
        ("warning", str(p), "line 2", f"traceId: expected an id (text or a number), got {got}; "
                                      "read as part of trace obs")]


# --- chat logs ------------------------------------------------------------------------------------

def test_openai_messages_with_names_and_tool_calls(tmp_path):
    rec = {"id": "c1", "messages": [
        {"role": "system", "content": "You are a team."},
        {"role": "user", "content": "Book a trip"},
        {"role": "assistant", "name": "planner", "content": "Flights first."},
        {"role": "assistant", "name": "flights", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": "{\"to\": \"SF\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "3 flights"},
        {"role": "assistant", "name": "planner", "content": "Done."}]}
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps(rec) + "\n")
    it = read_file(p)[0][0]
    d = derive(it.data)
    assert it.format == "chat" and it.data["system"] == "You are a team." and it.text == "Book a trip"
    assert [s.agent for s in d.steps] == ["user", "planner", "flights", "flights", "planner"]
    assert [(t.step, t.agent, t.tool, t.arguments, t.result) for t in d.tool_calls] == [
        (2, "flights", "search", {"to": "SF"}, "3 flights")]


def test_anthropic_messages_and_a_file_of_bare_messages(tmp_path):
    msgs = [{"role": "user", "content": "weather in Paris?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                              {"type": "tool_use", "id": "tu1", "name": "weather",
                                               "input": {"city": "Paris"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "18C"}]},
            {"role": "assistant", "content": "18C and sunny."}]
    p = tmp_path / "a.json"
    p.write_text(json.dumps({"system": "Be brief.", "messages": msgs}))
    it = read_file(p)[0][0]
    d = derive(it.data)
    assert it.id == "a" and it.data["system"] == "Be brief."
    assert [s.agent for s in d.steps] == ["user", "assistant", "assistant", "assistant"]
    assert [(t.tool, t.arguments, t.result) for t in d.tool_calls] == [("weather", {"city": "Paris"}, "18C")]
    p2 = tmp_path / "bare.json"
    p2.write_text(json.dumps(msgs))
    items, problems = read_file(p2)
    assert problems == [] and [i.id for i in items] == ["bare"] and len(items[0].data["steps"]) == 4


@pytest.mark.parametrize("bad", [7, 1.5, True, "search", {"id": "call_1"}])
def test_chat_tool_calls_that_are_not_a_list(tmp_path, bad):
    # a number or true as a message's tool_calls used to raise "TypeError: 'int' object is not
    # iterable" (found by fuzzing); text or an object was silently read as no calls
    rec = {"id": "c1", "messages": [{"role": "user", "content": "Book a trip"},
                                    {"role": "assistant", "content": "ok", "tool_calls": bad}]}
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps({"id": "c0", "messages": [{"role": "user", "content": "hi"}]}) + "\n" + json.dumps(rec))
    items, problems = read_file(p)
    assert [i.id for i in items] == ["c0", "c1"] and len(items[1].data["steps"]) == 2
    assert [(x.level, x.file, x.where, x.message) for x in problems] == [
        ("warning", str(p), "line 2, messages[1]", f"tool_calls: expected a list of tool calls, "
                                                   f"got {type(bad).__name__}; ignored")]
    # a file that is a list of bare messages: the message's own line is named
    p2 = tmp_path / "bare.jsonl"
    p2.write_text("\n".join(json.dumps(m) for m in rec["messages"]))
    items, problems = read_file(p2)
    assert [i.id for i in items] == ["bare"]
    assert [(x.where, x.message.split(":")[0]) for x in problems] == [("line 2", "tool_calls")]


# --- data_format ----------------------------------------------------------------------------------

def test_every_reader_can_be_named_in_data_files(tmp_path):
    assert DATA_FORMATS == ("auto", *FORMATS)
    cfg = write_project(tmp_path, data_files=[{"path": str(mad()), "data_format": "mast"}])
    ws = open_project(cfg)
    assert len(ws.items) == 4 and not [p for p in ws.problems if p.level in ("error", "warning")]
    bad = write_project(tmp_path, data_files=[{"path": str(mad()), "data_format": "jaeger"}])
    project, problems = load_config(bad)
    msg = next(p for p in problems if p.where == "data_files[0].data_format").message
    assert "trail" in msg and "otlp" in msg and "jaeger" in msg


@pytest.mark.parametrize("fmt", ["trail", "whowhen", "mast", "chat"])
def test_a_file_named_as_the_wrong_format_says_what_it_is(tmp_path, fmt):
    src = shared_dataset("otel", "rag_earnings_agent.json")
    items, problems = read_file(src, data_format=fmt)
    assert items == [] and problems and problems[0].file == str(src)
    assert problems[0].level == "error" and "skipped" in problems[0].message
    assert "expected" in problems[0].message and "it looks like otlp" in problems[0].message
