"""Issue 30, point 3: values that do not fit their scheme or the trace never count.

`import` refuses them with file, line and reason and says how many; `--keep-invalid` stores
them with the status "invalid", which the summary never counts; a seconds_spent that is no time
spent is refused; the summary leaves out (and lists) stored rows that do not validate, as a
hand-edited store holds them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.__main__ import main
from app.store.storage import AnnotationStore
from tests.summary_data import CODE, OLDER, attribution, demo

HANDOFF0 = {"index": 0, "step": 1, "from": "Manager", "to": "Coder"}
# (scheme, value as a file would hold it, words of the reason)
REFUSED = [
    ("outcome", "maybe", '"maybe" is not one of success, partial, failure'),
    ("outcome", {"success": "true", "failure": "true"}, "2 labels chosen"),
    ("attribution", attribution("Mallory", 1), '"Mallory" is not an agent of this run'),
    *[("attribution", attribution("Coder", s), "decisive step") for s in (9999, -3, "abc", 1.5, True)],
    *[("scorecard", {"agents": {"Coder": {"contribution": s}}}, "score") for s in (99, -1, "high")],
    ("handoffs", [{**HANDOFF0, "index": 42, "flags": ["garbling"], "quality": 3}], "42 is not one of this run's"),
    ("handoffs", [{**HANDOFF0, "flags": [], "quality": 42}], "quality: 42 is outside 1–5"),
    ("handoffs", [{**HANDOFF0, "flags": ["rudeness"], "quality": None}], '"rudeness" is not one of'),
    ("emergent", {"telepathy": {"turns": [1], "note": ""}}, '"telepathy" is not one of'),
    ("tool_review", [{"index": 0, "step": 1, "tool": "run_tests", "verdict": "splendid", "notes": ""}],
     '"splendid" is not one of'),
    ("mast_steps", {"steps": [{"step_index": 2, "agent": "Coder", "errors": [{"type": "Gossip", "subtype": None}]}]},
     "is not a MAST mode"),
    ("contention", {"contentions": {"7": "deadlock"}}, "7 is not one of this run's 2 contention regions"),
    ("confidence", 0, "0 is outside 1–5"), ("confidence", 99, "99 is outside 1–5"),
    ("symptoms", ["loop", "sneezing"], '"sneezing" is not one of'),
]
FITS = [("outcome", "failure"), ("attribution", attribution("Coder", 4)), ("confidence", 3)]


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def rows_of(cases, who: str = "mallory") -> list[dict]:
    # one annotator per row: each row its own (item, annotator, scheme)
    return [{"item_id": CODE, "annotator": f"{who}{n}", "scheme": scheme, "value": value}
            for n, (scheme, value, *_says) in enumerate(cases)]


def summary_json(cfg: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["summary", str(cfg), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_import_refuses_each_misfit_with_file_line_and_reason(tmp_path, capsys):
    cfg, _save = demo(tmp_path)
    src = write_rows(tmp_path / "in.jsonl", rows_of(REFUSED) + rows_of([(s, v) for s, v in FITS], who="ann"))
    code = main(["import", str(cfg), str(src)])
    out, err = capsys.readouterr()
    assert code != 0
    shown = 20  # (the command lists the first 20 problems, then how many more)
    assert f"... and {len(REFUSED) - shown} more problem(s)" in err
    for line, (_scheme, _value, says) in list(enumerate(REFUSED, 1))[:shown]:
        found = [x for x in err.splitlines() if x.startswith(f"{src}: line {line}: refused: ")]
        assert found and says in found[0], (line, says, found)
    assert f"imported {len(FITS)}," in out and f"refused {len(REFUSED)} that do not fit" in out, out
    stored = AnnotationStore(tmp_path / "annotations").to_table().to_pylist()
    assert sorted(r["annotator"] for r in stored) == ["ann0", "ann1", "ann2"]
    from app.project.workspace import open_project
    from app.store.importer import import_file
    result = import_file(open_project(cfg), src)  # every reason, the last line's too
    assert result.refused == len(REFUSED) and REFUSED[-1][2] in result.problems[len(REFUSED) - 1]
    s = summary_json(cfg, capsys)
    assert s["counts"]["judgements"] == len(FITS) and s["invalid"] == {"count": 0, "rows": []}


def test_keep_invalid_stores_them_marked_and_the_summary_never_counts_them(tmp_path, capsys):
    cfg, _save = demo(tmp_path)
    src = write_rows(tmp_path / "in.jsonl", rows_of(REFUSED))
    before = summary_json(cfg, capsys)
    assert main(["import", str(cfg), str(src), "--keep-invalid"]) == 0
    out = capsys.readouterr().out
    assert f"refused {len(REFUSED)}" in out and f"{len(REFUSED)} stored marked invalid" in out, out
    stored = AnnotationStore(tmp_path / "annotations").to_table().to_pylist()
    assert len(stored) == len(REFUSED) and {r["status"] for r in stored} == {"invalid"}
    after = summary_json(cfg, capsys)
    assert after["invalid"]["count"] == len(REFUSED)
    assert {r["scheme"] for r in after["invalid"]["rows"]} == {s for s, *_ in REFUSED}
    del after["invalid"], before["invalid"]
    assert after == before  # nothing of them is counted anywhere: progress, rollups, agreement


@pytest.mark.parametrize("seconds", [1e308, -5, float("nan"), "abc", True])
def test_import_refuses_a_seconds_spent_that_is_no_time_spent(tmp_path, capsys, seconds):
    cfg, _save = demo(tmp_path)
    src = tmp_path / "in.jsonl"
    good = {"item_id": CODE, "annotator": "ann", "scheme": "outcome", "value": "failure", "seconds_spent": 12.5}
    src.write_text(json.dumps(good) + "\n" + json.dumps({**good, "annotator": "bob", "seconds_spent": seconds})
                   + "\n")  # (json writes NaN as NaN, and reads it)
    main(["import", str(cfg), str(src)])
    err = capsys.readouterr().err
    assert f"{src}: line 2: seconds_spent" in err, err
    stored = AnnotationStore(tmp_path / "annotations").to_table().to_pylist()
    assert [(r["annotator"], r["seconds_spent"]) for r in stored] == [("ann", 12.5)]


def test_the_summary_leaves_out_and_lists_hand_edited_rows_that_do_not_fit(tmp_path, capsys):
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "outcome", {"failure": "true"})
    save(CODE, "bob", "outcome", {"maybe": "true"})  # a label the scheme does not have
    save(CODE, "carol", "outcome", {"success": "true", "failure": "true"})  # two at once
    save(CODE, "dave", "attribution", attribution("Mallory", 9999))  # on the trace as it is now
    save(CODE, "erin", "attribution", attribution("Ghost", 12), trace_hash=OLDER)  # made on other data: stale
    s = summary_json(cfg, capsys)
    assert s["invalid"]["count"] == 3
    listed = {r["annotator"]: r for r in s["invalid"]["rows"]}
    assert set(listed) == {"bob", "carol", "dave"}
    bob = listed["bob"]
    assert bob["item_id"] == CODE and bob["scheme"] == "outcome" and '"maybe" is not one of' in bob["reasons"][0]
    assert Path(bob["file"]).is_file() and Path(bob["file"]).is_relative_to(tmp_path / "annotations")
    assert any("decisive step: 9999 is not a step" in r for r in listed["dave"]["reasons"])
    labels = {r["label"]: r["count"] for r in s["choices"]["outcome"]["labels"]}
    assert labels == {"failure": 1}  # neither "maybe" nor carol's two labels counted
    assert s["counts"]["judgements"] == 2  # alice's choice, erin's stale attribution
    assert [b["agent"] for b in s["attribution"]["attribution"]["blame"]] == ["Ghost"]
