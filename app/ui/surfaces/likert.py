"""The likert surface: the scale's points as one instant card (see app/ui/surfaces/radio.py)."""
from __future__ import annotations

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import likert as likert_type
from app.ui.instant_scheme import scheme_card
from app.ui.state import widget_key


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    n = scheme["size"]
    points = list(range(1, n + 1))
    labels = {i: "" for i in points}
    if scheme.get("labels") and len(scheme["labels"]) == n:
        labels = {i: scheme["labels"][i - 1]["name"] for i in points}
    else:
        labels[1], labels[n] = scheme.get("min_label") or "", scheme.get("max_label") or ""

    def chosen(value) -> list[str]:
        point = likert_type.choice(value)
        return [str(point)] if point in points else []

    scheme_card(ws, item, scheme, widget_key("likert", scheme.name), title=scheme.name,
                options=[str(i) for i in points], labels={str(i): f"{i} {labels[i]}".strip() for i in points},
                chosen=chosen, build=lambda picked, base: likert_type.build(int(picked[0]) if picked else None),
                multi=False, hide_title=True, note_below=True)
