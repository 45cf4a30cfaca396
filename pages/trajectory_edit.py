"""The trajectory_edit schemes of the project (Trajectory correction)."""
from app.ui.page import annotation_page
from app.ui.surfaces import trajectory_edit

annotation_page("trajectory_edit", trajectory_edit.render)
