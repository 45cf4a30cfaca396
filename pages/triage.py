"""The triage schemes of the project: keep, discard or unsure."""
from app.ui.page import annotation_page
from app.ui.surfaces import triage

annotation_page("triage", triage.render)
