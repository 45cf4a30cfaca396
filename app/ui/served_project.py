"""The project this server serves: its config's path, the project read from it, and read
again when the config or a data file it names changes (looked at every few seconds).

A broken config shows every problem and stops the page; it never opens a half-read project.
"""
from __future__ import annotations

import gc
import hashlib
import os
import time
from pathlib import Path

import streamlit as st

from app.project.config import load_config
from app.project.workspace import ProjectError, Workspace, open_project
from app.store.storage import warm_writer
from app.traces.derive import no_gc
from app.traces.readers import data_paths
from app.ui.text import md

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = ROOT / "configs" / "demo.yaml"


def config_path() -> str:
    return os.environ.get("BATON_CONFIG") or str(DEFAULT_CONFIG)


RECHECK = 3.0  # seconds between looks at whether the project's files changed
_stamps: dict[str, tuple[float, tuple, str]] = {}  # config path -> (when looked, stamp, its digest)
_named: dict[str, tuple[tuple | None, list[Path]]] = {}  # config path -> (its stat, the data paths it names)


def _stamp(path: str) -> tuple:
    """Modification times of the config and of the data files it names, so an edited project
    is re-read. Looked at most every RECHECK seconds: a rerun (a click) must not stat a
    folder of thousands of traces. The config is parsed again only when it changed: parsing
    and checking it took 9-15 ms, paid by the first click after every pause of 3 s (most clicks
    of an annotator reading a trace)."""
    now = time.monotonic()
    seen = _stamps.get(path)
    if seen and now - seen[0] < RECHECK:
        return seen[1]
    config = Path(path)
    try:
        st_ = config.stat()
        sig = (st_.st_mtime_ns, st_.st_size, st_.st_ino)
    except OSError:
        sig = None
    named = _named.get(path)
    if named is None or named[0] != sig or sig is None:
        project, _ = load_config(path)  # names the data files
        # kept only for a project that loads: a broken one (a data folder not there yet) is
        # parsed at every look, so it recovers once its files appear
        named = (sig if project is not None else None,
                 [df.given or df.path for df in project.data_files] if project is not None else [])
        _named[path] = named
    out = [(str(config), sig)]
    for f in (f for p in named[1] for f in data_paths(_resolved(p))):  # listed again: a file may be new
        try:
            out.append((str(f), f.stat().st_mtime_ns))
        except OSError:
            out.append((str(f), None))
    stamp = tuple(out)
    # with a short digest of it, the cache key hashed on every rerun (a tuple of thousands of data
    # files would be hashed item by item each time)
    _stamps[path] = (now, stamp, hashlib.blake2b(repr(stamp).encode("utf-8", "surrogatepass"),
                                                 digest_size=16).hexdigest())
    return stamp


def _resolved(p: Path) -> Path:
    """A data path with its links followed now (a link retargeted to other data is a change)."""
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p


# `stamp` is part of the cache key (a parameter named with a leading underscore would not be):
# an edited config or data file is a new entry, read afresh; the previous one is kept for the
# sessions still drawing it
@st.cache_resource(show_spinner="Reading the project…", max_entries=2)
def _load(path: str, stamp: str) -> Workspace | ProjectError:
    try:
        with no_gc():
            ws = open_project(path)
            _warm_writer()
            _settle_heap()
    except ProjectError as e:
        return e
    return ws


def _warm_writer() -> None:
    """storage.warm_writer, which only saves an annotator's first click some milliseconds: a
    failure there must not keep the project from opening (the first save will say what is wrong)."""
    try:
        warm_writer()
    except Exception:  # noqa: BLE001
        import logging
        logging.getLogger(__name__).debug("warming the writer failed", exc_info=True)


def _settle_heap() -> None:
    """Move everything alive now (the parsed items, their derivations) out of the cyclic garbage
    collector's sight: they live as long as the cache does, and each full collection would
    otherwise walk all of them again. Reference counting still frees them when dropped.
    Called with the collector paused (no_gc) since before they were made: its first pass after
    resuming would otherwise walk every new object once (0.1-0.3 s after a 100,000-step derive)."""
    gc.freeze()


def project_stamp() -> str:
    """What identifies the open project's state (a digest of its files' stats and modification
    times): a cache of anything computed from the project keys on it."""
    return _stamp_digest(config_path())


def _stamp_digest(path: str) -> str:
    """_stamp as a short text (computed once per look)."""
    _stamp(path)
    return _stamps[path][2]


def workspace() -> Workspace:
    """The open project; on a broken config, every problem is shown and the page stops."""
    path = config_path()
    ws = _load(path, _stamp_digest(path))
    if isinstance(ws, ProjectError):
        st.error(f"The project {md(path)} could not be loaded:")
        for p in ws.problems:
            if p.level == "error":
                st.text(str(p))
        st.stop()
    return ws
