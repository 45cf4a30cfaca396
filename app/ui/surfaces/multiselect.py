"""The multiselect surface: the labels as one instant card of toggles (see app/ui/surfaces/radio.py),
and Potato's free response box (an instant text card: app/ui/surfaces/free_response.py)."""
from __future__ import annotations

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import multiselect as multiselect_type, radio as radio_type
from app.ui.instant_scheme import scheme_card
from app.ui.state import widget_key
from app.ui.surfaces.free_response import free_text, tips


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    names = [lab["name"] for lab in scheme["labels"]]

    def build(picked: list[str], base) -> dict:  # the labels, on the free text on disk
        return multiselect_type.build(picked, radio_type.free_text(base if isinstance(base, dict) else None))

    scheme_card(ws, item, scheme, widget_key("multi", scheme.name), title=scheme.name, options=names,
                chosen=lambda v: multiselect_type.choices(v if isinstance(v, dict) else None), build=build,
                multi=True, tips=tips(scheme), hide_title=True, note_below=True)

    def typed(text: str, base) -> dict:  # the free response, on the labels on disk
        return multiselect_type.build(multiselect_type.choices(base if isinstance(base, dict) else None), text)

    free_text(ws, item, scheme, widget_key("multi-free", scheme.name), typed)
