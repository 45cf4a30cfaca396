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
