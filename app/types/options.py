"""Config validators the Potato comparison and review types share: lists of option names (plain
strings or Potato's `{name, description}` objects), optional integers, mappings of text.

Each takes a raw YAML value and returns it normalised, or raises `Invalid` (see
app/project/validators.py).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.project.validators import Invalid, show

OPTION_KEYS = {"name", "description", "tooltip", "text", "label", "displayed_label", "key_value", "color",
               "abbreviation"}


def names(min_len: int = 1, forbid: str = "") -> v.Validator:
    """A list of distinct option names: strings or `{name, description?, ...}` (Potato's label
    objects); returned as the names. A name may not hold a character of `forbid` (the stored
    format separates names with them)."""
    def check(value: Any) -> list[str]:
        if not isinstance(value, list) or len(value) < min_len:
            raise Invalid(f"expected a list of at least {min_len} name(s), got {show(value)}")
        out = []
        for i, x in enumerate(value):
            name = x.get("name") if isinstance(x, dict) else x
            if not isinstance(name, str) or not name.strip():
                raise Invalid(f"expected a name or {{name, description}}, got {show(x)}", f"[{i}]")
            if isinstance(x, dict) and set(x) - OPTION_KEYS:
                raise Invalid(f"unknown key(s) {v.keys(set(x) - OPTION_KEYS)}; expected name, description",
                              f"[{i}]")
            bad = [c for c in forbid if c in name]
            if bad:
                raise Invalid(f'a name here may not contain "{bad[0]}" (it separates names in the stored '
                              f"value), got {show(name)}", f"[{i}]")
            out.append(name)
        v._unique(out, "name")
        return out
    return check


def descriptions(value: Any) -> dict[str, str]:
    """The descriptions of a list of option names or objects ({name: description}), for tooltips."""
    out = {}
    for x in value if isinstance(value, list) else []:
        if isinstance(x, dict) and isinstance(x.get("name"), str):
            out[x["name"]] = str(x.get("description") or x.get("tooltip") or "")
    return out


def optional_integer(lo: int, hi: int) -> v.Validator:
    """An integer from lo to hi, or null (no limit)."""
    whole = v.integer(lo, hi)

    def check(value: Any) -> int | None:
        return None if value is None else whole(value)
    return check


def text_map(value: Any) -> dict[str, str]:
    """A mapping of names to text (`{dimension: description}`)."""
    if not isinstance(value, dict) or not value:
        raise Invalid(f"expected a mapping of names to descriptions, got {show(value)}")
    out = {}
    for k, x in value.items():
        if not isinstance(k, str) or not k.strip():
            raise Invalid(f"expected a name, got {show(k)}")
        if x is not None and not isinstance(x, (str, int, float)):
            raise Invalid(f"expected a description, got {show(x)}", f".{k}")
        out[k] = "" if x is None else str(x)
    return out


def one_of(*allowed: str) -> v.Validator:
    def check(value: Any) -> str:
        if value not in allowed:
            raise Invalid(f"expected one of {', '.join(allowed)}, got {show(value)}")
        return value
    return check


def split_known(text: str, known: list[str], separators: str = ",") -> list[tuple[str, str]]:
    """A joined list of names split back into (separator before it, name): the known names are
    matched first, longest first, so a name holding a separator ("Paris, France") stays whole;
    anything else runs to the next separator. The first name's separator is ""."""
    names_ = sorted((k for k in known if k), key=len, reverse=True)
    out, pos, before = [], 0, ""
    while pos < len(text):
        while pos < len(text) and text[pos] == " ":
            pos += 1
        match = next((k for k in names_ if text.startswith(k, pos)
                      and (pos + len(k) == len(text) or text[pos + len(k)] in separators)), None)
        if match is None:
            stops = [i for i in (text.find(s, pos) for s in separators) if i >= 0]
            end = min(stops) if stops else len(text)
            match = text[pos:end].strip()
        else:
            end = pos + len(match)
        if match:
            out.append((before, match))
        before = text[end] if end < len(text) else ""
        pos = end + 1
    return out
