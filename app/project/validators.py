"""Small validators for config values.

Each validator takes a raw YAML value and returns the normalised value, or raises
`Invalid` whose message says what was expected. `Invalid.subpath` lets a validator of
a nested structure point below the key it was given (`[1].subtypes`).
"""
from __future__ import annotations

import difflib
import reprlib
from typing import Any, Callable

Validator = Callable[[Any], Any]


class Invalid(ValueError):
    def __init__(self, message: str, subpath: str = ""):
        super().__init__(message)
        self.message = message
        self.subpath = subpath


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 3, 4, 4, 60, 60, 40


def suggest(key: Any, known) -> str:
    """"; did you mean "x"?" naming the known key closest to `key`, or "" when none is close."""
    close = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""


def show(value: Any) -> str:
    """A short, quoted rendering of a bad value for an error message. Bounded: YAML aliases
    can make a value that is huge (an alias bomb) or contains itself."""
    if isinstance(value, str):
        text = f'"{value[:60]}"'
    else:
        try:
            text = _REPR.repr(value)
        except Exception:  # a value whose repr fails: say what it is
            text = f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def keys(d: dict) -> list[str]:
    """A mapping's keys as sorted text (YAML keys may be numbers, booleans or null)."""
    return sorted(str(k) for k in d)


def integer(lo: int, hi: int) -> Validator:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise Invalid(f"expected an integer from {lo} to {hi}, got {show(v)}")
        return v
    return check


def number(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Invalid(f"expected a number, got {show(v)}")
    return v


def string(v: Any) -> str:
    if not isinstance(v, str):
        raise Invalid(f"expected a string, got {show(v)}")
    return v


def nonempty_string(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise Invalid(f"expected a non-empty string, got {show(v)}")
    return v


def boolean(v: Any) -> bool:
    if not isinstance(v, bool):
        raise Invalid(f"expected true or false, got {show(v)}")
    return v


def one_of(values) -> Validator:
    """One of a fixed set of strings."""
    def check(v: Any) -> str:
        if v not in values:
            raise Invalid(f"expected one of {', '.join(values)}, got {show(v)}")
        return v
    return check


def mapping(v: Any) -> dict:
    if not isinstance(v, dict):
        raise Invalid(f"expected a mapping, got {show(v)}")
    return v


def anything(v: Any) -> Any:
    return v


def _unique(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for i, n in enumerate(names):
        if n in seen:
            raise Invalid(f'duplicate {what} "{n}"', f"[{i}]")
        seen.add(n)


def string_list(min_len: int = 1) -> Validator:
    """A list of distinct non-empty strings (YAML scalars such as numbers are rejected)."""
    def check(v: Any) -> list[str]:
        if not isinstance(v, list) or len(v) < min_len:
            raise Invalid(f"expected a list of at least {min_len} string(s), got {show(v)}")
        for i, x in enumerate(v):
            if not isinstance(x, str) or not x.strip():
                raise Invalid(f"expected a non-empty string, got {show(x)}", f"[{i}]")
        _unique(v, "entry")
        return list(v)
    return check


def labels(v: Any) -> list[dict]:
    """Potato labels: strings or `{name, tooltip?, key_value?}`; returned as dicts."""
    if not isinstance(v, list) or not v:
        raise Invalid(f"expected a non-empty list of labels, got {show(v)}")
    out = []
    for i, x in enumerate(v):
        if isinstance(x, str) and x.strip():
            out.append({"name": x, "tooltip": ""})
        elif isinstance(x, dict) and isinstance(x.get("name"), str) and x["name"].strip():
            extra = set(x) - {"name", "tooltip", "key_value", "description"}
            if extra:
                raise Invalid(f"unknown label key(s) {keys(extra)}; expected name, tooltip, key_value",
                              f"[{i}]")
            out.append({"name": x["name"], "tooltip": str(x.get("tooltip") or x.get("description") or ""),
                        "key_value": x.get("key_value")})
        else:
            raise Invalid(f"expected a label name or {{name, tooltip}}, got {show(x)}", f"[{i}]")
    _unique([x["name"] for x in out], "label")
    return out


def free_response(v: Any) -> bool | dict:
    """Potato's `has_free_response`: true/false, or a mapping such as `{instruction: ...}`."""
    if isinstance(v, bool):
        return v
    if isinstance(v, dict):
        return v
    raise Invalid(f"expected true, false or a mapping like {{instruction: ...}}, got {show(v)}")


def error_types(v: Any) -> list[dict]:
    """trajectory_eval `error_types`: `[{name, subtypes: [..]}]` (plain strings allowed)."""
    if not isinstance(v, list) or not v:
        raise Invalid(f"expected a non-empty list of {{name, subtypes}}, got {show(v)}")
    out = []
    for i, x in enumerate(v):
        if isinstance(x, str) and x.strip():
            out.append({"name": x, "subtypes": []})
            continue
        if not isinstance(x, dict) or not isinstance(x.get("name"), str):
            raise Invalid(f"expected {{name, subtypes}}, got {show(x)}", f"[{i}]")
        extra = set(x) - {"name", "subtypes", "description"}
        if extra:
            raise Invalid(f"unknown key(s) {keys(extra)}; expected name, subtypes", f"[{i}]")
        subs = x.get("subtypes") or []
        try:
            subs = string_list(1)(subs) if subs else []
        except Invalid as e:
            raise Invalid(e.message, f"[{i}].subtypes{e.subpath}") from None
        out.append({"name": x["name"], "subtypes": subs})
    _unique([x["name"] for x in out], "error type")
    return out


def severities(v: Any) -> list[dict]:
    """trajectory_eval `severities`: `[{name, weight}]`."""
    if not isinstance(v, list) or not v:
        raise Invalid(f"expected a non-empty list of {{name, weight}}, got {show(v)}")
    out = []
    for i, x in enumerate(v):
        if isinstance(x, str) and x.strip():
            out.append({"name": x, "weight": 0})
            continue
        if not isinstance(x, dict) or not isinstance(x.get("name"), str):
            raise Invalid(f"expected {{name, weight}}, got {show(x)}", f"[{i}]")
        w = x.get("weight", 0)
        if isinstance(w, bool) or not isinstance(w, (int, float)):
            raise Invalid(f"expected a number, got {show(w)}", f"[{i}].weight")
        out.append({"name": x["name"], "weight": w})
    _unique([x["name"] for x in out], "severity")
    return out


def show_if(v: Any) -> dict:
    """Baton's `show_if: {scheme: NAME, any_of: [labels]}`: ask this scheme only when
    the named scheme's answer (of this annotator, on this item) is one of the labels."""
    if not isinstance(v, dict) or not isinstance(v.get("scheme"), str):
        raise Invalid(f"expected {{scheme: NAME, any_of: [label, ...]}}, got {show(v)}")
    extra = set(v) - {"scheme", "any_of"}
    if extra:
        raise Invalid(f"unknown key(s) {keys(extra)}; expected scheme, any_of")
    try:
        any_of = string_list(1)(v.get("any_of"))
    except Invalid as e:
        raise Invalid(e.message, f".any_of{e.subpath}") from None
    return {"scheme": v["scheme"], "any_of": any_of}
