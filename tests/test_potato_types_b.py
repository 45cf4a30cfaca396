"""The Potato types of issue 28's second batch (pairwise, ranking, hierarchical_multiselect,
context_attribution, consensus_tracking, code_review, rollout_evaluation, triage): config keys,
validation of stored values against scheme and trace, Potato's stored formats on import, summary
rows and rollups, agreement (against the krippendorff package), export objects."""
from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest

from app.__main__ import main
from app.project.config import load_config
from app.store import importer
from app.store.export import export_frame
from app.summary.report import build_html, extra_tables, headline_agreement
from app.summary.summarize import summarize
from app.traces.derive import derive, scheme_keys
from app.types import code_review, hierarchical_multiselect as tree, pairwise, ranking, rollout_evaluation as rollout
from app.types import triage, turn_acts
from app.types.registry import TYPES
from tests.conftest import ROOT
from tests.potato_b import EXAMPLES, ONE, TWO, project

NEW = ["pairwise", "ranking", "hierarchical_multiselect", "context_attribution", "code_review",
       "rollout_evaluation", "consensus_tracking", "triage"]


def alpha(rows: list[list], level: str) -> float:
    """krippendorff's alpha of a raters × units matrix (None: missing), values coded for nominal."""
    codes: dict = {}
    data = [[np.nan if x is None else (codes.setdefault(x, len(codes)) if level == "nominal" else float(x)) for x in r]
            for r in rows]
    return float(krippendorff.alpha(reliability_data=np.array(data, dtype=float), level_of_measurement=level))


@pytest.fixture
def study(tmp_path):
    return project(tmp_path)


def scheme(ws, name):
    return ws.project.scheme(name)


# --- the example project ---------------------------------------------------------------------------

def test_example_project_loads_with_every_new_type(capsys):
    project_, problems = load_config(EXAMPLES / "config.yaml")
    assert project_ is not None, [str(p) for p in problems]
    assert not [p for p in problems if p.level == "error"]
    assert sorted({s.type for s in project_.schemes}) == sorted(NEW)
    for t in NEW:  # each with its module's page and surface
        assert (ROOT / TYPES[t].page).exists() and (ROOT / "app" / "ui" / "surfaces" / f"{t}.py").exists()
    assert main(["check", str(EXAMPLES / "config.yaml")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("ok")


# type names that are also common words or keys of other things (a JSON "text" field, a trace's
# "span", an HTML select; the graph library's "multiselect" option): not searched, or not there
WORDS = {"text", "span", "select"}
NOT_THE_TYPE = {("multiselect", "ui/graph_view.py")}


def test_type_strings_stay_in_their_files():
    """A type string appears in no file of app/ but its module, its surface and the registry,
    and every type has its surface module."""
    from app.types.registry import TYPES
    for t in TYPES:
        assert (ROOT / "app" / "ui" / "surfaces" / f"{t}.py").exists(), t
        if t in WORDS:
            continue
        for path in (ROOT / "app").rglob("*.py"):
            rel = path.relative_to(ROOT / "app").as_posix()
            if rel in (f"types/{t}.py", f"ui/surfaces/{t}.py", "types/registry.py") or (t, rel) in NOT_THE_TYPE:
                continue
            assert f'"{t}"' not in path.read_text(), (t, rel)


@pytest.mark.parametrize("raw, where", [
    ({"annotation_type": "pairwise", "name": "p", "mode": "slider"}, "mode"),
    ({"annotation_type": "pairwise", "name": "p", "labels": ["only one"]}, "labels"),
    ({"annotation_type": "pairwise", "name": "p", "scale": {"min": 1, "max": 3}}, "scale"),
    ({"annotation_type": "ranking", "name": "r", "labels": ["a", "a"]}, "labels[1]"),
    ({"annotation_type": "hierarchical_multiselect", "name": "h", "taxonomy": {"A": ["x"], "B": ["x"]}}, "taxonomy.B[0]"),
    ({"annotation_type": "hierarchical_multiselect", "name": "h"}, "taxonomy"),
    ({"annotation_type": "consensus_tracking", "name": "c", "acts": []}, "acts"),
    ({"annotation_type": "code_review", "name": "c", "verdict_options": ["ok", "ok"]}, "verdict_options[1]"),
    ({"annotation_type": "rollout_evaluation", "name": "r"}, "streams"),
    ({"annotation_type": "rollout_evaluation", "name": "r", "streams": [{"field": "a"}], "layers": ["audio"]}, "layers"),
    ({"annotation_type": "triage", "name": "t", "accept_label": ""}, "accept_label"),
])
def test_config_keys_are_checked(tmp_path, raw, where):
    cfg = tmp_path / "p.yaml"
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "x", "steps": []}\n')
    cfg.write_text(json.dumps({"annotation_task_name": "t", "data_files": [str(data)],
                               "output_annotation_dir": str(tmp_path / "out"), "annotation_schemes": [raw]}))
    project_, problems = load_config(cfg)
    assert project_ is None
    assert any(p.where == f"annotation_schemes[0].{where}" for p in problems), [str(p) for p in problems]


# --- pairwise --------------------------------------------------------------------------------------

def test_pairwise_candidates_validate_and_coerce(study):
    cfg, save = study
    ws = save.ws
    binary, scale = scheme(ws, "better_patch"), scheme(ws, "preference_scale")
    # what is compared: the item's first two `responses`, else its left and right fields
    assert pairwise.candidates(ws.by_id[ONE].data, binary) == ws.by_id[ONE].data["responses"]
    assert pairwise.candidates(ws.by_id[TWO].data, binary) == [ws.by_id[TWO].data["left"], ws.by_id[TWO].data["right"]]
    assert pairwise.validate({"selection": "tie"}, binary, None) == []
    assert pairwise.validate({"selection": "C"}, binary, None) == ['selection "C" is not one of A, B, tie']
    assert pairwise.validate({"scale_value": "2"}, scale, None) == []
    assert pairwise.validate({"scale_value": "4"}, scale, None) == ["scale_value 4 is outside -3..3"]
    assert pairwise.validate({"scale_value": "0.5"}, scale, None) == ["scale_value 0.5 is not on the scale's steps of 1"]
    assert pairwise.validate({"selection": "A"}, scale, None)  # a binary value in a scale scheme
    # Potato's stored format, as its output holds it, and the shapes people write
    assert importer.coerce("pairwise", {"selection": "B"}, binary) == {"selection": "B"}
    assert importer.coerce("pairwise", "Patch 1", binary) == {"selection": "A"}
    assert importer.coerce("pairwise", {"scale_value": "-2"}, scale) == {"scale_value": "-2"}
    assert importer.coerce("pairwise", -2, scale) == {"scale_value": "-2"}


def test_pairwise_win_rates_and_agreement(study):
    cfg, save = study
    for who, one, two in (("alice", "A", "B"), ("bob", "A", "tie"), ("carol", "B", "B")):
        save(ONE, who, "better_patch", {"selection": one})
        save(TWO, who, "better_patch", {"selection": two})
    for who, one, two in (("alice", -2, 1), ("bob", -3, 1), ("carol", -1, 3)):
        save(ONE, who, "preference_scale", {"scale_value": str(one)})
        save(TWO, who, "preference_scale", {"scale_value": str(two)})
    s = summarize(save.ws)
    roll = s["choices"]["better_patch"]
    assert [(r["label"], r["name"], r["count"]) for r in roll["labels"]] == [
        ("A", "Patch 1", 2), ("B", "Patch 2", 3), ("tie", "No preference", 1)]
    assert roll["win_rates"] == [{"side": "A", "name": "Patch 1", "wins": 2, "win_rate": 0.4},
                                 {"side": "B", "name": "Patch 2", "wins": 3, "win_rate": 0.6}]
    assert roll["tie_rate"] == pytest.approx(1 / 6)
    a = s["agreement"]["better_patch"]["choice"]
    assert a["alpha"] == pytest.approx(alpha([["A", "B"], ["A", "tie"], ["B", "B"]], "nominal"))
    scale = s["agreement"]["preference_scale"]
    assert scale["scale"]["alpha"] == pytest.approx(alpha([[-2, 1], [-3, 1], [-1, 3]], "ordinal"))
    assert scale["direction"]["percent_agreement"] == 1.0  # every annotator prefers A on one, B on two
    assert s["choices"]["preference_scale"]["scale"]["mean"] == pytest.approx(-1 / 6)
    assert ("win rates", roll["win_rates"]) in extra_tables(roll)


def test_pairwise_dimensions_and_justification(study):
    cfg, save = study
    sch = scheme(save.ws, "team_comparison")
    why = json.dumps({"reasons": ["More correct"], "rationale": "fixes the empty password"})
    assert pairwise.validate({"correctness": "tie", "scope": "B", "justification": why}, sch, None) == []
    assert pairwise.validate({"justification": why}, sch, None) == []  # the reasons before the choices
    assert pairwise.validate({"scope": "tie", "speed": "A"}, sch, None) == [
        'scope "tie" is not one of A, B (ties are off)', '"speed" is not a dimension (correctness, scope)']
    assert pairwise.validate({"scope": "A", "justification": json.dumps({"reasons": ["Cheaper"]})}, sch, None) == [
        'justification: reason "Cheaper" is not one of More correct, Smaller change']
    assert pairwise.validate({"selection": "A", "justification": why}, scheme(save.ws, "better_patch"), None) == [
        "justification: this scheme asks for none"]
    potato = {"correctness": "A", "scope": "B", "justification": why}  # Potato's output, as it holds it
    assert importer.coerce("pairwise", potato, sch) == potato
    for who, one, two in (("alice", ("A", "B"), ("A", "A")), ("bob", ("A", "A"), ("tie", "A")),
                          ("carol", ("B", "B"), ("A", "A"))):
        save(ONE, who, "team_comparison", {"correctness": one[0], "scope": one[1], "justification": why})
        save(TWO, who, "team_comparison", {"correctness": two[0], "scope": two[1]})
    s = summarize(save.ws)
    dims = {d["dimension"]: d for d in s["choices"]["team_comparison"]["dimensions"]}
    assert dims["correctness"] == {"dimension": "correctness", "A": 4, "B": 1, "win_rate_A": 0.8, "win_rate_B": 0.2,
                                   "tie_rate": pytest.approx(1 / 6)}
    assert s["choices"]["team_comparison"]["reasons"] == [{"reason": "More correct", "count": 3}]
    a = s["agreement"]["team_comparison"]["dimensions"]
    assert a["correctness"]["alpha"] == pytest.approx(alpha([["A", "A"], ["A", "tie"], ["B", "A"]], "nominal"))
    assert a["scope"]["percent_agreement"] == pytest.approx((1 / 3 + 1) / 2)


# --- ranking ---------------------------------------------------------------------------------------

def test_ranking_format_validate_and_coerce(study):
    ws = study[1].ws
    agents, summaries = scheme(ws, "agent_rank"), scheme(ws, "summary_rank")
    groups = ranking.parse("B,D=A,C")
    assert groups == [["B"], ["D", "A"], ["C"]] and ranking.ranks(groups) == {"B": 1, "D": 2, "A": 2, "C": 4}
    assert ranking.build(groups) == {"rank_order": "B,D=A,C"}
    assert ranking.validate({"rank_order": "coder,planner=critic"}, agents, None) == []
    assert ranking.validate({"rank_order": "coder,planner"}, agents, None) == [
        'rank_order leaves out "critic" (a ranking orders every label)']
    assert ranking.validate({"rank_order": "coder,boss,critic"}, agents, None) == [
        '"boss" not among the labels (planner, coder, critic)']
    assert ranking.validate({"rank_order": "A=B,C"}, summaries, None) == [
        'rank_order "A=B,C" has ties (=), and allow_ties is off']
    assert ranking.candidates(ws.by_id[ONE].data, summaries)[2] == ("C", "critic summary")
    # a label holding the separators is read whole (Potato matches its labels first)
    assert ranking.parse("Paris, France=Lyon,Nice", ["Paris, France", "Lyon", "Nice"]) == [["Paris, France", "Lyon"], ["Nice"]]
    assert importer.coerce("ranking", {"rank_order": "coder,planner,critic"}, agents) == {"rank_order": "coder,planner,critic"}
    assert importer.coerce("ranking", ["coder", ["planner", "critic"]], agents) == {"rank_order": "coder,planner=critic"}


def test_ranking_mean_ranks_and_ordinal_alpha(study):
    cfg, save = study
    orders = {"alice": ("coder,planner,critic", "planner,coder,critic"),
              "bob": ("coder,planner=critic", "planner,critic,coder"),
              "carol": ("planner,coder,critic", "planner,coder,critic")}
    for who, (one, two) in orders.items():
        save(ONE, who, "agent_rank", {"rank_order": one})
        save(TWO, who, "agent_rank", {"rank_order": two})
    s = summarize(save.ws)
    cands = {c["candidate"]: c for c in s["choices"]["agent_rank"]["candidates"]}
    assert cands["planner"]["mean_rank"] == pytest.approx((2 + 1 + 2 + 1 + 1 + 1) / 6)
    assert cands["planner"]["first"] == 4 and cands["coder"]["first"] == 2
    assert [c["candidate"] for c in s["choices"]["agent_rank"]["candidates"]] == ["planner", "coder", "critic"]
    # units: (item, candidate); values: competition ranks
    units = [(0, "coder"), (0, "planner"), (0, "critic"), (1, "coder"), (1, "planner"), (1, "critic")]
    matrix = [[ranking.ranks(ranking.parse(orders[who][item]))[c] for item, c in units] for who in sorted(orders)]
    assert s["agreement"]["agent_rank"]["rank"]["alpha"] == pytest.approx(alpha(matrix, "ordinal"))
    assert s["agreement"]["agent_rank"]["first"]["percent_agreement"] == pytest.approx((1 / 3 + 1) / 2)


# --- hierarchical_multiselect ----------------------------------------------------------------------

def test_taxonomy_propagation_validate_and_coerce(study):
    ws = study[1].ws
    sch = scheme(ws, "failure_topics")
    nodes = tree.nodes_of(sch)
    assert [(n["name"], n["depth"]) for n in nodes][:5] == [
        ("Coordination", 0), ("Communication", 1), ("Ignored input", 2), ("Withheld information", 2), ("Role drift", 1)]
    # auto_select_parent: every child of Communication chosen chooses it (and not Coordination: Role drift is not)
    assert tree.propagate(nodes, ["Ignored input"], ["Ignored input", "Withheld information"], sch) == [
        "Ignored input", "Withheld information", "Communication"]
    assert tree.validate({"selected_labels": "Wrong tool,Role drift"}, sch, None) == []
    assert tree.validate({"selected_labels": "Wrong tool,Typos"}, sch, None) == ['"Typos" is not a label of the taxonomy']
    capped = type(sch)(sch.index, sch.type, sch.name, "", {**sch.options, "max_selections": 1})
    assert tree.validate({"selected_labels": "Wrong tool,Role drift"}, capped, None) == [
        "2 labels chosen, max_selections is 1"]
    assert importer.coerce("hierarchical_multiselect", {"selected_labels": "Wrong tool"}, sch) == {"selected_labels": "Wrong tool"}
    assert tree.parse({"selected_labels": "Paris, France,Lyon"}, ["Paris, France", "Lyon"]) == ["Paris, France", "Lyon"]
    assert importer.coerce("hierarchical_multiselect", ["Wrong tool", "Role drift"], sch) == {
        "selected_labels": "Wrong tool,Role drift"}


def test_taxonomy_rollup_and_jaccard(study):
    cfg, save = study
    chosen = {"alice": ("Wrong tool,Role drift", "Ignored input"), "bob": ("Wrong tool", "Ignored input")}
    for who, (one, two) in chosen.items():
        save(ONE, who, "failure_topics", {"selected_labels": one})
        save(TWO, who, "failure_topics", {"selected_labels": two})
    s = summarize(save.ws)
    roll = s["choices"]["failure_topics"]
    assert [(r["label"], r["count"], r["depth"]) for r in roll["labels"]] == [
        ("Ignored input", 2, 2), ("Role drift", 1, 1), ("Wrong tool", 2, 1)]
    assert roll["branches"] == [{"branch": "Coordination", "count": 3, "runs": 2},
                                {"branch": "Execution", "count": 2, "runs": 1}]
    assert s["agreement"]["failure_topics"]["jaccard"]["jaccard"] == pytest.approx((1 / 2 + 1) / 2)


# --- triage ----------------------------------------------------------------------------------------

def test_triage_stored_format_and_agreement(study):
    cfg, save = study
    sch = scheme(save.ws, "keep_item")
    assert importer.coerce("triage", {"labels": {"decision": "accept"}}, sch) == {"decision": "accept"}
    assert importer.coerce("triage", {"decision": "skip"}, sch) == {"decision": "skip"}
    assert importer.coerce("triage", "Exclude", sch) == {"decision": "reject"}
    assert triage.validate({"decision": "maybe"}, sch, None) == ['decision "maybe" is not one of accept, reject, skip']
    for who, one, two in (("alice", "accept", "reject"), ("bob", "accept", "skip"), ("carol", "reject", "skip")):
        save(ONE, who, "keep_item", {"decision": one})
        save(TWO, who, "keep_item", {"decision": two})
    s = summarize(save.ws)
    assert [(r["label"], r["button"], r["count"]) for r in s["choices"]["keep_item"]["labels"]] == [
        ("accept", "Include", 2), ("reject", "Exclude", 2), ("skip", "Maybe", 2)]
    a = s["agreement"]["keep_item"]["decision"]
    assert a["alpha"] == pytest.approx(alpha([["accept", "reject"], ["accept", "skip"], ["reject", "skip"]], "nominal"))
    assert {r["scheme"]: r["agreement"] for r in headline_agreement(s["agreement"])}["keep_item"].startswith("fleiss kappa")


# --- consensus_tracking and context_attribution -----------------------------------------------------

def test_turn_acts_validate_against_the_conversation(study):
    ws = study[1].ws
    sch = scheme(ws, "discussion_acts")
    assert scheme_keys(sch)["steps_key"] == "conversation"
    d = derive(ws.by_id[ONE].data, **scheme_keys(sch))
    assert [turn_acts.turn_agent(s) for s in d.steps] == ["planner", "coder", "critic", "planner"]
    good = [{"turn": 0, "act": "proposal", "ref": None, "agent_id": "planner"},
            {"turn": 1, "act": "agreement", "ref": 0, "agent_id": "coder"}]
    assert turn_acts.validate(good, sch, d) == []
    assert turn_acts.validate([{"turn": 1, "act": "agreement", "agent_id": ""}], sch, d) == []  # Potato's ref-less, agent-less tag
    assert turn_acts.validate([{"turn": 7, "act": "proposal"}], sch, d) == [
        "entry 0: turn 7 is not in this conversation (4 turns)"]
    assert turn_acts.validate([{"turn": 2, "act": "agreement", "agent_id": "planner"}], sch, d) == [
        "entry 0: turn 2 is critic's, not \"planner\"'s"]
    assert turn_acts.validate([{"turn": 3, "act": "decision", "ref": 1}], sch, d) == [
        'entry 0: "decision" links to no turn (linked acts: agreement, disagreement, concession)']
    assert turn_acts.validate([{"turn": 1, "act": "agreement", "ref": 1}, {"turn": 1, "act": "proposal"}], sch, d) == [
        "entry 0: ref 1 is not another turn of this conversation", "entry 1: turn 1 is tagged twice"]
    assert turn_acts.validate([{"turn": 0, "act": "vote"}], sch, d)[0].startswith('entry 0: act "vote" is not one of')
    # Potato's hidden-input JSON list, as its output holds it
    raw = {"discussion_acts": json.dumps(good)}
    assert importer.coerce("consensus_tracking", raw, sch) == good
    assert TYPES["consensus_tracking"].objects(good, d) == {"turns": {
        "0": {"agent": "planner", "ref_agent": None, "matches": True},
        "1": {"agent": "coder", "ref_agent": "planner", "matches": True}}}
    ctx = scheme(ws, "memory_use")
    assert turn_acts.acts(ctx) == ["used_context_correctly", "hallucinated_context", "ignored_context"]
    assert turn_acts.validate([{"turn": 2, "act": "hallucinated_context", "ref": 0, "agent_id": "critic"}], ctx, d) == []


def test_turn_acts_rollup_and_agreement(study):
    cfg, save = study
    tags = {"alice": [{"turn": 0, "act": "proposal", "ref": None, "agent_id": "planner"},
                      {"turn": 1, "act": "agreement", "ref": 0, "agent_id": "coder"},
                      {"turn": 2, "act": "disagreement", "ref": 0, "agent_id": "critic"}],
            "bob": [{"turn": 0, "act": "proposal", "ref": None, "agent_id": "planner"},
                    {"turn": 1, "act": "agreement", "ref": 0, "agent_id": "coder"},
                    {"turn": 3, "act": "decision", "ref": None, "agent_id": "planner"}]}
    for who, value in tags.items():
        save(ONE, who, "discussion_acts", value)
    s = summarize(save.ws)
    roll = s["choices"]["discussion_acts"]
    assert [(r["label"], r["count"]) for r in roll["labels"]] == [
        ("proposal", 2), ("agreement", 2), ("disagreement", 1), ("decision", 1)]
    assert roll["links"] == {"linked_acts": 3, "with_ref": 3}
    assert {"agent": "planner", "act": "proposal", "count": 2} in roll["by_agent"]
    # per turn of the item, an untagged turn counts as "(none)"
    matrix = [["proposal", "agreement", "disagreement", "(none)"], ["proposal", "agreement", "(none)", "decision"]]
    a = s["agreement"]["discussion_acts"]
    assert a["act"]["alpha"] == pytest.approx(alpha(matrix, "nominal"))
    assert a["act"]["n_units"] == 4 and a["disagreements"] == 2
    assert a["link"]["percent_agreement"] == 1.0 and a["link"]["n_units"] == 1


# --- code_review -----------------------------------------------------------------------------------

def test_code_review_format_validate_and_files(study):
    ws = study[1].ws
    sch = scheme(ws, "review")
    potato = {"review": json.dumps({"verdict": "request_changes",
                                    "comments": [{"category": "bug", "file": "src/login.py", "line": 3, "body": "off by one"}],
                                    "file_ratings": {"src/login.py": {"correctness": 2, "quality": 4}}})}
    value = importer.coerce("code_review", potato, sch)
    assert value["comments"] == [{"category": "bug", "file": "src/login.py", "line": 3, "text": "off by one"}]
    assert code_review.validate(value, sch, None) == []
    bad = {"verdict": "merge", "comments": [{"category": "nit", "line": 0, "text": ""}],
           "file_ratings": {"a.py": {"speed": 3, "quality": 6}}}
    assert code_review.validate(bad, sch, None) == [
        'verdict "merge" is not one of approve, request_changes, comment_only',
        'comment 0: category "nit" is not one of bug, style, suggestion, security, question',
        "comment 0: line 0 is not a line number (1 or more)",
        'file_ratings["a.py"]: "speed" is not one of correctness, quality',
        'file_ratings["a.py"].quality: 6 is not a rating from 1 to 5']
    d = derive(ws.by_id[ONE].data, **scheme_keys(scheme(ws, "discussion_acts")))
    assert code_review.trace_files(d.tool_calls) == ["src/login.py", "tests/test_login.py"]
    # Potato's coding traces: structured_turns whose tool calls hold {tool, input: {file_path}}
    turns = {"structured_turns": [{"role": "assistant", "content": "fix", "tool_calls": [
        {"tool": "Read", "input": {"file_path": "src/auth/login.py"}}, {"tool": "Bash", "input": {"command": "pytest"}},
        {"tool": "Edit", "input": {"file_path": "src/auth/login.py", "old_string": "a", "new_string": "b"}},
        {"tool": "Write", "input": {"path": "tests/test_auth.py"}}]}]}
    assert code_review.trace_files([], turns) == ["src/auth/login.py", "tests/test_auth.py"]


def test_code_review_rollup_and_agreement(study):
    cfg, save = study
    reviews = {"alice": ("request_changes", 2, 4, ["bug"]), "bob": ("request_changes", 3, 4, ["bug", "style"]),
               "carol": ("approve", 5, 5, [])}
    for who, (verdict, corr, qual, cats) in reviews.items():
        save(ONE, who, "review", {"verdict": verdict, "comments": [code_review.comment(c, "src/login.py", 2, "x") for c in cats],
                                  "file_ratings": {"src/login.py": {"correctness": corr, "quality": qual}}})
    s = summarize(save.ws)
    roll = s["choices"]["review"]
    assert [(r["label"], r["count"]) for r in roll["labels"]] == [("approve", 1), ("request_changes", 2)]
    assert roll["comments"] == [{"category": "bug", "count": 2, "runs": 1}, {"category": "style", "count": 1, "runs": 1}]
    assert roll["ratings"][0] == {"dimension": "correctness", "ratings": 3, "mean": pytest.approx(10 / 3)}
    a = s["agreement"]["review"]
    assert a["verdict"]["percent_agreement"] == pytest.approx(1 / 3)
    assert a["ratings"]["alpha"] == pytest.approx(alpha([[2, 4], [3, 4], [5, 5]], "ordinal"))
    assert a["comment_categories"]["jaccard"]["jaccard"] == pytest.approx((1 / 2 + 0 + 0) / 3)


# --- rollout_evaluation ----------------------------------------------------------------------------

def test_rollout_validate_and_format(study):
    ws = study[1].ws
    sch = scheme(ws, "rollout_review")
    assert rollout.ids(sch) == ["real", "gen_a", "gen_b"]
    good = {"violations": [{"stream": "gen_a", "t": 3.42, "type": "interpenetration", "severity": 2, "note": ""}],
            "clean": ["real"], "preference": {"winner": "gen_a", "confidence": "2", "rubric": {"physics": 4}},
            "counterfactual": {"verdict": "plausible", "t": 2.1, "note": ""}}
    assert rollout.validate(good, sch, None) == []
    assert importer.coerce("rollout_evaluation", {"_data": json.dumps(good)}, sch) == good  # Potato's `_data` blob
    bad = {"violations": [{"stream": "gen_c", "t": -1, "type": "teleport", "severity": 9}], "clean": ["gen_a"],
           "preference": {"winner": "gen_b", "rubric": {"speed": 2}}, "counterfactual": {"verdict": "maybe"}}
    assert rollout.validate(bad, sch, None) == [
        'violation 0: stream "gen_c" is not one of real, gen_a, gen_b', 'violation 0: t -1 is not a time in seconds',
        'violation 0: type "teleport" is not one of ' + ", ".join(rollout.VIOLATIONS),
        "violation 0: severity 9 is not one of 1, 2, 3",
        'preference.rubric: "speed" is not a rubric dimension (physics, fidelity)',
        'counterfactual: verdict "maybe" is not one of plausible, implausible, unchanged, unclear']
    assert rollout.validate({"clean": ["gen_a"], "violations": [{"stream": "gen_a", "t": 1, "type": "gravity_violation"}]},
                            sch, None) == ['clean: "gen_a" is marked clean and has a violation']


def test_rollout_rollup_and_agreement(study):
    cfg, save = study

    def value(breaks: dict, clean: list, winner: str):
        return {"violations": [{"stream": s, "t": t, "type": k, "severity": sev, "note": ""} for s, (t, k, sev) in breaks.items()],
                "clean": clean, "preference": {"winner": winner}}

    save(ONE, "alice", "rollout_review", value({"gen_a": (1.0, "gravity_violation", 2), "gen_b": (2.0, "interpenetration", 1)},
                                               ["real"], "real"))
    save(ONE, "bob", "rollout_review", value({"gen_a": (1.5, "gravity_violation", 3)}, ["real", "gen_b"], "real"))
    s = summarize(save.ws)
    roll = s["choices"]["rollout_review"]
    assert roll["labels"][0]["label"] == "real" and roll["labels"][0]["count"] == 2
    assert roll["streams"] == [{"stream": "real", "broken": 0, "clean": 2}, {"stream": "gen_a", "broken": 2, "clean": 0},
                               {"stream": "gen_b", "broken": 1, "clean": 1}]
    a = s["agreement"]["rollout_review"]
    assert a["detection"]["n_units"] == 3 and a["detection"]["percent_agreement"] == pytest.approx(2 / 3)
    assert a["violation_type"]["percent_agreement"] == 1.0 and a["break_time"]["n_units"] == 1
    assert a["preference"]["percent_agreement"] == 1.0 and a["counterfactual"] is None


# --- the whole study: summary, report, export --------------------------------------------------------

def test_summary_report_and_export_hold_every_scheme(study):
    cfg, save = study
    save(ONE, "alice", "better_patch", {"selection": "A"})
    save(ONE, "alice", "agent_rank", {"rank_order": "coder,planner,critic"})
    save(ONE, "alice", "failure_topics", {"selected_labels": "Wrong tool"})
    save(ONE, "alice", "review", {"verdict": "approve", "comments": [], "file_ratings": {}})
    save(ONE, "alice", "keep_item", {"decision": "accept"})
    save(ONE, "alice", "memory_use", [{"turn": 3, "act": "used_context_correctly", "ref": 0, "agent_id": "planner"}])
    s = summarize(save.ws)
    assert set(s["choices"]) == {x.name for x in save.ws.project.schemes}
    assert {r["scheme"] for r in headline_agreement(s["agreement"])} == set(s["choices"])
    page = build_html(save.ws)
    assert "better_patch" in page and "win rates" in page
    frame = export_frame(save.ws)
    row = frame[frame["scheme"] == "memory_use"].iloc[0]
    assert row["objects"] == {"turns": {"3": {"agent": "planner", "ref_agent": "planner", "matches": True}}}


def test_a_potato_output_file_imports_in_each_stored_format(study, tmp_path):
    """Potato's annotated_instances.jsonl (label_annotations: the value under each scheme's name,
    hidden-input schemes as JSON text under their input's name) imports as Baton's stored values."""
    cfg, save = study
    acts = [{"turn": 0, "act": "proposal", "agent_id": "planner"}, {"turn": 1, "act": "agreement", "ref": 0, "agent_id": "coder"}]
    review = {"verdict": "approve", "comments": [{"category": "style", "file": "src/login.py", "line": None, "text": "ok"}],
              "file_ratings": {"src/login.py": {"quality": 4}}}
    roll = {"clean": ["real", "gen_a", "gen_b"], "preference": {"winner": "gen_b"}}
    labels = {"better_patch": {"selection": "B"}, "preference_scale": {"scale_value": "1"},
              "team_comparison": {"correctness": "A", "scope": "A"},
              "agent_rank": {"rank_order": "critic,coder=planner"}, "summary_rank": {"rank_order": "B,A,C"},
              "failure_topics": {"selected_labels": "Execution,Wrong tool"},
              "discussion_acts": {"discussion_acts": json.dumps(acts)},
              "memory_use": {"memory_use": json.dumps([{"turn": 3, "act": "ignored_context", "agent_id": "planner"}])},
              "review": {"review": json.dumps(review)}, "rollout_review": {"_data": json.dumps(roll)},
              "keep_item": {"decision": "accept"}}
    out = tmp_path / "potato_out" / "dana"
    out.mkdir(parents=True)
    (out / "annotated_instances.jsonl").write_text(json.dumps({"id": ONE, "user_id": "dana", "label_annotations": labels}) + "\n")
    result = importer.import_file(save.ws, out / "annotated_instances.jsonl")
    assert not result.problems, result.problems
    stored = {s: save.store.load(ONE, "dana", s).value for s in labels}
    assert stored["discussion_acts"] == acts and stored["review"] == review and stored["rollout_review"] == roll
    assert stored["keep_item"] == {"decision": "accept"} and stored["agent_rank"] == {"rank_order": "critic,coder=planner"}
    d = derive(save.ws.by_id[ONE].data, **scheme_keys(scheme(save.ws, "discussion_acts")))
    for name, value in stored.items():  # every imported value fits its scheme and the trace
        sch = scheme(save.ws, name)
        assert TYPES[sch.type].validate(value, sch, d if TYPES[sch.type].trace else None) == [], name


def test_import_refuses_a_value_that_does_not_fit_scheme_or_trace(study, tmp_path):
    """The importer checks every value with its type's validate: where it came from and why."""
    cfg, save = study
    rows = [{"item_id": ONE, "annotator": "erin", "scheme": "better_patch", "value": {"selection": "C"}},
            {"item_id": ONE, "annotator": "erin", "scheme": "discussion_acts",
             "value": [{"turn": 9, "act": "proposal"}]},
            {"item_id": ONE, "annotator": "erin", "scheme": "keep_item", "value": "accept"}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = importer.import_file(save.ws, path)
    assert result.imported == 1 and save.store.load(ONE, "erin", "keep_item").value == {"decision": "accept"}
    assert result.problems == [f"{path}: line 1: refused: better_patch: selection \"C\" is not one of A, B, tie",
                               f"{path}: line 2: refused: discussion_acts: entry 0: turn 9 is not in this conversation (4 turns)"]
