"""The trace view on a TRAIL run: only what is new per step, the full input one click away."""
from tests.conftest import ROOT, card_lines, make_app, open_page, step_cards, write_project

ITEM = "512475a321c616e45337da3575f6a185"


def test_trace_view_shows_each_conversation_once(tmp_path):
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")],
                        schemes=[{"annotation_type": "failure_attribution", "name": "a"}])
    at = open_page(make_app(cfg, item=ITEM), "failure_attribution")
    captions = [c.value for c in at.caption]
    assert "10 steps · 2 agents · 2 handoffs · 4 tool calls" in captions
    assert any(c.startswith("Conversations shown once per agent:") and "not repeated" in c for c in captions)
    lines = card_lines(at)
    assert any("4 earlier message(s) of this conversation not repeated" in c for c in lines)
    assert any("repeats step 2 (its output)" in c for c in lines)
    assert any("failed: FileConversionException" in c for c in lines)
    # the full input is folded in its card (opened in the browser, no rerun): every message
    # of that input, in full
    # (each step's input is one fold: the full input is folded within it)
    full = [b for card in step_cards(at) for fold in card["blocks"] if fold["k"] == "more"
            for b in fold["b"] if b["k"] == "more" and b["t"].startswith("Full input (7 messages")]
    assert len(full) == 1
    # each message under its line, its text with its fenced code as code blocks
    assert sum(b["k"] == "note" and " · message " in b["t"] for b in full[0]["b"]) == 7
    assert any(b["k"] == "code" for b in full[0]["b"])


def test_trace_pager_is_one_pair_of_buttons_and_each_item_keeps_its_page(tmp_path):
    """The trace's paging buttons are keyed by place (the next item updates them instead of
    mounting new ones); the page turned to is each item's own."""
    import json

    from app.ui.state import widget_key
    runs = [{"id": f"run-{k}", "text": "t", "steps": [{"agent": "AB"[i % 2], "content": f"r{k} s{i}"}
                                                        for i in range(25)]} for k in range(2)]
    data = tmp_path / "runs.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)],
                        schemes=[{"annotation_type": "failure_attribution", "name": "a"}])
    at = open_page(make_app(cfg, item="run-0"), "failure_attribution")
    later = widget_key("trace", "place", "next")
    at.button(key=later).click().run()
    assert any(c.value.startswith("Steps 10–19 of 25") for c in at.caption)
    at.button(key=widget_key("nav", "next")).click().run()
    assert any(c.value.startswith("Steps 0–9 of 25") for c in at.caption)
    assert step_cards(at)[0]["step"] == 0 and at.button(key=later)
    assert "r1 s0" in card_lines(at)
    at.button(key=widget_key("nav", "prev")).click().run()
    assert any(c.value.startswith("Steps 10–19 of 25") for c in at.caption)
    assert "r0 s10" in card_lines(at)


# --- one line of trace text (app/trace.one_line: labels made on every rerun) -----------------------

from hypothesis import given, settings, strategies as hs  # noqa: E402

from app.traces.trace import one_line  # noqa: E402


def _one_line_whole(text, limit):
    """The definition: the whole text's white space folded, then cut."""
    s = " ".join(("" if text is None else str(text)).split())
    return s if limit is None or len(s) <= limit else s[: limit - 1] + "…"


@settings(max_examples=300, deadline=None)
@given(hs.text(alphabet=hs.sampled_from(list("ab c\n\t\u3000\u00a0é")), max_size=3000),
       hs.one_of(hs.none(), hs.integers(1, 400)))
def test_one_line_reads_a_prefix_and_equals_the_whole_texts_line(text, limit):
    assert one_line(text, limit) == _one_line_whole(text, limit)


def test_one_line_of_a_long_text_with_white_space_at_its_start():
    # more white space than the first prefix read: the prefix grows until the cut is known
    text = " \n" * 5000 + "word " * 100
    assert one_line(text, 60) == _one_line_whole(text, 60)
    assert one_line(None, 5) == "" and one_line(12345, 3) == "12…"
    assert one_line("a  b", None) == "a b"
