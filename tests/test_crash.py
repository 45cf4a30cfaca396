"""Crashes: a writer killed with SIGKILL at random moments loses nothing it reported as saved.

Two writers, each run as forked children of one launcher process (which has imported the
app once, so a trial costs a fork, not an interpreter start):

- the app's save path: the whole app in AppTest on the text page, an annotator typing into
  the project's text schemes; after each rerun the child checks that the page's note for
  that scheme says "Saved" (the note is read back from disk) and only then reports the save;
- `python -m app import`: the command's `main(["import", ...])`, importing a file that
  rewrites every annotation with a new generation (`--overwrite`).

Half of the kills land right after a save began (`AnnotationStore.save` is wrapped to say
so), the rest at a random time. Afterwards: every reported save is on disk (or a later one
of the same key), every file is a readable one-row Parquet file holding a whole value, the
folder reads as one dataset, and the temporary files of interrupted saves are invisible to
readers and removable. The quick run does a few trials; `make test-long` does 200 of each.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from app.store import index as store_index
from app.store import lock as save_lock
from app.store.storage import AnnotationStore
from tests.conftest import ROOT, write_project

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")

SCHEMES = [{"annotation_type": "text", "name": f"note{i}"} for i in range(4)]
ITEMS = ["trip-planner-001", "code-team-002", "research-003"]  # data/demo_runs.jsonl
ANNOTATORS = ["alice", "Bob Ü", "../../evil", "c" * 64]


def pad(n: int) -> str:
    return "x" * (n * 7919 % 4000)


def text_of(n: int) -> str:
    return f"{n}|{pad(n)}"


# The launcher: imports the app once, then per stdin line forks a child that saves until
# killed. Children write "begin" when a store save starts and "saved ..." when it is
# reported; the launcher writes "dead" once the child is reaped, after all of its output.
LAUNCHER = textwrap.dedent(r"""
    import json, os, sys, traceback
    root, cfg, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, root)
    os.environ["BATON_CONFIG"] = cfg
    from app.store.storage import AnnotationStore
    ITEMS, ANNOTATORS, NS = json.loads(sys.argv[4]), json.loads(sys.argv[5]), int(sys.argv[6])

    def say(line):
        os.write(1, (line + "\n").encode())

    if mode == "app":
        from tests.apptest_writer import open_text_page as _open, type_note

        def open_text_page(who, item):
            return _open(root, who, item, timeout=60)

        open_text_page("warm-up", ITEMS[0])  # imports, project and caches loaded once

        def child(trial, n):
            who, item = ANNOTATORS[trial % len(ANNOTATORS)], ITEMS[trial % len(ITEMS)]
            at = open_text_page(who, item)
            while True:
                k = n % NS
                card = type_note(at, k, f"{n}|" + "x" * (n * 7919 % 4000))
                assert card["error"] is None and card["saved_text"].startswith("Saved"), card
                say(f"saved {trial % len(ANNOTATORS)} {trial % len(ITEMS)} {k} {n}")
                n += 1
    else:
        from app.__main__ import main

        def child(trial, n):
            code = main(["import", cfg, os.path.join(os.path.dirname(cfg), f"gen{n}.jsonl"), "--overwrite"])
            say(f"finished {code}")
            sys.stdout.flush()
            os._exit(0)

    real_save = AnnotationStore.save

    def traced(self, ann):
        say("begin")
        return real_save(self, ann)

    AnnotationStore.save = traced
    say("ready")
    for line in sys.stdin:
        trial, n = map(int, line.split())
        pid = os.fork()
        if pid == 0:
            try:
                child(trial, n)
            except BaseException:
                say("error " + json.dumps(traceback.format_exc()))
            os._exit(3)
        say(f"pid {pid}")
        os.waitpid(pid, 0)
        say("dead")
""")


class Launcher:
    def __init__(self, cfg: Path, mode: str, deadline: float):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, str(ROOT), str(cfg), mode, json.dumps(ITEMS), json.dumps(ANNOTATORS),
             str(len(SCHEMES))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)))
        # a hung child must fail the test, not hang it
        self.watchdog = threading.Timer(deadline, self.proc.kill)
        self.watchdog.start()
        assert self.line() == "ready"

    def line(self) -> str:
        line = self.proc.stdout.readline()
        assert line, "the launcher died"
        assert not line.startswith("error "), json.loads(line[6:])
        return line.rstrip("\n")

    def trial(self, trial: int, n: int, rng: random.Random, wait_for: str, longest: float) -> list[str]:
        """Start a child, let it report at least one `wait_for` line, kill it at a random moment.
        Returns every line the child wrote (the partial last line of a killed write is dropped)."""
        self.proc.stdin.write(f"{trial} {n}\n")
        self.proc.stdin.flush()
        pid = int(self.line().split()[1])
        lines = []
        while not (lines and lines[-1].startswith(wait_for)):
            lines.append(self.line())
            if lines[-1].startswith("finished"):
                break
        if rng.random() < 0.5:  # right after a save began: often inside the write or the rename
            while not lines[-1].startswith(("begin", "finished")):
                lines.append(self.line())
            time.sleep(rng.uniform(0, 0.004))
        else:
            time.sleep(rng.uniform(0, longest))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it finished first
        while (line := self.line()) != "dead":
            lines.append(line)
        return lines

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(30)
        self.watchdog.cancel()
        assert self.proc.returncode == 0


def check_store(root: Path) -> tuple[AnnotationStore, list, int]:
    """Every data file is whole; the folder reads as one dataset; leftovers are only temp files
    (and row indexes)."""
    store = AnnotationStore(root)
    rows = store.all()
    assert store.problems == [], store.problems
    files = [p for p in root.rglob("*.parquet")]
    for p in files:
        assert pq.read_table(p).num_rows == 1, p
    assert len(pd.read_parquet(root)) == len(files) == len(rows)
    # besides key files: the annotator folders' row indexes (app/store/index.py) and save locks
    # (app/store/lock.py), and temp files
    temps = [p for p in root.rglob("*") if p.is_file() and p.suffix != ".parquet"
             and p.name not in (store_index.NAME, save_lock.LOCK_NAME)]
    assert all(p.name.startswith(".tmp-") for p in temps), temps
    return store, rows, len(temps)


def run_app_crashes(tmp_path: Path, trials: int, seed: int) -> str:
    cfg = write_project(tmp_path, schemes=SCHEMES, data_files=[str(ROOT / "data" / "demo_runs.jsonl")])
    rng = random.Random(seed)
    reported: dict[tuple[int, int, int], int] = {}
    in_flight = 0
    launcher = Launcher(cfg, "app", deadline=60 + 5 * trials)
    try:
        for trial in range(trials):
            lines = launcher.trial(trial, trial * 1_000_000, rng, wait_for="saved", longest=0.25)
            in_flight += lines[-1] == "begin"  # killed between a save's start and its report
            for line in lines:
                if line.startswith("saved "):
                    a, i, k, n = map(int, line.split()[1:])
                    reported[(a, i, k)] = max(reported.get((a, i, k), -1), n)
    finally:
        launcher.close()
    store, rows, temps = check_store(tmp_path / "annotations")
    for (a, i, k), n in reported.items():
        got = store.load(ITEMS[i], ANNOTATORS[a], f"note{k}")
        assert got is not None, f"a reported save is missing: {ANNOTATORS[a]}, {ITEMS[i]}, note{k}, n={n}"
        m = int(got.value["text_box"].split("|")[0])
        assert m >= n and m % len(SCHEMES) == k, (got.value["text_box"][:30], n)
        assert got.value == {"text_box": text_of(m)}  # the whole value, not a part of it
    removed = store.remove_stale_temp_files(older_than_seconds=-1)
    assert removed == temps
    check_store(tmp_path / "annotations")
    return (f"app save path: {trials} SIGKILLs, {sum(1 for _ in reported)} keys with {len(rows)} rows, "
            f"{in_flight} kills between a save's start and its report, {temps} temp files left by interrupted writes "
            f"(invisible to readers, removed), 0 reported saves lost, 0 unreadable files")


def _import_file(cfg: Path, gen: int) -> Path:
    rows = [{"item_id": it, "annotator": who, "scheme": s["name"],
             "value": {"text_box": f"gen {gen} {it} {who} {s['name']} " + "y" * (gen % 500)}}
            for it in ITEMS for who in ANNOTATORS + [f"imp{j}" for j in range(8)] for s in SCHEMES]
    path = cfg.parent / f"gen{gen}.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return path


def run_import_crashes(tmp_path: Path, trials: int, seed: int) -> str:
    cfg = write_project(tmp_path, schemes=SCHEMES, data_files=[str(ROOT / "data" / "demo_runs.jsonl")])
    root = tmp_path / "annotations"
    rng = random.Random(seed)
    # one import to the end through the real command line first: it reports what it imported
    first = _import_file(cfg, 0)
    out = subprocess.run([sys.executable, "-m", "app", "import", str(cfg), str(first)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    n_rows = len(first.read_text().splitlines())
    assert f"imported {n_rows}," in out.stdout, out.stdout
    completed = 0
    launcher = Launcher(cfg, "import", deadline=60 + 10 * trials)
    try:
        for gen in range(1, trials + 1):
            _import_file(cfg, gen)
            lines = launcher.trial(gen, gen, rng, wait_for="begin", longest=1.5)
            finished = any(line.startswith("finished") for line in lines)
            completed += finished
            store, rows, _ = check_store(root)
            assert len(rows) == n_rows  # every key still there: a row is replaced, never removed
            gens = set()
            for a in rows:  # each row is one whole generation's value for its own key
                g = int(a.value["text_box"].split()[1])
                assert a.value["text_box"] == (f"gen {g} {a.item_id} {a.annotator} {a.scheme} " + "y" * (g % 500))
                assert g <= gen
                gens.add(g)
            if finished:  # it said it imported: all of it is there
                assert gens == {gen}, gens
    finally:
        launcher.close()
    _, _, temps = check_store(root)
    return (f"python -m app import: {trials} SIGKILLs of a {n_rows}-row --overwrite import, {completed} finished "
            f"before the kill, {trials - completed} killed mid-import, {temps} temp files left (invisible), "
            "0 rows lost or half-written")


def test_killed_app_saves_lose_nothing_reported(tmp_path):
    print("\n" + run_app_crashes(tmp_path, trials=3, seed=1))


@pytest.mark.long
def test_killed_app_saves_lose_nothing_reported_long(tmp_path):
    print("\n" + run_app_crashes(tmp_path, trials=200, seed=2))


def test_killed_import_loses_nothing(tmp_path):
    print("\n" + run_import_crashes(tmp_path, trials=2, seed=3))


@pytest.mark.long
def test_killed_import_loses_nothing_long(tmp_path):
    print("\n" + run_import_crashes(tmp_path, trials=200, seed=4))
