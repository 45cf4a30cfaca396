"""What the choice surfaces (radio, multiselect) share: Potato's `has_free_response` box and
the labels' tooltips.

The free response is an instant text card (app/ui/instant_text.py, one line: saved after a
pause in typing, on leaving the box and on Enter), keyed by the scheme, not the item: on
"Done → next" the browser updates the same box, which then holds the new item's text. It saves
the text only, on the label(s) on disk (the choice card saves the label(s) only, on the text on
disk). Labels, options and tooltips come from the project: the card writes them as text, md()
keeps them plain in Streamlit's widgets (labels, radio options and help render Markdown).
"""
from __future__ import annotations

from typing import Any, Callable

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import radio as radio_type
from app.ui.instant_scheme import scheme_text

FREE_LABEL = "Other (free text)"


def free_text(ws: Workspace, item: Item, scheme: Scheme, key: str, build: Callable[[str, Any], Any]) -> None:
    """The scheme's free response box, if it has one: `build(text, base)` is the scheme's value
    made of the stored value `base` with the text."""
    fr = scheme.get("has_free_response")
    if fr:
        label = fr.get("instruction", FREE_LABEL) if isinstance(fr, dict) else FREE_LABEL
        scheme_text(ws, item, scheme, key, title=str(label), text_of=radio_type.free_text, build=build,
                    multiline=False)


def tips(scheme: Scheme) -> dict[str, str]:
    return {lab["name"]: lab["tooltip"] for lab in scheme["labels"] if lab.get("tooltip")}
