"""The trace view's step cards as data (app/step_cards.py): what each card holds, folded."""
from app.traces import conversation, step_cards
from app.traces.derive import derive


def _cards(data, start=0, stop=10):
    d = derive(data)
    return step_cards.cards(d, conversation.build(d.steps), start, stop)


def test_text_tool_call_and_failed_call():
    data = {"id": "r", "steps": [
        {"agent": "A", "content": "look it up", "tool_calls": [
            {"id": "c1", "type": "function", "status": "error", "error": "timeout",
             "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}]},
        {"agent": "B", "content": ""}]}
    a, b = _cards(data)
    assert (a["step"], a["title"]) == (0, ["Step 0 · ", {"agent": "A"}])
    assert a["blocks"][0] == {"k": "text", "t": "look it up"}
    assert a["blocks"][1] == {"k": "note", "t": "Tool call 0: search · failed: timeout"}
    assert a["blocks"][2]["k"] == "code" and "\"q\"" in a["blocks"][2]["t"]
    assert b["blocks"] == [{"k": "note", "t": "(no text)"}]


def test_only_the_page_asked_for():
    data = {"id": "r", "steps": [{"agent": "AB"[i % 2], "content": f"s{i}"} for i in range(25)]}
    page = _cards(data, 10, 20)
    assert [c["step"] for c in page] == list(range(10, 20))
    assert step_cards.plain(page[0]) == ["Step 10 · A", "s10"]


def test_long_text_folded_and_huge_text_cut():
    long = "word " * 200  # 1,000 characters
    huge = "x" * (step_cards.SHOW_AT_MOST + 5)
    (a, b) = _cards({"id": "r", "steps": [{"agent": "A", "content": long}, {"agent": "A", "content": huge}]})
    excerpt, more = a["blocks"]
    # (the trace column folds a step's text to a few lines: OUTPUT_*)
    assert excerpt["k"] == "text" and len(excerpt["t"]) <= step_cards.OUTPUT_EXCERPT + 2 and excerpt["t"].endswith(" …")
    assert more["k"] == "more" and more["t"] == "Full text (1,000 characters)"
    assert more["b"] == [{"k": "text", "t": long}]
    full = b["blocks"][1]["b"]
    assert len(full[0]["t"]) == step_cards.SHOW_AT_MOST
    assert full[1]["k"] == "note" and full[1]["t"].startswith(f"First {step_cards.SHOW_AT_MOST:,} of")
    # a short text is shown whole, never folded
    (c,) = _cards({"id": "r", "steps": [{"agent": "A", "content": "x" * step_cards.OUTPUT_AT}]})
    assert c["blocks"] == [{"k": "text", "t": "x" * step_cards.OUTPUT_AT}]
    # elsewhere (step review's cards) a text folds at COLLAPSE_AT, as before
    assert step_cards.step_text_blocks("x" * step_cards.COLLAPSE_AT) == [{"k": "text", "t": "x" * step_cards.COLLAPSE_AT}]


def test_conversation_shown_once_full_input_folded_within_budget():
    system = {"role": "system", "content": "You are A."}
    first = {"role": "user", "content": "task"}
    big = "y" * (step_cards.SHOW_AT_MOST // 2 + 1)
    steps = [{"agent": "A", "content": "out 0", "input": [system, first]},
             {"agent": "A", "content": "out 1", "input": [system, first, {"role": "assistant", "content": "out 0"},
                                                           {"role": "user", "content": big},
                                                           {"role": "user", "content": big},
                                                           {"role": "user", "content": "last"}]}]
    a, b = _cards({"id": "r", "steps": steps})
    # the whole input is one fold (one line on the card); the new part in it, the full input below that
    (fold,) = [x for x in a["blocks"] if x["k"] == "more" and x["t"].startswith("Input")]
    assert fold["t"] == "Input · new thread · 2 message(s), 14 characters"
    assert step_cards.plain(a)[2].startswith("New conversation thread of A · 2 input messages")
    assert [x["t"] for x in fold["b"] if x["k"] == "text"] == ["You are A.", "task"]  # in full, one click
    lines = step_cards.plain(b)
    fold = b["blocks"][0]
    assert fold["k"] == "more" and fold["t"].startswith("Input · 4 new of 6 messages")
    assert "Input: 2 earlier message(s) of this conversation not repeated" in lines
    assert any("repeats step 0 (its output)" in x for x in lines)
    more = next(x for x in fold["b"] if x["k"] == "more" and x["t"].startswith("Full input (6 messages"))
    texts = [x for x in more["b"] if x["k"] == "text"]
    # within the budget: the messages that fit, then a note naming the rest
    assert sum(len(x["t"]) for x in texts) <= step_cards.SHOW_AT_MOST
    assert more["b"][-2]["t"].startswith("First 99,980 of 100,001 characters of message 4 shown")
    assert more["b"][-1]["k"] == "note" and more["b"][-1]["t"].startswith("Messages 5–5 not shown")
    assert [x["k"] for x in b["blocks"]] == ["more", "text"] and lines[-1] == "out 1"  # the input folded, the output open


def test_handoff_card_sides_and_folded_full_text():
    from app.types import handoff_review as handoff
    long = "z " * 400
    d = derive({"id": "r", "steps": [{"agent": "A", "content": "hand over"}, {"agent": "B", "content": long}]})
    (card,) = [step_cards.handoff_card(c) for c in handoff.cards(d)]
    assert card["title"] == ["Handoff 0 · ", {"agent": "A"}, " → ", {"agent": "B"}, " · step 0 → step 1"]
    (cols,) = card["blocks"]
    left, right = cols["b"]
    assert left == [{"k": "note", "t": "Last step of A (step 0)"}, {"k": "text", "t": "hand over"}]
    assert right[0] == {"k": "note", "t": "First step of B (step 1)"} and right[1]["t"].endswith(" …")
    assert right[2]["k"] == "more" and right[2]["t"] == "Full text of step 1 (800 characters)"
    assert "Full text of step 1 (800 characters)" in step_cards.plain(card)


def test_huge_arguments_are_cut_with_a_note():
    block = step_cards.code("a" * (step_cards.SHOW_AT_MOST + 10))
    assert block["t"].startswith("a" * 100)
    assert block["t"].endswith(f"(the first {step_cards.SHOW_AT_MOST:,} of {step_cards.SHOW_AT_MOST + 10:,} characters)")
