"""Concurrency: eight annotators saving at once through the app, to the same items.

One launcher process loads the app once (AppTest on the text page), then forks eight
annotator processes that start together and each save through the app's own save path:
type into a text scheme, rerun, check the page says "Saved". All of them work on the same
items and the same four schemes. Afterwards every annotation is there, holds the last
value its own annotator typed, and none carries another annotator's text. The quick run
saves 8 times per annotator on one item; `make test-long` saves 300 times each on three
items (2,400 saves).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from app.store.storage import AnnotationStore
from tests.conftest import ROOT, write_project

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

SCHEMES = [{"annotation_type": "text", "name": f"note{i}"} for i in range(4)]
ITEMS = ["trip-planner-001", "code-team-002", "research-003"]
ANNOTATORS = ["ann0", "Ann One", "ann/2", "ánn-3", "../../ann4", "ann 5 " + "x" * 50, "ANN6", "ann.7"]

LAUNCHER = textwrap.dedent(r"""
    import json, os, sys, time, traceback
    root, cfg, n = sys.argv[1], sys.argv[2], int(sys.argv[3])  # n saves per annotator
    ITEMS, ANNOTATORS, NS = json.loads(sys.argv[4]), json.loads(sys.argv[5]), int(sys.argv[6])
    sys.path.insert(0, root)
    os.environ["BATON_CONFIG"] = cfg
    from tests.apptest_writer import open_text_page as _open, type_note
    results = sys.argv[7]  # one file per annotator: eight children sharing one pipe would
                           # interleave result lines longer than the pipe's atomic write size

    def open_text_page(who, item):
        return _open(root, who, item, timeout=120)

    def report(i, obj):
        with open(os.path.join(results, f"{i}.json"), "w") as fh:
            json.dump(obj, fh)

    open_text_page("warm-up", ITEMS[0])
    go_r, go_w = os.pipe()
    pids = []
    for i, who in enumerate(ANNOTATORS):
        pid = os.fork()
        if pid == 0:
            try:
                pages = [open_text_page(who, item) for item in ITEMS]
                os.read(go_r, 1)  # everyone starts together
                last, t0 = {}, time.perf_counter()
                for j in range(n):
                    at, k = pages[j % len(ITEMS)], (j // len(ITEMS)) % NS
                    text = f"{who}|{j}|" + "y" * (j * 31 % 700)
                    card = type_note(at, k, text)
                    assert card["error"] is None and card["saved_text"].startswith("Saved"), card
                    last[f"{ITEMS[j % len(ITEMS)]} note{k}"] = text
                report(i, {"who": who, "last": last, "seconds": time.perf_counter() - t0})
                os._exit(0)
            except BaseException:
                report(i, {"who": who, "error": traceback.format_exc()})
                os._exit(3)
        pids.append(pid)
    os.write(go_w, b"g" * len(pids))
    codes = [os.waitpid(pid, 0)[1] for pid in pids]
    report("exit", {"exit": codes})
""")


def run_annotators(tmp_path, saves_each: int, items: list[str]) -> str:
    cfg = write_project(tmp_path, schemes=SCHEMES, data_files=[str(ROOT / "data" / "demo_runs.jsonl")])
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(ROOT), str(cfg), str(saves_each), json.dumps(items),
         json.dumps(ANNOTATORS), str(len(SCHEMES)), str(results_dir)], cwd=ROOT, capture_output=True,
        text=True, timeout=120 + saves_each * 4, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    names = [f"{i}.json" for i in range(len(ANNOTATORS))] + ["exit.json"]
    results = [json.loads((results_dir / n).read_text()) for n in names if (results_dir / n).exists()]
    errors = [r["error"] for r in results if "error" in r]
    assert not errors, errors[0]
    assert results[-1] == {"exit": [0] * len(ANNOTATORS)}, out.stderr[-3000:]
    finished = {r["who"]: r for r in results if "last" in r}
    assert set(finished) == set(ANNOTATORS)

    store = AnnotationStore(tmp_path / "annotations")
    rows = store.all()
    assert store.problems == []
    keys = min(saves_each, len(items) * len(SCHEMES))
    assert len(rows) == len(ANNOTATORS) * keys == len(pd.read_parquet(tmp_path / "annotations"))
    for who, r in finished.items():
        assert len(r["last"]) == keys
        for key, text in r["last"].items():
            item, scheme = key.split(" ")
            got = store.load(item, who, scheme)
            assert got is not None, (who, key)
            assert got.value == {"text_box": text}, (who, key)  # its own last value: nobody else's
    for a in rows:
        assert a.value["text_box"].startswith(a.annotator + "|")
    slowest = max(r["seconds"] for r in finished.values())
    return (f"{len(ANNOTATORS)} annotators x {saves_each} saves through the app at once on {len(items)} shared "
            f"items: {len(rows)} annotations, all present, each its own annotator's last value "
            f"(slowest annotator {slowest:.1f} s)")


def test_eight_annotators_at_once(tmp_path):
    print("\n" + run_annotators(tmp_path, saves_each=8, items=ITEMS[:1]))


@pytest.mark.long
def test_eight_annotators_at_once_long(tmp_path):
    print("\n" + run_annotators(tmp_path, saves_each=300, items=ITEMS))
