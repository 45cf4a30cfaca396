"""app.handoff: cards around each handoff and the stored list of judged handoffs."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from app.types import handoff_review as handoff
from app.traces.derive import Handoff, derive
from app.traces.readers import read_file
from app.project.workspace import open_project
from tests.conftest import DATASETS, ROOT

FLAGS = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
TRACE = {"steps": [
    {"agent": "Planner", "content": "plan"},
    {"agent": "Planner", "content": "delegate to coder"},
    {"agent": "Coder", "content": "code"},
    {"agent": "Critic", "content": "x" * 1000},
    {"agent": "Coder", "content": ""},
]}


def test_cards_show_the_last_step_of_the_sender_and_the_first_of_the_receiver():
    d = derive(TRACE)
    cards = handoff.cards(d)
    assert [(c.index, c.handoff.step, c.handoff.src, c.handoff.dst) for c in cards] == [
        (0, 2, "Planner", "Coder"), (1, 3, "Coder", "Critic"), (2, 4, "Critic", "Coder")]
    assert [(c.last_of_src.index, c.first_of_dst.index) for c in cards] == [(1, 2), (2, 3), (3, 4)]
    assert cards[0].last_of_src.text == "delegate to coder" and cards[0].first_of_dst.text == "code"


def _real():
    ws = open_project(ROOT / "configs" / "demo.yaml")
    out = [(it.id, derive(it.data)) for it in ws.items]
    # and the shared Who&When runs when beside the clone (a bare clone: the demo's four in data/whowhen)
    for path in sorted((DATASETS / "whowhen").rglob("*.json")):
        items, _ = read_file(path)
        out += [(it.id, derive(it.data)) for it in items]
    return out


@pytest.mark.parametrize("item_id, d", _real(), ids=lambda x: x if isinstance(x, str) else "")
def test_cards_of_real_traces(item_id, d):
    cards = handoff.cards(d)
    assert len(cards) == len(d.handoffs)
    for c in cards:
        assert c.last_of_src.agent == c.handoff.src != c.handoff.dst == c.first_of_dst.agent
        assert c.first_of_dst.index == c.handoff.step == c.last_of_src.index + 1
        shown, cut = handoff.excerpt(c.first_of_dst.text)
        assert len(shown) <= handoff.EXCERPT + 2 and cut == (len(c.first_of_dst.text.strip()) > handoff.EXCERPT)


def test_excerpt():
    assert handoff.excerpt("  short ") == ("short", False)
    text, cut = handoff.excerpt("word " * 100, 50)
    assert cut and text.endswith(" …") and len(text) <= 52 and not text[:-2].endswith(" ")
    assert handoff.excerpt("x" * 60, 50) == ("x" * 50 + " …", True)
    assert handoff.excerpt(None) == ("", False)


H0, H1, H2 = Handoff(0, 2, "Planner", "Coder"), Handoff(1, 3, "Coder", "Critic"), Handoff(2, 4, "Critic", "Coder")


def test_update_builds_the_documented_list_sorted_by_index():
    v = handoff.update(None, H2, ["garbling"], None, FLAGS)
    v = handoff.update(v, H0, ["goal_drift", "info_loss"], 4, FLAGS)
    assert v == [
        {"index": 0, "step": 2, "from": "Planner", "to": "Coder", "flags": ["info_loss", "goal_drift"], "quality": 4},
        {"index": 2, "step": 4, "from": "Critic", "to": "Coder", "flags": ["garbling"], "quality": None},
    ]
    v = handoff.update(v, H0, [], 4, FLAGS)  # a rating alone is a judgement
    assert v[0]["flags"] == [] and v[0]["quality"] == 4
    v = handoff.update(v, H0, [], None, FLAGS)  # back to untouched: dropped
    assert [e["index"] for e in v] == [2]
    assert handoff.update(v, H2, [], None, FLAGS) == []


def test_update_keeps_flags_the_config_dropped_and_replaces_stale_entries():
    old = [{"index": 1, "step": 3, "from": "Coder", "to": "Critic", "flags": ["retired_flag", "garbling"],
            "quality": 2}]
    v = handoff.update(old, H1, ["info_loss"], 2, FLAGS)
    assert v[0]["flags"] == ["info_loss", "retired_flag"]
    stale = [{"index": 1, "step": 9, "from": "X", "to": "Y", "flags": ["garbling"], "quality": 1}]
    assert handoff.entry_for(stale, H1) is None
    assert handoff.stale_entries(stale, [H0, H1, H2]) == stale
    v = handoff.update(stale, H1, ["info_loss"], None, FLAGS)
    assert v == [{"index": 1, "step": 3, "from": "Coder", "to": "Critic", "flags": ["info_loss"], "quality": None}]


def test_update_rejects_a_bad_quality():
    with pytest.raises(ValueError):
        handoff.update(None, H0, [], "5", FLAGS)


def test_parse_drops_malformed_entries():
    raw = [
        {"index": 1, "step": 3, "from": "Coder", "to": "Critic", "flags": ["a", "a", 3], "quality": True},
        {"index": "0", "step": 2, "from": "Planner", "to": "Coder"},
        {"index": 0, "step": 2, "from": "Planner", "to": "Coder", "flags": "x", "quality": 5},
        "junk", None,
    ]
    assert handoff.parse(raw) == [
        {"index": 0, "step": 2, "from": "Planner", "to": "Coder", "flags": [], "quality": 5},
        {"index": 1, "step": 3, "from": "Coder", "to": "Critic", "flags": ["a", "3"], "quality": None},
    ]
    assert handoff.parse({"not": "a list"}) == [] and handoff.parse(None) == []
    # the same entries as the summary's table rows
    assert handoff.table_rows(raw) == [(0, 2, "Planner", "Coder", (), 5), (1, 3, "Coder", "Critic", ("a", "3"), None)]


def test_counts():
    v = handoff.update(None, H0, ["garbling"], None, FLAGS)
    v = handoff.update(v, H1, [], 3, FLAGS)
    v.append({"index": 7, "step": 9, "from": "A", "to": "B", "flags": ["garbling"], "quality": None})
    assert handoff.counts(v, [H0, H1, H2]) == (2, 1)


@pytest.mark.parametrize("n, page, size, expected", [
    (0, 0, 10, (0, 0)), (25, 0, 10, (0, 10)), (25, 2, 10, (20, 25)), (25, 9, 10, (20, 25)), (25, -1, 10, (0, 10)),
])
def test_paging(n, page, size, expected):
    assert handoff.page_slice(n, page, size) == expected
    assert handoff.page_count(n, size) == max(1, -(-n // size))


def _excerpt_whole(text, limit=handoff.EXCERPT):
    """The definition: the whole text stripped, then cut (at a word when one is near)."""
    t = (text or "").strip()
    if len(t) <= limit:
        return t, False
    cut = t[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.7:
        cut = cut[:space]
    return cut.rstrip() + " …", True


@settings(max_examples=400, deadline=None)
@given(hs.lists(hs.sampled_from(["a", "bc", " ", "\n", "\t", "\u3000", "\x1c", "\x85", "é", " " * 300, "w" * 300]),
                max_size=40).map("".join), hs.integers(1, 400))
def test_excerpt_reads_around_the_cut_and_equals_cutting_the_whole_text(text, limit):
    assert handoff.excerpt(text, limit) == _excerpt_whole(text, limit)


def test_excerpt_of_a_text_padded_with_much_white_space():
    for text in (" " * 5000 + "word " * 10 + " " * 5000, "\n" * 100_000 + "x" * 400, "abc" + " " * 100_000 + "d"):
        assert handoff.excerpt(text, 60) == _excerpt_whole(text, 60)
