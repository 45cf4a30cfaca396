"""app.blas: BLAS on one thread inside the block, as it was after it."""
from __future__ import annotations

import builtins

import numpy  # noqa: F401  (loads the BLAS library threadpoolctl looks for)
from threadpoolctl import threadpool_info

from app import blas


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
