"""Times of timed tool calls as the contention timeline shows them, without any drawing.

Times are float seconds (app/traces/timeparse.py). A run whose calls give ISO 8601 text, or
numbers that can only be Unix times (TRAIL's spans: 1.74e9 s), is on the clock (DATETIME: the
chart's axis shows UTC clock times); otherwise its times are seconds from some start (SECONDS).
"""
from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

SECONDS = "seconds"
DATETIME = "datetime"
_EPOCH = datetime(1970, 1, 1)


def _is_number_text(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


# Numbers in this range are Unix times (2001-09-09 .. 2100-01-01), not seconds since a run
# began: no run lasts 31 years.
UNIX_FROM, UNIX_TO = 1e9, 4.1e9


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    try:
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, str) and v.strip() and _is_number_text(v.strip()):
            return float(v.strip())
    except OverflowError:  # an integer too large for a float: no Unix time
        return None
    return None


def time_kind(raw_calls: Any) -> str:
    """DATETIME if any call gives a time as non-numeric text (ISO 8601), or every numeric time
    is a Unix time (between UNIX_FROM and UNIX_TO seconds); else SECONDS."""
    if not isinstance(raw_calls, list):
        return SECONDS
    numbers = []
    for c in raw_calls:
        if isinstance(c, dict):
            for k in ("start", "end"):
                v = c.get(k)
                if isinstance(v, str) and v.strip() and not _is_number_text(v.strip()):
                    return DATETIME
                n = _number(v)
                if n is not None:
                    numbers.append(n)
    if numbers and all(UNIX_FROM <= n <= UNIX_TO for n in numbers):
        return DATETIME
    return SECONDS


def to_datetime(t: float) -> datetime:
    """Seconds since the epoch as a naive UTC datetime (what Plotly's date axis expects)."""
    return _EPOCH + timedelta(seconds=t)


def axis_value(t: float, kind: str):
    return to_datetime(t) if kind == DATETIME else t


def fmt_time(t: float | None, kind: str) -> str:
    if t is None:
        return "—"
    if kind == DATETIME:
        d = to_datetime(t)
        ms = d.microsecond // 1000
        return d.strftime("%Y-%m-%d %H:%M:%S") + (f".{ms:03d}" if ms else "") + " UTC"
    return f"{_num(t)} s"


def _num(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def fmt_duration(seconds: float) -> str:
    if not math.isfinite(seconds):  # two finite times too far apart to subtract (near ±1.8e308)
        return "too long to count"
    if seconds < 120:
        return f"{_num(round(seconds, 3))} s"
    m, s = divmod(seconds, 60)
    if m < 120:
        return f"{int(m)} min {_num(round(s, 1))} s"
    h, m = divmod(m, 60)
    return f"{int(h)} h {int(m)} min"


def fmt_span(start: float, end: float, kind: str) -> str:
    """"10:00:00 – 10:00:11 UTC (11 s)" style text for a time span."""
    if kind == DATETIME:
        a, b = fmt_time(start, kind), fmt_time(end, kind)
        if a[:10] == b[:10]:
            b = b[11:]
        return f"{a.removesuffix(' UTC')} – {b} ({fmt_duration(end - start)})"
    return f"{_num(start)} – {_num(end)} s ({fmt_duration(end - start)})"
