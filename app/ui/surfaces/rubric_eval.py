"""Rubric: each criterion (and the overall row, if asked) on the scheme's scale."""
from __future__ import annotations

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import rubric_eval as rubric_type
from app.ui.surfaces.grid import render_grid


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    render_grid(ws, item, scheme, rubric_type.GRID, {c["name"]: c.get("tooltip", "") for c in scheme["criteria"]})
