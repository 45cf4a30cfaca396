"""The context_attribution surface: an act per turn, linked acts with the turn they refer to (app/ui/surfaces/turn_acts.py)."""
from app.ui.surfaces.turn_acts import render

__all__ = ["render"]
