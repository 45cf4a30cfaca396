"""Traversal review: forward with only the past, then backward with hindsight."""
from app.ui.surfaces import traversal_review

traversal_review.page_frame()
