"""Agent scorecard: a score per agent and dimension, team scores, milestones."""
from app.ui.page import annotation_page
from app.ui.surfaces import agent_scorecard

annotation_page("agent_scorecard", agent_scorecard.render)
