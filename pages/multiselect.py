"""The multiselect schemes of the project."""
from app.ui.page import annotation_page
from app.ui.surfaces import multiselect

annotation_page("multiselect", multiselect.render)
