"""The hierarchical label schemes of the project: labels chosen from a tree."""
from app.ui.page import annotation_page
from app.ui.surfaces import hierarchical_multiselect

annotation_page("hierarchical_multiselect", hierarchical_multiselect.render)
