"""The code review schemes of the project: verdict, comments, file ratings."""
from app.ui.page import annotation_page
from app.ui.surfaces import code_review

annotation_page("code_review", code_review.render)
