"""AutoGen 0.4 AgentChat TaskResult.model_dump(): messages of {source, type, content}."""
import json

from app.traces.derive import derive
from app.traces.readers import read_file


def task_result():
    return {"messages": [
        {"id": "m1", "source": "user", "models_usage": None, "metadata": {}, "created_at": "2025-06-01T08:00:00Z",
         "content": "What is the weather in Paris?", "type": "TextMessage"},
        {"id": "m2", "source": "planner", "models_usage": {"prompt_tokens": 30, "completion_tokens": 9},
         "metadata": {}, "created_at": "2025-06-01T08:00:01Z", "target": "weather_agent",
         "content": "Transferred to weather_agent, adopting the role of weather_agent immediately.",
         "context": [], "type": "HandoffMessage"},
        {"id": "m3", "source": "weather_agent", "models_usage": None, "metadata": {},
         "created_at": "2025-06-01T08:00:02Z", "type": "ToolCallRequestEvent",
         "content": [{"id": "call_1", "arguments": '{"city": "Paris"}', "name": "get_weather"}]},
        {"id": "m4", "source": "weather_agent", "models_usage": None, "metadata": {},
         "created_at": "2025-06-01T08:00:03.500000Z", "type": "ToolCallExecutionEvent",
         "content": [{"content": "Sunny, 24C", "name": "get_weather", "call_id": "call_1", "is_error": False}]},
        {"id": "m5", "source": "weather_agent", "models_usage": None, "metadata": {},
         "created_at": "2025-06-01T08:00:04Z", "content": "Sunny, 24C", "type": "ToolCallSummaryMessage"},
        {"id": "m6", "source": "planner", "models_usage": None, "metadata": {}, "created_at": "2025-06-01T08:00:05Z",
         "content": "It is sunny in Paris. TERMINATE", "type": "TextMessage"},
    ], "stop_reason": "Text 'TERMINATE' mentioned"}


def _check(it):
    d = derive(it.data)
    assert it.format == "autogen"
    assert d.agents == ["user", "planner", "weather_agent"]
    assert len(d.steps) == 6
    assert [(h.src, h.dst) for h in d.handoffs] == [("user", "planner"), ("planner", "weather_agent"),
                                                    ("weather_agent", "planner")]
    assert [(t.tool, t.step, t.arguments, t.result) for t in d.tool_calls] == [
        ("get_weather", 2, {"city": "Paris"}, "Sunny, 24C")]
    assert [(c.agent, c.tool, c.end - c.start) for c in d.calls] == [("weather_agent", "get_weather", 1.5)]
    assert it.text == "What is the weather in Paris?"
    assert it.data["steps"][1]["target"] == "weather_agent"


def test_task_result(tmp_path):
    p = tmp_path / "run7.json"
    p.write_text(json.dumps(task_result()))
    items, problems = read_file(p)
    assert problems == [] and [it.id for it in items] == ["run7"]
    assert items[0].data["stop_reason"].startswith("Text")
    _check(items[0])


def test_bare_message_list_is_one_run(tmp_path):
    p = tmp_path / "run8.jsonl"
    p.write_text("\n".join(json.dumps(m) for m in task_result()["messages"]))
    items, problems = read_file(p)
    assert problems == [] and [it.id for it in items] == ["run8"]
    _check(items[0])


def test_result_for_an_unknown_call_is_a_warning(tmp_path):
    r = task_result()
    del r["messages"][2]
    p = tmp_path / "run9.json"
    p.write_text(json.dumps(r))
    items, problems = read_file(p)
    assert len(items) == 1 and [p.level for p in problems] == ["warning"]
    assert "call_1" in problems[0].message and "messages[2]" in problems[0].where
