"""text: a free response (Potato's `{"text_box": text}`); no agreement measure.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme


def build(text: str) -> dict:
    return {"text_box": text} if text and text.strip() else {}


def text_of(value: dict | None) -> str:
    return str((value or {}).get("text_box", ""))


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the bare text, or a dict of one field."""
    if isinstance(value, str):
        return {"text_box": value}
    if isinstance(value, dict) and "text_box" not in value and len(value) == 1:
        return {"text_box": str(next(iter(value.values())))}
    return value


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    return c.keys(value, ["text_box"]) + c.gather(c.text(value.get("text_box"), "text"))


def parts(value: Any, scheme: Scheme) -> dict:
    text = text_of(value if isinstance(value, dict) else None)
    return {("text",): text} if text.strip() else {}


def join(fields: dict, scheme: Scheme) -> dict:
    return build(fields.get(("text",)) or "")


TYPE = AnnotationType(
    name="text", title="Free text", page="pages/text.py",
    keys={"multiline": Key(v.boolean, default=True)}, coerce=coerce, validate=validate, parts=parts, join=join,
    looks_like=lambda value: isinstance(value, dict) and "text_box" in value)
