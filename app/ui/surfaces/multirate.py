"""Rate several: each option of the scheme on its scale of labels."""
from __future__ import annotations

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import multirate as multirate_type
from app.ui.surfaces.grid import render_grid


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    render_grid(ws, item, scheme, multirate_type.GRID, {o["name"]: o.get("tooltip", "") for o in scheme["options"]})
