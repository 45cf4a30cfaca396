"""The error_span schemes of the project (Error spans (MQM))."""
from app.ui.page import annotation_page
from app.ui.surfaces import error_span

annotation_page("error_span", error_span.render)
