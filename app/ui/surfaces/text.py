"""The text surface: an instant text card (app/ui/instant_text.py): typing is the browser's own,
the text is saved after a pause in typing, on leaving the box and on Ctrl+Enter (Enter, for one
line), and the card says "Saved" or, in words, why not (the typed words stay in the box).

The card is keyed by the scheme, not the item: on "Done → next" the browser updates the same
box, which then holds the new item's stored text (a late save for the previous item is not
saved on this one)."""
from __future__ import annotations

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import text as text_type
from app.ui import shell
from app.ui.instant_scheme import scheme_text
from app.ui.state import widget_key


def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    scheme_text(ws, item, scheme, widget_key("text", scheme.name), title=scheme.name, hide_title=True,
                text_of=text_type.text_of, build=lambda text, base: text_type.build(text),
                multiline=bool(scheme.get("multiline", True)))
    return shell.CARDS
