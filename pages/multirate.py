"""The multirate schemes of the project (Rate several)."""
from app.ui.page import annotation_page
from app.ui.surfaces import multirate

annotation_page("multirate", multirate.render)
