"""The consensus_tracking schemes of the project: an act per turn of the conversation."""
from app.ui.page import annotation_page
from app.ui.surfaces import consensus_tracking

annotation_page("consensus_tracking", consensus_tracking.render)
