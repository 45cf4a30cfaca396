"""The radio schemes of the project."""
from app.ui.page import annotation_page
from app.ui.surfaces import radio

annotation_page("radio", radio.render)
