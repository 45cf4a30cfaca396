"""JSON text in and out, fast where it can be.

orjson parses and writes JSON several times faster than the standard library; where it refuses
something json accepts (NaN, nesting beyond its limits) or fails, or reads it otherwise
(integers beyond 64 bits, which it turns into floats), the standard json module does the work,
so every result read, and every error with its message, is json's. For small texts (stored
values, output records): the trace readers keep json, since orjson's peak memory on a large
document was 4x json's (a 28 MB run: 443 vs 101 MB) and 13x on a 50 MB string field.

No Streamlit here.
"""
from __future__ import annotations

import json
from typing import Any

import orjson


# orjson reads an integer beyond 64 bits as a float, silently: a text with a run of 19 or more
# ASCII digits (maybe such an integer, maybe just text) is left to json. Found by mapping every
# byte to "0" (a digit) or " " and searching for nineteen "0"s: five times faster than a regular
# expression, which took twice as long as the parse itself (bytes of non-ASCII characters are
# never digits, and JSON numbers are ASCII digits only)
_DIGIT_OR_NOT = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_RUN = b"0" * 19


def _long_digits(text: str) -> bool:
    return _RUN in text.encode("utf-8", "surrogatepass").translate(_DIGIT_OR_NOT)


def loads(text: str) -> Any:
    """json.loads(text), by orjson where it can; a value nested too deep for json (about a
    thousand levels) raises ValueError too, as any text json cannot read."""
    if _long_digits(text):
        return _json_loads(text)
    return _orjson_loads(text)


def _json_loads(text: str) -> Any:
    """json.loads(text), its RecursionError on a value nested too deep raised as ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to be read") from None


def loads_each(texts: list[str]) -> list[Any]:
    """loads() of each text, or the ValueError it raised (each text read alone). The texts are
    searched for long digit runs together, in one pass (a search per text cost half the parse
    of a summary's stored values); only when one has a run is each searched apart."""
    parse = loads if _long_digits("\n".join(texts)) else _orjson_loads
    out: list[Any] = []
    for text in texts:
        try:
            out.append(parse(text))
        except ValueError as e:
            out.append(e)
    return out


def _orjson_loads(text: str) -> Any:
    """json.loads(text) of a text with no long digit run: by orjson, json for what it refuses."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return _json_loads(text)  # json's own result, or its error and message


def dumps(obj: Any) -> str:
    """json.dumps(obj, ensure_ascii=False, default=str) as compact JSON text (no spaces after
    separators), by orjson where it can; a NaN or infinity is written as null (valid JSON, where
    json writes NaN)."""
    try:
        return orjson.dumps(obj, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(obj, ensure_ascii=False, default=str, separators=(",", ":"))
