"""likert: one point of a 1..size scale (Potato's `{"scale_N": "N"}`).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.stats.agreement import judgements, ordinal, show_number
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme, as_int
from app.types.choices import label_counts
from app.types.panel import SchemeRows

SCORE_GAP = 2  # ratings this far apart are listed as a disagreement


def build(point: int | None) -> dict:
    return {} if point is None else {f"scale_{int(point)}": str(int(point))}


def choice(value: dict | None) -> int | None:
    """The point a stored value chose (None: none, or not a whole number)."""
    for k, x in (value or {}).items():
        if k.startswith("scale_"):
            try:
                return int(x)
            except (TypeError, ValueError):
                return None
    return None


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the bare number, or a `scale_N` key."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer():
        return build(int(value))
    if isinstance(value, dict):
        for k in value:
            if str(k).startswith("scale_") and str(k)[6:].isdigit():
                return build(int(str(k)[6:]))
    return value


def rows(value: Any, scheme: Scheme) -> list[dict]:
    point = choice(value if isinstance(value, dict) else None)
    return [] if point is None else [{"score": float(point)}]


def rollup(scheme_rows: SchemeRows) -> dict:
    return label_counts(scheme_rows, "score", None)


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    table = judgements(given["item"], given["rater"], given.get("score", []))
    disagreements.add(table, lambda unit: (panel.items[unit], "rating"), "rating", show_number, gap=SCORE_GAP)
    return {"rating": ordinal(table)}


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """One point `{"scale_N": "N"}` within 1..size (none: nothing chosen)."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    size = int(scheme.get("size") or 0)
    out = [f"{c.show(k)}: not a point of the scale (expected scale_N)" for k in value if not str(k).startswith("scale_")]
    points = [x for k, x in value.items() if str(k).startswith("scale_")]
    if len(points) > 1:
        out.append(f"{len(points)} points chosen; a rating takes one")
    for x in points:
        point = as_int(x)
        out += c.gather(c.integer(point if point is not None else x, "point", 1, size))
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    point = choice(value if isinstance(value, dict) else None)
    return {} if point is None else {("rating",): point}


def join(fields: dict, scheme: Scheme) -> dict:
    return build(fields.get(("rating",)))


TYPE = AnnotationType(
    name="likert", title="Likert", page="pages/likert.py",
    keys={"size": Key(v.integer(2, 11), required=True), "min_label": Key(v.string, default=""),
          "max_label": Key(v.string, default=""), "labels": Key(v.labels)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate, parts=parts, join=join,
    looks_like=lambda value: isinstance(value, dict) and all(str(k).startswith("scale_") for k in value),
    headline=lambda measures: measures.get("rating"))
