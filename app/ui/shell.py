"""The app shell shared by every page: the project, derivations, the current item.

Who is signed in lives in app/ui/signin.py, saving in app/ui/saving.py (both named here too).

Everything the annotator does is saved before the page says so; the URL carries the
annotator and the item so a refresh or a shared link lands in the same place.
"""
from __future__ import annotations

import functools
import gc
import hashlib
import os
import time
from pathlib import Path

import streamlit as st

from app.project.config import DONE_SCHEME, load_config
from app.traces.derive import no_gc, scheme_keys
from app.traces.readers import data_paths
from app.types.registry import TYPES
from app.store.storage import SUFFIX, encode_component, warm_writer
from app.traces.trace import Item
from app.project.workspace import ProjectError, Workspace, open_project
from app.ui import state
from app.ui.derived import derivation, per_derivation  # noqa: F401 (the surfaces call them through shell)
from app.ui.text import md

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = ROOT / "configs" / "demo.yaml"
DONE = DONE_SCHEME  # scheme name of the per-item "done" mark


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


_PREFETCHED: dict[tuple, None] = {}  # (item id, trace hash, derivation keys) warmed or being warmed
_PREFETCH_MAX = 256


def prefetch(item: Item, schemes, extra=None, background: bool = True) -> None:
    """Work out an item's derivations (and `extra(item, derivation, scheme)`, e.g. the trace
    view's conversation tree, the timeline it opens on) before it is opened: "Done → next" then
    draws it from the cache instead of reading its steps, calls and regions on the click (~100 ms
    at 2,000 steps). Done by one worker thread while the annotator reads the current item; the
    caches' per-key locks make a click that arrives first wait for it rather than compute it
    twice. Only in a served app (AppTest and the command line have no runtime, and work as
    before)."""
    if background:
        from streamlit import runtime
        if not runtime.exists():
            return
    todo = []
    for scheme in schemes:
        keys = tuple(sorted(scheme_keys(scheme).items()))
        # not the trace hash: hashing the item is work for the thread; the scheme and extra too,
        # as schemes sharing keys share a derivation, but not what extra builds from it
        sig = (item.id, id(item.data), keys, getattr(scheme, "name", None), extra)
        if sig not in _PREFETCHED:
            if len(_PREFETCHED) >= _PREFETCH_MAX:
                _PREFETCHED.clear()
            _PREFETCHED[sig] = None
            todo.append(scheme)
    if not todo:
        return

    def work():
        for scheme in todo:
            d = derivation(item, scheme)
            if extra is not None:
                extra(item, d, scheme)

    if not background:
        work()
        return
    _prefetch_queue().put(work)


_PREFETCH_THREAD = "baton-prefetch"


@functools.cache
def _prefetch_queue():
    """The queue of one worker thread that does every prefetch in turn. Not a thread per call:
    starting one waits for it to take the interpreter lock and signal it started (~5 ms each, a
    page asks for up to four at the end of its run, which held back the run's end and with it
    the browser's removal of the previous item's elements), and several at once would compete
    for the lock with the script."""
    import logging
    import queue
    import threading

    # the caches warn once per call that a thread has no script run context: expected here
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
        lambda record: threading.current_thread().name != _PREFETCH_THREAD)
    jobs: queue.SimpleQueue = queue.SimpleQueue()

    def worker():
        while True:
            job = jobs.get()
            try:
                job()
            except Exception:  # a prefetch is only a head start: the page derives it again, and says why
                logging.getLogger(__name__).debug("prefetch failed", exc_info=True)

    threading.Thread(target=worker, name=_PREFETCH_THREAD, daemon=True).start()
    return jobs


def trace_scheme(ws: Workspace):
    return next((s for s in ws.project.schemes if TYPES[s.type].trace), None)


# --- current item --------------------------------------------------------------------------------

def current_item(ws: Workspace) -> Item | None:
    state.init()
    if not ws.items:
        return None
    # A valid item in the URL wins: the browser's back and forward buttons (and an edited or
    # shared link) change the URL within the session; otherwise the session's item.
    url = st.query_params.get("item")
    cur = url if url in ws.by_id else st.session_state[state.ITEM]
    if cur not in ws.by_id:
        cur = ws.items[0].id
    st.session_state[state.ITEM] = cur
    keep_url(item=cur)
    return ws.by_id[cur]


def go_to(item_id: str) -> None:
    st.session_state[state.ITEM] = item_id
    st.query_params["item"] = item_id
    st.session_state[state.ITEM_OPENED] = (item_id, time.monotonic())


def _order(ws: Workspace) -> tuple[list[str], dict[str, int]]:
    """The item ids and their positions (asked several times a rerun: kept with the workspace,
    not listed again each time)."""
    order = ws.__dict__.get("_item_order")
    if order is None:
        ids = [it.id for it in ws.items]
        order = ws.__dict__["_item_order"] = (ids, {x: i for i, x in enumerate(ids)})
    return order


def position(ws: Workspace, item_id: str) -> int:
    """The item's place in the project's order, from 0."""
    return _order(ws)[1][item_id]


def neighbour(ws: Workspace, item_id: str, step: int) -> str | None:
    """The item `step` places before or after this one."""
    ids, at = _order(ws)
    i = at[item_id] + step
    return ids[i] if 0 <= i < len(ids) else None


def done_items(ws: Workspace, who: str) -> set[str]:
    """Items this annotator marked done, found by listing folders (no Parquet reads), so the
    sidebar stays cheap with thousands of items."""
    # (before the folder is listed: an annotator's first save creates it, and building the map
    # then would put a cache miss, and its spinner's thread, on that click)
    by_dir = _item_dirs(ws)
    db = store(ws)
    try:
        adir = db.annotator_dir(who)
        entries = list(os.scandir(adir))
    except (OSError, ValueError):
        return set()
    mark = encode_component(DONE) + SUFFIX
    return {by_dir[e.name] for e in entries
            if e.name in by_dir and os.path.exists(os.path.join(e.path, mark))}


@st.cache_resource(max_entries=4, show_spinner=False)  # (a spinner starts a thread: ~4 ms)
def _item_dirs_cached(_ws_id: int, ids: tuple) -> dict[str, str]:
    return {encode_component(i): i for i in ids}


def _item_dirs(ws: Workspace) -> dict[str, str]:
    return _item_dirs_cached(id(ws), tuple(ws.by_id))


# --- annotator and saving: their own modules (app/ui/signin.py, app/ui/saving.py), named here
# too, as every page and surface knows them from the shell --------------------------------------

from app.ui.signin import (  # noqa: E402
    accounts, annotator, clean_name, is_admin, keep_url, require_annotator, sign_in, sign_in_with_token,
    sign_out, url_params)
from app.ui.saving import (  # noqa: E402
    CARDS, IDLE_CAP, NO_BASE, card_note, card_saved, clear, commit, load, not_saved_note, rerun_if_asked,
    reviewed_clean, save, saved_note, store, stored_value)
