"""The slider schemes of the project (Slider)."""
from app.ui.page import annotation_page
from app.ui.surfaces import slider

annotation_page("slider", slider.render)
