"""The rollout evaluation schemes of the project: breaks per rollout, preference, counterfactual."""
from app.ui.page import annotation_page
from app.ui.surfaces import rollout_evaluation

annotation_page("rollout_evaluation", rollout_evaluation.render)
