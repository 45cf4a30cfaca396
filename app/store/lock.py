"""One annotator's save lock: a read-merge-write of their annotations, atomic across processes.

A save of the app reads what is on disk, merges the click's change into it (app/types/merge.py)
and writes the result; two server processes, or `python -m app import` while the app saves,
could otherwise interleave those steps so that one write replaces what the other had just
written without having read it. Every write of a key (AnnotationStore.save and .delete) takes
the lock of its annotator, and a caller that reads before writing holds it around both
(AnnotationStore.locked). The lock is an exclusive `flock` on a hidden file in the annotator's
folder (`.save-lock`: hidden files are never read as rows); it is held for one save only (a few
milliseconds), and the system drops it when the process holding it dies, so a crash leaves no
stale lock. `flock` locks belong to an open file, not to a process: two threads of one server
(two sessions) exclude each other as two processes do. Within one thread the lock is
re-entrant, so a save inside a held read-merge-write does not wait on itself.

On a system without `fcntl` (Windows) saves stay atomic per file but are not serialised.

No Streamlit here.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from app.store.files import _makedirs_durable

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Linux or macOS
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".save-lock"
_held = threading.local()  # {lock file: how many times this thread holds it}


@contextmanager
def held(folder: Path) -> Iterator[None]:
    """Hold the save lock of `folder` (an annotator's folder, created if missing) until the
    block ends; waits while another thread or process holds it. OSError if the folder cannot
    be created or the lock file opened (a read-only or full store: the save fails anyway)."""
    path = os.path.join(folder, LOCK_NAME)
    depth: dict[str, int] = getattr(_held, "depth", None) or {}
    _held.depth = depth
    if depth.get(path):
        depth[path] += 1
        try:
            yield
        finally:
            depth[path] -= 1
        return
    _makedirs_durable(Path(folder))
    cloexec = getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | cloexec, 0o666)
    except PermissionError:  # a lock file someone else made, not writable here: reading is enough
        fd = os.open(path, os.O_RDONLY | cloexec)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        depth[path] = 1
        try:
            yield
        finally:
            depth.pop(path, None)
    finally:
        os.close(fd)  # (closing the file releases the lock)
