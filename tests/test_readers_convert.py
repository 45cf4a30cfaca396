"""`python -m app convert`: reading the written items gives the same derivations (and gold) as
reading the source; `check` reports the conversation savings and lists what it skipped."""
import json
import subprocess
import sys

import pytest

from app.__main__ import main
from app.traces.derive import derive, to_json
from app.traces.readers import attach_golds, data_paths, read_file, read_path
from tests.conftest import ROOT, TEST_DATA, shared_dataset, write_project
from tests.test_readers_formats import LANGFUSE

# each a folder of ../shared/datasets, or in a bare clone the repository's copies of some of its files
SOURCES = {
    "whowhen": ROOT / "data" / "whowhen",
    "trail": ROOT / "data" / "trail",
    "otel": TEST_DATA / "otel",
    "mast": TEST_DATA / "mast",
}


def _read(paths):
    items, golds = [], []
    for path in paths:
        for p in data_paths(path):
            got, _, gs = read_path(p)
            items += got
            golds += gs
    attach_golds(items, golds, "")
    return items


def _fingerprint(items):
    return {it.id: (to_json(it.id, derive(it.data)), it.gold, it.text, it.trace_hash) for it in items}


def _synthetic(tmp_path):
    (tmp_path / "lf.json").write_text(json.dumps(LANGFUSE))
    (tmp_path / "chat.jsonl").write_text(json.dumps({"id": "c", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "name": "bot", "tool_calls": [
            {"id": "k", "type": "function", "function": {"name": "f", "arguments": "{}"}}], "content": None},
        {"role": "tool", "tool_call_id": "k", "content": "r"}]}) + "\n")
    run = json.loads(shared_dataset("whowhen", "algorithm-generated", "45.json").read_text())
    run["failures"] = [{"failure_id": 1, "step_number": 2, "failure_category": "X"}]
    run["root_cause_failure_id"] = 1
    (tmp_path / "rx.json").write_text(json.dumps(run))
    return [tmp_path / "lf.json", tmp_path / "chat.jsonl", tmp_path / "rx.json"]


@pytest.mark.parametrize("name", [*SOURCES, "synthetic"])
def test_convert_round_trip(tmp_path, name, capsys):
    src_dir = tmp_path / "src"
    src_dir.mkdir()
    paths = _synthetic(src_dir) if name == "synthetic" else [shared_dataset(name, stand_in=SOURCES[name])]
    out = tmp_path / "items.jsonl"
    rc = main(["convert", *map(str, paths), "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    source = _fingerprint(_read(paths))
    converted, problems = read_file(out, data_format="potato")
    assert problems == []
    assert _fingerprint(converted) == source
    assert len(source) == sum(1 for line in out.read_text().splitlines() if line.strip())


def test_convert_command_line_and_errors(tmp_path):
    out = tmp_path / "o.jsonl"
    src = shared_dataset("trail", "gaia", "512475a321c616e45337da3575f6a185.json")
    r = subprocess.run([sys.executable, "-m", "app", "convert", "--from", "trail", str(src), "-o", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "1 item(s) written" in r.stdout and json.loads(out.read_text())["id"] == src.stem
    bad = tmp_path / "bad.json"
    bad.write_text('{"trace_id": "x", "spans": [{"span_id": "a", "child_spans": [')
    assert main(["convert", str(bad), "-o", str(out)]) == 1  # read what it could, said so
    assert main(["convert", str(tmp_path / "nope.json"), "-o", str(out)]) == 2


def test_check_reports_savings():
    r = subprocess.run([sys.executable, "-m", "app", "check", "configs/demo.yaml"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "items: 8" in r.stdout and "manager, search_agent" in r.stdout
    line = next(x for x in r.stdout.splitlines() if "512475a321c616e45337da3575f6a185:" in x)
    assert "saved" in line and "threads" in line


def test_check_lists_what_it_skipped_and_its_notes(tmp_path):
    data = tmp_path / "t.json"
    t = json.loads(shared_dataset("trail", "swe-bench", "72822db6e120878d916b515c2501246b.json").read_text())
    t["spans"].append(["junk"])
    data.write_text(json.dumps(t))
    cfg = write_project(tmp_path, data_files=[str(data)])
    r = subprocess.run([sys.executable, "-m", "app", "check", str(cfg)], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1
    assert "skipped or misread (1):" in r.stderr and "spans[7]: expected a span object, got list; skipped" in r.stderr
    assert "notes (3; read in full):" in r.stdout and "appears twice, identical; read once" in r.stdout
