"""The orchestration core (issue 29): the suggested pattern on runs whose pattern is known, and the
lanes, tree and board builders on literal traces and on real Who&When and TRAIL runs."""
from __future__ import annotations

from functools import lru_cache

import pytest

from app.project.workspace import open_project
from app.traces import layouts
from app.traces import orchestration as o
from app.traces.derive import derive
from app.traces.readers import read_path
from tests.conftest import ROOT, shared_dataset

TRAIL = "512475a321c616e45337da3575f6a185"


@lru_cache(maxsize=None)
def demo():
    return open_project(ROOT / "configs" / "demo.yaml")


def run(*agents, **extra) -> dict:
    """A literal flat run: one step per agent named, its text 'i: agent'."""
    return {"id": "x", "steps": [{"agent": a, "content": f"{i}: {a}"} for i, a in enumerate(agents)], **extra}


def suggested(data: dict) -> o.Suggestion:
    return o.suggest(data, derive(data))


# --- the suggestion on runs whose pattern is known --------------------------------------------

@pytest.mark.parametrize("item_id, pattern", [
    # the demo's planner hands to four workers and takes each result back (designed as a hub)
    ("trip-planner-001", o.HUB),
    # a manager delegating to coder, tester, reviewer, who report back
    ("code-team-002", o.HIERARCHICAL),
    # Who&When's algorithm-generated runs are AG2 group chats (CaptainAgent teams)
    ("whowhen-algorithm-generated-1", o.GROUP_CHAT),
    ("whowhen-algorithm-generated-45", o.GROUP_CHAT),
    # Who&When's hand-crafted runs are Magentic-One: an Orchestrator directing its WebSurfer
    ("whowhen-hand-crafted-5", o.HIERARCHICAL),
    ("whowhen-hand-crafted-33", o.HIERARCHICAL),
    # TRAIL GAIA: a smolagents manager running its managed search_agent inside its own span
    (TRAIL, o.HIERARCHICAL),
])
def test_the_suggestion_on_the_demos_real_runs(item_id, pattern):
    it = demo().by_id[item_id]
    found = o.suggest(it.data, derive(it.data))
    assert found.pattern == pattern, found.reason
    assert found.reason.endswith(f": {pattern}") and "\n" not in found.reason


def test_the_reason_says_what_in_the_structure_decided():
    it = demo().by_id["trip-planner-001"]
    assert o.suggest(it.data, derive(it.data)).reason == "Planner hands to 4 workers and each hands back: hub_and_spoke"
    it = demo().by_id[TRAIL]
    assert "nested 2 deep" in o.suggest(it.data, derive(it.data)).reason


def test_the_suggestion_on_mast_runs_of_known_systems():
    """MAD (MAST): MetaGPT's SOP is a pipeline of coder, tester, reviewer; AG2's MathChat is one
    assistant with the user proxy that runs its code."""
    items, _ = read_path(shared_dataset("mast", "mad_human_sample.json"))[:2]
    by_system = {}
    for it in items:
        by_system.setdefault(it.id.split("-")[0], set()).add(o.suggest(it.data, derive(it.data)).pattern)
    assert by_system["MetaGPT"] == {o.SEQUENTIAL}
    assert by_system["AG2"] == {o.SINGLE}


@pytest.mark.parametrize("data, pattern", [
    (run("Solo", "Solo", "Solo"), o.SINGLE),
    (run("human", "Solo", "Solo"), o.SINGLE),  # the person asking is not a team member
    (run("assistant", "user_proxy", "assistant", "user_proxy"), o.SINGLE),
    (run("Researcher", "Writer", "Editor", "Publisher"), o.SEQUENTIAL),
    (run("Coder", "Tester", "Reviewer", "Tester", "Reviewer"), o.SEQUENTIAL),
    (run("Pro", "Con", "Pro", "Con", "Pro", "Con"), o.DEBATE),
    (run("Pro", "Con", "Pro", "Con", "Judge"), o.DEBATE),
    (run("Hub", "A", "Hub", "B", "Hub", "C", "Hub"), o.HUB),
    (run("Boss", "Worker", "Worker", "Boss", "Boss", "Worker", "Boss"), o.HIERARCHICAL),
    (run("Boss", "Lead", "Dev", "Lead", "Boss", "QA", "Boss"), o.HIERARCHICAL),
    (run("A", "B", "C", "B", "A", "C", "D", "B", "C"), o.GROUP_CHAT),
    (run("A", "B", blackboard=[{"agent": "A", "content": "x", "read_by": ["B"]}]), o.BLACKBOARD),
])
def test_the_suggestion_on_literal_runs(data, pattern):
    found = suggested(data)
    assert found.pattern == pattern, found.reason


def test_nested_agent_spans_suggest_a_hierarchy_or_a_hub():
    def spans(pairs):
        return {"steps": [{"agent": "m", "content": "go"}],
                "trace": {"agents": [{"span": str(i), "agent": a, "parent_agent": p} for i, (a, p) in enumerate(pairs)]}}
    assert suggested(spans([("m", None), ("w1", "m")])).pattern == o.HIERARCHICAL
    assert suggested(spans([("m", None), ("w1", "m"), ("w2", "m"), ("w3", "m")])).pattern == o.HUB
    deep = suggested(spans([("m", None), ("lead", "m"), ("w", "lead"), ("x", "m"), ("y", "m")]))
    assert deep.pattern == o.HIERARCHICAL and "3 deep" in deep.reason


def test_every_pattern_has_a_layout():
    assert set(o.LAYOUT_OF) == set(o.PATTERNS) and set(o.LAYOUT_OF.values()) <= set(o.LAYOUTS)
    assert (o.layout_of(o.SEQUENTIAL), o.layout_of(o.HIERARCHICAL), o.layout_of(o.GROUP_CHAT)) == \
        (o.LANES, o.TREE, o.BOARD)
    assert o.layout_of(o.DEBATE) == o.BOARD and o.layout_of(o.HUB) == o.TREE
    assert o.layout_of(None) == o.layout_of("not a pattern") == o.STEPS


# --- lanes ------------------------------------------------------------------------------------

def test_lanes_of_a_literal_run():
    d = derive(run("A", "A", "B", "C", "A"))
    built = layouts.lanes(d)
    assert built.agents == ["A", "B", "C"] and built.steps_per_lane == [3, 1, 1] and built.handoffs == 3
    assert [(r.step, r.lane, r.handoff_from) for r in built.rows] == [(0, 0, None), (1, 0, None), (2, 1, 0),
                                                                     (3, 2, 1), (4, 0, 2)]
    assert built.rows[2].excerpt == "2: B"


def test_lanes_of_real_runs_keep_every_step_in_order():
    for item_id in ("whowhen-hand-crafted-5", "whowhen-algorithm-generated-1", TRAIL):
        d = derive(demo().by_id[item_id].data)
        built = layouts.lanes(d)
        assert [r.step for r in built.rows] == list(range(len(d.steps)))
        assert [built.agents[r.lane] for r in built.rows] == [s.agent for s in d.steps]
        assert sum(r.handoff_from is not None for r in built.rows) == len(d.handoffs)
        assert sum(r.tool_calls for r in built.rows) == len(d.tool_calls)


# --- tree -------------------------------------------------------------------------------------

def shape(roots) -> list[tuple[int, str, str]]:
    return [(r.depth, r.node.kind, r.node.name) for r in layouts.rows(roots)]


def test_the_handoff_tree_nests_workers_under_who_handed_to_them():
    """A hands to B, B to C, C back to A (closing B and C), A to D, D back to A."""
    data = run("A", "B", "C", "A", "D", "A")
    assert shape(layouts.tree(data, derive(data))) == [
        (0, "agent", "A"), (1, "step", "Step 0"), (1, "agent", "B"), (2, "step", "Step 1"), (2, "agent", "C"),
        (3, "step", "Step 2"), (1, "step", "Step 3"), (1, "agent", "D"), (2, "step", "Step 4"), (1, "step", "Step 5")]
    root = layouts.tree(data, derive(data))[0]
    assert root.excerpt == "3 step(s), hands to B, D"


def test_the_handoff_tree_of_the_trip_planner_is_a_hub_with_four_spokes():
    it = demo().by_id["trip-planner-001"]
    roots = layouts.tree(it.data, derive(it.data))
    assert len(roots) == 1 and roots[0].agent == "Planner"
    assert [c.agent for c in roots[0].children if c.kind == "agent"] == ["FlightAgent", "HotelAgent", "FoodAgent", "Critic"]
    assert layouts.depth(roots) == 3  # Planner > worker > its steps


def test_the_span_tree_of_trail_holds_nested_agents_their_llm_and_tool_spans():
    it = demo().by_id[TRAIL]
    d = derive(it.data)
    roots = layouts.tree(it.data, d)
    rows = layouts.rows(roots)
    assert len(rows) == len(it.data["trace"]["spans"])  # every span, once
    agents = [r for r in rows if r.node.kind == "AGENT"]
    assert [(r.node.agent, r.depth) for r in agents] == [("manager", 2), ("search_agent", 4)]
    inner = agents[1]
    assert inner.path[-1].startswith("manager")  # nested under one of the manager's spans
    llm = [r.node for r in rows if r.node.kind == "LLM"]
    assert sorted(n.step for n in llm) == list(range(len(d.steps)))  # each LLM span is its step
    assert all(n.duration is not None and n.duration > 0 for n in llm)
    tools = [r.node for r in rows if r.node.kind == "TOOL"]
    assert tools and all(n.excerpt for n in tools)
    assert any("failed" in n.excerpt or n.status == "error" for n in tools)
    # the compact conversation: a later call of an agent shows only what is new since its last call
    later = next(n for n in llm if n.conversation and "not repeated" in n.conversation[0])
    assert later.agent in ("manager", "search_agent")
    assert agents[0].node.excerpt.startswith("You have one question to answer")


def test_the_compact_conversation_shows_only_new_messages():
    sys_msg, q = {"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}
    data = {"steps": [
        {"agent": "A", "content": "hello", "input": [sys_msg, q]},
        {"agent": "A", "content": "bye", "input": [sys_msg, q, {"role": "assistant", "content": "hello"},
                                                    {"role": "user", "content": "go on"}]}]}
    d = derive(data)
    first, second = [r.node for r in layouts.rows(layouts.tree(data, d)) if r.node.kind == "step"]
    assert first.conversation == ["new conversation of A", "system: be brief", "user: hi"]
    assert second.conversation == ["2 earlier message(s) of A's conversation not repeated", "user: go on",
                                   "1 message(s) repeat earlier steps"]


# --- board ------------------------------------------------------------------------------------

def test_the_board_of_a_literal_group_chat():
    data = run("A", "B", "A", "C")
    data["steps"][2]["reply_to"] = 1
    data["steps"][3]["in_reply_to"] = "0"  # a step id
    built = layouts.board(data, derive(data))
    assert [(m.step, m.speaker, m.reply_to) for m in built.messages] == [(0, "A", None), (1, "B", None),
                                                                         (2, "A", 1), (3, "C", 0)]
    assert built.spoke == [("A", 2), ("B", 1), ("C", 1)] and built.entries == []


def test_a_reply_to_a_later_step_or_an_unknown_one_is_not_a_reply():
    data = run("A", "B")
    data["steps"][0]["reply_to"] = 1
    data["steps"][1]["reply_to"] = "nope"
    assert [m.reply_to for m in layouts.board(data, derive(data)).messages] == [None, None]


def test_the_blackboard_entries_with_writers_and_readers():
    data = run("A", "B", blackboard=[{"agent": "A", "content": "plan v1", "read_by": ["B", "C"], "key": "plan"},
                                     {"author": "B", "text": "done"}, "not an entry"])
    built = layouts.board(data, derive(data))
    assert [(e.writer, e.excerpt, e.readers, e.resource) for e in built.entries] == [
        ("A", "plan v1", ["B", "C"], "plan"), ("B", "done", [], "")]


def test_shared_resources_of_timed_calls_as_entries():
    it = demo().by_id["trip-planner-001"]
    built = layouts.board(it.data, derive(it.data))
    doc = next(e for e in built.entries if e.resource == "shared_doc")
    assert doc.writer == "Planner" and doc.readers == ["Critic"]
    assert len(built.messages) == 14 and dict(built.spoke)["Planner"] == 6


def test_the_board_of_a_real_group_chat():
    it = demo().by_id["whowhen-algorithm-generated-1"]
    d = derive(it.data)
    built = layouts.board(it.data, d)
    assert [m.speaker for m in built.messages] == [s.agent for s in d.steps]
    assert sum(n for _, n in built.spoke) == len(d.steps)
    assert all(len(m.excerpt) <= layouts.EXCERPT for m in built.messages)
