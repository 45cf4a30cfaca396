"""Step review (MAST): correctness, failure modes, severity and rationale per step."""
from app.ui.page import annotation_page
from app.ui.surfaces import trajectory_eval

annotation_page("trajectory_eval", trajectory_eval.render)
