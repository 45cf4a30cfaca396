"""The trace view on a TRAIL run: only what is new per step, the full input one click away."""
from tests.conftest import ROOT, make_app, open_page, write_project

ITEM = "512475a321c616e45337da3575f6a185"


def test_trace_view_shows_each_conversation_once(tmp_path):
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")],
                        schemes=[{"annotation_type": "failure_attribution", "name": "a"}])
    at = open_page(make_app(cfg, item=ITEM), "failure_attribution")
    captions = [c.value for c in at.caption]
    assert "10 steps · 2 agents · 2 handoffs · 4 tool calls" in captions
    assert any(c.startswith("Conversations shown once per agent:") and "not repeated" in c for c in captions)
    assert any("4 earlier message(s) of this conversation not repeated" in c for c in captions)
    assert any("repeats step 2 (its output)" in c for c in captions)
    assert any("failed: FileConversionException" in c for c in captions)
    full = [t for t in at.toggle if t.label.startswith("Full input (7 messages")]
    assert len(full) == 1 and not full[0].value
    texts_before = len(at.text)
    full[0].set_value(True).run()
    assert not at.exception
    assert len(at.text) == texts_before + 7  # every message of that input, in full


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
    assert any(m.value.startswith("**Step 0**") for m in at.markdown) and at.button(key=later)
    assert any(t.value == "r1 s0" for t in at.text)
    at.button(key=widget_key("nav", "prev")).click().run()
    assert any(c.value.startswith("Steps 10–19 of 25") for c in at.caption)
    assert any(t.value == "r0 s10" for t in at.text)
