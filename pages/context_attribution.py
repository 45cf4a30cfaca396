"""The context_attribution schemes of the project: an act per turn of the conversation."""
from app.ui.page import annotation_page
from app.ui.surfaces import context_attribution

annotation_page("context_attribution", context_attribution.render)
