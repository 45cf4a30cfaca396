"""Trace cards (app/traces/step_cards.py): a tool result marked as such, a failed call's error on
its card (TRAIL), Markdown structure as blocks without markup, long texts folded to a few lines."""
from __future__ import annotations

from app.project.workspace import open_project
from app.traces import conversation, step_cards
from app.traces.derive import derive
from app.traces.step_cards import FOLD_LINES, markdown_blocks, plain, text_blocks
from tests.conftest import ROOT, call_cards, make_app, open_page, write_project

TRAIL = "512475a321c616e45337da3575f6a185"


def test_fences_become_code_blocks_and_everything_stays_text():
    text = "Plan:\n- step one\n- step two\n```python\nprint('<img src=x onerror=alert(1)>')\n```\nSee [x](http://e.x) ![i](http://e.x/i.png)"
    assert markdown_blocks(text) == [
        {"k": "text", "t": "Plan:\n- step one\n- step two"},
        {"k": "code", "t": "print('<img src=x onerror=alert(1)>')"},
        {"k": "text", "t": "See [x](http://e.x) ![i](http://e.x/i.png)"}]  # links and images as text
    assert markdown_blocks("no fence\n") == [{"k": "text", "t": "no fence\n"}]
    assert markdown_blocks("```\nunclosed") == [{"k": "text", "t": "```\nunclosed"}]



def test_a_fence_closed_by_smolagents_end_code_is_a_code_block_and_the_marker_stays():
    """Every code step of a TRAIL (smolagents) run ends "```<end_code>": closed there, not left raw."""
    text = "Code:\n```py\nx = 1\n```<end_code>\nObservation: 1"
    assert markdown_blocks(text) == [{"k": "text", "t": "Code:"}, {"k": "code", "t": "x = 1"},
                                     {"k": "text", "t": "<end_code>"}, {"k": "text", "t": "Observation: 1"}]
    # a line with more backticks opens no fence (CommonMark): TRAIL's system prompt's rule 1
    prose = "1. Always provide a 'Code:\n```py' sequence ending with '```<end_code>' sequence"
    assert markdown_blocks(prose) == [{"k": "text", "t": prose}]


def test_the_trail_inputs_fences_are_code_blocks_in_the_fold_and_in_the_full_input(tmp_path):
    ws = open_project(write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")]))
    d = derive(ws.by_id[TRAIL].data)
    step3 = step_cards.cards(d, conversation.build(d.steps), 3, 4)[0]
    (fold,) = [b for b in step3["blocks"] if b["k"] == "more" and b["t"].startswith("Input")]
    (full,) = [b for b in fold["b"] if b["k"] == "more" and b["t"].startswith("Full input")]
    codes = [b["t"] for b in full["b"] if b["k"] == "code"]
    assert len(codes) >= 12 and 'final_answer("diminished")' in codes  # the system prompt's examples, as code
    assert not [b for b in full["b"] if b["k"] == "text" and b["t"].startswith("```")]


def test_a_long_text_is_folded_to_its_first_lines():
    text = "\n".join(f"line {i}" for i in range(40))
    blocks = text_blocks(text, "Full text")
    assert blocks[0]["t"].count("\n") < FOLD_LINES and blocks[0]["t"].endswith("…")
    assert blocks[1]["k"] == "more" and blocks[1]["b"][0]["t"] == text


def test_a_tool_result_is_marked_as_one_not_the_agent_speaking():
    data = {"id": "r", "steps": [
        {"agent": "Planner", "content": "searching",
         "tool_calls": [{"id": "c1", "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}]},
        {"agent": "Planner", "role": "tool", "tool_call_id": "c1", "content": "{\"hits\": 3}"}]}
    d = derive(data)
    cards = step_cards.cards(d, conversation.build(d.steps), 0, len(d.steps))
    result = cards[1]
    assert result["title"][0] == "Step 1 · tool result to "
    assert result["blocks"][0] == {"k": "note", "t": "Tool result · for call c1"}
    assert {"k": "code", "t": "{\n  \"hits\": 3\n}"} in result["blocks"]  # data, pretty-printed
    assert d.tool_calls[0].result is not None


def test_a_failed_trail_call_shows_its_error_on_its_review_card(tmp_path):
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    at = open_page(make_app(cfg, item=TRAIL), "tool_call_review")
    cards = call_cards(at)
    first = cards[0]
    lines = plain(first)
    assert "Failed with an error" in lines
    assert any("FileConversionException" in line for line in lines)
    assert first["title"][-1].endswith(" · failed")
    assert not any("FileConversionException" in line for c in cards[2:] for line in plain(c))  # the calls that worked
