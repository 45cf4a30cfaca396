"""rubric_eval: each criterion of a rubric rated on one scale 1..scale_points, with an
optional overall row (Potato's `{criterion: "4", ..., "overall": "4"}`).

Keys: `criteria` (required: names, or `{name, description}`), `scale_points` (5),
`scale_labels` (Potato's default Poor .. Excellent for 5 points; else the numbers),
`show_overall` (false). Summary and agreement (ordinal alpha): app/types/grid.py.

No Streamlit here.
"""
from __future__ import annotations

from app.project import validators as v
from app.types import grid
from app.types.base import Key

OVERALL = "overall"
FIVE = ["Poor", "Below Average", "Average", "Good", "Excellent"]


def criteria(scheme) -> list[str]:
    return [c["name"] for c in scheme["criteria"]] + ([OVERALL] if scheme.get("show_overall") else [])


def labels(scheme) -> list[str]:
    n = scheme.get("scale_points") or 5
    given = scheme.get("scale_labels")
    if given and len(given) == n:
        return list(given)
    return list(FIVE) if n == 5 else [str(p) for p in range(1, n + 1)]


def problems(options: dict) -> list[tuple[str, str]]:
    given, n = options.get("scale_labels"), options.get("scale_points") or 5
    out = []
    if given is not None and len(given) != n:
        out.append(("scale_labels", f"expected {n} labels (scale_points), got {len(given)}"))
    if options.get("show_overall") and OVERALL in [c["name"] for c in options.get("criteria") or []]:
        out.append(("criteria", f'a criterion named "{OVERALL}" clashes with show_overall\'s row'))
    return out


GRID = grid.Grid(rows=criteria, labels=labels, cell=lambda scheme, p: str(p))

TYPE = grid.make("rubric_eval", "Rubric", {
    "criteria": Key(v.labels, required=True), "scale_points": Key(v.integer(2, 11), default=5),
    "scale_labels": Key(v.string_list(2)), "show_overall": Key(v.boolean, default=False)}, GRID, problems)
