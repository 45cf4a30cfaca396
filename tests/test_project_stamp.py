"""served_project._stamp: what tells the app that the project's files changed, looked at every few
seconds; the config is parsed again only when it changed."""
import json

from app.ui import served_project, shell

from tests.conftest import write_project


def _run(i: int) -> str:
    return json.dumps({"id": f"r{i}", "text": "t", "steps": [{"agent": "A", "content": "x"}]}) + "\n"


def test_the_config_is_parsed_again_only_when_it_changed(tmp_path, monkeypatch):
    data = tmp_path / "runs"
    data.mkdir()
    (data / "a.jsonl").write_text(_run(0))
    cfg = write_project(tmp_path, data_files=[str(data)])
    parsed = []
    real = served_project.load_config
    monkeypatch.setattr(served_project, "load_config", lambda p: (parsed.append(p), real(p))[1])
    monkeypatch.setattr(served_project, "RECHECK", 0.0)  # look every time

    first = served_project._stamp(str(cfg))
    assert served_project._stamp(str(cfg)) == first and len(parsed) == 1
    assert [f.rsplit("/", 1)[-1] for f, _ in first] == ["project.yaml", "a.jsonl"]

    (data / "b.jsonl").write_text(_run(1))  # a new trace in the data folder: seen without a parse
    second = served_project._stamp(str(cfg))
    assert second != first and [f.rsplit("/", 1)[-1] for f, _ in second][-1] == "b.jsonl"
    assert len(parsed) == 1

    cfg.write_text(cfg.read_text() + "\n# edited\n")  # the config itself: parsed again
    assert served_project._stamp(str(cfg)) != second and len(parsed) == 2

    cfg.unlink()  # gone: the stamp says so, and the page shows the config's error
    gone = served_project._stamp(str(cfg))
    assert gone[0][1] is None and len(parsed) == 3


def test_a_recent_look_is_reused(tmp_path, monkeypatch):
    cfg = write_project(tmp_path)
    monkeypatch.setattr(served_project, "RECHECK", 3600.0)
    first = served_project._stamp(str(cfg))
    cfg.write_text(cfg.read_text() + "\n# edited\n")
    assert served_project._stamp(str(cfg)) is first  # looked again only after RECHECK seconds


def test_a_project_waiting_for_its_data_recovers(tmp_path, monkeypatch):
    """A config naming a folder not there yet does not load; once the folder appears, the next
    look sees it (the failed parse is not kept)."""
    monkeypatch.setattr(served_project, "RECHECK", 0.0)
    data = tmp_path / "runs"
    cfg = write_project(tmp_path, data_files=[str(data)])
    before = served_project._stamp(str(cfg))
    data.mkdir()
    (data / "a.jsonl").write_text(_run(0))
    after = served_project._stamp(str(cfg))
    assert after != before and after[-1][0].endswith("a.jsonl")


def test_a_retargeted_data_link_and_an_edit_keeping_the_time_are_changes(tmp_path, monkeypatch):
    import os
    monkeypatch.setattr(served_project, "RECHECK", 0.0)
    for name, i in (("A", 0), ("B", 1)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.jsonl").write_text(_run(i))
    link = tmp_path / "current"
    link.symlink_to(tmp_path / "A", target_is_directory=True)
    cfg = write_project(tmp_path, data_files=[str(link)])
    first = served_project._stamp(str(cfg))
    assert any("/A/" in f for f, _ in first)
    tmp = tmp_path / "next"
    tmp.symlink_to(tmp_path / "B", target_is_directory=True)
    os.replace(tmp, link)  # the link now points at other data
    second = served_project._stamp(str(cfg))
    assert any("/B/" in f for f, _ in second) and second != first

    st_ = cfg.stat()
    cfg.write_text(cfg.read_text() + "\n# edited, then its time put back\n")
    os.utime(cfg, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    assert served_project._stamp(str(cfg)) != second


def test_an_edited_config_is_read_again_by_the_app(tmp_path, monkeypatch):
    """End to end: the workspace cache is keyed by the stamp, so an edit shows on the next run."""
    import yaml

    from tests.conftest import make_app, open_page
    monkeypatch.setattr(served_project, "RECHECK", 0.0)
    cfg = write_project(tmp_path)
    at = open_page(make_app(cfg, item="trip-planner-001"), "emergent_behavior")
    key = "w:" + "\u241f".join(["emergent_behavior", "emergent", "shown"])
    assert "role\\_swap" in at.radio(key=key).options
    raw = yaml.safe_load(cfg.read_text())
    for s in raw["annotation_schemes"]:
        if s["annotation_type"] == "emergent_behavior":
            s["behaviors"] = ["only_this"]
    cfg.write_text(yaml.safe_dump(raw, sort_keys=False))
    at.run()
    assert at.radio(key=key).options == ["only\\_this"] and not at.exception
    assert shell.project_stamp() != "" and len(shell.project_stamp()) == 32
