"""BLAS on one thread while the summary computes.

The summary's matrix products are small (units × a handful of scores, down to a few × a few):
OpenBLAS splits them over both cores anyway, and its worker threads then spin for a while
waiting for more, taking the second core from everything that follows (pyarrow, the other
sessions, the numpy work of the summary itself). A million-row summary took ~10% less CPU
and wall time with BLAS on one thread, its result identical to the bit (2026-11-30, 2 cores).

No Streamlit here.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

_controller = None
_lock = threading.Lock()
_inside = 0  # blocks open now, over every thread (sessions sum at once)
_limiter = None  # the limit, set by the first block to open and lifted by the last to close


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS limited to one thread inside the block (threadpoolctl; nothing without it).
    Process-wide while it lasts: another thread's BLAS call meanwhile also runs on one. Blocks
    may overlap across threads: the limit stays until the last one closes, then the threads
    BLAS had before the first one opened come back (each block restoring what it saw on entry
    would leave one thread for good when two overlap)."""
    global _controller, _inside, _limiter
    try:
        if _controller is None:
            from threadpoolctl import ThreadpoolController  # (imported on first use: the CLI pays only if it sums)
            _controller = ThreadpoolController()
    except ImportError:
        yield
        return
    with _lock:
        _inside += 1
        if _inside == 1:
            _limiter = _controller.limit(limits=1, user_api="blas")
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                _limiter.restore_original_limits()
                _limiter = None
