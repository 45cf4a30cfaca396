"""The prefix-tree view of conversations (app/conversation.py), on literal steps."""
from app.traces.conversation import build
from app.traces.trace import read_steps


def M(role, content):
    return {"role": role, "content": content}


SYS_A, SYS_B = M("system", "you are A"), M("system", "you are B")
LONG = "x" * 300


def view(steps):
    return build(read_steps({"steps": steps}))


def test_each_agent_conversation_shown_once():
    steps = [
        {"agent": "A", "input": [SYS_A, M("user", "task")], "content": "plan"},
        {"agent": "A", "input": [SYS_A, M("user", "task"), M("assistant", "plan"), M("tool", "obs 1")],
         "content": "next"},
        {"agent": "B", "input": [SYS_B, M("user", "sub task")], "content": "found"},
        {"agent": "A", "input": [SYS_A, M("user", "task"), M("assistant", "plan"), M("tool", "obs 1"),
                                 M("assistant", "next"), M("tool", "found")], "content": "done"},
    ]
    v = view(steps)
    assert [(s.thread, s.new_thread, s.known, s.new) for s in v.steps] == [
        (0, True, 0, [0, 1]), (0, False, 2, [3]), (1, True, 0, [0, 1]), (0, False, 4, [])]
    # the agent's own earlier outputs, and B's output, are references, not repeats
    assert {p: (e.step, e.pos) for p, e in v.steps[1].echoes.items()} == {2: (0, None)}
    assert {p: (e.step, e.pos) for p, e in v.steps[3].echoes.items()} == {4: (1, None), 5: (2, None)}
    assert [(t.agent, t.steps) for t in v.threads] == [("A", [0, 1, 3]), ("B", [2])]
    raw = sum(len(m["content"]) for s in steps for m in s["input"]) + sum(len(s["content"]) for s in steps)
    shown = (len("you are A") + len("task") + 4) + (len("obs 1") + 4) + (len("you are B") + len("sub task") + 5) + 4
    assert (v.raw_chars, v.shown_chars) == (raw, shown)
    assert 0 < v.saved < 1


def test_a_new_system_prompt_or_agent_starts_a_thread():
    steps = [{"agent": "A", "input": [SYS_A, M("user", "t")], "content": "1"},
             {"agent": "A", "input": [SYS_B, M("user", "t")], "content": "2"},
             {"agent": "B", "input": [SYS_A, M("user", "t")], "content": "3"}]
    v = view(steps)
    assert [s.thread for s in v.steps] == [0, 1, 2] and all(s.new_thread for s in v.steps)
    # B's identical messages were already shown (by A): references, not a second copy
    assert set(v.steps[2].echoes) == {0, 1} and v.steps[2].new == []


def test_a_rewritten_conversation_branches():
    steps = [{"agent": "A", "input": [SYS_A, M("user", "t"), M("assistant", "a1"), M("tool", "o1")], "content": "a2"},
             {"agent": "A", "input": [SYS_A, M("user", "t"), M("tool", "summary")], "content": "a3"}]
    v = view(steps)
    assert v.steps[1].known == 2 and v.steps[1].branch_of == 0 and v.steps[1].new == [2]


def test_a_long_message_holding_an_earlier_output_is_folded():
    steps = [{"agent": "A", "input": [SYS_A], "content": LONG},
             {"agent": "A", "input": [M("user", "Facts:\n" + LONG + "\nGo.")], "content": "ok"}]
    v = view(steps)
    e = v.steps[1].echoes[0]
    assert e.partial and e.step == 0 and (e.start, e.end) == (7, 307)
    assert v.steps[1].new == [0] and v.steps[1].shown_chars == len("Facts:\n\nGo.") + 2


def test_steps_without_input_count_as_shown():
    v = view([{"agent": "A", "content": "hello"}, {"agent": "B", "content": "hi"}, "plain"])
    assert not v.has_inputs and v.raw_chars == v.shown_chars == 12 and v.saved == 0
    assert [s.has_input for s in v.steps] == [False, False, False]
