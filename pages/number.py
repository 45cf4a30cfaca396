"""The number schemes of the project (Number)."""
from app.ui.page import annotation_page
from app.ui.surfaces import number

annotation_page("number", number.render)
