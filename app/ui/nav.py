"""Navigation: the pages of the project's types, the sidebar item picker, progress."""
from __future__ import annotations

import os
import re
from pathlib import Path

import streamlit as st

from app.project.config import Scheme
from app.types.registry import TYPES
from app.project.workspace import Workspace
from app.ui import shell, signin, state
from app.ui.state import widget_key
from app.ui.text import excerpt, md, visible


def _page(path: str, title: str, default: bool = False, icon: str | None = None,
          url_path: str | None = None) -> st.Page:
    """A new page object on every call, never shared: `st.navigation` marks the pages of a run
    as its own, and pages shared by sessions (once under an lru_cache) raced under concurrent
    use ("This page cannot be called directly")."""
    return st.Page(path, title=title, default=default, icon=icon, url_path=url_path)


def home_page() -> st.Page:
    return _page(str(shell.ROOT / "pages" / "home.py"), "Items", True)


RESERVED = {"summary", "keys"}  # url paths of the other pages


def scheme_title(scheme: Scheme) -> str:
    """A scheme's page name: its `title`, else its description (shortened), else its name."""
    return (scheme.get("title") or excerpt(scheme.description or "", 48) or scheme.name).strip()


def _surfaced(ws: Workspace) -> list[Scheme]:
    """The schemes whose type has a page (and with it a surface), in config order."""
    return [s for s in ws.project.schemes if TYPES[s.type].page and (shell.ROOT / TYPES[s.type].page).exists()]


def scheme_urls(ws: Workspace) -> dict[str, str]:
    """Scheme name -> the url path of its page: the name, made URL-safe and unique."""
    cached = ws.__dict__.get("_scheme_urls")
    if cached is not None:
        return cached
    out: dict[str, str] = {}
    taken = set(RESERVED)
    for s in _surfaced(ws):
        url = re.sub(r"[^A-Za-z0-9_-]+", "-", s.name).strip("-") or f"scheme-{s.index}"
        while url in taken:
            url = f"{url}-{s.index}"
        taken.add(url)
        out[s.name] = url
    ws.__dict__["_scheme_urls"] = out
    return out


def annotation_pages(ws: Workspace) -> list[st.Page]:
    """One page per scheme (whose type has a surface), named by the scheme, in config order:
    the type's page file, under the scheme's url path (app.ui.page.annotation_page finds the
    scheme from it). A new type needs nothing here: its `page` field is enough."""
    urls = scheme_urls(ws)
    return [_page(str(shell.ROOT / TYPES[s.type].page), scheme_title(s), url_path=urls[s.name])
            for s in _surfaced(ws)]


def alias_pages(ws: Workspace) -> list[st.Page]:
    """Hidden pages at the former per-type urls (`/radio`): old links and bookmarks still open,
    showing every scheme of the type. Not in the menu."""
    used = set(scheme_urls(ws).values()) | RESERVED
    out = []
    for t in ws.project.types():
        page = TYPES[t].page
        if page and (shell.ROOT / page).exists() and Path(page).stem not in used:
            used.add(Path(page).stem)
            out.append(_page(str(shell.ROOT / page), TYPES[t].title, url_path=Path(page).stem))
    return out


def page_schemes(ws: Workspace, type_name: str) -> list[Scheme]:
    """The schemes the running page shows: the one its url names, else (a per-type alias, or a
    run without navigation) every scheme of the type."""
    url = st.session_state.get(state.PAGE)
    for name, u in scheme_urls(ws).items():
        if u == url:
            scheme = ws.project.scheme(name)
            if scheme.type == type_name:
                return [scheme]
    return ws.project.schemes_of(type_name)


def scheme_page(ws: Workspace, name: str) -> st.Page | None:
    """The page of one scheme."""
    url = scheme_urls(ws).get(name)
    return next((p for p in annotation_pages(ws) if p.url_path == url), None) if url else None


def unreadable_files(ws: Workspace) -> list[str]:
    """The data files that could not be read, in whole or in part (an error), as the project
    names them: relative to the project's folder when inside it."""
    out: dict[str, None] = {}
    for p in ws.problems:
        if p.level == "error" and p.file and p.file != str(ws.project.path):
            try:
                rel = os.path.relpath(p.file, ws.project.base_dir)
            except ValueError:  # another drive (Windows)
                rel = p.file
            out[p.file if rel.startswith("..") else rel] = None
    return list(out)


def unreadable_notice(ws: Workspace) -> None:
    """On every page (in the sidebar): the data files that could not be read, by name."""
    files = unreadable_files(ws)
    if files:
        st.warning(f"Could not read {len(files)} data file(s), in whole or in part: "
                   + ", ".join(md(f) for f in files) + ". The Items page says what and where.")


def no_items_message(ws: Workspace) -> str:
    """Why a page has no item to show: no data, or data files that could not be read (named)."""
    files = unreadable_files(ws)
    if not files:
        return "The project has no items."
    return (f"The project has no items: {len(files)} data file(s) could not be read: "
            + ", ".join(md(f) for f in files) + ". The Items page says what is wrong in each.")


def unsupported_notice(ws: Workspace) -> None:
    """The schemes of types Baton does not support (audio, video, images, ...): named, not asked."""
    rows = [{"scheme": u.name, "type": u.type, "config": u.where} for u in ws.project.unsupported]
    if rows:
        st.warning(f"{len(rows)} scheme(s) of this project are of a type Baton does not support; "
                   "they are not asked (the other schemes are):")
        st.dataframe(rows, hide_index=True, width="content")


def problems_banner(ws: Workspace) -> None:
    errs = [p for p in ws.problems if p.level == "error"]
    if errs:
        with st.expander(f":material/warning: {len(errs)} problem(s) reading the data "
                         "(the rest was read)", expanded=False):
            for p in errs:
                st.text(str(p))


def natural_key(text: str) -> tuple:
    """Sorts ids as people count: run-1, run-7, run-20, run-45, run-101 (not 1, 101, 20, ...)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                 for part in re.split(r"(\d+)", str(text)) if part)


def progress_rows(ws: Workspace, who: str) -> list[dict]:
    """One row per item, ids in natural order, with its place in that order (`#`, a number, so
    sorting by that column sorts naturally too); `id` keeps the item's own id for opening it."""
    db = shell.store(ws)
    mine: dict[str, set[str]] = {}
    done: set[str] = set()
    for a in db.for_annotator(who):
        if a.scheme == shell.DONE:
            if a.value.get("done"):
                done.add(a.item_id)
        else:
            mine.setdefault(a.item_id, set()).add(a.scheme)
    n = len(ws.project.schemes)
    ordered = sorted(ws.items, key=lambda it: natural_key(it.id))
    return [{"#": i + 1, "item": visible(it.id), "done": it.id in done,  # (hidden characters of an id shown)
             "schemes annotated": f"{len(mine.get(it.id, ()))}/{n}", "task": excerpt(it.text, 80), "id": it.id}
            for i, it in enumerate(ordered)]


SHORTCUTS = {
    "previous item": "Alt+P", "next item": "Alt+N", "done with this item": "Alt+D",
    "previous surface": "Alt+K", "next surface": "Alt+J",
}
# the README's table of keys, word for word (tests/test_keys_help.py)
KEYS_HELP = """
| key | does |
|---|---|
| Alt+N / Alt+P | next / previous item |
| Alt+J / Alt+K | next / previous annotation page |
| Alt+D | done with this item, go to the next (annotation pages) |
| j / k | next / previous card (outlined, scrolled into view) |
| 1 … 9 | the card's n-th label or rating, or toggle its n-th flag (saved at once) |
| ↑ / ↓, 1 … 9 | agent scorecard (a card per agent, a row per dimension): the current row; its n-th score, then on to the next row |
| s | failure attribution: the current step card (j/k past the page's boxes) is the decisive step |
| t, Esc | into the card's text box; out of it (what was typed is saved) |
| [ / ] | previous / next page of the trace (its steps, or its lanes, tree or board) |
| n / p, d | next / previous item; done with this item → next |
| Tab / Shift+Tab | move between controls |
| Space | toggle a checkbox or press a button |
| ← → ↑ ↓ | change the choice of a radio group (contention region labels too) |
| Enter, type, Enter | open a dropdown, filter its options, pick |
"""


def surface_neighbours(ws: Workspace, current: str | None) -> tuple[st.Page | None, st.Page | None]:
    """The scheme pages before and after the current scheme, in config order."""
    pages = annotation_pages(ws)
    names = [s.name for s in _surfaced(ws)]
    if current not in names:
        return None, (pages[0] if pages else None)
    i = names.index(current)
    return (pages[i - 1] if i > 0 else None), (pages[i + 1] if i + 1 < len(pages) else None)


def pages_of(ws: Workspace) -> list[st.Page]:
    """The pages this session may open, in menu order."""
    if not shell.annotator():
        return [home_page()]
    return [home_page()] + annotation_pages(ws) + ([summary_page()] if shell.is_admin() else []) + [keys_page()]


def keys_page() -> st.Page:
    """The keyboard shortcuts' page (the sidebar's expander holds the same table)."""
    return _page(str(shell.ROOT / "pages" / "keys.py"), "Keyboard shortcuts", icon=":material/keyboard:",
                 url_path="keys")


def summary_page() -> st.Page:
    """The summary's page (built here, per call: see _page)."""
    return _page(str(shell.ROOT / "pages" / "summary.py"), "Summary", icon=":material/monitoring:")


def page_links(ws: Workspace, params: dict[str, str]) -> None:
    """The menu: a link per page whose URL already holds `params` (the item, the sign-in), so
    following it is one step in the browser's history."""
    for page in pages_of(ws):
        st.page_link(page, label=md(page.title), query_params=params, width="stretch")  # (config text: plain)


def sidebar(ws: Workspace, current: str | None = None) -> None:
    """The menu, who is signed in, progress, the item picker, item and surface navigation with
    shortcuts."""
    who = shell.annotator()
    with st.sidebar:
        signin.open_notice()
        unreadable_notice(ws)
        if not who:
            page_links(ws, {})
            st.caption("Not signed in")
            return
        st.caption(f"Signed in as **{md(who)}**")
        item = shell.current_item(ws)
        params = shell.url_params(**({"item": item.id} if item is not None else {}))
        page_links(ws, params)
        if item is None:
            return
        ids = [it.id for it in ws.items]
        done = shell.done_items(ws, who)
        st.progress(len(done & set(ids)) / len(ids), text=f"{len(done & set(ids))} / {len(ids)} done")
        key = widget_key("nav", "item")
        st.session_state[key] = item.id

        def picked():
            shell.go_to(st.session_state[key])

        # In a popover: the browser mounts its content only when it is opened. An open picker
        # updated its value on every "Done → next" in a render of its own after the page's
        # (~50 ms of a next item at 2,000 steps, paired runs), and it sends every item's label.
        mark = "✓" if item.id in done else "•"
        with st.popover(f"{mark} Item {shell.position(ws, item.id) + 1} of {len(ids)}: {md(excerpt(item.id, 40))}",
                        width="stretch", help="Pick another item"):
            st.selectbox("Item", ids, key=key, on_change=picked,
                         format_func=lambda i: ("✓ " if i in done else "• ") + excerpt(i, 60))
        # rows as horizontal containers, not columns: one element each instead of three, on every run
        items_row = st.container(horizontal=True)
        prev, nxt = shell.neighbour(ws, item.id, -1), shell.neighbour(ws, item.id, 1)
        # callbacks: the run that follows draws the other item (no run of this one first)
        items_row.button("◀ Item", key=widget_key("nav", "prev"), disabled=prev is None, width="stretch",
                  shortcut=SHORTCUTS["previous item"], help="Previous item", on_click=shell.go_to, args=(prev,))
        items_row.button("Item ▶", key=widget_key("nav", "next"), disabled=nxt is None, width="stretch",
                  shortcut=SHORTCUTS["next item"], help="Next item", on_click=shell.go_to, args=(nxt,))
        before, after = surface_neighbours(ws, current)
        pages_row = st.container(horizontal=True)
        if pages_row.button("◀ Page", key=widget_key("nav", "surface-prev"), disabled=before is None,
                     width="stretch", shortcut=SHORTCUTS["previous surface"],
                     help=f"Previous surface: {md(before.title)}" if before else None):
            st.switch_page(before, query_params=params)
        if pages_row.button("Page ▶", key=widget_key("nav", "surface-next"), disabled=after is None,
                     width="stretch", shortcut=SHORTCUTS["next surface"],
                     help=f"Next surface: {md(after.title)}" if after else None):
            st.switch_page(after, query_params=params)
        st.toggle("Show the trace beside the surface", value=True, key=state.SHOW_TRACE,
                  help="Hide it to give wide surfaces (graph, timeline) the whole page")
        with st.expander(":material/keyboard: Keyboard shortcuts"):
            st.markdown(KEYS_HELP)
