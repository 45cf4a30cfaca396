"""slider: one number on a range (Potato's `{label: "<number>"}`, the label the scheme's name).

Keys: Potato documents `min`, `max`, `step` (1) and `default`; its examples also write
`min_value`, `max_value` and `starting_value`: both spellings are read (without either, 0 to
100). `min_label` / `max_label` name the ends. `default` / `starting_value` is where the slider
starts; nothing is stored until the annotator sets a value. Agreement: interval alpha.

No Streamlit here.
"""
from __future__ import annotations

from app.project import validators as v
from app.types.base import Key
from app.types.numeric import NUMBER_KEYS, bounds, make

LOW, HIGH = 0.0, 100.0


def start(scheme) -> float:
    """Where the slider starts: the scheme's default, else the middle of the range."""
    lo, hi = bounds(scheme, LOW, HIGH)
    x = next((scheme.get(k) for k in ("default", "starting_value") if scheme.get(k) is not None), None)
    return (lo + hi) / 2 if x is None else min(max(x, lo), hi)


TYPE = make("slider", "Slider", {**NUMBER_KEYS, "default": Key(v.number), "starting_value": Key(v.number),
                                 "min_label": Key(v.string, default=""), "max_label": Key(v.string, default=""),
                                 "show_value": Key(v.boolean, default=True)}, LOW, HIGH)
