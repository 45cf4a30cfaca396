"""multirate: several options rated on one scale of labels (Potato's `{option: label}`).

Keys: `options` (required: the items rated, names or `{name, tooltip}`), `labels` (required:
the scale, worst first; a label's point is its place, 1 up). Potato's `display_config`,
`arrangement`, `option_randomization` and `label_requirement` change only its layout: ignored.
Summary and agreement (ordinal alpha on the points): app/types/grid.py.

No Streamlit here.
"""
from __future__ import annotations

from app.project import validators as v
from app.types import grid
from app.types.base import Key

GRID = grid.Grid(rows=lambda scheme: [o["name"] for o in scheme["options"]],
                 labels=lambda scheme: [lab["name"] for lab in scheme["labels"]],
                 cell=lambda scheme, p: scheme["labels"][p - 1]["name"])

TYPE = grid.make("multirate", "Rate several", {"options": Key(v.labels, required=True),
                                               "labels": Key(v.labels, required=True)}, GRID)
