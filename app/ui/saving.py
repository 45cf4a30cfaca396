"""Saving an annotator's clicks, and saying what is on disk.

A surface passes `base`, the stored value its controls were drawn from: the save then applies
only what the click changed on top of what is on disk now (app/types/merge.py), so a second tab
of the same annotator never wipes the first one's work; a field both set differently keeps the
disk's value, and the card says so and shows it. Every value is checked by its type's
`validate` against the scheme and the trace before it is written; a value that does not fit is
refused with the reason on the card (what the disk held already is not held against a click).

Every change is written before the page says so. A save that fails (a read-only or full disk,
an annotation folder that is a file) never shows a traceback: the card says "not saved" and
why in words, the controls show again what is on disk (state.follow, see `failed`), and text
typed stays in its box for a retry.
"""
from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import time
from datetime import datetime, timezone

import streamlit as st

from app.store.storage import DONE, Annotation, AnnotationStore
from app.traces.trace import Item
from app.types import merge
from app.types.registry import TYPES
from app.store.storage import STATUS_ANNOTATED as ANNOTATED, STATUS_REVIEWED_CLEAN as REVIEWED_CLEAN
from app.store.rows import STATUS_INVALID as INVALID
from app.project.workspace import Workspace
from app.ui import state
from app.ui.derived import derivation
from app.ui.signin import annotator

IDLE_CAP = 600.0  # seconds: a longer gap between two actions is counted as this (a break)
CARDS = "cards"  # a surface's render() returns this when each of its cards says what it saved
NOT_SAVED = "not saved"
NOT_WRITABLE = "the annotation folder is not writable"
_log = logging.getLogger(__name__)
NO_BASE = object()  # (no `base` given: the value is written as it is, no merge)


def store(ws: Workspace) -> AnnotationStore:
    return AnnotationStore(ws.project.output_dir)


def why_not_saved(error: OSError) -> str:
    """A failed write in words, without server paths."""
    if error.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return "the disk is full"
    if isinstance(error, (PermissionError, NotADirectoryError, FileExistsError, IsADirectoryError)) \
            or error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return NOT_WRITABLE
    return "the annotation folder could not be written"


def failed(item: Item, scheme_name: str, error: OSError) -> None:
    """Record a failed save for the page to show, and have the controls go back to what is on
    disk: every `follow` of stored values applies each failure once (state.REVERT)."""
    _log.warning("saving %s of %s failed", scheme_name, item.id, exc_info=error)
    st.session_state.setdefault(state.NOT_SAVED, {})[(item.id, scheme_name)] = why_not_saved(error)
    st.session_state[state.REVERT] = st.session_state.get(state.REVERT, 0) + 1


def failure(item: Item, scheme_name: str) -> str | None:
    """Why the last save of this scheme on this item failed, or None (it succeeded, or none)."""
    return st.session_state.get(state.NOT_SAVED, {}).get((item.id, scheme_name))


def _succeeded(item: Item, scheme_name: str) -> None:
    st.session_state.get(state.NOT_SAVED, {}).pop((item.id, scheme_name), None)


def refused(item: Item, scheme_name: str, reasons: list[str]) -> None:
    """A value that does not fit its scheme or trace, not written: the card says why, and the
    controls go back to what is on disk."""
    st.session_state.setdefault(state.NOT_SAVED, {})[(item.id, scheme_name)] = \
        "the value does not fit: " + "; ".join(reasons[:3])
    st.session_state[state.REVERT] = st.session_state.get(state.REVERT, 0) + 1


def conflict(item: Item, scheme_name: str) -> str | None:
    """What another tab or session had set differently at the last save (kept on disk), or None."""
    return st.session_state.get(state.CONFLICT, {}).get((item.id, scheme_name))


def _conflicted(item: Item, scheme_name: str, conflicts: list) -> None:
    found = st.session_state.setdefault(state.CONFLICT, {})
    if conflicts:
        found[(item.id, scheme_name)] = "; ".join(map(str, conflicts))
        st.session_state[state.REVERT] = st.session_state.get(state.REVERT, 0) + 1  # show what is on disk
    else:
        found.pop((item.id, scheme_name), None)


def _scheme(ws: Workspace, scheme_name: str):
    return next((s for s in ws.project.schemes if s.name == scheme_name), None)


def misfits(ws: Workspace, item: Item, scheme, value, before: Annotation | None) -> list[str]:
    """Why `value` does not fit the scheme and the item's trace, leaving out what the stored
    value `before` did not fit already (a label made on other data, kept, is no fault of this click)."""
    kind = TYPES[scheme.type]
    d = None
    if kind.trace:
        d = derivation(item, scheme)
    wrong = kind.validate(value, scheme, d)
    if wrong and before is not None and before.value is not None:
        known = set(kind.validate(before.value, scheme, d))
        wrong = [r for r in wrong if r not in known]
    return wrong


def merged(ws: Workspace, item: Item, scheme, value, base) -> tuple[object, list]:
    """`value` (what a click made of `base`) applied on top of what is on disk now."""
    if base is NO_BASE:
        return value, []
    who = annotator()
    now = _load_key(store(ws), item.id, who, scheme.name) if who else None
    return merge.merge(TYPES[scheme.type], scheme, base, value, now.value if now is not None else None)


def _spent(item_id: str) -> float:
    """Seconds since the last action on this item in this session (breaks capped)."""
    now = time.monotonic()
    last = st.session_state.get(state.ITEM_OPENED)
    st.session_state[state.ITEM_OPENED] = (item_id, now)
    if not last or last[0] != item_id:
        return 0.0
    return min(now - last[1], IDLE_CAP)


# path -> ((mtime_ns, size, inode), the annotation, its value as JSON text). Every rerun asks for
# the annotation of each scheme on the page (and surfaces ask again in callbacks); a stat tells
# whether the file changed since it was read, so the Parquet file is read again only then. A save
# replaces the file (a new inode), so another tab, session or process is never served stale data.
_READ: dict[str, tuple[tuple, Annotation | None, str]] = {}
_READ_MAX = 4096


def _load_key(db: AnnotationStore, item_id: str, who: str, scheme_name: str) -> Annotation | None:
    try:
        path = db.key_file(item_id, who, scheme_name)  # read by db.load, which checks the resolved path
        st_ = os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # the annotation folder is a file: nothing saved there
        return None
    except (OSError, ValueError):
        return db.load(item_id, who, scheme_name)
    sig = (st_.st_mtime_ns, st_.st_size, st_.st_ino)
    hit = _READ.get(path)
    if hit is None or hit[0] != sig:
        ann = db.load(item_id, who, scheme_name)
        if ann is None:
            return None
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        hit = _READ[path] = (sig, ann, json.dumps(ann.value))
    # a fresh copy of the value: callers may change what they are given
    return dataclasses.replace(hit[1], value=json.loads(hit[2]))


def load(ws: Workspace, item: Item, scheme_name: str) -> Annotation | None:
    who = annotator()
    return _load_key(store(ws), item.id, who, scheme_name) if who else None


def save(ws: Workspace, item: Item, scheme_name: str, annotation_type: str, value,
         status: str = ANNOTATED, base=NO_BASE) -> Annotation | None:
    """Write one annotation durably, then record the time for the page to show; None if the
    write failed (the page then says so: see `failed`), the value does not fit (`refused`), or
    nobody is signed in any more (a session that ended: the run that follows asks for the
    sign-in). With `base`, only what changed from it is applied on top of the disk (`merged`)."""
    who = annotator()
    if not who:
        return None
    db = store(ws)
    scheme = None if scheme_name == DONE else _scheme(ws, scheme_name)
    conflicts: list = []
    if scheme is not None:
        value, conflicts = merged(ws, item, scheme, value, base)
    prev = _load_key(db, item.id, who, scheme_name)
    if scheme is not None:
        wrong = misfits(ws, item, scheme, value, prev if prev is None or prev.status != INVALID else None)
        if wrong:
            refused(item, scheme_name, wrong)
            return None
    spent = (prev.seconds_spent if prev else 0.0) + _spent(item.id)
    try:
        saved = db.save(Annotation(item.id, who, scheme_name, annotation_type, value, status,
                                   item.trace_hash, None, spent))
    except OSError as e:
        failed(item, scheme_name, e)
        return None
    _succeeded(item, scheme_name)
    _conflicted(item, scheme_name, conflicts)
    stamp = saved.updated_at or datetime.now(timezone.utc)
    st.session_state[state.SAVED][(item.id, scheme_name)] = stamp.astimezone().strftime("%H:%M:%S")
    return saved


def stored_value(ws: Workspace, item: Item, scheme_name: str, default=None):
    """This annotator's saved value for the scheme on the item, or `default`."""
    ann = load(ws, item, scheme_name)
    return ann.value if ann is not None and ann.value is not None else default


def commit(ws: Workspace, item: Item, scheme, value, empty: bool | None = None,
           status: str = ANNOTATED, base=NO_BASE) -> bool:
    """Save what a surface built from its controls, or remove the row when the annotator
    emptied it: an emptied value is "not annotated", never "reviewed, nothing to flag"
    (that is an explicit status). `empty` defaults to `not value`. With `base` (the stored value
    the controls were drawn from), only the click's change is applied on top of the disk, and
    the result decides whether the row is emptied. False if it failed."""
    if base is not NO_BASE:
        value, conflicts = merged(ws, item, scheme, value, base)
        if status == ANNOTATED and merge.is_empty(TYPES[scheme.type], scheme, value):
            done = clear(ws, item, scheme.name)
            if done:
                _conflicted(item, scheme.name, conflicts)
            return done
        saved = save(ws, item, scheme.name, scheme.type, value, status)
        if saved is not None:
            _conflicted(item, scheme.name, conflicts)
        return saved is not None
    if status == ANNOTATED and ((not value) if empty is None else empty):
        return clear(ws, item, scheme.name)
    return save(ws, item, scheme.name, scheme.type, value, status) is not None


def reviewed_clean(ws: Workspace, item: Item, scheme, value, forget: tuple = ()) -> bool:
    """Record "reviewed, nothing to flag" (the type's empty value with its own status) and
    forget the widgets under the key prefix `forget`, so they show the cleared state."""
    if save(ws, item, scheme.name, scheme.type, value, REVIEWED_CLEAN) is None:
        return False
    if forget:
        start = state.widget_key(*forget, "")
        for k in [k for k in st.session_state if isinstance(k, str) and k.startswith(start)]:
            del st.session_state[k]
    return True


def clear(ws: Workspace, item: Item, scheme_name: str) -> bool:
    """Remove this annotator's row for the scheme on the item; False if it failed."""
    who = annotator()
    if not who:
        return False
    try:
        store(ws).delete(item.id, who, scheme_name)
    except OSError as e:
        failed(item, scheme_name, e)
        return False
    _succeeded(item, scheme_name)
    st.session_state[state.SAVED][(item.id, scheme_name)] = "cleared " + datetime.now().strftime("%H:%M:%S")
    return True


def card_saved(ws: Workspace, item: Item, scheme, value, key: str, empty: bool | None = None,
               base=NO_BASE) -> bool:
    """Save a card's change (see commit) from inside the card's own fragment, and remember the
    time (or the failure) for the card to show. The scheme's note outside the card is drawn only
    on a rerun of the whole scheme; it says "Reviewed, nothing to flag" when that is the status,
    so leaving that status asks for a whole-page rerun (rare: a judgement after marking it clean)."""
    before = load(ws, item, scheme.name)
    if not commit(ws, item, scheme, value, empty=empty, base=base):
        st.session_state[key] = f"{NOT_SAVED}: {failure(item, scheme.name) or 'you are signed out'}"
        return False
    other = conflict(item, scheme.name)
    st.session_state[key] = datetime.now().strftime("%H:%M:%S") + (f" · ⚠ {other}" if other else "")
    if before is not None and before.status == REVIEWED_CLEAN:
        st.session_state[state.FULL_RERUN] = True
    return True


def rerun_if_asked() -> None:
    """Redraw the whole page if a callback in this fragment asked for it (state.FULL_RERUN):
    something outside the fragment shows what changed (the trace view's page, a `show_if` answer,
    a "reviewed, nothing to flag" note)."""
    if st.session_state.pop(state.FULL_RERUN, False):
        st.rerun()


def card_note(key: str) -> str:
    """The card's " · saved HH:MM:SS" once it was saved in this session, or what kept the last
    change from being saved."""
    at = st.session_state.get(key)
    if not at:
        return ""
    return f" · ⚠ {at}" if at.startswith(NOT_SAVED) else f" · saved {at}"


def not_saved_note(item: Item, scheme_name: str) -> None:
    """A failed save in words: what is shown is what is on disk; typed text is kept to retry.
    A field another tab set differently: what is kept, shown."""
    other = conflict(item, scheme_name)
    if other:
        st.warning(f"Saved, except: {other}. The controls show what is on disk now.", icon="⚠️")
    why = failure(item, scheme_name)
    if why and why.startswith("the value does not fit"):
        st.warning(f"{NOT_SAVED}: {why}. The controls show what is on disk.", icon="⚠️")
    elif why:
        st.warning(f"{NOT_SAVED}: {why}. The controls show what is on disk; text you typed is kept "
                   "in its box: try again once the folder can be written.", icon="⚠️")


def saved_note(ws: Workspace, item: Item, scheme_name: str, per_card: bool = False) -> None:
    """A text line saying what is on disk for this scheme (never colour alone). With
    `per_card`, the cards say what they saved (they re-run alone, this line does not), so the
    line speaks only of the scheme-wide status "Reviewed, nothing to flag"."""
    not_saved_note(item, scheme_name)
    shown = st.session_state[state.SAVED].get((item.id, scheme_name))
    ann = load(ws, item, scheme_name)
    if per_card and (ann is None or ann.status == ANNOTATED):
        st.caption("Every click is saved at once; each card says what it holds.")
        return
    if ann is None:
        st.caption("Not annotated yet" + (f" ({shown})" if shown and shown.startswith("cleared") else ""))
        return
    scheme = _scheme(ws, scheme_name)
    wrong = misfits(ws, item, scheme, ann.value, None) if scheme is not None and ann.value is not None else []
    if wrong or ann.status == INVALID:  # (never "Saved" beside controls that show nothing chosen)
        st.warning("What is stored here does not fit the scheme or the trace, so it is not counted: "
                   + "; ".join(wrong[:3] or ["it was imported as invalid"]) + ". Choose again to replace it.",
                   icon="⚠️")
        return
    label = "Reviewed, nothing to flag" if ann.status != ANNOTATED else "Saved"
    when = shown if shown and not shown.startswith("cleared") else ann.updated_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    stale = "" if ann.trace_hash == item.trace_hash else " · made on different data (the trace changed since)"
    st.caption(f":material/check: {label} · {when}{stale}")
