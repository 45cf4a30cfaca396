"""The text schemes of the project."""
from app.ui.page import annotation_page
from app.ui.surfaces import text

annotation_page("text", text.render)
