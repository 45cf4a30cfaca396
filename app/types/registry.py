"""The annotation types: one module each (app/types/<name>.py, its `TYPE`), listed here.

Adding a type is adding its module, its surface (app/ui/surfaces/<name>.py), its page and
one line below. Config validation, navigation, import, export and the summary read `TYPES`.
"""
from __future__ import annotations

from app.types import (agent_interaction_graph, agent_scorecard, emergent_behavior, failure_attribution,
                       handoff_review, likert, multiselect, radio, text, tool_call_review, tool_contention,
                       trajectory_eval, traversal_review)
from app.types import (code_review, consensus_tracking, context_attribution, hierarchical_multiselect, pairwise,
                       ranking, rollout_evaluation, triage)
from app.types import error_span, multirate, number, process_reward, rubric_eval, select, slider, span, trajectory_edit
from app.types.base import COMMON_KEYS, POTATO_IGNORED_SCHEME_KEYS, AnnotationType

__all__ = ["TYPES", "COMMON_KEYS", "POTATO_IGNORED_SCHEME_KEYS"]

MODULES = [failure_attribution, agent_interaction_graph, handoff_review, agent_scorecard, tool_contention,
           emergent_behavior, tool_call_review, trajectory_eval, traversal_review, radio, likert, multiselect, text]
MODULES += [pairwise, ranking, hierarchical_multiselect, context_attribution, code_review, rollout_evaluation,
            consensus_tracking, triage]
MODULES += [span, error_span, process_reward, rubric_eval, multirate, slider, number, select, trajectory_edit]

TYPES: dict[str, AnnotationType] = {module.TYPE.name: module.TYPE for module in MODULES}
