"""The rubric_eval schemes of the project (Rubric)."""
from app.ui.page import annotation_page
from app.ui.surfaces import rubric_eval

annotation_page("rubric_eval", rubric_eval.render)
