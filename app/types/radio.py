"""radio: one label of the scheme's list (Potato's `{label: "true"}`), with an optional free response.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import choice_agreement, label_counts
from app.types.panel import SchemeRows

FREE = "free_response"


def build(label: str | None, free_text: str = "") -> dict:
    """The stored value of a choice (and the free response, if any)."""
    out: dict[str, str] = {label: "true"} if label else {}
    if free_text and free_text.strip():
        out[FREE] = free_text
    return out


def choice(value: dict | None) -> str | None:
    """The label a stored value chose (None: none)."""
    for k, x in (value or {}).items():
        if k != FREE and x == "true":
            return k
    return None


def free_text(value: dict | None) -> str:
    return str((value or {}).get(FREE, ""))


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the bare label, or `{label: truthy}` (Potato's
    shape, also under a key `labels`)."""
    if isinstance(value, str):
        return {value: "true"}
    return labels_dict(value)


def labels_dict(value: Any) -> Any:
    """`{label: "true"}` of a dict of labels to truthy values (Potato's label_annotations shape)."""
    if not isinstance(value, dict):
        return value
    if isinstance(value.get("labels"), dict):
        value = value["labels"]
    return {str(k): ("true" if k != FREE else str(x)) for k, x in value.items() if k == FREE or truthy(x)}


def truthy(x: Any) -> bool:
    """Whether an imported flag is set ("false", "0", "", "off", "no" and None are not)."""
    if isinstance(x, bool):
        return x
    return x is not None and str(x).strip().lower() not in {"false", "0", "", "off", "no"}


def rows(value: Any, scheme: Scheme) -> list[dict]:
    found = choice(value if isinstance(value, dict) else None)
    return [] if found is None else [{"label": found}]


def rollup(scheme_rows: SchemeRows) -> dict:
    return label_counts(scheme_rows, "label", scheme_rows.scheme.get("labels"))


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    return choice_agreement(scheme_rows, disagreements)


def chosen_reasons(value: Any, scheme: Scheme, single: bool) -> list[str]:
    """What does not fit in a choice value: a label the scheme does not have, a label not set
    to "true" (it would show nothing selected), two labels for a single choice."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    names = c.label_names(scheme.get("labels"))
    out, chosen = [], []
    for k, x in value.items():
        if k == FREE:
            out += c.gather(c.text(x, "free response"))
            continue
        chosen.append(k)
        out += c.gather(c.one_of(k, names, "label"))
        if x != "true":
            out.append(f"label {c.show(k)}: expected \"true\", got {c.show(x)}")
    if single and len(chosen) > 1:
        out.append(f"{len(chosen)} labels chosen ({', '.join(map(c.show, chosen))}); a single choice takes one")
    return out


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    return chosen_reasons(value, scheme, single=True)


def parts(value: Any, scheme: Scheme) -> dict:
    found = {("choice",): choice(value if isinstance(value, dict) else None)}
    text = free_text(value if isinstance(value, dict) else None)
    found[("free response",)] = text if text.strip() else None
    return {k: x for k, x in found.items() if x is not None}


def join(fields: dict, scheme: Scheme) -> dict:
    return build(fields.get(("choice",)), fields.get(("free response",)) or "")


TYPE = AnnotationType(
    name="radio", title="Single choice", page="pages/radio.py",
    keys={"labels": Key(v.labels, required=True), "has_free_response": Key(v.free_response, default=False)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate, parts=parts, join=join,
    looks_like=lambda value: isinstance(value, dict),
    headline=lambda measures: measures.get("choice"))
