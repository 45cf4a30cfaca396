"""The summary page (AppTest): numbers as tables, filters, the disagreement view opens the item."""
from __future__ import annotations

from app.ui.summary_page import ALL, GOLD
from app.ui.state import widget_key
from tests.conftest import components, make_app, open_page
from tests.summary_data import CODE, TRIP, attribution, demo


def k(*parts):
    return widget_key("summary", *parts)


def frames(at):
    return [df.value for df in at.dataframe]


def test_summary_page_tables_filters_and_disagreement_link(tmp_path):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    save(TRIP, "alice", "outcome", {"failure": "true"})
    save(CODE, "alice", "_item", {"done": True})
    at = open_page(make_app(cfg, annotator="carol"), "summary")  # any signed-in annotator sees it
    assert [t.value for t in at.title] == ["Summary"]
    assert "7 items · 2 annotators · 3 judgements" in at.caption[0].value
    blame = next(df for df in frames(at) if "agent" in df.columns and "share" in df.columns)
    assert dict(zip(blame["agent"], blame["count"])) == {"Coder": 1, "Tester": 1}
    progress = next(df for df in frames(at) if "items_done" in df.columns)
    assert dict(zip(progress["annotator"], progress["items_done"])) == {"alice": 1, "bob": 0}
    assert len(components(at, "baton_figure")) >= 5 and not at.get("plotly_chart")  # (plotly.js of our own)
    assert {d.label for d in at.get("download_button")} >= {"Annotations (.parquet)", "Annotations (.csv)",
                                                            "Annotations (.jsonl)", "HTML report (these filters)"}

    # filters: one annotator
    at.multiselect(key=k("annotators")).set_value(["bob"]).run()
    assert not at.exception
    assert "1 annotators · 1 judgements" in at.caption[0].value
    at.multiselect(key=k("annotators")).set_value([]).run()
    at.selectbox(key=k("subset")).set_value(GOLD).run()
    assert "4 items" in at.caption[0].value
    at.selectbox(key=k("subset")).set_value(ALL).run()

    # the disagreement view lists the attribution and opens the item on its page
    dis = next(df for df in frames(at) if "judgements" in df.columns and "object" in df.columns)
    assert list(dis["object"]) == ["responsible agent", "decisive step"]
    assert list(dis["judgements"]) == ["alice: Coder; bob: Tester", "alice: 4; bob: 7"]
    assert at.selectbox(key=k("dis_scheme")).value == "attribution"
    at.selectbox(key=k("disagreement", "attribution", 0)).set_value(1).run()
    at.button(key=k("open")).click().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Who failed, and where"]  # the scheme's own page (its title)
    assert at.query_params["item"] in ([CODE], CODE)


def test_summary_page_without_annotations(tmp_path):
    cfg, _save = demo(tmp_path)
    at = open_page(make_app(cfg), "summary")
    assert any("No annotations yet" in i.value for i in at.info)
    assert any("No disagreement" in c.value for c in at.caption)


def test_summary_page_lists_disagreements_per_scheme_a_page_at_a_time(tmp_path, monkeypatch):
    from app.ui import summary_tables
    monkeypatch.setattr(summary_tables, "DIS_PAGE", 1)
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    save(CODE, "alice", "outcome", {"failure": "true"})
    save(CODE, "bob", "outcome", {"success": "true"})
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    assert any(s.value.startswith("Where annotators differ (3)") for s in at.subheader)
    scheme = at.selectbox(key=k("dis_scheme"))
    assert scheme.options == ["outcome (1)", "attribution (2)"]
    at.selectbox(key=k("dis_scheme")).set_value("attribution").run()
    assert at.number_input(key=k("dis_page", "attribution")).label.startswith("Page (of 2")
    first = next(df for df in frames(at) if "object" in df.columns)
    assert list(first["object"]) == ["responsible agent"]
    at.number_input(key=k("dis_page", "attribution")).set_value(2).run()
    second = next(df for df in frames(at) if "object" in df.columns)
    assert list(second["object"]) == ["decisive step"] and not at.exception
    at.button(key=k("open")).click().run()
    assert [t.value for t in at.title] == ["Who failed, and where"]  # the scheme's own page (its title)


def test_every_decisive_step_is_listed_when_asked_a_page_at_a_time(tmp_path, monkeypatch):
    from app.summary import summarize as core
    from app.ui import summary_tables
    monkeypatch.setattr(summary_tables, "DIS_PAGE", 1)
    listed = []
    real = core.listing
    monkeypatch.setattr(core, "listing", lambda *a, **kw: listed.append(a[2:4]) or real(*a, **kw))
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    save(CODE, "bob", "attribution", attribution("Coder", 5))
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    assert any("the blamed agent acts at the decisive step in 50% (1 of 2)" in c.value for c in at.caption)
    assert listed == [] and not any("acting_agent" in df.columns for df in frames(at))  # not asked yet
    at.toggle(key=k("list", "positions", "attribution")).set_value(True).run()
    steps = next(df for df in frames(at) if "acting_agent" in df.columns)
    assert list(steps["annotator"]) == ["alice"] and list(steps["acting_is_blamed"]) == [True]
    assert at.number_input(key=k("list_page", "positions", "attribution")).label.startswith("Page (of 2")
    at.number_input(key=k("list_page", "positions", "attribution")).set_value(2).run()
    steps = next(df for df in frames(at) if "acting_agent" in df.columns)
    assert list(steps["annotator"]) == ["bob"] and list(steps["acting_agent"]) == ["Tester"]
    assert listed == [("attribution", "positions")] and not at.exception  # listed once, the pages turned on it
    # each run's behaviours likewise
    save(TRIP, "alice", "emergent", {"echoing": {"turns": [2, 5], "note": ""}})
    at.button(key=k("refresh")).click().run()
    at.toggle(key=k("list", "per_run", "emergent")).set_value(True).run()
    runs = next(df for df in frames(at) if "turns" in df.columns and "behavior" in df.columns)
    assert list(runs["item_id"]) == [TRIP] and list(runs["marks"]) == [2] and not at.exception


def test_summary_is_computed_again_only_when_the_rows_changed(tmp_path, monkeypatch):
    from app.summary import summarize as core
    calls = []
    real = core.summarize
    monkeypatch.setattr(core, "summarize", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    assert len(calls) == 1
    at.button(key=k("refresh")).click().run()  # read again: nothing changed, nothing recomputed
    assert len(calls) == 1 and "1 judgements" in at.caption[0].value
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    at.button(key=k("refresh")).click().run()
    assert len(calls) == 2 and "2 judgements" in at.caption[0].value
    assert not at.exception
    # computed again from every row: its blame table has the new judgement
    blame = [df for df in frames(at) if list(df.columns[:2]) == ["agent", "count"]]
    assert blame and sorted(blame[0]["agent"]) == ["Coder", "Tester"]


def test_rows_are_read_again_once_the_last_read_is_old_enough(tmp_path, monkeypatch):
    from app.ui import summary_page
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "attribution", attribution("Coder", 4))
    at = open_page(make_app(cfg, annotator="carol"), "summary")
    assert "1 judgements" in at.caption[0].value and "annotations as read just now" in at.caption[0].value
    save(CODE, "bob", "attribution", attribution("Tester", 7))
    at.run()  # a click within TTL: the rows as read
    assert "1 judgements" in at.caption[0].value
    monkeypatch.setattr(summary_page, "TTL", 0)
    monkeypatch.setattr(summary_page, "SLOW_READ", 0)
    at.run()  # the last read is now old enough
    assert "2 judgements" in at.caption[0].value and not at.exception
