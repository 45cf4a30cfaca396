"""Tool-call review: a verdict and notes for each tool call of the run."""
from app.ui.page import annotation_page
from app.ui.surfaces import tool_call_review

annotation_page("tool_call_review", tool_call_review.render)
