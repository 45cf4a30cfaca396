"""The span schemes of the project (Text spans)."""
from app.ui.page import annotation_page
from app.ui.surfaces import span

annotation_page("span", span.render)
