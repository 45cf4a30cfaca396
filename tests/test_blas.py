"""app.blas: BLAS on one thread inside the block, as it was after it."""
from __future__ import annotations

import builtins

import numpy  # noqa: F401  (loads the BLAS library threadpoolctl looks for)
from threadpoolctl import threadpool_info

from app._old import blas


def _blas_threads() -> list[int]:
    return [x["num_threads"] for x in threadpool_info() if x["user_api"] == "blas"]


def test_one_thread_inside_the_block_restored_after():
    before = _blas_threads()
    with blas.one_thread():
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before


def test_without_threadpoolctl_the_block_still_runs(monkeypatch):
    real = builtins.__import__

    def no_threadpoolctl(name, *a, **k):
        if name == "threadpoolctl":
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(blas, "_controller", None)
    monkeypatch.setattr(builtins, "__import__", no_threadpoolctl)
    ran = []
    with blas.one_thread():
        ran.append(True)
    assert ran == [True]


def test_overlapping_blocks_in_two_threads_keep_the_limit_until_the_last_closes(monkeypatch):
    """Two sessions' summaries overlapping: A opens, B opens, A closes, B closes. The limit is
    set once and lifted once, after B (each block restoring what it saw on entry would have left
    BLAS on one thread for good). A stand-in controller records it: OpenBLAS itself ignores a
    limit set from another thread once the main thread has set one, as test one here does."""
    import threading
    events = []

    class Limiter:
        def restore_original_limits(self):
            events.append("lifted")

    class Controller:
        def limit(self, limits, user_api):
            events.append(("limited", limits, user_api))
            return Limiter()

    monkeypatch.setattr(blas, "_controller", Controller())
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def a():
        with blas.one_thread():
            a_in.set()
            b_in.wait(5)
        events.append("A closed")
        a_out.set()

    def b():
        a_in.wait(5)
        with blas.one_thread():
            b_in.set()
            a_out.wait(5)
        events.append("B closed")

    ta, tb = threading.Thread(target=a), threading.Thread(target=b)
    ta.start(); tb.start(); ta.join(10); tb.join(10)
    assert events == [("limited", 1, "blas"), "A closed", "lifted", "B closed"]
