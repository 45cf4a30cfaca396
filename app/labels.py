"""Stored annotations as long tables, one per kind of judgement, for rollups and agreement.

Each stored value is parsed once (JSON text → the type's clean form through the type's own
pure module) and spread into rows with plain columns: one row per attribution, per handoff
entry, per score, per contention label, per marked turn, per tool verdict, per step tag, per
chosen label. Every table starts with ``item_id, annotator, scheme``.

Which rows count: status ``annotated`` and ``reviewed_clean`` (reviewed, nothing to flag: the
annotator did judge the item, so their empty judgement is part of agreement); ``cleared`` rows
and the per-item done mark (scheme ``_item``) are not judgements (they still count for time
spent and progress).

No Streamlit here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

import pandas as pd

from . import behavior, graph, handoff, scorecard, stepreview, toolreview, values
from .storage import SCHEMA, STATUS_CLEARED
from .values import as_int as _int

DONE = "_item"
KEY = ["item_id", "annotator", "scheme"]


def frame(table) -> pd.DataFrame:
    """The store's table (pyarrow, :data:`app.storage.SCHEMA`) as a pandas DataFrame."""
    if table is None or table.num_rows == 0:
        table = SCHEMA.empty_table()
    df = table.to_pandas()
    for col in ("item_id", "annotator", "scheme", "annotation_type", "value", "status", "trace_hash"):
        df[col] = df[col].astype(object)
    return df


def _df(rows: list[tuple], cols: list[str]) -> pd.DataFrame:
    if rows:  # object columns: iterating Arrow-backed strings in Python is several times slower
        return pd.DataFrame(rows, columns=cols, dtype=object)
    return pd.DataFrame({c: pd.Series([], dtype=object) for c in cols})


@dataclass
class Labels:
    rows: pd.DataFrame  # judgements: item_id, annotator, scheme, type, status, seconds_spent
    done: pd.DataFrame  # item_id, annotator: items marked done
    time: pd.DataFrame  # every stored row: item_id, annotator, scheme, seconds_spent
    attribution: pd.DataFrame = field(default=None)  # + agent, step, reason, status
    graph_nodes: pd.DataFrame = field(default=None)  # + agent
    graph_edges: pd.DataFrame = field(default=None)  # + src, dst, state
    handoffs: pd.DataFrame = field(default=None)  # + index, step, src, dst, flags (tuple), quality
    scores: pd.DataFrame = field(default=None)  # + level (agent|team), agent, dimension, score
    milestones: pd.DataFrame = field(default=None)  # + milestone, reached
    contention: pd.DataFrame = field(default=None)  # + region, label
    behaviours: pd.DataFrame = field(default=None)  # + behavior, turn
    tool_verdicts: pd.DataFrame = field(default=None)  # + index, step, tool, verdict
    step_tags: pd.DataFrame = field(default=None)  # + step, agent, correctness, severity
    step_modes: pd.DataFrame = field(default=None)  # + step, agent, category, mode
    choices: pd.DataFrame = field(default=None)  # + label (radio, multiselect)
    likert: pd.DataFrame = field(default=None)  # + score

    def tables(self) -> dict[str, pd.DataFrame]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _scheme_opts(schemes: dict, name: str) -> dict:
    s = schemes.get(name)
    return s.options if s is not None else {}


def build(df: pd.DataFrame, schemes: dict | None = None) -> Labels:
    """Spread `df` (see :func:`frame`) into long tables; `schemes` maps name -> config Scheme."""
    schemes = schemes or {}
    time = df[["item_id", "annotator", "scheme", "seconds_spent"]].copy()
    marks = df[df["scheme"] == DONE]
    done_ids = []
    for item_id, who, text, status in zip(marks["item_id"], marks["annotator"], marks["value"], marks["status"]):
        v = _loads(text)
        if status != STATUS_CLEARED and isinstance(v, dict) and v.get("done"):
            done_ids.append((item_id, who))
    done = _df(done_ids, ["item_id", "annotator"])
    judged = df[(df["scheme"] != DONE) & (df["status"] != STATUS_CLEARED)]
    rows = judged[["item_id", "annotator", "scheme", "annotation_type", "status", "seconds_spent"]] \
        .rename(columns={"annotation_type": "type"}).reset_index(drop=True)
    out: dict[str, list] = {n: [] for n in ("attribution", "graph_nodes", "graph_edges", "handoffs", "scores",
                                           "milestones", "contention", "behaviours", "tool_verdicts",
                                           "step_tags", "step_modes", "choices", "likert")}
    for scheme_name, part in judged.groupby("scheme", sort=False):
        opts = _scheme_opts(schemes, scheme_name)
        cfg_type = schemes[scheme_name].type if scheme_name in schemes else None
        for item_id, who, t, text, status in zip(part["item_id"], part["annotator"], part["annotation_type"],
                                                 part["value"], part["status"]):
            _spread(cfg_type or t, opts, (item_id, who, scheme_name), _loads(text), status, out)
    cols = {
        "attribution": ["agent", "step", "reason", "status"],
        "graph_nodes": ["agent"],
        "graph_edges": ["src", "dst", "state"],
        "handoffs": ["index", "step", "src", "dst", "flags", "quality"],
        "scores": ["level", "agent", "dimension", "score"],
        "milestones": ["milestone", "reached"],
        "contention": ["region", "label"],
        "behaviours": ["behavior", "turn"],
        "tool_verdicts": ["index", "step", "tool", "verdict"],
        "step_tags": ["step", "agent", "correctness", "severity"],
        "step_modes": ["step", "agent", "category", "mode"],
        "choices": ["label"],
        "likert": ["score"],
    }
    tables = {name: _df(out[name], KEY + c) for name, c in cols.items()}
    for name, col in (("handoffs", "quality"), ("scores", "score"), ("likert", "score")):
        tables[name][col] = pd.to_numeric(tables[name][col], errors="coerce").astype("float64")
    return Labels(rows=rows, done=done, time=time, **tables)


def _loads(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _spread(t: str, opts: dict, key: tuple, v: Any, status: str, out: dict[str, list]) -> None:
    if t == "failure_attribution":
        v = v if isinstance(v, dict) else {}
        agent = v.get("responsible_agent")
        agent = str(agent) if agent not in (None, "") else None
        out["attribution"].append((*key, agent, _int(v.get("decisive_step")), str(v.get("reason") or ""), status))
    elif t == "agent_interaction_graph":
        g = graph.normalize(v)
        out["graph_nodes"].extend((*key, a) for a in g["critical_nodes"])
        for k, state in g["edges"].items():
            a, b = graph.parse_edge_key(k)
            out["graph_edges"].append((*key, a, b, state))
    elif t == "handoff_review":
        for e in handoff.parse(v):
            out["handoffs"].append((*key, e["index"], e["step"], e["from"], e["to"], tuple(e["flags"]),
                                    e["quality"]))
    elif t == "agent_scorecard":
        sc = scorecard.parse(v, int(opts.get("scale") or 10))
        for agent, dims in sc["agents"].items():
            out["scores"].extend((*key, "agent", agent, d, s) for d, s in dims.items())
        out["scores"].extend((*key, "team", "(team)", d, s) for d, s in sc["team"].items())
        out["milestones"].extend((*key, m, bool(r)) for m, r in sc["milestones"].items())
    elif t == "tool_contention":
        raw = v.get("contentions") if isinstance(v, dict) else None
        for k, lab in (raw.items() if isinstance(raw, dict) else ()):
            i = _int(k)
            if i is not None and isinstance(lab, str) and lab and lab != "unlabelled":
                out["contention"].append((*key, i, lab))
    elif t == "emergent_behavior":
        for name, e in behavior.parse(v).items():
            out["behaviours"].extend((*key, name, turn) for turn in e["turns"])
    elif t == "tool_call_review":
        for e in toolreview.parse(v):
            if e["verdict"]:
                out["tool_verdicts"].append((*key, e["index"], e["step"], e["tool"], e["verdict"]))
    elif t == "trajectory_eval":
        for e in stepreview.parse(v, opts.get("correctness_options")):
            out["step_tags"].append((*key, e["step_index"], e["agent"], e["correctness"], e["severity"]))
            for m in e["errors"]:
                label = m["type"] if not m.get("subtype") else f"{m['type']}{stepreview.SEP}{m['subtype']}"
                out["step_modes"].append((*key, e["step_index"], e["agent"], m["type"], label))
    elif t == "radio":
        choice = values.radio_choice(v if isinstance(v, dict) else None)
        if choice is not None:
            out["choices"].append((*key, choice))
    elif t == "multiselect":
        out["choices"].extend((*key, lab) for lab in values.multiselect_choices(v if isinstance(v, dict) else None))
    elif t == "likert":
        n = values.likert_choice(v if isinstance(v, dict) else None)
        if n is not None:
            out["likert"].append((*key, n))
