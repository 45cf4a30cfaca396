"""number: one number typed in (Potato's `{label: "<number>"}`, the label the scheme's name).

Keys: `min`, `max`, `step` (Potato's; `min_value` / `max_value` read too), all optional: an
unbounded number by default. Agreement: interval alpha.

No Streamlit here.
"""
from __future__ import annotations

from app.types.numeric import NUMBER_KEYS, make

TYPE = make("number", "Number", dict(NUMBER_KEYS), None, None)
