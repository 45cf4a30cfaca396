"""What the choice surfaces (radio, multiselect) share: Potato's `has_free_response` box and
the labels' tooltips.

Widget keys name the scheme, not the item: on "Done → next" the browser updates the same
controls; state.follow gives them the new item's stored value (and, after a failed save, what
is on disk again, typed text kept). Labels, options and tooltips come from the project: md()
keeps them plain text (widget labels, radio options and help render Markdown).
"""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.ui.text import md


def free_text(scheme, build_key, cb) -> None:
    fr = scheme.get("has_free_response")
    if fr:
        label = fr.get("instruction", "Other (free text)") if isinstance(fr, dict) else "Other (free text)"
        st.text_input(md(label), key=build_key, on_change=cb)


def tips(scheme: Scheme) -> dict[str, str]:
    return {lab["name"]: lab["tooltip"] for lab in scheme["labels"] if lab.get("tooltip")}
