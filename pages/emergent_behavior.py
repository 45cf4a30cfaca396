"""Emergent behaviour: mark the turns that show each team behaviour."""
from app.ui.page import annotation_page
from app.ui.surfaces import emergent_behavior

annotation_page("emergent_behavior", emergent_behavior.render)
