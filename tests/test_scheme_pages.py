"""A page per scheme (app/ui/nav.py), named by the scheme, in config order; each shows its own
scheme only; the former per-type urls still open (every scheme of the type)."""
from __future__ import annotations

from streamlit.util import calc_hash

from app.ui.state import widget_key
from tests.conftest import make_app, open_page

ITEM = "code-team-002"
MENU = ["Items", "Outcome", "Who failed, and where", "Critical path and handoffs", "Handoff quality",
        "Agent scorecard", "Tool contention", "Team behaviours", "Tool calls", "MAST step review", "Traversal review",
        "Orchestration pattern", "Your confidence", "Symptoms", "Notes", "Summary", "Keyboard shortcuts"]


def open_scheme(at, url: str):
    """Run the page at /url (AppTest switches by file only, and a type's file serves every
    scheme of the type: its url picks one; private AppTest API)."""
    at.run()
    at._page_hash = calc_hash(url)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_menu_names_each_scheme_in_config_order(demo_project):
    at = make_app(demo_project, item=ITEM).run()
    labels = [p.proto.label for p in at.sidebar.get("page_link")]
    assert labels == MENU  # not "Single choice", "Likert"...


def test_a_schemes_page_shows_that_scheme_only(demo_project):
    at = open_scheme(make_app(demo_project, item=ITEM), "orchestration")
    assert [t.value for t in at.title] == ["Orchestration pattern"]
    assert [s.value for s in at.subheader if s.value in ("outcome", "orchestration")] == ["orchestration"]
    at.radio(key=widget_key("radio", "orchestration")).set_value("debate").run()
    assert not at.exception
    # Page ▶ goes on to the next scheme in config order, whatever its type
    at.sidebar.button(key=widget_key("nav", "surface-next")).click().run()
    assert [t.value for t in at.title] == ["Your confidence"]


def test_a_scheme_without_title_is_named_by_its_description(tmp_path):
    from tests.conftest import write_project
    cfg = write_project(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "outcome", "description": "Did the team accomplish the task?",
         "labels": ["yes", "no"]},
        {"annotation_type": "radio", "name": "pattern", "labels": ["a", "b"]}])
    at = make_app(cfg, item=ITEM).run()
    assert [p.proto.label for p in at.sidebar.get("page_link")] == [
        "Items", "Did the team accomplish the task?", "pattern", "Summary", "Keyboard shortcuts"]


def test_the_former_per_type_url_still_opens_every_scheme_of_the_type(demo_project):
    at = open_page(make_app(demo_project, item=ITEM), "radio")
    assert {"outcome", "orchestration"} <= {s.value for s in at.subheader}


def test_item_ids_sort_naturally():
    from app.ui.nav import natural_key
    ids = ["run-101", "run-20", "run-1", "run-45", "run-7", "Run-3b", "x"]
    assert sorted(ids, key=natural_key) == ["run-1", "Run-3b", "run-7", "run-20", "run-45", "run-101", "x"]


def test_the_items_table_lists_ids_naturally_with_a_numeric_order_column(demo_project):
    at = make_app(demo_project).run()
    df = at.dataframe[0].value
    items = df["item"].tolist()
    assert items.index("whowhen-hand-crafted-5") < items.index("whowhen-hand-crafted-33")
    assert items.index("whowhen-algorithm-generated-1") < items.index("whowhen-algorithm-generated-45")
    assert df["#"].tolist() == list(range(1, len(items) + 1)) and "id" not in df.columns
