"""Numbers as a person reads them: durations as `12 min`, rates as `42%`, means to two digits.

Used by the summary page and the HTML report alike, so both say the same. No Streamlit here.
"""
from __future__ import annotations

from typing import Any


def duration(seconds: Any) -> str:
    """`45 s`, `12 min`, `3.5 h`; a dash for nothing."""
    if seconds is None or seconds != seconds:
        return "–"
    s = float(seconds)
    if s < 90:
        return f"{s:.0f} s"
    if s < 90 * 60:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def percent(rate: Any) -> str:
    """`42%` (a rate between 0 and 1); a dash for nothing."""
    if rate is None or rate != rate:
        return "–"
    return f"{float(rate):.0%}"


def mean(x: Any, digits: int = 2) -> str:
    if x is None or x != x:
        return "–"
    return f"{float(x):.{digits}f}"


def names(agents: list[str]) -> str:
    """`A`, `A and B`, `A, B and C`."""
    agents = [str(a) for a in agents]
    if len(agents) <= 1:
        return "".join(agents)
    return ", ".join(agents[:-1]) + " and " + agents[-1]
