"""Tool contention: the calls on a lane-per-agent timeline, contention regions shaded on the
lanes they involve, and the regions listed under it with a label each.

Clicking a bar selects the region holding its call, clicking a region's "#N" marker selects
that region; either way the list turns to the region's page and marks it "▶ Selected".
Every action also has a focusable control in the list (labels, "Show on chart", paging,
zoom). Filters, paging, chart clicks and saves re-run only this scheme's fragment
(app/ui/page.scheme_block), with the saved note under it.
"""
from __future__ import annotations

import math

import streamlit as st

from ... import timeline as tl
from ... import values
from ...config import Scheme
from ...derive import Derivation
from ...trace import Item
from ...workspace import Workspace
from .. import shell
from ..state import widget_key
from ..text import md

PAGE_SIZE = 10
CALLS_SHOWN = 8  # calls named per region in the list; more are counted


def _k(scheme: Scheme, item: Item, *parts) -> str:
    return widget_key("tool_contention", scheme.name, item.id, *parts)


def _stored(ws: Workspace, item: Item, scheme: Scheme) -> dict:
    ann = shell.load(ws, item, scheme.name)
    return ann.value if ann and isinstance(ann.value, dict) else {}


def _window(scheme, item, bounds) -> tuple[float, float] | None:
    """The chosen time window in absolute seconds (None: the whole run)."""
    if bounds is None:
        return None
    w = st.session_state.get(_k(scheme, item, "window"))
    if not w:
        return bounds
    return bounds[0] + w[0], bounds[0] + w[1]


def _listed(d: Derivation, scheme, item, bounds) -> list:
    return tl.visible_regions(d.contentions, st.session_state.get(_k(scheme, item, "resources")) or (),
                              _window(scheme, item, bounds))


def _select(scheme, item, d: Derivation, bounds, region: int | None, message: str = "") -> None:
    st.session_state[_k(scheme, item, "message")] = message
    if region is None:
        return
    st.session_state[_k(scheme, item, "selected")] = region
    page = tl.page_of(region, _listed(d, scheme, item, bounds), PAGE_SIZE)
    if page is not None:
        st.session_state[_k(scheme, item, "page")] = page


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    _surface(ws, item, scheme)


def _surface(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    kind = tl.time_kind(item.data.get(scheme["calls_key"]))
    bounds = tl.time_bounds(d.calls)
    stored = _stored(ws, item, scheme)
    labels = tl.labels_of(stored)

    def save(value: dict, status: str = values.ANNOTATED) -> None:
        shell.commit(ws, item, scheme, value, empty=tl.is_empty(value), status=status)

    if not d.calls:
        st.info(f'This run has no timed tool calls (no "{md(scheme["calls_key"])}" list), '
                "so there is no contention to label.")
    else:
        # The list sits under the chart, not beside it: the surface is the narrower column of
        # the page (the trace is on the left), and a chart sharing it with the list got too
        # small to read or click. Selecting a region names it right under the chart.
        _chart(item, scheme, d, kind, bounds)
        _region_list(item, scheme, d, kind, bounds, labels, save, lambda: _stored(ws, item, scheme))

    gone = {i: lab for i, lab in labels.items() if i not in {r.index for r in d.contentions}}
    if gone:
        st.caption("Saved labels for regions this trace no longer has (the data changed): "
                   + ", ".join(f"#{i} {md(lab)}" for i, lab in sorted(gone.items())))
    st.button(":material/task_alt: Reviewed, nothing to flag", key=_k(scheme, item, "clean"),
              disabled=bool(labels),
              help="Clear the labels first" if labels else
              "Record that you looked at this run's contention and found nothing to label",
              on_click=lambda: save({tl.KEY: {}}, values.REVIEWED_CLEAN))


def _chart(item: Item, scheme: Scheme, d: Derivation, kind: str, bounds) -> None:
    res_key, win_key, chart_key = (_k(scheme, item, x) for x in ("resources", "window", "chart"))
    selected = st.session_state.get(_k(scheme, item, "selected"))
    all_resources = tl.resources(d.calls)
    if len(all_resources) > 1:
        st.multiselect("Resources shown", all_resources, key=res_key, placeholder="All resources",
                       help="Show only the calls and regions on these resources")
    if bounds and bounds[1] > bounds[0]:
        span = bounds[1] - bounds[0]
        step = tl.window_step(*bounds)
        digits = max(0, -math.floor(math.log10(step)))
        if win_key not in st.session_state:
            lo, hi = tl.first_window(d.calls, bounds)  # a long run opens on its first calls
            hi = min(float(span), math.ceil((hi - bounds[0]) / step) * step)
            st.session_state[win_key] = (0.0, hi if hi > 0 else float(span))
        st.slider("Time window (seconds from the first call)", 0.0, float(span), step=float(step),
                  key=win_key, format=f"%.{digits}f")
        z1, z2 = st.columns(2)
        region = next((r for r in d.contentions if r.index == selected), None)

        def zoom(to):
            lo, hi = to
            st.session_state[win_key] = (max(0.0, lo - bounds[0]), min(float(span), hi - bounds[0]))

        z1.button("Zoom to the selected region", key=_k(scheme, item, "zoom"), disabled=region is None,
                  width="stretch", on_click=lambda: zoom(tl.zoom_window(region, bounds)))
        z2.button("Show the whole run", key=_k(scheme, item, "unzoom"), width="stretch",
                  on_click=lambda: zoom(bounds))
    window = _window(scheme, item, bounds)
    drawable = sum(1 for c in d.calls if tl.timed(c))
    if window and bounds and window != bounds and drawable > tl.FIRST_VIEW_CALLS:
        shown = sum(1 for c in d.calls if tl.timed(c) and c.start < window[1] and c.end > window[0])
        st.caption(f"{shown:,} of {drawable:,} calls in this time window (a long run opens on its first "
                   f"{tl.FIRST_VIEW_CALLS}); move the window, or show the whole run.")
    t = tl.build(d.calls, d.contentions, d.agents, kind, st.session_state.get(res_key) or (), window, selected)
    if kind == tl.DATETIME and window:
        st.caption(f"Window: {md(tl.fmt_span(window[0], window[1], kind))}")

    def on_click():
        event = st.session_state.get(chart_key)
        points = event.selection.points if event and event.selection else []
        region, message = tl.clicked_region(points, d.contentions)
        if message:
            _select(scheme, item, d, bounds, region, message)

    if t.bars:
        st.plotly_chart(tl.figure(t), key=chart_key, on_select=on_click, selection_mode=("points",),
                        config={"displaylogo": False},
                        alt=f"Timeline of {len(t.bars)} tool calls in {len(t.lanes)} agent lanes with "
                            f"{len({m.region for m in t.markers})} contention regions; the list beside it "
                            "holds the same regions")
        st.caption("Bars are calls (labelled with their tool; ⚠#N and hatching: in contention region N). "
                   "Shaded boxes with a ◆#N marker are contention regions. Click a bar or a marker to "
                   "select its region in the list.")
    elif bounds is None:
        st.info("No call has a usable start and end time, so there is nothing to draw (see the problems below).")
    else:
        st.info("No calls in this window or on these resources.")
    for note in t.notes:
        st.caption(note)
    message = st.session_state.get(_k(scheme, item, "message"))
    if message:
        st.caption(f":material/ads_click: {md(message)}")
    problems = tl.problem_lines(d.calls)
    if problems:
        with st.expander(f":material/warning: {len(problems)} call(s) with problems", expanded=len(problems) <= 5):
            for line in problems[:50]:
                st.text(line)
            if len(problems) > 50:
                st.text(f"… and {len(problems) - 50} more")


def _region_list(item, scheme, d: Derivation, kind, bounds, labels, save, load) -> None:
    page_key = _k(scheme, item, "page")
    selected = st.session_state.get(_k(scheme, item, "selected"))
    listed = _listed(d, scheme, item, bounds)
    total = len(d.contentions)
    if not total:
        st.markdown("**No contention regions**")
        st.caption("No two agents used the same resource at overlapping times.")
        return
    shown = f"{len(listed)} of {total}" if len(listed) != total else f"{total}"
    st.markdown(f"**Contention regions** ({shown}) · {len(labels)} labelled")
    n_pages = tl.page_count(len(listed), PAGE_SIZE)
    page = min(st.session_state.get(page_key, 0), n_pages - 1)
    if n_pages > 1:
        c1, c2, c3 = st.columns([1, 2, 1])

        def turn(delta):
            st.session_state[page_key] = max(0, min(n_pages - 1, page + delta))

        c1.button("◀", key=_k(scheme, item, "prev"), disabled=page == 0, on_click=turn, args=(-1,),
                  help="Previous page of regions")
        c3.button("▶", key=_k(scheme, item, "next"), disabled=page >= n_pages - 1, on_click=turn, args=(1,),
                  help="Next page of regions")
        c2.caption(f"Page {page + 1} of {n_pages}")
    if selected is not None and not any(r.index == selected for r in listed):
        st.caption(f"Region #{selected} is selected but hidden by the filters above.")
    options = [tl.UNLABELLED] + [x for x in scheme["contention_labels"] if x != tl.UNLABELLED]
    by_index = {c.index: c for c in d.calls}
    for r in listed[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
        is_sel = r.index == selected
        with st.container(border=True):
            head = f"**Region #{r.index}** · {md(r.resource, 60)}"
            st.markdown((":material/ads_click: **Selected** · " if is_sel else "") + head)
            calls = [f"{c} {by_index[c].tool} ({by_index[c].agent})" for c in r.calls[:CALLS_SHOWN]]
            more = f" and {len(r.calls) - CALLS_SHOWN} more" if len(r.calls) > CALLS_SHOWN else ""
            st.caption(md(tl.fmt_span(r.start, r.end, kind)) + " · agents: " + md(", ".join(r.agents), 200)
                       + "  \ncalls: " + md("; ".join(calls), 300) + more)
            key = _k(scheme, item, "label", r.index)
            current = labels.get(r.index, tl.UNLABELLED)
            if current not in options:
                options_r = options + [current]  # a saved label no longer in the config stays visible
            else:
                options_r = options

            def on_label(idx=r.index, key=key):
                before = load()  # the value on disk: other regions' widgets may be on other pages
                value = tl.set_label(before, idx, st.session_state.get(key))
                if tl.labels_of(value) != tl.labels_of(before):
                    save(value)

            st.selectbox(f"Label for region #{r.index}", options_r, index=options_r.index(current), key=key,
                         on_change=on_label)
            st.button("Show on chart" if not is_sel else "Shown on chart", key=_k(scheme, item, "show", r.index),
                      disabled=is_sel, on_click=_select,
                      args=(scheme, item, d, bounds, r.index, f"Region #{r.index} selected from the list."))

