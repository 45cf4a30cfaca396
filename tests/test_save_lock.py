"""Issue 30, point 4, across processes: the read-merge-write of a save holds the annotator's save
lock (app/store/lock.py), so two processes (two servers; `import` while the app saves) saving one
item many times, interleaved, lose nothing; a lock dies with its process; import's check for a
saved row and its write are one step. Real processes (multiprocessing, spawned), real Parquet."""
from __future__ import annotations

import multiprocessing as mp
import os
import random
import signal
import time
from pathlib import Path

from app.store.lock import LOCK_NAME
from app.store.storage import Annotation, AnnotationStore

ITEM, WHO, SCHEME = "code-team-002", "alice", "symptoms"
CLICKS = 60  # saves per process


def _clicks(root: str, me: str, start, seed: int) -> None:
    """One process's saves: each reads the key, adds one field of its own (as a merged click
    does: app/types/merge.py) and writes it back, with a pause between read and write."""
    db = AnnotationStore(root)
    rng = random.Random(seed)
    start.wait(30)
    for n in range(CLICKS):
        with db.locked(WHO):
            now = db.load(ITEM, WHO, SCHEME)
            value = dict(now.value) if now is not None else {}
            value[f"{me}-{n}"] = "true"
            time.sleep(rng.random() * 0.003)  # the other process would write here, without the lock
            db.save(Annotation(ITEM, WHO, SCHEME, "multiselect", value, "annotated", "h", None, 0.0))


def test_two_processes_interleaving_saves_on_one_item_lose_nothing(tmp_path):
    ctx = mp.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_clicks, args=(str(tmp_path), me, start, k)) for k, me in enumerate("ab")]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    value = AnnotationStore(tmp_path).load(ITEM, WHO, SCHEME).value
    assert sorted(value) == sorted(f"{me}-{n}" for me in "ab" for n in range(CLICKS))
    # the lock file is hidden from every read of the store: one row, no problem
    db = AnnotationStore(tmp_path)
    assert len(db.all()) == 1 and not db.problems
    assert (db.annotator_dir(WHO) / LOCK_NAME).is_file()


def _hold(root: str, held, release) -> None:
    with AnnotationStore(root).locked(WHO):
        held.set()
        release.wait(60)


def _save_one(root: str, ready, done) -> None:
    db = AnnotationStore(root)
    db.save(Annotation(ITEM, "bob", SCHEME, "multiselect", {}, "annotated", "h", None, 0.0))  # (warm: Parquet
    ready.set()  # writing set up, another annotator's lock) the save starts now, and takes milliseconds
    db.save(Annotation(ITEM, WHO, SCHEME, "multiselect", {"x": "true"}, "annotated",
                                          "h", None, 0.0))
    done.set()


def test_a_save_waits_for_the_lock_and_a_killed_holder_frees_it(tmp_path):
    ctx = mp.get_context("spawn")
    held, release, ready, done = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(tmp_path), held, release))
    holder.start()
    assert held.wait(60)
    saver = ctx.Process(target=_save_one, args=(str(tmp_path), ready, done))
    saver.start()
    assert ready.wait(60)
    assert not done.wait(1.5)  # the write waits while another process reads and merges
    assert AnnotationStore(tmp_path).load(ITEM, WHO, SCHEME) is None
    os.kill(holder.pid, signal.SIGKILL)  # a crash mid-save: the system drops its lock
    holder.join(30)
    assert done.wait(60)
    saver.join(30)
    assert saver.exitcode == 0 and AnnotationStore(tmp_path).load(ITEM, WHO, SCHEME).value == {"x": "true"}


def test_the_lock_is_reentrant_within_a_thread_and_made_only_when_saving(tmp_path):
    db = AnnotationStore(tmp_path)
    assert db.delete(ITEM, WHO, SCHEME) is False and not Path(tmp_path, "alice").exists()
    with db.locked(WHO):
        with db.locked(WHO):  # a save inside a held read-merge-write does not wait on itself
            db.save(Annotation(ITEM, WHO, SCHEME, "multiselect", {"x": "true"}, "annotated", "h", None, 0.0))
        assert db.delete(ITEM, WHO, SCHEME) is True
