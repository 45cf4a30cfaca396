"""Parse trace timestamps and ISO 8601 durations into float seconds.

Traces mix epoch numbers, numeric strings and ISO 8601 text; everything is
reduced to seconds since the Unix epoch (UTC) so spans can be compared.
"""

from __future__ import annotations

import math
import numbers
import re
from datetime import datetime, timezone

__all__ = ["parse_time", "parse_duration"]

# A plain decimal number. Stricter than float(), which would also accept
# "nan", "inf" and "1_000" - none of which is a sensible timestamp.
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")

# ISO 8601 duration: PnYnMnWnDTnHnMnS, each part optional, decimals with
# "." or ",". Years and months are matched only so they can be rejected
# with a clear message (see parse_duration).
_NUM = r"(\d+(?:[.,]\d+)?)"
_DURATION = re.compile(
    rf"P(?:{_NUM}Y)?(?:{_NUM}M)?(?:{_NUM}W)?(?:{_NUM}D)?"
    rf"(?:T(?:{_NUM}H)?(?:{_NUM}M)?(?:{_NUM}S)?)?",
    re.IGNORECASE,
)
_UNIT_SECONDS = (None, None, 604800.0, 86400.0, 3600.0, 60.0, 1.0)


def _show(v: object) -> str:
    """Render a bad value for an error message, trimmed so it stays readable."""
    text = f'"{v}"' if isinstance(v, str) else repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _real(v: object) -> float | None:
    """Return v as a finite float if it is a real number (not bool), else None."""
    # bool is an int subclass, but True as a timestamp is always a mistake.
    t = type(v)
    try:
        if t is float or t is int:  # the common case, without the slow ABC check below
            f = float(v)
            return f if math.isfinite(f) else None
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            return None
        f = float(v)
    except OverflowError:  # an int (or a Fraction, a Decimal) beyond the largest float
        return None
    return f if math.isfinite(f) else None


def parse_time(v: object) -> float:
    """Return a timestamp as float seconds since the Unix epoch.

    Accepts finite int/float (not bool), numeric strings, and ISO 8601
    date-times such as ``2025-01-02T03:04:05.25+02:00``; naive times are UTC.
    Numeric strings win over ISO basic format, so "20250102" is seconds.
    Raises ValueError for anything else.
    """
    f = _real(v)
    if f is not None:
        return f
    if isinstance(v, str):
        s = v.strip()
        if _NUMBER.fullmatch(s):
            f = float(s)
            if math.isfinite(f):
                return f
        elif s:
            try:
                dt = datetime.fromisoformat(s)
            except ValueError:
                pass
            else:
                if dt.tzinfo is None:
                    dt = dt.replace(tzinfo=timezone.utc)
                return dt.timestamp()
    raise ValueError(
        f"expected a number of seconds or an ISO 8601 time, got {_show(v)}"
    )


def parse_duration(s: object) -> float:
    """Return an ISO 8601 duration (``PT1M48.75S``, ``P1DT2H``) in seconds.

    Weeks, days, hours, minutes and seconds are supported, with "." or ","
    decimals. Non-zero years or months are rejected because their length
    depends on the calendar. A finite non-negative number (or numeric string)
    is taken as seconds already. Raises ValueError otherwise.
    """
    f = _real(s)
    if f is None and isinstance(s, str) and _NUMBER.fullmatch(s.strip()):
        f = float(s)
    if f is not None and math.isfinite(f):
        if f < 0:
            raise ValueError(f"expected a non-negative duration, got {_show(s)}")
        return f
    m = _DURATION.fullmatch(s.strip()) if isinstance(s, str) else None
    # "P" and "PT" match the pattern but say nothing; ISO requires a part,
    # and a trailing "T" must be followed by a time part.
    if (
        m is None
        or not any(m.groups())
        or (s.strip().upper().endswith("T"))
    ):
        raise ValueError(f"expected an ISO 8601 duration like PT1M30S, got {_show(s)}")
    parts = [float(g.replace(",", ".")) if g else 0.0 for g in m.groups()]
    if parts[0] or parts[1]:
        raise ValueError(
            f"years and months have no fixed length in seconds, got {_show(s)}"
        )
    return sum(p * u for p, u in zip(parts[2:], _UNIT_SECONDS[2:]))
