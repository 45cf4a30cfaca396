"""consensus_tracking: the structure of a discussion between agents (Potato's consensus
tracking): an act per turn (proposal, agreement, disagreement, decision, concession, or the
config's own), agreements, disagreements and concessions linked to the turn they answer.

Stored format, summary and agreement: app/types/turn_acts.py.

No Streamlit here.
"""
from __future__ import annotations

from app.types.turn_acts import make

TYPE = make("consensus_tracking", "Discussion acts",
            ["proposal", "agreement", "disagreement", "decision", "concession"],
            ["agreement", "disagreement", "concession"])
