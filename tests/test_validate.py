"""Every type's `validate` against the demo's schemes and a real run (code-team-002 of
data/demo_runs.jsonl: 10 steps; Manager, Coder, Tester, Reviewer; handoff 0 is Manager → Coder at
step 1; call 0 is run_tests at step 1; two contention regions).

The values an annotator could make fit (no reason); the misuse cases of issue 30 each give a
reason that names what does not fit."""
from __future__ import annotations

import pytest

from app.project.workspace import open_project
from app.traces.derive import derive, scheme_keys
from app.types.registry import TYPES
from tests.conftest import write_project

CODE = "code-team-002"
SE = "Specification & System Design"
MODE = {"type": SE, "subtype": "1.3 Step repetition"}
HANDOFF0 = {"index": 0, "step": 1, "from": "Manager", "to": "Coder"}
CALL0 = {"index": 0, "step": 1, "tool": "run_tests"}


@pytest.fixture(scope="module")
def check(tmp_path_factory):
    ws = open_project(write_project(tmp_path_factory.mktemp("validate")))
    item = ws.by_id[CODE]

    def run(scheme_name: str, value, trace: bool = True) -> list[str]:
        scheme = ws.project.scheme(scheme_name)
        kind = TYPES[scheme.type]
        d = derive(item.data, **scheme_keys(scheme)) if kind.trace and trace else None
        return kind.validate(value, scheme, d)
    return run


FITS = [
    ("outcome", {"failure": "true"}), ("outcome", {}), ("orchestration", {"debate": "true", "free_response": "x"}),
    ("symptoms", {"loop": "true", "premature_stop": "true"}), ("confidence", {"scale_4": "4"}),
    ("notes", {"text_box": "fine"}),
    ("attribution", {"responsible_agent": "Coder", "decisive_step": 4, "reason": "r"}),
    ("attribution", {"responsible_agent": None, "decisive_step": None, "reason": ""}),
    ("graph", {"critical_nodes": ["Coder"], "edges": {"Manager->Coder": "critical"}}),
    ("handoffs", [{**HANDOFF0, "flags": ["info_loss"], "quality": 5}]), ("handoffs", []),
    ("scorecard", {"agents": {"Coder": {"contribution": 3}}, "team": {"efficiency": 1},
                   "milestones": {"plan produced": True, "result verified": False}}),
    ("contention", {"contentions": {"0": "deadlock", "1": "benign"}}),
    ("emergent", {"echoing": {"turns": [0, 9], "note": ""}}),
    ("tool_review", [{**CALL0, "verdict": "wrong_args", "notes": ""}]),
    ("mast_steps", {"steps": [{"step_index": 2, "agent": "Coder", "correctness": "incorrect", "errors": [MODE],
                               "severity": "major", "rationale": "why"}], "score": 95}),
]


@pytest.mark.parametrize("scheme,value", FITS)
def test_what_an_annotator_can_make_fits(check, scheme, value):
    assert check(scheme, value) == []


BAD_STEPS = [9999, -3, "abc", 1.5, True, "4", None]
MISUSE = [
    ("outcome", {"maybe": "true"}, "label: \"maybe\" is not one of success, partial, failure"),
    ("outcome", {"success": "true", "failure": "true"}, "2 labels chosen"),
    ("outcome", {"success": True}, 'expected "true"'),  # would show "Saved" with nothing selected
    ("outcome", ["success"], "expected an object"),
    ("symptoms", {"loop": "true", "sneezing": "true"}, "\"sneezing\" is not one of"),
    ("confidence", {"scale_0": "0"}, "0 is outside 1–5"), ("confidence", {"scale_99": "99"}, "99 is outside 1–5"),
    ("confidence", {"scale_3": "3", "scale_4": "4"}, "2 points chosen"),
    ("confidence", {"scale_x": "high"}, "expected a whole number"),
    ("notes", {"text_box": 42}, "expected text"),
    ("attribution", {"responsible_agent": "Mallory", "decisive_step": 1}, "\"Mallory\" is not an agent of this run"),
    *[("attribution", {"responsible_agent": "Coder", "decisive_step": s}, "decisive step") for s in BAD_STEPS
      if s is not None],
    ("attribution", {"responsible_agent": "Coder", "decisive_step": 9999}, "not a step of this run (it has 10 steps"),
    ("attribution", {"responsible_agent": "Coder", "extra": 1}, "unknown field \"extra\""),
    ("graph", {"critical_nodes": ["Ghost"]}, "\"Ghost\" is not an agent"),
    ("graph", {"edges": {"Reviewer->Tester": "critical"}}, "no handoff from \"Reviewer\" to \"Tester\""),
    ("graph", {"edges": {"Manager->Coder": "evil"}}, "\"evil\" is not one of normal, critical, problematic"),
    ("handoffs", [{**HANDOFF0, "index": 42, "flags": [], "quality": 3}], "42 is not one of this run's"),
    ("handoffs", [{**HANDOFF0, "flags": [], "quality": 42}], "quality: 42 is outside 1–5"),
    ("handoffs", [{**HANDOFF0, "flags": ["rudeness"], "quality": None}], "\"rudeness\" is not one of"),
    ("handoffs", [{**HANDOFF0, "to": "Tester", "flags": ["garbling"]}], "handoff 0 of this run is"),
    ("handoffs", [{**HANDOFF0, "flags": ["garbling"]}, {**HANDOFF0, "flags": []}], "judged twice"),
    *[("scorecard", {"agents": {"Coder": {"contribution": s}}}, "score") for s in (99, -1, "high", 2.5, True)],
    ("scorecard", {"agents": {"Mallory": {"contribution": 3}}}, "\"Mallory\" is not an agent"),
    ("scorecard", {"agents": {"Coder": {"charm": 3}}}, "\"charm\" is not one of"),
    ("scorecard", {"team": {"efficiency": 0}}, "0 is outside 1–5"),
    ("scorecard", {"milestones": {"moon landing": True}}, "\"moon landing\" is not one of"),
    ("scorecard", {"milestones": {"plan produced": "yes"}}, "expected true or false"),
    ("contention", {"contentions": {"7": "deadlock"}}, "7 is not one of this run's 2 contention regions"),
    ("contention", {"contentions": {"0": "mutiny"}}, "\"mutiny\" is not one of"),
    ("contention", {"contentions": {"-1": "benign"}}, "region"),
    ("emergent", {"telepathy": {"turns": [1]}}, "\"telepathy\" is not one of"),
    *[("emergent", {"echoing": {"turns": [s]}}, "turn") for s in BAD_STEPS],
    ("tool_review", [{**CALL0, "verdict": "splendid"}], "\"splendid\" is not one of"),
    ("tool_review", [{**CALL0, "index": 99, "verdict": "correct"}], "99 is not one of this run's"),
    ("tool_review", [{**CALL0, "tool": "rm_rf", "verdict": "correct"}], "call 0 of this run is \"run_tests\""),
    ("mast_steps", {"steps": [{"step_index": 2, "agent": "Coder", "errors": [{"type": "Gossip"}]}]},
     "is not a MAST mode of this scheme"),
    ("mast_steps", {"steps": [{"step_index": 2, "agent": "Coder", "correctness": "meh"}]}, "\"meh\" is not one of"),
    ("mast_steps", {"steps": [{"step_index": 2, "agent": "Coder", "severity": "apocalyptic"}]}, "severity"),
    *[("mast_steps", {"steps": [{"step_index": s, "agent": "Coder", "correctness": "correct"}]}, "step")
      for s in BAD_STEPS],
]


@pytest.mark.parametrize("scheme,value,says", MISUSE, ids=[f"{s}-{i}" for i, (s, _v, _r) in enumerate(MISUSE)])
def test_misuse_is_refused_with_a_reason(check, scheme, value, says):
    reasons = check(scheme, value)
    assert reasons and any(says in r for r in reasons), reasons


def test_without_the_trace_only_the_scheme_is_checked(check):
    """A value made on other data (the trace changed since): its steps and agents are not the
    run's to judge, its labels and scales still are."""
    assert check("attribution", {"responsible_agent": "Ghost", "decisive_step": 9999}, trace=False) == []
    assert check("attribution", {"responsible_agent": "Ghost", "decisive_step": -3}, trace=False)
    assert check("handoffs", [{**HANDOFF0, "index": 42, "flags": [], "quality": 42}], trace=False) == \
        ["entry 0: quality: 42 is outside 1–5"]


def test_every_type_has_its_own_validate():
    default = TYPES["text"].__class__.__dataclass_fields__["validate"].default
    assert all(t.validate is not default for t in TYPES.values())
