"""Handoff review: flags and a quality rating for each change of acting agent."""
from app.ui.page import annotation_page
from app.ui.surfaces import handoff_review

annotation_page("handoff_review", handoff_review.render)
