"""Failure attribution: which agent, which step, and why."""
from app.ui.page import annotation_page
from app.ui.surfaces import failure_attribution

annotation_page("failure_attribution", failure_attribution.render)
