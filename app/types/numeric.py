"""What the number-valued types share (slider, number, and the scores of error_span and
process_reward): reading a number, its summary statistics, agreement on one number per item.

slider and number are one kind of value, Potato's `{label: "<number>"}` (the label is the
scheme's name; any one label is read on import), built by `make` with their keys.

No Streamlit here.
"""
from __future__ import annotations

import math
import statistics
from typing import Any, Callable

import pandas as pd

from app.project import validators as v
from app.stats.agreement import judgements, ordinal, show_number
from app.types.base import AnnotationType, Key, Scheme, hidden_input
from app.types.panel import SchemeRows
from app.types.choices import label_counts


def number_of(x: Any) -> float | None:
    """A finite number from an int, float or numeric text (None: bool, blank, NaN, anything else)."""
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, (int, float)):
        f = float(x)
    elif isinstance(x, str) and x.strip():
        try:
            f = float(x.strip())
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


def shown(x: float) -> str:
    """A number as stored text: whole numbers without ".0"."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def stats(values: list) -> dict:
    """Count, mean, median, standard deviation (n - 1), min and max of the numbers (None when empty)."""
    xs = [f for f in (number_of(x) for x in values) if f is not None]
    if not xs:
        return {"n": 0, "mean": None, "median": None, "sd": None, "min": None, "max": None}
    return {"n": len(xs), "mean": statistics.fmean(xs), "median": statistics.median(xs),
            "sd": statistics.stdev(xs) if len(xs) > 1 else None, "min": min(xs), "max": max(xs)}


def item_agreement(scheme_rows: SchemeRows, frame: pd.DataFrame, column: str, disagreements, kind: str,
                   level: str = "interval", gap: float | None = None) -> dict:
    """Krippendorff's alpha (interval by default) on one number per (item, annotator) of `frame`;
    numbers `gap` or more apart are listed as disagreements."""
    panel = scheme_rows.panel
    given = panel.members(frame)
    table = judgements(given["item"], given["rater"], given.get(column, []))
    disagreements.add(table, lambda unit: (panel.items[unit], kind), kind, show_number, gap=gap)
    return ordinal(table, level)


# --- slider and number ------------------------------------------------------------------------------------

def value_of(value: Any) -> float | None:
    """The number a stored `{label: "<number>"}` holds (None: none, or not one number)."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    return number_of(next(iter(value.values())))


def build(scheme: Scheme, x: float | None) -> dict:
    return {} if x is None else {scheme.name: shown(x)}


def bounds(options: Scheme | dict, low: float | None, high: float | None) -> tuple[float | None, float | None]:
    """(min, max) of a scheme: Potato's documented `min`/`max`, else its `min_value`/`max_value`."""
    lo = next((options.get(k) for k in ("min", "min_value") if options.get(k) is not None), low)
    hi = next((options.get(k) for k in ("max", "max_value") if options.get(k) is not None), high)
    return lo, hi


def _coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: a bare number, `{label: number}`, or Potato's wrapper."""
    if number_of(value) is not None:
        return {scheme.name if scheme is not None else "value": shown(number_of(value))}
    value = hidden_input(value, lambda x: value_of(x) is not None) if isinstance(value, dict) else value
    if isinstance(value, (int, float, str)) and number_of(value) is not None:
        return _coerce(value, scheme)
    if value_of(value) is not None:
        return {next(iter(value)): shown(value_of(value))}
    return value


def make(name: str, title: str, keys: dict[str, Key], low: float | None, high: float | None,
         extra_problems: Callable[[dict], list[tuple[str, str]]] = lambda o: []) -> AnnotationType:
    """A one-number type: its value within the scheme's bounds and on its step."""

    def problems(options: dict) -> list[tuple[str, str]]:
        lo, hi = bounds(options, low, high)
        out = []
        if lo is not None and hi is not None and not lo < hi:
            out.append(("max", f"expected a maximum above the minimum ({lo:g}), got {hi:g}"))
        if options.get("step") is not None and not options["step"] > 0:
            out.append(("step", f"expected a step above 0, got {options['step']:g}"))
        return out + extra_problems(options)

    def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
        x = value_of(value)
        if x is None:
            return [f"expected {{label: number}} with one number, got {v.show(value)}"]
        lo, hi = bounds(scheme, low, high)
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            return [f"{x:g} is outside the scheme's range [{'' if lo is None else f'{lo:g}'}, "
                    f"{'' if hi is None else f'{hi:g}'}]"]
        step = scheme.get("step")
        if step and lo is not None and abs((x - lo) / step - round((x - lo) / step)) > 1e-9:
            return [f"{x:g} is not on the scheme's steps of {step:g} from {lo:g}"]
        return []

    def rows(value: Any, scheme: Scheme) -> list[dict]:
        x = value_of(value)
        return [] if x is None else [{"value": x, "label": shown(x)}]

    def rollup(scheme_rows: SchemeRows) -> dict:
        out = label_counts(scheme_rows, "label", None)
        t = scheme_rows.table
        out["stats"] = stats(t["value"].tolist() if "value" in t else [])
        return out

    def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
        lo, hi = bounds(scheme_rows.scheme, low, high)
        gap = (hi - lo) / 10 if lo is not None and hi is not None else None  # (a tenth of the range apart)
        return {"value": item_agreement(scheme_rows, scheme_rows.table, "value", disagreements, "value", gap=gap)}

    return AnnotationType(
        name=name, title=title, page=f"pages/{name}.py", keys=keys, section="choices", rows=rows, rollup=rollup,
        agreement=agreement, coerce=_coerce, looks_like=lambda value: value_of(value) is not None,
        validate=validate, headline=lambda measures: measures.get("value"), scheme_problems=problems)


NUMBER_KEYS = {"min": Key(v.number), "max": Key(v.number), "min_value": Key(v.number), "max_value": Key(v.number),
               "step": Key(v.number)}
