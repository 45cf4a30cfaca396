"""The likert schemes of the project."""
from app.ui.page import annotation_page
from app.ui.surfaces import likert

annotation_page("likert", likert.render)
