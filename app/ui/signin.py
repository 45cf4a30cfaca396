"""Who is signed in: the Streamlit side of app/project/access.py.

Fail closed: a secrets file that is present but damaged stops every page with a message naming
the file, the entry and what is wrong (`gate`). Without any secrets file, access control is off
and every page says so. With accounts, a session is its ticket: each click checks that the
ticket is live (not idle too long, not ended by a sign-out) and that the account still exists.
"""
from __future__ import annotations

import functools
import os
import time
from pathlib import Path

import streamlit as st

from app.project import access
from app.project.workspace import Workspace
from app.ui import served_project, state

OPEN_NOTICE = ("Access control is off (no .streamlit/secrets.toml): anyone who can reach this page "
               "can annotate under any name.")
ENDED = ("Your session ended (signed out, idle for too long, or the account was removed): "
         "sign in again with your token.")


def _files_stamp(files: list[Path]) -> tuple:
    """The secrets files and their stats: what the cached reading is keyed by."""
    out = []
    for f in files:
        try:
            s = os.stat(f)
            out.append((str(f), s.st_mtime_ns, s.st_size, s.st_ino))
        except OSError:
            out.append((str(f), None))
    return tuple(out)


@functools.lru_cache(maxsize=4)  # keyed by the files' stats too; a plain key: it is read ~40 times a click
def _access(path: str, stamp: tuple) -> access.AccessConfig:
    return access.load_access([Path(s[0]) for s in stamp])


def access_config() -> access.AccessConfig:
    """What the secrets files say; on a damaged one, the refusal is shown and the page stops."""
    path = served_project.config_path()
    cfg = _access(path, _files_stamp(access.secrets_files(path)))
    if cfg.is_broken:
        refuse(cfg)
    return cfg


def refuse(cfg: access.AccessConfig) -> None:
    """Serve nothing: say which file and entry are wrong, as plain text, and stop."""
    st.error("Baton serves nothing until its access settings are fixed: a secrets file is present "
             "but could not be used (access control never turns itself off). What is wrong:")
    for problem in cfg.problems:
        st.text(problem)
    st.caption("`python -m app check CONFIG` reports the same. Without any secrets file, access "
               "control is off and anyone may annotate under any name.")
    st.stop()


def gate() -> None:
    """Run before every page: stops on damaged secrets (every page's sign-in check does too)."""
    access_config()


def open_notice() -> None:
    """Without any secrets file, a small line saying that access control is off."""
    if access_config().is_open:
        st.caption(OPEN_NOTICE)


def accounts() -> dict[str, access.Account]:
    """Configured accounts; empty means no access control (anyone may sign in by name)."""
    return access_config().accounts


def _tickets(ws: Workspace) -> access.Tickets:
    # A dot-file: pandas/pyarrow and the store never read it as annotation data.
    ttl = access.idle_seconds(access_config().idle_minutes, ws.project.session_idle_minutes)
    return access.Tickets(ws.project.output_dir / ".baton-sessions.json", ttl=ttl)


def clean_name(name: str) -> str | None:
    name = " ".join((name or "").split())
    return name[:64] if name else None


def annotator() -> str | None:
    """The signed-in annotator: from this session while its ticket is live, else from the URL
    (a ticket when tokens are configured, the plain `?annotator=NAME` when they are not)."""
    state.init()
    accs = accounts()
    who = st.session_state[state.ANNOTATOR]
    if not accs:
        if who is None:
            who = st.session_state[state.ANNOTATOR] = clean_name(st.query_params.get("annotator", ""))
        return who
    if who is not None:
        if who in accs and _tickets(served_project.workspace()).touch(st.session_state[state.TICKET]) == who:
            return who
        end_session()
        return None
    ticket = st.query_params.get("session")
    if ticket:
        got = _tickets(served_project.workspace()).redeem(ticket)
        if got and got[0] in accs:
            st.session_state[state.ANNOTATOR], st.session_state[state.TICKET] = got
        else:
            del st.query_params["session"]
    return st.session_state[state.ANNOTATOR]


def end_session() -> None:
    """This session is signed out (its ticket ended): say why on the sign-in page."""
    st.session_state[state.ANNOTATOR] = None
    st.session_state[state.TICKET] = None
    st.session_state[state.SESSION_ENDED] = ENDED
    if "session" in st.query_params:
        del st.query_params["session"]


def is_admin() -> bool:
    """Admins see everyone's annotations and the summary; without tokens, everyone may."""
    accs = accounts()
    if not accs:
        return True
    acc = accs.get(annotator() or "")
    return bool(acc and acc.is_admin)


def sign_in(name: str) -> None:
    """Sign in by name (only when no tokens are configured)."""
    if accounts():
        raise PermissionError("tokens are configured: sign in with a token")
    st.session_state[state.ANNOTATOR] = clean_name(name)
    st.query_params["annotator"] = st.session_state[state.ANNOTATOR] or ""


def sign_in_with_token(token: str) -> bool:
    acc = access.authenticate(accounts(), (token or "").strip())
    if acc is None:
        return False
    st.session_state[state.ANNOTATOR] = acc.name
    st.session_state[state.TICKET] = _tickets(served_project.workspace()).issue(acc.name, now=time.time())
    st.session_state.pop(state.SESSION_ENDED, None)
    st.query_params["session"] = st.session_state[state.TICKET]
    return True


def sign_out() -> None:
    """End this annotator's sessions: every tab and browser they are signed in with."""
    who = st.session_state.get(state.ANNOTATOR)
    if who and accounts():
        _tickets(served_project.workspace()).revoke_all(who)
    st.session_state[state.ANNOTATOR] = None
    st.session_state[state.TICKET] = None
    st.query_params.clear()


def url_params(**params: str) -> dict[str, str]:
    """The query parameters a page's URL carries: `params` (the item) and the sign-in."""
    want = dict(params)
    if accounts():
        if st.session_state.get(state.TICKET):
            want["session"] = st.session_state[state.TICKET]
    elif annotator():
        want["annotator"] = annotator()
    return want


def keep_url(**params: str) -> None:
    """Put the sign-in and `params` (the item) back in the URL if they are missing, in one
    update: every change of the URL is an entry in the browser's history, and Back should go
    back one step, not through a change per parameter. (Baton's own page links carry them
    already, so a page switch adds one entry, not two.)"""
    want = url_params(**params)
    if any(st.query_params.get(k) != v for k, v in want.items()):
        st.query_params.update(want)


def require_annotator() -> str:
    who = annotator()
    if not who:
        st.info("Sign in first.")
        st.page_link(str(served_project.ROOT / "pages" / "home.py"), label="Sign in", icon=":material/login:")
        st.stop()
    return who
