"""Stored values: pure builders (controls → value) and readers (value → controls).

Each value is exactly the format Potato documents for the type:
- failure_attribution: {"responsible_agent", "decisive_step", "reason"}
- radio / multiselect: Potato's label_annotations shape {label: "true"}, plus
  {"free_response": text} when the scheme has has_free_response
- likert: {"scale_N": "N"}
- text: {"text_box": text}
"""
from __future__ import annotations

from typing import Any

ANNOTATED = "annotated"
REVIEWED_CLEAN = "reviewed_clean"  # looked at, nothing to flag: not the same as no row at all
FREE = "free_response"


def attribution(agent: str | None, step: int | None, reason: str = "") -> dict:
    return {"responsible_agent": agent, "decisive_step": None if step is None else int(step),
            "reason": reason or ""}


def attribution_is_empty(value: dict) -> bool:
    return not value.get("responsible_agent") and value.get("decisive_step") is None \
        and not (value.get("reason") or "").strip()


def radio(label: str | None, free_text: str = "") -> dict:
    out: dict[str, str] = {label: "true"} if label else {}
    if free_text and free_text.strip():
        out[FREE] = free_text
    return out


def radio_choice(value: dict | None) -> str | None:
    for k, v in (value or {}).items():
        if k != FREE and v == "true":
            return k
    return None


def multiselect(labels: list[str], free_text: str = "") -> dict:
    out = {lab: "true" for lab in labels}
    if free_text and free_text.strip():
        out[FREE] = free_text
    return out


def multiselect_choices(value: dict | None) -> list[str]:
    return [k for k, v in (value or {}).items() if k != FREE and v == "true"]


def free_text(value: dict | None) -> str:
    return str((value or {}).get(FREE, ""))


def likert(n: int | None) -> dict:
    return {} if n is None else {f"scale_{int(n)}": str(int(n))}


def likert_choice(value: dict | None) -> int | None:
    for k, v in (value or {}).items():
        if k.startswith("scale_"):
            try:
                return int(v)
            except (TypeError, ValueError):
                return None
    return None


def text(t: str) -> dict:
    return {"text_box": t} if t and t.strip() else {}


def text_of(value: dict | None) -> str:
    return str((value or {}).get("text_box", ""))


def as_int(x: Any) -> int | None:
    """A step index or score as stored or imported: ints, whole floats and digit strings;
    anything else (bool, "3.5", "x") is None rather than a guess."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, str) and x.strip().lstrip("-").isdigit():
        return int(x.strip())
    return None
