"""The ranking schemes of the project: candidates ordered from best to worst."""
from app.ui.page import annotation_page
from app.ui.surfaces import ranking

annotation_page("ranking", ranking.render)
