"""The pairwise schemes of the project: two candidates of an item side by side, which is better."""
from app.ui.page import annotation_page
from app.ui.surfaces import pairwise

annotation_page("pairwise", pairwise.render)
