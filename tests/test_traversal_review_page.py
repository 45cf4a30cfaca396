"""traversal_review page (AppTest): the forward pass step by step (nothing of later steps sent),
resuming after a restart, the backward pass, adding and accepting root causes."""
from __future__ import annotations

from app.store.storage import AnnotationStore
from app.traces.step_cards import plain
from app.ui.state import widget_key
from tests.conftest import drawn_cards, make_app, open_page

ITEM = "whowhen-algorithm-generated-45"  # five steps; gold: step 1
TRAIL = "512475a321c616e45337da3575f6a185"


def slot(*parts, scheme="traversal"):
    return widget_key("trav", scheme, "slot", *parts)


def stored(tmp_path, item=ITEM):
    a = AnnotationStore(tmp_path / "annotations").load(item, "alice", "traversal")
    return a.value if a else None


def texts(at) -> str:
    """Everything the page was sent as text: elements and the step cards' data."""
    parts = [str(getattr(e, "value", "")) for e in at.markdown] + [str(e.value) for e in at.text]
    parts += [str(getattr(e, "label", "")) for e in list(at.button) + list(at.radio) + list(at.text_input)]
    parts += [str(o) for e in at.selectbox for o in e.options]
    parts += [line for c in drawn_cards(at) for line in plain(c)]
    return "\n".join(parts)


def test_forward_shows_only_the_past_and_saves_each_step(demo_project):
    from app.project.workspace import open_project
    ws = open_project(demo_project)
    steps = ws.by_id[ITEM].data["steps"]
    at = open_page(make_app(demo_project, item=ITEM), "traversal_review")
    for i in range(len(steps)):
        sent = texts(at)
        assert f"Step {i} · " in sent
        past = "\n".join(s["content"] for s in steps[:i + 1]) + ws.by_id[ITEM].text
        for later in steps[i + 1:]:  # no later step's text anywhere on the page (unless said before)
            words = later["content"].strip()[:60]
            assert words in past or words not in sent
        if i == 1:
            at.radio(key=slot("flag")).set_value("error").run()
            at.multiselect(key=slot("modes")).select(0).run()
            at.text_input(key=slot("note")).input("assumes 1000 articles").run()
        at.button(key=slot("next")).click().run()
        assert not at.exception
        fwd = stored(demo_project.parent)["forward"]
        assert sorted(map(int, fwd)) == list(range(i + 1))  # saved at every step
    value = stored(demo_project.parent)
    assert value["forward"]["1"] == {"flag": "error", "modes": [{"type": "Specification & System Design",
                                                                 "subtype": "1.1 Disobey task specification"}],
                                     "note": "assumes 1000 articles"}
    assert value["forward"]["0"] == {"flag": "fine"}
    # backward: the whole trace beside, the forward note by the flagged step
    assert "Backward pass: flagged step 1 of 1" in at.get("progress")[0].proto.text
    assert "assumes 1000 articles" in texts(at)
    at.button(key=slot("verdict", "root_cause")).click().run()
    value = stored(demo_project.parent)
    assert value["backward"] == {"1": {"verdict": "root_cause", "caused_by": None}} and value["root_causes"] == [1]
    assert any(m.value.startswith("**Root causes:** step 1") for m in at.markdown)


def test_half_done_pass_resumes_after_restart(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "traversal_review")
    at.button(key=slot("next")).click().run()
    at.radio(key=slot("flag")).set_value("error").run()  # step 1 flagged: saved before "next"
    at2 = open_page(make_app(demo_project, item=ITEM), "traversal_review")  # a new session (a refresh)
    assert "Forward pass: step 3 of 5" in [p.proto.text for p in at2.get("progress")][0]
    at2.button(key=slot("back")).click().run()
    assert at2.radio(key=slot("flag")).value == "error"  # the step before, as saved
    at2.button(key=slot("next")).click().run()
    for _ in range(3):
        at2.button(key=slot("next")).click().run()
    at3 = open_page(make_app(demo_project, item=ITEM), "traversal_review")
    assert "Backward pass: flagged step 1 of 1" in [p.proto.text for p in at3.get("progress")][0]


def test_backward_consequence_redundant_and_added_root_cause(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "traversal_review")
    for i in range(5):
        if i in (1, 3, 4):
            at.button(key=slot("toggle")).click().run()  # Alt+E's button
            assert at.radio(key=slot("flag")).value == "error"
        at.button(key=slot("next")).click().run()
    # from the last flagged step: 4, 3, then 1
    assert "flagged step 1 of 3" in at.get("progress")[0].proto.text
    at.button(key=slot("verdict", "redundant")).click().run()
    assert at.selectbox(key=slot("cause")).value == 1  # step 3's nearest earlier flagged step
    at.button(key=slot("verdict", "consequence")).click().run()
    at.button(key=slot("verdict", "root_cause")).click().run()
    v = stored(demo_project.parent)
    assert v["backward"] == {"1": {"verdict": "root_cause", "caused_by": None},
                             "3": {"verdict": "consequence", "caused_by": 1},
                             "4": {"verdict": "redundant", "caused_by": None}}
    at.selectbox(key=slot("add")).select(0).run()
    at.button(key=slot("add-button")).click().run()
    assert stored(demo_project.parent)["root_causes"] == [0, 1]
    at.button(key=widget_key("trav", "traversal", ITEM, "unroot", 0)).click().run()
    assert stored(demo_project.parent)["root_causes"] == [1]


def test_suggestion_shown_backward_only_and_saved_when_accepted(tmp_path):
    from tests.conftest import ROOT, write_project
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    at = open_page(make_app(cfg, item=TRAIL), "traversal_review")
    assert not at.info or all("Suggested" not in i.value for i in at.info)  # not in the forward pass
    for _ in range(10):
        at.button(key=slot("next")).click().run()
    shown = [i.value for i in at.info if "Suggested root cause" in i.value]
    assert shown and "step 2" in shown[0]
    assert stored(tmp_path, TRAIL)["root_causes"] == []  # shown, not saved
    at.button(key=slot("accept")).click().run()
    assert stored(tmp_path, TRAIL)["root_causes"] == [2]


def test_summary_page_shows_traversal_and_suggestion_tables(tmp_path):
    from tests.conftest import ROOT, write_project
    from tests.summary_data import Saver, attribution
    from app.types import traversal_review as tr
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "trail")])
    save = Saver(cfg)
    value = {}
    for i in range(10):
        value = tr.flag(value, i, tr.ERROR if i in (2, 3) else tr.FINE)
    value = tr.judge(tr.judge(value, 3, tr.ROOT_CAUSE), 2, tr.REDUNDANT)
    save(TRAIL, "alice", "traversal", value)
    save(TRAIL, "alice", "attribution", attribution("manager", 2))
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    frames = [e.value for e in at.dataframe]
    roll = next(df for df in frames if "share_pruned" in df.columns)
    assert list(roll["annotator"]) == ["(all)", "alice"] and list(roll["share_pruned"]) == [0.5, 0.5]
    gold = next(df for df in frames if "steps named" in df.columns)
    assert list(gold["step_accuracy"])[:2] == [1.0, 0.0]  # root cause 3 = gold; the earliest flag 2 is not
    hints = next(df for df in frames if "accepted" in df.columns)
    assert dict(zip(hints["scheme"], hints["accepted"])) == {"attribution": 1, "traversal": 0, "graph": 0}


def test_two_traversal_schemes_backward_waits_for_the_other_forward(tmp_path):
    import yaml
    from tests.conftest import write_project
    cfg = write_project(tmp_path)
    data = yaml.safe_load(cfg.read_text())
    first = next(s for s in data["annotation_schemes"] if s["name"] == "traversal")
    data["annotation_schemes"].append(dict(first, name="traversal2"))
    cfg.write_text(yaml.safe_dump(data, sort_keys=False))
    at = open_page(make_app(cfg, item=ITEM), "traversal_review")
    for _ in range(5):
        at.button(key=slot("next")).click().run()
    assert any("opens once the forward pass of traversal2" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == slot("verdict", "root_cause")]
    # the page holds only traversal2's first step: no trace column, no backward cards
    assert {c.get("step") for c in drawn_cards(at)} == {0}
