"""Tests for app.toolcall.extract_tool_calls, one literal trace per shape."""

from app.traces.toolcall import ToolCall, extract_tool_calls


def agent_of(step):
    return f"agent{step}"


def test_potato_tool_calls_with_all_argument_keys():
    steps = [
        {
            "tool_calls": [
                {"name": "search", "args": {"q": "a"}},
                {"name": "fetch", "arguments": {"url": "u"}},
                {"name": "calc", "input": "1+1"},
                {"name": "send", "parameters": {"to": "x"}},
                {"tool": "lookup", "args": ["k"]},
            ]
        }
    ]
    calls = extract_tool_calls(steps, agent_of)
    assert [(c.index, c.step, c.agent, c.tool, c.arguments) for c in calls] == [
        (0, 0, "agent0", "search", {"q": "a"}),
        (1, 0, "agent0", "fetch", {"url": "u"}),
        (2, 0, "agent0", "calc", "1+1"),
        (3, 0, "agent0", "send", {"to": "x"}),
        (4, 0, "agent0", "lookup", ["k"]),
    ]
    # Several calls in one step: a step-level result would be ambiguous.
    assert all(c.result is None for c in calls)


def test_openai_tool_calls_and_tool_messages():
    steps = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "SF"}'}},
                {"id": "c2", "type": "function",
                 "function": {"name": "broken", "arguments": "{not json"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "content": "err"},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "nope", "content": "orphan"},
    ]
    assert extract_tool_calls(steps, agent_of) == [
        ToolCall(0, 1, "agent1", "get_weather", {"city": "SF"}, "c1", "sunny"),
        ToolCall(1, 1, "agent1", "broken", "{not json", "c2", "err"),
    ]


def test_single_tool_call_dict_and_function_call():
    steps = [
        {"tool_call": {"name": "search", "args": {"q": "x"}}, "result": "hits"},
        {"tool_call": {"id": "c9", "type": "function",
                       "function": {"name": "f", "arguments": "[1, 2]"}}},
        {"role": "assistant", "function_call": {"name": "legacy", "arguments": "{}"}},
    ]
    assert extract_tool_calls(steps, agent_of) == [
        ToolCall(0, 0, "agent0", "search", {"q": "x"}, None, "hits"),
        ToolCall(1, 1, "agent1", "f", [1, 2], "c9"),
        ToolCall(2, 2, "agent2", "legacy", {}),
    ]


def test_action_dict_and_strings():
    steps = [
        {"action": {"name": "search", "args": {"q": "x"}}, "observation": "found"},
        {"action": {"tool": "calc", "tool_input": "2*3"}},
        {"action": "search_web('SF weather')", "observation": "sunny"},
        {"action": "finish"},
        {"action": {"type": "final_answer", "text": "done"}},  # no tool name
        {"action": ""},
    ]
    assert extract_tool_calls(steps, agent_of) == [
        ToolCall(0, 0, "agent0", "search", {"q": "x"}, None, "found"),
        ToolCall(1, 1, "agent1", "calc", "2*3"),
        ToolCall(2, 2, "agent2", "search_web", "'SF weather'", None, "sunny"),
        ToolCall(3, 3, "agent3", "finish", None),
    ]


def test_anthropic_tool_use_and_tool_result_blocks():
    steps = [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "tu1", "name": "get_weather", "input": {"city": "SF"}},
                {"type": "tool_use", "id": "tu2", "name": "get_time", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "tu2", "content": "09:00"},
                {"type": "tool_result", "tool_use_id": "tu1",
                 "content": [{"type": "text", "text": "sunny"}]},
            ],
        },
    ]
    assert extract_tool_calls(steps, agent_of) == [
        ToolCall(0, 0, "agent0", "get_weather", {"city": "SF"}, "tu1",
                 [{"type": "text", "text": "sunny"}]),
        ToolCall(1, 0, "agent0", "get_time", {}, "tu2", "09:00"),
    ]


def test_step_that_is_a_tool_call():
    steps = [
        {"tool": "search", "args": {"q": "x"}, "result": "r1"},
        {"tool": "fetch", "arguments": {"url": "u"}, "output": "r2"},
        {"tool": "read", "input": "f.txt", "call_id": 5},
        {"id": "step-3", "tool": "noop"},
    ]
    assert extract_tool_calls(steps, agent_of) == [
        ToolCall(0, 0, "agent0", "search", {"q": "x"}, None, "r1"),
        ToolCall(1, 1, "agent1", "fetch", {"url": "u"}, None, "r2"),
        ToolCall(2, 2, "agent2", "read", "f.txt", "5"),
        ToolCall(3, 3, "agent3", "noop", None),
    ]


def test_index_spans_steps_and_non_dict_steps_are_skipped():
    steps = [
        "narration",
        {"tool_calls": [{"name": "a"}, {"name": "b"}]},
        None,
        {"tool": "c"},
        {"thought": "no call here"},
        {"tool_calls": []},
    ]
    calls = extract_tool_calls(steps, agent_of)
    assert [(c.index, c.step, c.tool) for c in calls] == [(0, 1, "a"), (1, 1, "b"), (2, 3, "c")]


def test_first_matching_shape_wins_within_a_step():
    # One call described twice must not be counted twice.
    steps = [{"tool": "search", "args": {"q": "x"}, "action": "search('x')"}]
    assert [c.tool for c in extract_tool_calls(steps, agent_of)] == ["search"]


def test_result_inside_entry_and_unknown_name():
    steps = [{"tool_calls": [{"name": "a", "result": 1}, {"args": {"x": 1}}]}]
    calls = extract_tool_calls(steps, agent_of)
    assert [(c.tool, c.result) for c in calls] == [("a", 1), ("(unknown)", None)]


def test_duplicate_ids_answered_in_order():
    steps = [
        {"tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{}"}}]},
        {"tool_calls": [{"id": "x", "function": {"name": "g", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "first"},
        {"role": "tool", "tool_call_id": "x", "content": "second"},
    ]
    assert [(c.tool, c.result) for c in extract_tool_calls(steps, agent_of)] == [
        ("f", "first"),
        ("g", "second"),
    ]


def test_agent_of_called_with_step_index():
    seen = []
    extract_tool_calls([{}, {"tool": "t"}], lambda s: seen.append(s) or "x")
    assert seen == [1]
