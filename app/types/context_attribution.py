"""context_attribution: how each turn uses the context before it (Potato's context
attribution): used correctly, hallucinated, ignored (or the config's own acts), the first two
linked to the source turn used or misused.

Stored format, summary and agreement: app/types/turn_acts.py.

No Streamlit here.
"""
from __future__ import annotations

from app.types.turn_acts import make

TYPE = make("context_attribution", "Context use",
            ["used_context_correctly", "hallucinated_context", "ignored_context"],
            ["used_context_correctly", "hallucinated_context"])
