"""app.scheme_agreement: the panels of annotators agreement is computed over."""
from __future__ import annotations

from app._old import summary as core
from app._old.labels import build
from app._old.scheme_agreement import Panel
from app.project.workspace import open_project
from tests.summary_data import CODE, TRIP, demo


def test_schemes_with_the_same_judges_share_one_panel_others_get_their_own(tmp_path):
    """A panel is built once per summary for schemes judged by the same annotators on the same
    items (rows in the same order), and each scheme's own when they differ."""
    cfg, save = demo(tmp_path)
    for who in ("alice", "bob"):
        save(CODE, who, "outcome", {"success": "true"})
        save(CODE, who, "orchestration", {"debate": "true"})
    save(TRIP, "carol", "confidence", {"scale_5": "3"})
    save(TRIP, "dave", "confidence", {"scale_5": "4"})
    save(CODE, "alice", "confidence", {"scale_5": "4"})
    ws = open_project(cfg)
    lab = build(core.load(ws), {s.name: s for s in ws.project.schemes})
    a, b, c = (Panel(lab, name) for name in ("outcome", "orchestration", "confidence"))
    assert a.item is b.item and a.raters == b.raters == ["alice", "bob"] and a.items == [CODE]
    assert c.item is not a.item and c.raters == ["carol", "dave"] and c.items == [TRIP]
    alone = Panel(build(core.load(ws), {s.name: s for s in ws.project.schemes}), "orchestration")
    assert alone.items == b.items and alone.raters == b.raters
    assert alone.item.tolist() == b.item.tolist() and alone.rater.tolist() == b.rater.tolist()
