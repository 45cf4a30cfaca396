"""The select schemes of the project (Dropdown)."""
from app.ui.page import annotation_page
from app.ui.surfaces import select

annotation_page("select", select.render)
