"""The selected contention region in words: which it is, how it was selected (a bar or a ◆
marker clicked on the chart, "Select" in the list) and whether the chart shows it, in one line
under the chart, so a selection is never told by colour alone and the chart is not drawn again
for it. A click that selected nothing says so on a line of its own."""
from __future__ import annotations

import re
from typing import Collection

import streamlit as st

from app.ui import contention_view as tl
from app.ui.text import md

_HOW = ((re.compile(r"^Call (\d+) is in region #\d+"), r"call \1 clicked on the chart"),
        (re.compile(r"^Region #\d+ selected on the chart"), "its ◆ marker clicked"),
        (re.compile(r"^Region #\d+ selected from the list"), "chosen in the list"))


def how_selected(message: str) -> str | None:
    """How a selection was made, from its message ("call 2 clicked on the chart"), or None when
    the message is not about a selection (it is then shown on a line of its own)."""
    for pattern, how in _HOW:
        if pattern.match(message or ""):
            return pattern.sub(how, message.split(":")[0].rstrip("."))
    return None


def line(message: str, region, on_chart: Collection[int], kind: str) -> None:
    """The line for the selected `region` (None: none is) after the last click's `message`;
    `on_chart`: the regions whose markers the chart shows now; `kind`: the calls' time kind."""
    how = how_selected(message)
    if message and (how is None or region is None):
        st.caption(f"↳ {md(message)}")
    if region is None:
        return
    if region.index in on_chart:
        where = f"its ◆#{region.index} marker is on the chart"
    else:
        where = "not in this view of the chart (zoom to it, or change the window or the resources)"
    st.caption(f"↳ **Selected: region #{region.index}**{' (' + md(how) + ')' if how else ''} · "
               f"{md(region.resource, 60)} · {md(tl.fmt_span(region.start, region.end, kind))} · "
               f"agents: {md(', '.join(region.agents), 120)} · {where}")
