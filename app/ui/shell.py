"""The app shell shared by every page: the project, derivations, the current item.

The project served lives in app/ui/served_project.py, who is signed in in app/ui/signin.py,
saving in app/ui/saving.py (all named here too).

Everything the annotator does is saved before the page says so; the URL carries the
annotator and the item so a refresh or a shared link lands in the same place.
"""
from __future__ import annotations

import functools
import os
import time

import streamlit as st

from app.project.config import DONE_SCHEME
from app.traces.derive import scheme_keys
from app.types.registry import TYPES
from app.store.storage import SUFFIX, encode_component
from app.traces.trace import Item
from app.project.workspace import Workspace
from app.ui import state
from app.ui.derived import derivation, per_derivation  # noqa: F401 (the surfaces call them through shell)

# the project this server serves (app/ui/served_project.py), named here too
from app.ui.served_project import DEFAULT_CONFIG, ROOT, config_path, project_stamp, workspace  # noqa: F401

DONE = DONE_SCHEME  # scheme name of the per-item "done" mark


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
    save, saved_note, store, stored_value)
