"""triage: keep, discard or unsure for each item (Potato's accept/reject/skip triage), stored as
Potato stores it, `{"decision": "accept" | "reject" | "skip"}`.

The three decisions are fixed; the config only renames their buttons (`accept_label`,
`reject_label`, `skip_label`). Agreement is nominal on the decision (an annotator on the item's
panel who decided nothing counts as "(none)", as for radio).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import choice_agreement, label_counts
from app.types.panel import SchemeRows
from app.types.radio import truthy

DECISIONS = ["accept", "reject", "skip"]
LABEL_KEYS = {"accept": "accept_label", "reject": "reject_label", "skip": "skip_label"}


def build(decision: str | None) -> dict:
    return {"decision": decision} if decision else {}


def decision(value: Any) -> str | None:
    found = value.get("decision") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def names(scheme: Scheme) -> dict[str, str]:
    """Each decision's button text in this scheme."""
    return {d: scheme.get(LABEL_KEYS[d]) or d for d in DECISIONS}


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the bare decision or its button text, Potato's
    `{"labels": {"decision": ...}}` or `{"decision": ...}`, or a one-label radio-like `{label: truthy}`."""
    if isinstance(value, dict) and isinstance(value.get("labels"), dict):
        value = value["labels"]
    if isinstance(value, dict) and "decision" not in value and len(value) == 1:
        (k, x), = value.items()
        value = k if truthy(x) else value
    if isinstance(value, dict) and isinstance(value.get("decision"), str):
        value = value["decision"]
    if isinstance(value, str):
        by_text = {t.strip().lower(): d for d, t in names(scheme).items()}
        key = value.strip().lower()
        return build(key if key in DECISIONS else by_text.get(key, value))
    return value


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or set(value) - {"decision"}:
        return [f'expected {{"decision": one of {", ".join(DECISIONS)}}}, got {v.show(value)}']
    got = value.get("decision")
    if got is not None and got not in DECISIONS:
        return [f"decision {v.show(got)} is not one of {', '.join(DECISIONS)}"]
    return []


def rows(value: Any, scheme: Scheme) -> list[dict]:
    found = decision(value)
    return [] if found is None else [{"label": found}]


def rollup(scheme_rows: SchemeRows) -> dict:
    out = label_counts(scheme_rows, "label", DECISIONS)
    shown = names(scheme_rows.scheme)
    for row in out["labels"]:
        row["button"] = shown.get(row["label"], row["label"])
    return out


TYPE = AnnotationType(
    name="triage", title="Triage", page="pages/triage.py",
    keys={"accept_label": Key(v.nonempty_string, default="Keep"),
          "reject_label": Key(v.nonempty_string, default="Discard"),
          "skip_label": Key(v.nonempty_string, default="Unsure"),
          "auto_advance": Key(v.boolean, default=True, doc="accepted; Baton moves on with Done → next"),
          "show_progress": Key(v.boolean, default=True, doc="accepted; the sidebar shows progress"),
          "accept_key": Key(v.string, default="1"), "reject_key": Key(v.string, default="2"),
          "skip_key": Key(v.string, default="3")},
    section="choices", rows=rows, rollup=rollup, coerce=coerce, validate=validate,
    agreement=lambda scheme_rows, disagreements: choice_agreement(scheme_rows, disagreements, kind="decision"),
    looks_like=lambda value: isinstance(value, dict) and "decision" in value,
    headline=lambda measures: measures.get("decision"))
