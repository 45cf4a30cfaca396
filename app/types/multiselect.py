"""multiselect: any labels of the scheme's list (Potato's `{label: "true", ...}`), with an optional free response.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.stats.counting import in_order
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import label_counts, set_agreement
from app.types.panel import SchemeRows
from app.types.radio import FREE, chosen_reasons, free_text, labels_dict


def build(labels: list[str], free_text: str = "") -> dict:
    out = {label: "true" for label in labels}
    if free_text and free_text.strip():
        out[FREE] = free_text
    return out


def choices(value: dict | None) -> list[str]:
    """The labels a stored value chose."""
    return [k for k, x in (value or {}).items() if k != FREE and x == "true"]


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: a list of labels, or `{label: truthy}`."""
    if isinstance(value, list):
        return {str(x): "true" for x in value}
    return labels_dict(value)


def rows(value: Any, scheme: Scheme) -> list[dict]:
    return [{"label": label} for label in choices(value if isinstance(value, dict) else None)]


def rollup(scheme_rows: SchemeRows) -> dict:
    return label_counts(scheme_rows, "label", scheme_rows.scheme.get("labels"))


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    """Per label, whether each annotator chose it; the Jaccard of the sets chosen."""
    return set_agreement(scheme_rows, disagreements, scheme_rows.scheme.get("labels"))


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    return chosen_reasons(value, scheme, single=False)


def parts(value: Any, scheme: Scheme) -> dict:
    value = value if isinstance(value, dict) else None
    found: dict = {("label", label): True for label in choices(value)}
    text = free_text(value)
    if text.strip():
        found[("free response",)] = text
    return found


def join(fields: dict, scheme: Scheme) -> dict:
    chosen = {f[1] for f in fields if f[0] == "label"}
    return build([x for x in in_order(scheme.get("labels"), chosen) if x in chosen], fields.get(("free response",)) or "")


TYPE = AnnotationType(
    name="multiselect", title="Multiple choice", page="pages/multiselect.py",
    keys={"labels": Key(v.labels, required=True), "has_free_response": Key(v.free_response, default=False)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate, parts=parts, join=join,
    headline=lambda measures: measures.get("jaccard"))
