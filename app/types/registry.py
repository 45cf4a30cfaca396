"""The one registry of annotation types.

Config validation, the app's navigation, the pages and the tests all read `TYPES`:
adding a schema is adding one entry here (plus its page and value builder).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.project import validators as v

MAST_ORCHESTRATION = ["single_agent", "sequential_pipeline", "hierarchical_manager", "group_chat",
                      "blackboard", "debate", "hub_and_spoke"]


@dataclass(frozen=True)
class Key:
    check: v.Validator
    default: Any = None
    required: bool = False
    doc: str = ""


@dataclass(frozen=True)
class SchemeType:
    name: str
    title: str
    page: str | None  # path of its page, relative to the repo root
    keys: dict[str, Key] = field(default_factory=dict)
    # What the type needs derived from the trace; drives the trace keys it accepts.
    trace: bool = False


# Keys every scheme may have.
COMMON_KEYS: dict[str, Key] = {
    "annotation_type": Key(v.nonempty_string, required=True),
    "name": Key(v.nonempty_string, required=True),
    "description": Key(v.string, default=""),
    "show_if": Key(v.show_if, doc="ask only when another scheme's answer is one of `any_of`"),
}

# Potato scheme keys that only change Potato's HTML; accepted and reported as ignored.
POTATO_IGNORED_SCHEME_KEYS = {
    "horizontal", "sequential_key_binding", "displaying_score", "label_requirement", "tooltip",
    "tooltip_file", "annotation_id", "displayed_label", "label_css", "allow_paste", "textarea",
    "video_as_label", "image_as_label", "hide_label", "option_randomization", "keyboard_shortcuts",
    "required", "display", "title", "layout", "instructions", "min_value", "max_value",
}

_TRACE_KEYS = {
    "steps_key": Key(v.nonempty_string, default="steps", doc="item field holding the step list"),
    "agent_key": Key(v.nonempty_string, default="agent", doc="step field naming the acting agent"),
}

DEFAULT_VERDICTS = ["correct", "wrong_tool", "wrong_args", "wrong_order"]


def _t(name, title, page, keys=None, trace=False) -> SchemeType:
    all_keys = dict(_TRACE_KEYS) if trace else {}
    all_keys.update(keys or {})
    return SchemeType(name, title, page, all_keys, trace)


TYPES: dict[str, SchemeType] = {t.name: t for t in [
    _t("failure_attribution", "Failure attribution", "pages/failure_attribution.py", {
        "agents": Key(v.string_list(1), doc="static agent list instead of deriving it from the trace"),
    }, trace=True),
    _t("agent_interaction_graph", "Interaction graph", "pages/agent_interaction_graph.py", trace=True),
    _t("handoff_review", "Handoff review", "pages/handoff_review.py", {
        "flags": Key(v.string_list(1), default=["info_loss", "dropped_constraint", "garbling", "goal_drift"]),
        "quality_scale": Key(v.integer(2, 10), default=5),
    }, trace=True),
    _t("agent_scorecard", "Agent scorecard", "pages/agent_scorecard.py", {
        "scale": Key(v.integer(2, 10), default=5),
        "agent_dimensions": Key(v.string_list(1), required=True),
        "team_dimensions": Key(v.string_list(0), default=[]),
        "milestones": Key(v.string_list(0), default=[]),
    }, trace=True),
    _t("tool_contention", "Tool contention", "pages/tool_contention.py", {
        "calls_key": Key(v.nonempty_string, default="calls"),
        "resource_key": Key(v.nonempty_string, default="resource"),
        "contention_labels": Key(v.string_list(1),
                                 default=["deadlock", "circular_wait", "race_condition", "benign"]),
        "include_same_agent": Key(v.boolean, default=False,
                                  doc="also count overlapping calls of one agent as contention"),
    }, trace=True),
    _t("emergent_behavior", "Emergent behaviour", "pages/emergent_behavior.py", {
        "behaviors": Key(v.string_list(1), required=True),
        "allow_note": Key(v.boolean, default=True),
    }, trace=True),
    _t("tool_call_review", "Tool-call review", "pages/tool_call_review.py", {
        "verdict_options": Key(v.string_list(1), default=DEFAULT_VERDICTS),
    }, trace=True),
    _t("trajectory_eval", "Step review (MAST)", "pages/trajectory_eval.py", {
        "step_text_key": Key(v.nonempty_string, default="content"),
        "error_types": Key(v.error_types, required=True),
        "correctness_options": Key(v.string_list(1), default=["correct", "incorrect", "partially_correct"]),
        "severities": Key(v.severities, default=[{"name": "minor", "weight": -1},
                                                 {"name": "major", "weight": -5},
                                                 {"name": "critical", "weight": -10}]),
        "show_score": Key(v.boolean, default=False),
        "max_score": Key(v.number, default=100),
    }, trace=True),
    _t("radio", "Single choice", "pages/radio.py", {
        "labels": Key(v.labels, required=True),
        "has_free_response": Key(v.free_response, default=False),
    }),
    _t("likert", "Likert", "pages/likert.py", {
        "size": Key(v.integer(2, 11), required=True),
        "min_label": Key(v.string, default=""),
        "max_label": Key(v.string, default=""),
        "labels": Key(v.labels),
    }),
    _t("multiselect", "Multiple choice", "pages/multiselect.py", {
        "labels": Key(v.labels, required=True),
        "has_free_response": Key(v.free_response, default=False),
    }),
    _t("text", "Free text", "pages/text.py", {
        "multiline": Key(v.boolean, default=True),
    }),
]}


def type_names() -> list[str]:
    return list(TYPES)
