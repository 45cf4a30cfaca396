"""select: one label of the scheme's list from a dropdown, stored as radio stores it
(Potato's `{label: "true"}`): its summary and agreement (nominal) are radio's.

Keys: `labels` (required). Potato's `use_predefined_labels` (country, ethnicity, religion)
names built-in lists Baton does not have: the config asks for the labels instead.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.types import radio
from app.types.base import AnnotationType, Key, Scheme


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the bare label, `{label: truthy}`, or a dropdown's
    `{field: label}` where the label is one of the scheme's."""
    if isinstance(value, dict) and len(value) == 1 and scheme is not None:
        (k, x), = value.items()
        names = [lab["name"] for lab in scheme["labels"]]
        if k not in names and isinstance(x, str) and x in names:
            return {x: "true"}
    return radio.coerce(value, scheme)


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict):
        return [f"expected {{label: \"true\"}}, got {v.show(value)}"]
    names = [lab["name"] for lab in scheme["labels"]]
    chosen = [k for k, x in value.items() if x == "true"]
    out = [f"label {v.show(k)} is not one of the scheme's ({', '.join(names)})" for k in chosen if k not in names]
    if len(chosen) > 1:
        out.append(f"a dropdown holds one label, got {len(chosen)}")
    return out


def problems(options: dict) -> list[tuple[str, str]]:
    if options.get("labels") is None:
        wanted = options.get("use_predefined_labels")
        return [("labels", "required for select" + (f": Baton has no built-in {v.show(wanted)} list, give its labels"
                                                   if wanted else ""))]
    return []


TYPE = AnnotationType(
    name="select", title="Dropdown", page="pages/select.py",
    keys={"labels": Key(v.labels), "use_predefined_labels": Key(v.nonempty_string)},
    section="choices", rows=radio.rows, rollup=radio.rollup, agreement=radio.agreement, coerce=coerce,
    looks_like=lambda value: isinstance(value, dict), validate=validate,
    headline=lambda measures: measures.get("choice"), scheme_problems=problems)
