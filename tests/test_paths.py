"""Path tricks through the app: item ids and annotator names such as `../../x`, absolute
paths, NUL bytes and very long names, annotated through the whole app (AppTest), never make
Baton write outside its annotation folder, and read back under their exact names. A trace
whose id is a path does not make a reader open files outside the data folder.
(The store's own rules are tested in test_storage.py.)"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from app.traces import readers
from app.store.storage import AnnotationStore
from app.ui.shell import clean_name
from app.ui.state import widget_key
from tests.conftest import ROOT, click_card, instant_card, make_app, shared_dataset, write_project

HOSTILE = ["../../x", "../../../../../../tmp/baton-escape", "/tmp/baton-abs", "/etc/passwd", "..", ".",
           "a\x00b", "\x00", "x" * 5000, "a/b\\c", "~", "~root", "con", "nul.txt", ".hidden", "_hidden",
           "q.parquet", " spaced ", "日本語/../x", "%2e%2e%2fx", "$(touch /tmp/baton-pwn)", "a\nb"]
SCHEMES = [{"annotation_type": "radio", "name": "outcome", "labels": ["success", "failure"]}]


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def _nothing_outside(tmp_path: Path, before: set[Path]) -> None:
    out = tmp_path / "annotations"
    new = _files(tmp_path) - before
    assert new and all(p.is_relative_to(out) for p in new), sorted(map(str, new - _files(out)))
    for p in ["/tmp/baton-escape", "/tmp/baton-abs", "/tmp/baton-pwn", tmp_path.parent / "x", ROOT / "x",
              ROOT.parent / "x"]:
        assert not os.path.exists(p), p


def test_hostile_item_ids_annotated_through_the_app(tmp_path):
    data = tmp_path / "runs.jsonl"
    data.write_text("\n".join(json.dumps({"id": i, "text": "t", "steps": [{"agent": "A", "content": "x"}]})
                              for i in HOSTILE))
    cfg = write_project(tmp_path, schemes=SCHEMES, data_files=[str(data)])
    before = _files(tmp_path)
    at = make_app(cfg, item=HOSTILE[1])  # the first item through the URL, the rest through the picker
    at.run()
    at.switch_page("pages/radio.py")
    at.run()
    for item in HOSTILE[1:] + HOSTILE[:1]:
        if item != HOSTILE[1]:
            at.selectbox(key=widget_key("nav", "item")).set_value(item).run()
        assert not at.exception, (item, [e.value for e in at.exception])
        assert at.query_params["item"] in (item, [item])  # the page is on that item, not the first one
        assert instant_card(at, "outcome")["stored"] == []
        click_card(at, "outcome", ["failure"])
        assert not at.exception
    _nothing_outside(tmp_path, before)
    store = AnnotationStore(tmp_path / "annotations")
    got = {a.item_id for a in store.for_annotator("alice")}
    assert got == set(HOSTILE) and store.problems == []
    assert set(pd.read_parquet(tmp_path / "annotations")["item_id"]) == set(HOSTILE)


@pytest.mark.parametrize("name", HOSTILE[:12] + ["a" * 1000])
def test_hostile_annotator_names_from_the_url(tmp_path, name):
    cfg = write_project(tmp_path, schemes=SCHEMES, data_files=[str(ROOT / "data" / "demo_runs.jsonl")])
    before = _files(tmp_path)
    at = make_app(cfg, annotator=name)
    at.run()
    who = clean_name(name)
    if who is None:  # blank after trimming: not signed in
        assert at.text_input[0].label == "Your annotator name"
        return
    at.switch_page("pages/radio.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    click_card(at, "outcome", ["success"])
    _nothing_outside(tmp_path, before)
    store = AnnotationStore(tmp_path / "annotations")
    assert store.load("trip-planner-001", who, "outcome").value == {"success": "true"}
    assert store.annotators() == [who] and len(who) <= 64


def test_trace_id_cannot_point_the_gold_lookup_outside(tmp_path):
    """TRAIL gold is found as gold/<trace_id>.json: a trace id like ../../secret used to read
    any .json file the server could reach and show it as the run's gold."""
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"trace_id": "x", "errors": [{"category": "LEAKED", "location": "s",
                                                               "description": "outside the data folder"}]}))
    data = tmp_path / "project" / "data"
    (data / "gold").mkdir(parents=True)
    trace = json.loads(shared_dataset("trail", "gaia", "512475a321c616e45337da3575f6a185.json").read_text())
    for tid in ["../../../secret", str(secret.with_suffix("")), "a\x00b", "x" * 5000, ".."]:
        trace["trace_id"] = tid
        (data / "t.json").write_text(json.dumps(trace))
        items, problems = readers.read_file(data / "t.json")
        assert [it.id for it in items] == [tid]
        assert "LEAKED" not in json.dumps(items[0].data) and items[0].gold is None
