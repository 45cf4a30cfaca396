"""AppTest tests of the tool-contention surface: label regions through the list, the Parquet
row holds exactly the documented value, a new session shows it; chart clicks select regions."""
import json

from app.store.storage import AnnotationStore
from app.ui.surfaces.tool_contention import PAGE_SIZE
from tests.conftest import clean_card, click_clean, components, make_app, open_page, send_trigger, write_project

PAGE = "tool_contention"


def stored(project, item, scheme="contention", who="alice"):
    return AnnotationStore(project.parent / "annotations").load(item, who, scheme)


def region_cards(at) -> list[dict]:
    """The regions' cards as the browser gets them (app/ui/region_cards.py)."""
    found = components(at, "baton_region_cards")
    assert len(found) <= 1
    return json.loads(found[0].proto.json)["cards"] if found else []


class LabelControl:
    """A region card's label control (a radio row for the demo's five labels, a dropdown for
    more), driven as the browser drives it: its choice sent as the cards' "label" trigger."""

    def __init__(self, at, card):
        self.at, self.card = at, card
        self.label = f"Label for region #{card['region']}"
        self.options, self.value = card["options"], card["label"]

    def set_value(self, label):
        label_click(self.at, self.card["region"], label)
        return self

    def run(self):  # the choice ran with set_value
        return self.at


def label_click(at, region: int, label: str, seq: int | None = None, mount: str = "apptest"):
    """What the browser sends when a region's label is clicked (app/ui/region_cards.py): the
    change, numbered after the last one the server acknowledged from this mount."""
    (cards,) = components(at, "baton_region_cards")
    data = json.loads(cards.proto.json)
    if seq is None:
        seq = 1 + max([a["seq"] for a in data["acks"].values() if a["mount"] == mount], default=0)
    holds = next((c["holds"] for c in data["cards"] if c["region"] == region), f"{data['item']}\u241f{region}")
    return send_trigger(at, cards, "label", {"item": data["item"], "mount": mount, "changes": [
        {"region": region, "seq": seq, "value": [label], "holds": holds}]})


def label_widgets(at):
    return [LabelControl(at, c) for c in region_cards(at)]


def label_box(at, region):
    return next(w for w in label_widgets(at) if w.label == f"Label for region #{region}")


def select_in_list(at):
    """ "Select" on the first card not selected."""
    card = next(c for c in region_cards(at) if not c["selected"])
    cards = components(at, "baton_region_cards")[0]
    return send_trigger(at, cards, "select", {"item": json.loads(cards.proto.json)["item"], "region": card["region"]})


def button(at, label, nth=0):
    return at.button(key=[b.key for b in at.button if b.label == label][nth])


def chart(at):
    """The timeline chart (app/ui/timeline_chart.py's component)."""
    charts = components(at, "baton_timeline")
    assert len(charts) == 1
    return charts[0]


def figure_text(at) -> str:
    """The figure the chart is handed, as its JSON text (the browser draws it again only when
    this text changes)."""
    return json.loads(chart(at).proto.json)["fig"]


def click_chart(at, customdata):
    """What the browser sends when a point is clicked: a "click" trigger with the point's
    customdata."""
    return send_trigger(at, chart(at), "click", [{"customdata": customdata}])


def selected_heads(at):
    return [c["head"] for c in region_cards(at) if c["selected"]]


def test_label_regions_saved_exactly_and_shown_again(demo_project):
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), PAGE)
    assert [w.label for w in label_widgets(at)] == [
        "Label for region #0", "Label for region #1"]
    assert label_box(at, 0).options == ["unlabelled", "deadlock", "circular_wait", "race_condition", "benign"]
    assert stored(demo_project, item) is None
    # the list re-runs alone: each region says what it holds once changed, not the scheme's note
    assert any("each card says what it holds" in c.value for c in at.caption)
    assert [c["status"] for c in region_cards(at)] == ["", ""]

    label_box(at, 1).set_value("deadlock").run()
    assert stored(demo_project, item).value == {"contentions": {"1": "deadlock"}}
    label_box(at, 0).set_value("race_condition").run()
    ann = stored(demo_project, item)
    assert ann.value == {"contentions": {"0": "race_condition", "1": "deadlock"}}
    assert ann.status == "annotated" and ann.annotation_type == "tool_contention"
    status = [c["status"] for c in region_cards(at)]
    assert status[0].startswith("Saved · ") and status[1].startswith("Saved · ")
    assert [c["state"] for c in region_cards(at)] == ["saved", "saved"]
    assert any("2 labelled" in m.value for m in at.markdown)

    at2 = open_page(make_app(demo_project, item=item), PAGE)  # a new session (a refresh)
    assert label_box(at2, 0).value == "race_condition" and label_box(at2, 1).value == "deadlock"
    label_box(at2, 0).set_value("unlabelled").run()
    assert stored(demo_project, item).value == {"contentions": {"1": "deadlock"}}
    label_box(at2, 1).set_value("unlabelled").run()
    assert stored(demo_project, item) is None  # nothing labelled: back to "not annotated"
    assert region_cards(at2)[1]["status"].startswith("Saved · ")
    assert any("0 labelled" in m.value for m in at2.markdown)


def test_reviewed_nothing_to_flag_is_distinct(demo_project):
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), PAGE)
    assert not clean_card(at)["disabled"]
    click_clean(at)
    ann = stored(demo_project, item)
    assert ann.status == "reviewed_clean" and ann.value == {"contentions": {}}
    assert any("Reviewed, nothing to flag" in c.value for c in at.caption)
    label_box(at, 0).set_value("benign").run()
    ann = stored(demo_project, item)
    assert ann.status == "annotated" and ann.value == {"contentions": {"0": "benign"}}
    # the list re-runs alone, so the card checks what is stored when clicked: labels first
    click_clean(at)
    assert stored(demo_project, item).value == {"contentions": {"0": "benign"}}
    assert stored(demo_project, item).status == "annotated"
    assert "1 region is labelled" in clean_card(at)["error"]


def test_chart_clicks_select_regions(demo_project):
    item = "trip-planner-001"
    at = open_page(make_app(demo_project, item=item), PAGE)
    spec = json.loads(figure_text(at))
    bars, markers = spec["data"]
    assert bars["customdata"] == [f"call:{i}" for i in range(7)]
    assert markers["customdata"] == ["region:0", "region:1", "region:1"]
    assert spec["layout"]["xaxis"]["type"] == "date"
    assert selected_heads(at) == []

    before = figure_text(at)
    click_chart(at, "call:6")  # Critic's read_itinerary, in region #1
    assert len(selected_heads(at)) == 1 and "Region #1" in selected_heads(at)[0]
    # named under the chart in one line, with how it was selected (issue 27: the message once);
    # the chart itself is byte-identical, so the browser keeps its drawing
    lines = [c.value for c in at.caption if "region #1" in c.value or "region \\#1" in c.value]
    assert len(lines) == 1 and "Selected: region #1" in lines[0] and "call 6 clicked on the chart" in lines[0] \
        and "◆#1 marker is on the chart" in lines[0], lines
    assert figure_text(at) == before

    click_chart(at, "region:0")
    assert "Region #0" in selected_heads(at)[0]
    click_chart(at, "call:3")  # book_flight: touches book_hotel but no overlap
    assert "Region #0" in selected_heads(at)[0]  # selection kept
    assert any("Call 3 is in no contention region" in c.value for c in at.caption)

    # the keyboard way: "Select" in the list, then zoom to it
    select_in_list(at)
    assert "Region #1" in selected_heads(at)[0]
    assert any("Selected: region #1" in c.value for c in at.caption)
    assert figure_text(at) == before
    button(at, "Zoom to the selected region").click().run()
    lo, hi = at.slider[0].value
    assert lo <= 16 and hi >= 21 and (lo, hi) != (0.0, 21.0)
    button(at, "Show the whole run").click().run()
    assert at.slider[0].value == (0.0, 21.0)


def test_a_call_clicked_again_after_the_list_selected_another_region(demo_project):
    """The chart keeps no selection (a click is a trigger, each one reported): a second click on
    the call clicked first, after the list selected another region, selects that call's region."""
    at = open_page(make_app(demo_project, item="trip-planner-001"), PAGE)
    click_chart(at, "call:6")
    assert "Region #1" in selected_heads(at)[0]
    select_in_list(at)  # region #0, from the list
    assert "Region #0" in selected_heads(at)[0]
    click_chart(at, "call:6")  # call 6 clicked again
    assert "Region #1" in selected_heads(at)[0]
    assert any("call 6 clicked on the chart" in c.value for c in at.caption)


def test_resource_filter(demo_project):
    at = open_page(make_app(demo_project, item="trip-planner-001"), PAGE)
    at.multiselect[0].set_value(["shared_doc"]).run()
    assert [w.label for w in label_widgets(at)] == ["Label for region #1"]
    assert any("(1 of 2)" in m.value for m in at.markdown)
    spec = json.loads(figure_text(at))
    assert spec["data"][0]["customdata"] == ["call:5", "call:6"]


def many_regions_project(tmp_path, n=25):
    calls = []
    for k in range(n):
        calls += [{"agent": "A", "tool": "lock", "resource": f"r{k}", "start": 10 * k, "end": 10 * k + 5},
                  {"agent": "B", "tool": "lock", "resource": f"r{k}", "start": 10 * k + 1, "end": 10 * k + 6}]
    calls.append({"agent": "C", "tool": "late", "start": 5, "end": 1})
    run = {"id": "busy", "text": "many regions",
           "steps": [{"agent": "A", "content": "go"}, {"agent": "B", "content": "go"}], "calls": calls}
    data = tmp_path / "busy.jsonl"
    data.write_text(json.dumps(run) + "\n")
    return write_project(tmp_path, data_files=[str(data)])


def test_paged_list_follows_a_click_and_problems_are_listed(tmp_path):
    project = many_regions_project(tmp_path)
    at = open_page(make_app(project, item="busy"), PAGE)
    labels = [w.label for w in label_widgets(at)]
    assert PAGE_SIZE == 5 and labels == [f"Label for region #{i}" for i in range(5)]
    assert any("Page 1 of 5" in c.value for c in at.caption)
    assert any(t.value.startswith("call 50 (C, late), not drawn: calls[50].end") for t in at.text)

    click_chart(at, "call:45")  # region #22, on the last page
    assert any("Page 5 of 5" in c.value for c in at.caption)
    assert "Region #22" in selected_heads(at)[0]
    label_box(at, 22).set_value("circular_wait").run()
    assert stored(project, "busy").value == {"contentions": {"22": "circular_wait"}}
    button(at, "◀").click().run()
    label_box(at, 17).set_value("benign").run()
    assert stored(project, "busy").value == {"contentions": {"17": "benign", "22": "circular_wait"}}

    at2 = open_page(make_app(project, item="busy"), PAGE)
    assert label_box(at2, 0).value == "unlabelled"
    for _ in range(3):
        button(at2, "▶").click().run()
    assert label_box(at2, 17).value == "benign"


def test_run_without_calls(demo_project):
    at = open_page(make_app(demo_project, item="whowhen-hand-crafted-33"), PAGE)
    assert any("no timed tool calls" in i.value for i in at.info)
    click_clean(at)
    assert stored(demo_project, "whowhen-hand-crafted-33").status == "reviewed_clean"


def test_resource_filter_is_one_control_kept_per_item(tmp_path):
    """The filter is keyed by its place (the browser updates it on the next item instead of
    mounting a new one); what it holds is each item's own: a new item shows all resources,
    coming back shows the choice made there."""
    runs = []
    for name in ("first", "second"):
        calls = [{"agent": a, "tool": "t", "resource": r, "start": s, "end": s + 5}
                 for r, s0 in (("db", 0), ("doc", 20)) for a, s in (("A", s0), ("B", s0 + 1))]
        runs.append({"id": name, "text": name, "steps": [{"agent": "A", "content": "go"}], "calls": calls})
    data = tmp_path / "runs.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    at = open_page(make_app(write_project(tmp_path, data_files=[str(data)]), item="first"), PAGE)
    key = at.multiselect[0].key
    at.multiselect[0].set_value(["doc"]).run()
    assert [w.label for w in label_widgets(at)] == ["Label for region #1"]
    button(at, "Item ▶").click().run()
    assert at.multiselect[0].key == key and at.multiselect[0].value == []
    assert len(label_widgets(at)) == 2
    button(at, "◀ Item").click().run()
    assert at.multiselect[0].key == key and at.multiselect[0].value == ["doc"]
    assert [w.label for w in label_widgets(at)] == ["Label for region #1"]


def test_times_at_the_ends_of_the_float_range_draw_without_a_window(tmp_path):
    """Finite times so far apart that their span overflows (and an int too large for a float,
    reported as a problem) draw the whole run with a note, not a traceback."""
    import sys
    big = sys.float_info.max
    calls = [{"agent": "A", "tool": "t", "resource": "r", "start": -big, "end": big},
             {"agent": "B", "tool": "t", "resource": "r", "start": 0, "end": 1},
             {"agent": "B", "tool": "u", "resource": "s", "start": 1e300, "end": 1e301},
             {"agent": "C", "tool": "t", "resource": "r", "start": 10 ** 400, "end": 10 ** 400 + 1}]
    run = {"id": "huge", "text": "t", "steps": [{"agent": "A", "content": "x"}, {"agent": "B", "content": "y"}],
           "calls": calls}
    data = tmp_path / "huge.jsonl"
    data.write_text(json.dumps(run) + "\n")
    at = open_page(make_app(write_project(tmp_path, data_files=[str(data)]), item="huge"), PAGE)
    assert any("span more than a number can hold" in c.value for c in at.caption)
    assert not at.slider
    assert [w.label for w in label_widgets(at)] == ["Label for region #0"]
    assert "too long to count" in region_cards(at)[0]["lines"][0]
    assert any(t.value.startswith("call 3 (C, t), not drawn: calls[3].start: expected a number of seconds")
               for t in at.text)


def test_many_labels_are_a_dropdown(tmp_path):
    from app.ui.surfaces.tool_contention import RADIO_UP_TO
    from tests.conftest import ROOT
    many = [f"kind_{i}" for i in range(RADIO_UP_TO + 2)]
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "demo_runs.jsonl")],
                        schemes=[{"annotation_type": "tool_contention", "name": "contention",
                                  "contention_labels": many}])
    at = open_page(make_app(cfg, item="code-team-002"), PAGE)
    assert region_cards(at) and all(c["dropdown"] for c in region_cards(at))
    box = label_box(at, 1)
    assert box.options == ["unlabelled"] + many
    box.set_value("kind_3").run()
    assert stored(tmp_path / "project.yaml", "code-team-002").value == {"contentions": {"1": "kind_3"}}


def test_a_label_the_cards_do_not_offer_is_not_saved(demo_project):
    """The cards send what the browser says: a label not among a region's options, a region not
    on the page, or a choice made on another item's cards changes nothing, and the card still
    shows what is stored."""
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), PAGE)
    label_box(at, 1).set_value("<b>made up</b>")
    cards = components(at, "baton_region_cards")[0]
    send_trigger(at, cards, "label", {"item": item, "region": 99, "label": "deadlock"})
    send_trigger(at, cards, "label", "deadlock")
    send_trigger(at, cards, "select", {"item": item, "region": 99})
    # made on another item's cards (arriving after "Done → next"): not this item's region #1
    send_trigger(at, cards, "label", {"item": "trip-planner-001", "region": 1, "label": "deadlock"})
    send_trigger(at, cards, "select", {"item": "trip-planner-001", "region": 1})
    send_trigger(at, cards, "label", {"region": 1, "label": "deadlock"})
    assert stored(demo_project, item) is None
    assert [c["label"] for c in region_cards(at)] == ["unlabelled", "unlabelled"]
    assert selected_heads(at) == []


def test_the_next_items_opening_chart_is_handed_ahead(demo_project):
    """The page hands the browser the figure the next item opens on, exactly as that item's page
    then draws it (the browser draws it unseen and swaps it in on "Done → next": equal texts)."""
    at = open_page(make_app(demo_project, item="trip-planner-001"), PAGE)
    ahead = json.loads(chart(at).proto.json)["ahead"]
    assert ahead and ahead != figure_text(at)
    assert [t["customdata"] for t in json.loads(ahead)["data"]][0][:2] == ["call:0", "call:1"]
    button(at, "Show the whole run").click().run()  # this item's view changes; the next one's does not
    assert json.loads(chart(at).proto.json)["ahead"] == ahead
    button(at, "Done with this item → next").click().run()
    assert "code-team-002" in str(at.query_params["item"])
    assert figure_text(at) == ahead


def test_chart_views_are_kept_with_the_derivation_a_few_at_a_time(demo_project):
    from app.traces.derive import derive
    from app.ui import shell
    from app.ui.surfaces import tool_contention as tc
    from app.project.workspace import open_project
    ws = open_project(str(demo_project))
    scheme = next(s for s in ws.project.schemes if s.type == "tool_contention")
    d = derive(ws.by_id["code-team-002"].data, **shell.scheme_keys(scheme))
    first = tc._view(d, "seconds", [], (0.0, 100.0))
    assert tc._view(d, "seconds", [], (0.0, 100.0)) is first  # built once
    for hi in range(200, 800, 100):
        tc._view(d, "seconds", [], (0.0, float(hi)))
    views = shell.per_derivation(d, "tool_contention:views", dict)
    assert len(views) == tc.VIEWS_KEPT and ("seconds", (), (0.0, 700.0)) in views
    assert ("seconds", (), (0.0, 100.0)) not in views  # the oldest went first


def acks_of(at) -> dict:
    (cards,) = components(at, "baton_region_cards")
    return json.loads(cards.proto.json)["acks"]


def test_label_clicks_are_saved_only_when_newer_per_region_and_in_order(demo_project):
    """Issue 31: the page numbers its clicks; a trigger overtaken by a later one (or sent again)
    changes nothing, and an event carrying several regions' changes saves them in click order."""
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), PAGE)
    label_click(at, 0, "deadlock", seq=2)
    label_click(at, 0, "benign", seq=1)  # older than what was saved: not saved
    label_click(at, 0, "deadlock", seq=2)  # sent again: nothing more
    assert stored(demo_project, item).value == {"contentions": {"0": "deadlock"}}
    assert acks_of(at) == {"0": {"mount": "apptest", "seq": 2}}
    (cards,) = components(at, "baton_region_cards")
    holds = {c["region"]: c["holds"] for c in region_cards(at)}
    send_trigger(at, cards, "label", {"item": item, "mount": "apptest", "changes": [  # a burst, resent whole
        {"region": 1, "seq": 5, "value": ["benign"], "holds": holds[1]},
        {"region": 0, "seq": 3, "value": ["race_condition"], "holds": holds[0]},
        {"region": 1, "seq": 4, "value": ["circular_wait"], "holds": holds[1]}]})
    assert stored(demo_project, item).value == {"contentions": {"0": "race_condition", "1": "benign"}}
    assert acks_of(at) == {"0": {"mount": "apptest", "seq": 3}, "1": {"mount": "apptest", "seq": 5}}
    label_click(at, 1, "deadlock", seq=1, mount="another")  # a new mount (a refreshed page) starts again
    assert stored(demo_project, item).value == {"contentions": {"0": "race_condition", "1": "deadlock"}}
    # what the page could not have sent changes nothing: a label not offered, another item's
    # region, a region the run does not have, a bad number
    for change in ({"region": 0, "seq": 9, "value": ["<b>x</b>"], "holds": holds[0]},
                   {"region": 0, "seq": 9, "value": ["benign"], "holds": "trip-planner-001\u241f0"},
                   {"region": 7, "seq": 9, "value": ["benign"], "holds": f"{item}\u241f7"},
                   {"region": 0, "seq": True, "value": ["benign"], "holds": holds[0]},
                   {"region": 0, "seq": 9, "value": ["benign", "deadlock"], "holds": holds[0]}):
        send_trigger(at, cards, "label", {"item": item, "mount": "apptest", "changes": [change]})
    send_trigger(at, cards, "label", {"item": "trip-planner-001", "mount": "apptest", "changes": [
        {"region": 0, "seq": 10, "value": ["benign"], "holds": holds[0]}]})
    assert stored(demo_project, item).value == {"contentions": {"0": "race_condition", "1": "deadlock"}}


def test_a_failed_label_says_why_and_the_card_shows_what_is_stored(demo_project, monkeypatch):
    import errno
    item = "code-team-002"
    at = open_page(make_app(demo_project, item=item), PAGE)
    label_click(at, 0, "deadlock")
    real = AnnotationStore.save

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", "/secret/path")
    monkeypatch.setattr(AnnotationStore, "save", refuse)
    label_click(at, 0, "benign")
    card = region_cards(at)[0]
    assert card["label"] == "deadlock" and card["state"] == "failed"
    assert card["status"].startswith("Not saved: ") and "not writable" in card["status"].lower()
    assert "/secret" not in card["status"] and card["status"].endswith("Showing what is stored.")
    monkeypatch.setattr(AnnotationStore, "save", real)
    label_click(at, 0, "benign")  # writable again: saved, and said so
    assert stored(demo_project, item).value == {"contentions": {"0": "benign"}}
    assert region_cards(at)[0]["state"] == "saved" and region_cards(at)[0]["status"].startswith("Saved · ")
