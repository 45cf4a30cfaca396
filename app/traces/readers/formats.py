"""Every trace format Baton reads, by its `data_format` name, in detection order."""
from __future__ import annotations

from app.traces.readers import (agentrx, autogen, chat, crewai, langfuse, langsmith, magentic, mast, openai_agents,
                                otlp, phoenix, potato, trail, trail_gold, whowhen)

# Detection order matters: the most specific shape first, Potato's generic dict last.
FORMATS = {m.NAME: m for m in (trail, trail_gold, otlp, openai_agents, phoenix, langsmith, langfuse, mast, agentrx,
                               whowhen, autogen, crewai, chat, magentic, potato)}


def detect_format(record):
    """The first format module whose shape the record has, or None."""
    return next((m for m in FORMATS.values() if m.detect(record)), None)
