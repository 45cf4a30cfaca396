"""Tool contention: the calls on a lane-per-agent timeline, contention regions shaded on the
lanes they involve, and the regions listed under it with a label each.

Clicking a bar selects the region holding its call, clicking a region's "#N" marker selects
that region; either way the list turns to the region's page and marks it "Selected", and a line
under the chart names it. Every action also has a focusable control in the list (labels,
"Select", paging, zoom). Filters, paging, chart clicks and saves re-run only this scheme's
fragment (app/ui/page.scheme_block), with the saved note under it.

The chart does not depend on the selection (app/timeline.build): selecting a region leaves its
spec byte-identical, so the browser keeps the drawing (Plotly's first drawing of a window of
calls costs 0.3-0.7 s; a changed spec is a new chart to Streamlit). Only what changes the
drawing itself (the window, zoom, the resource filter, another item) draws it again.
"""
from __future__ import annotations

import math

import streamlit as st

from app.ui import contention_view as tl
from app.project.config import Scheme
from app.traces.derive import Derivation
from app.traces.trace import Item, one_line
from app.project.workspace import Workspace
from app.ui import contention_selection as selection, region_cards, saving, shell, timeline_chart
from app.ui.instant import NotSaved
from app.ui.pager import arrows
from app.ui.instant_scheme import clean_card
from app.ui.state import follow, trigger, widget_key
from app.ui.text import md, visible

PAGE_SIZE = 5  # regions a page: a selection or a page turn redraws these cards
RADIO_UP_TO = 6  # labels: up to this many are a radio row, more a dropdown


def _prepared(item: Item, scheme: Scheme) -> tuple[Derivation, str, tuple[float, float] | None, dict]:
    """The derivation, its time kind and bounds and its calls by index, worked out once per item
    (each is a pass over every call; the list re-runs on every selection)."""
    d = shell.derivation(item, scheme)
    return (d, *_basics(item, scheme, d))


def _basics(item: Item, scheme: Scheme, d: Derivation) -> tuple[str, tuple[float, float] | None, dict]:
    return shell.per_derivation(d, f"tool_contention:{scheme['calls_key']}", lambda: (
        tl.time_kind(item.data.get(scheme["calls_key"])), tl.time_bounds(d.calls), {c.index: c for c in d.calls}))


def _slidable(bounds) -> bool:
    """Whether the run has a time window to choose (a span that is positive and a number)."""
    return bool(bounds) and bounds[1] > bounds[0] and math.isfinite(bounds[1] - bounds[0])


def _opening(d: Derivation, bounds) -> tuple[float, float]:
    """The time window an item opens on, in seconds from its first call (the slider's first
    value): a long run's first calls, on the slider's steps."""
    span, step = float(bounds[1] - bounds[0]), tl.window_step(*bounds)
    lo, hi = tl.first_window(d.calls, bounds)
    hi = min(span, math.ceil((hi - bounds[0]) / step) * step)
    return 0.0, hi if hi > 0 else span


VIEWS_KEPT = 4  # chart figures kept per item: the opening view and the last few windows


def _view(d: Derivation, kind: str, resources: list[str], window) -> tuple[tl.Timeline, str]:
    """What the chart shows in this view, and its figure as JSON, kept with the derivation: the
    opening view is built ahead (warm), and a click that leaves the view as it was (a bar,
    "Select", a label) does not build it again."""
    views = shell.per_derivation(d, "tool_contention:views", dict)
    key = (kind, tuple(resources), window)
    found = views.get(key)
    if found is None:
        t = tl.build(d.calls, d.contentions, d.agents, kind, resources, window)
        found = (t, timeline_chart.figure_json(tl.figure(t)))
        for old in list(views)[:max(0, len(views) - VIEWS_KEPT + 1)]:  # the oldest (a list: the
            views.pop(old, None)  # prefetch thread may be adding one to the same item's views)
        views[key] = found
    return found


def _opening_view(item: Item, scheme: Scheme, d: Derivation) -> tuple[tl.Timeline, str] | None:
    kind, bounds, _ = _basics(item, scheme, d)
    if not d.calls:
        return None
    # as _window() reads the slider's first value: the same window, the same figure text
    return _view(d, kind, [], _absolute(bounds, _opening(d, bounds)) if _slidable(bounds) else bounds)


_AHEAD: dict[tuple, str] = {}  # (item id, its data, scheme) -> the figure the item opens on, built ahead
_AHEAD_MAX = 16


def warm(item: Item, d: Derivation, scheme: Scheme) -> None:
    """Build the chart an item opens on before it is opened (shell.prefetch): the page before it
    hands that figure to the browser, which draws it unseen while the annotator reads, and shows
    it on "Done → next" (see timeline_chart)."""
    if scheme is None or scheme.type != "tool_contention":
        return
    found = _opening_view(item, scheme, d)
    if found is not None:
        if len(_AHEAD) >= _AHEAD_MAX:
            _AHEAD.clear()
        _AHEAD[(item.id, id(item.data), scheme.name)] = found[1]


def _ahead(ws: Workspace, item: Item, scheme: Scheme) -> str | None:
    """The opening figure of the item "Done → next" opens, if it was built ahead. The first
    chart a session draws builds it here instead (the prefetch that would have built it starts
    only after this run)."""
    nxt = shell.neighbour(ws, item.id, 1)
    if nxt is None:
        return None
    nitem = ws.by_id[nxt]
    found = _AHEAD.get((nitem.id, id(nitem.data), scheme.name))
    first = _place(scheme, "drawn-ahead")
    if found is None and first not in st.session_state:
        warm(nitem, shell.derivation(nitem, scheme), scheme)
        found = _AHEAD.get((nitem.id, id(nitem.data), scheme.name))
    st.session_state[first] = True
    return found


def _k(scheme: Scheme, item: Item, *parts) -> str:
    return widget_key("tool_contention", scheme.name, item.id, *parts)


def _place(scheme: Scheme, *parts) -> str:
    """A control keyed by its place on the surface, not by the item: on the next item the
    browser updates it instead of mounting a new one (a new resource filter alone cost ~50 ms
    of "Done → next"); what it holds per item is kept apart (see _resources)."""
    return widget_key("tool_contention", scheme.name, "place", *parts)


def _resources(scheme: Scheme, item: Item, choices: list[str]) -> tuple[str, object]:
    """The resource filter's key, set to this item's choice when the item changed, and its
    on_change, which remembers the choice per item (coming back to an item keeps its filter)."""
    key, kept = _place(scheme, "resources"), _place(scheme, "resources-by-item")
    by_item = st.session_state.setdefault(kept, {})
    follow(_place(scheme, "resources-holds"), item.id,
           {key: [r for r in by_item.get(item.id, []) if r in choices]})

    def remember():
        by_item[item.id] = list(st.session_state.get(key) or [])
    return key, remember


def _resources_chosen(scheme: Scheme, item: Item) -> list[str]:
    """The resources the filter shows for this item (none chosen: all)."""
    if st.session_state.get(_place(scheme, "resources-holds")) != item.id:
        return []
    return st.session_state.get(_place(scheme, "resources")) or []


def _stored(ws: Workspace, item: Item, scheme: Scheme) -> dict:
    ann = shell.load(ws, item, scheme.name)
    return ann.value if ann and isinstance(ann.value, dict) else {}


def _absolute(bounds, w: tuple[float, float]) -> tuple[float, float]:
    """A slider window (seconds from the first call) in absolute seconds."""
    return bounds[0] + w[0], bounds[0] + w[1]


def _window(scheme, item, bounds) -> tuple[float, float] | None:
    """The chosen time window in absolute seconds (None: the whole run)."""
    if bounds is None:
        return None
    w = st.session_state.get(_k(scheme, item, "window"))
    return _absolute(bounds, w) if w else bounds


def _listed(d: Derivation, scheme, item, bounds) -> list:
    return tl.visible_regions(d.contentions, _resources_chosen(scheme, item),
                              _window(scheme, item, bounds))


def _select(scheme, item, d: Derivation, bounds, region: int | None, message: str = "") -> None:
    st.session_state[_k(scheme, item, "message")] = message
    if region is None:
        return
    st.session_state[_k(scheme, item, "selected")] = region
    page = tl.page_of(region, _listed(d, scheme, item, bounds), PAGE_SIZE)
    if page is not None:
        st.session_state[_k(scheme, item, "page")] = page


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d, kind, bounds, _ = _prepared(item, scheme)
    labels = tl.labels_of(_stored(ws, item, scheme))

    if not d.calls:
        st.info(f'This run has no timed tool calls (no "{md(scheme["calls_key"])}" list), '
                "so there is no contention to label.")
    else:
        # The list sits under the chart, not beside it: the surface is the narrower column of
        # the page (the trace is on the left), and a chart sharing it with the list got too
        # small to read or click. The list's first line names the selected region.
        _chart(ws, item, scheme, d, kind, bounds)
        _region_list(ws, item, scheme)

    gone = {i: lab for i, lab in labels.items() if i not in {r.index for r in d.contentions}}
    if gone:
        st.caption("Saved labels for regions this trace no longer has (the data changed): "
                   + ", ".join(f"#{i} {md(lab)}" for i, lab in sorted(gone.items())))

    def labelled(stored) -> str | None:  # (checked on the click: the list re-runs alone)
        n = len(tl.labels_of(stored))
        return f"{n} region{'s are' if n != 1 else ' is'} labelled: set them back to “{tl.UNLABELLED}” first " \
               "to record “nothing to flag”" if n else None

    clean_card(ws, item, scheme, empty={tl.KEY: {}}, refuse=labelled,
               tip="Record that you looked at this run's contention and found nothing to label "
                   "(only while no region is labelled)")
    return shell.CARDS


def _chart(ws: Workspace, item: Item, scheme: Scheme, d: Derivation, kind: str, bounds) -> None:
    win_key, chart_key = _k(scheme, item, "window"), _place(scheme, "chart")
    all_resources = tl.resources(d.calls)
    if len(all_resources) > 1:
        res_key, remember = _resources(scheme, item, all_resources)
        st.multiselect("Resources shown", all_resources, key=res_key, placeholder="All resources",
                       on_change=remember, help="Show only the calls and regions on these resources")
    if bounds and bounds[1] > bounds[0] and not _slidable(bounds):
        st.caption("The calls' times span more than a number can hold (times near ±1.8e308), so there "
                   "is no time window to choose: the whole run is drawn.")
    elif _slidable(bounds):
        span = bounds[1] - bounds[0]
        step = tl.window_step(*bounds)
        digits = max(0, -math.floor(math.log10(step)))
        if win_key not in st.session_state:  # a long run opens on its first calls
            st.session_state[win_key] = _opening(d, bounds)
        zoom_row = st.container(horizontal=True)  # one element, not columns (three): see app/ui/pager.py
        lo, hi = st.session_state[win_key]
        # in a popover, labelled with the window: the browser mounts the slider only when it is
        # opened (a slider given a new item's window settles in a render of its own, ~50 ms
        # after the rest of a "Done → next" at 2,000 steps); zoom and the chart's own drag-zoom
        # stay one click away
        with zoom_row.popover(f"Time window: {lo:,.{digits}f}–{hi:,.{digits}f} s of {span:,.{digits}f}",
                              width="stretch"):
            st.slider("Time window (seconds from the first call)", 0.0, float(span), step=float(step),
                      key=win_key, format=f"%.{digits}f")

        def zoom(to):
            lo, hi = to
            st.session_state[win_key] = (max(0.0, lo - bounds[0]), min(float(span), hi - bounds[0]))

        def zoom_selected():  # the selection is read now: the list re-runs alone and may have changed it
            selected = st.session_state.get(_k(scheme, item, "selected"))
            region = next((r for r in d.contentions if r.index == selected), None)
            if region is None:
                st.session_state[_k(scheme, item, "message")] = (
                    "No region is selected: click a bar or a ◆ marker, or “Select” one in the list.")
                return
            zoom(tl.zoom_window(region, bounds))

        zoom_row.button("Zoom to the selected region", key=_place(scheme, "zoom"), width="stretch",
                  on_click=zoom_selected, help="Zoom the chart to the region selected below")
        zoom_row.button("Show the whole run", key=_place(scheme, "unzoom"), width="stretch",
                  on_click=lambda: zoom(bounds))
    window = _window(scheme, item, bounds)
    drawable = sum(1 for c in d.calls if tl.timed(c))
    if window and bounds and window != bounds and drawable > tl.FIRST_VIEW_CALLS:
        shown = sum(1 for c in d.calls if tl.timed(c) and c.start < window[1] and c.end > window[0])
        st.caption(f"{shown:,} of {drawable:,} calls in this time window (a long run opens on its first "
                   f"{tl.FIRST_VIEW_CALLS}); move the window, or show the whole run.")
    t, fig = _view(d, kind, _resources_chosen(scheme, item), window)
    if kind == tl.DATETIME and window:
        st.caption(f"Window: {md(tl.fmt_span(window[0], window[1], kind))}")

    def on_click():
        region, message = tl.clicked_region(timeline_chart.clicked(chart_key), d.contentions)
        if message:
            _select(scheme, item, d, bounds, region, message)

    if t.bars:
        # one chart kept by place, drawn once per new figure (see timeline_chart)
        timeline_chart.draw(fig, key=chart_key, on_click=on_click, ahead=_ahead(ws, item, scheme),
                            config={"displaylogo": False},
                            alt=f"Timeline of {len(t.bars)} tool calls in {len(t.lanes)} agent lanes with "
                                f"{len({m.region for m in t.markers})} contention regions; the list beside it "
                                "holds the same regions")
        named = ("labelled with their tool; ⚠#N and hatching: in contention region N" if tl.bar_labels(t) else
                 f"hatched: in a contention region; with more than {tl.BAR_LABELS_UP_TO} calls in view the bars "
                 "carry no labels: hover for a call's tool and region, or narrow the window")
        st.caption(f"Bars are calls ({named}). Shaded boxes with a ◆#N marker are contention regions. "
                   "Click a bar or a marker to select its region in the list.")
    elif bounds is None:
        st.info("No call has a usable start and end time, so there is nothing to draw (see the problems below).")
    else:
        st.info("No calls in this window or on these resources.")
    for note in t.notes:
        st.caption(note)
    st.session_state[_k(scheme, item, "drawn")] = {m.region for m in t.markers}  # for the list's line
    problems = tl.problem_lines(d.calls)
    if problems:
        with st.expander(f":material/warning: {len(problems)} call(s) with problems", expanded=len(problems) <= 5):
            for line in problems[:50]:
                st.text(line)
            if len(problems) > 50:
                st.text(f"… and {len(problems) - 50} more")


def _selected_line(scheme, item, d: Derivation, kind: str) -> None:
    """The selected region named in one line (app/ui/contention_selection.py)."""
    selected = st.session_state.get(_k(scheme, item, "selected"))
    selection.line(st.session_state.get(_k(scheme, item, "message")) or "",
                   next((r for r in d.contentions if r.index == selected), None),
                   st.session_state.get(_k(scheme, item, "drawn"), ()), kind)


@st.fragment
def _region_list(ws: Workspace, item: Item, scheme: Scheme) -> None:
    """The regions, a fragment of its own: selecting, paging and labelling re-run only the list
    (not the chart above it, nor its filters). What changes the chart (a chart click, the window,
    the resources, zoom) re-runs the scheme's fragment, and this with it."""
    d, kind, bounds, by_index = _prepared(item, scheme)
    drawn = _stored(ws, item, scheme)  # what the cards show: a label's change from it is saved
    labels = tl.labels_of(drawn)
    _selected_line(scheme, item, d, kind)
    page_key = _k(scheme, item, "page")
    selected = st.session_state.get(_k(scheme, item, "selected"))
    listed = _listed(d, scheme, item, bounds)
    total = len(d.contentions)
    if not total:
        st.markdown("**No contention regions**")
        st.caption("No two agents used the same resource at overlapping times.")
        return
    shown = f"{len(listed)} of {total}" if len(listed) != total else f"{total}"
    st.markdown(f"**Contention regions** ({shown}) · {len(labels)} labelled (a label is saved when chosen)")
    n_pages = tl.page_count(len(listed), PAGE_SIZE)
    page = min(st.session_state.get(page_key, 0), n_pages - 1)
    if n_pages > 1:
        def turn(delta):
            st.session_state[page_key] = max(0, min(n_pages - 1, page + delta))

        arrows((_place(scheme, "prev"), _place(scheme, "next")), page, n_pages, turn, f"Page {page + 1} of {n_pages}",
               labels=("◀", "▶"), helps=("Previous page of regions", "Next page of regions"))
    if selected is not None and not any(r.index == selected for r in listed):
        st.caption(f"Region #{selected} is selected but hidden by the filters above.")
    options = [tl.UNLABELLED] + [x for x in scheme["contention_labels"] if x != tl.UNLABELLED]
    # every region's labels (a saved label no longer in the config stays a choice): a click still
    # on its way from a page turned since is saved too
    choices = {r.index: options if labels.get(r.index, tl.UNLABELLED) in options
               else options + [labels[r.index]] for r in d.contentions}
    cards_key = _place(scheme, "regions")
    handled, base_key = region_cards.acks(cards_key, item.id), _k(scheme, item, "labels-base")
    st.session_state[base_key] = drawn  # a click's change is saved from this, then from what each save left
    cards = []
    for r in listed[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
        current, k_saved, ack = labels.get(r.index, tl.UNLABELLED), _k(scheme, item, "saved", r.index), \
            handled.get(r.index)
        at = st.session_state.get(k_saved) or ""
        status, state_ = ((ack.error, "failed") if ack and ack.error else
                          (f"Saved · {at}", "saved") if at and not at.startswith(saving.NOT_SAVED) else
                          ("Saved", "saved") if ack else ("", "empty"))
        cards.append({
            "region": r.index, "head": f"Region #{r.index} · {visible(one_line(r.resource, 60))}",
            "status": status, "state": state_, "holds": region_cards.holds_of(item.id, r.index),
            "lines": [visible(line) for line in tl.region_lines(r, by_index, kind)],
            "options": choices[r.index], "label": current,
            # a few labels are a radio row (one click); more, a dropdown
            "dropdown": len(choices[r.index]) > RADIO_UP_TO, "selected": r.index == selected})

    def chosen(name: str) -> dict:
        """The cards' event, if it was made on this item's cards (a late one may arrive after
        "Done → next"): else {}."""
        found = trigger(cards_key, name)
        return found if isinstance(found, dict) and found.get("item") == item.id else {}

    def save(idx: int, picked: list[str]) -> None:
        # only this region's change from what this session last knew was stored, on top of the
        # disk (other regions, on other pages or labelled in another tab, keep theirs); a region
        # another tab labelled differently meanwhile keeps that label, and its card says so
        base = st.session_state.get(base_key, drawn)
        value = tl.set_label(base, idx, picked[0] if picked else tl.UNLABELLED)
        if tl.labels_of(value) == tl.labels_of(base):
            return
        if not shell.card_saved(ws, item, scheme, value, _k(scheme, item, "saved", idx),
                                empty=tl.is_empty(value), base=base):
            raise NotSaved(saving.failure(item, scheme.name) or "you are signed out")
        st.session_state[base_key] = _stored(ws, item, scheme)

    def on_label():
        region_cards.apply_labels(chosen("label"), item.id, choices, handled, save)

    def on_select():
        idx = chosen("select").get("region")
        if idx in choices:
            _select(scheme, item, d, bounds, idx, f"Region #{idx} selected from the list.")

    region_cards.draw(cards, cards_key, item.id, on_label=on_label, on_select=on_select,
                      select_help="Name this region above the list (its ◆ marker on the chart); "
                                  "“Zoom to the selected region” then brings it into view", handled=handled)
    shell.rerun_if_asked()
