"""trajectory_edit: the corrected version of a trace's steps (and of its final answer), for
SFT / DPO data.

Stored value (Potato documents what its exporter writes from it, the per-field `edits` with
their reasons; this is that record)::

    {"edits": [{"step_index": int, "field": str, "original": str, "corrected": str,
                "reason": str}, ...],
     "final_answer": {"original": str, "corrected": str, "reason": str}}   # with edit_final_answer

Only fields whose corrected text differs from the original are kept, sorted by step and field;
`original` is the text of the field when it was edited, so an edit of a trace that has since
changed is found (`validate`). `{"edits": []}` with the reviewed_clean status is "nothing to
correct". Keys: `editable_fields` (default `[step_text_key]`), `step_text_key` ("action"),
`require_reason_on_edit`, `edit_final_answer`, `final_answer_key` ("final_answer"), trace keys.

Summary: a row per edit with the characters changed; counts per field; agreement on whether
each annotator edited each asked step (nominal).

No Streamlit here.
"""
from __future__ import annotations

import difflib
from typing import Any

import pandas as pd

from app.project import validators as v
from app.stats.agreement import marked
from app.traces.trace import Step, content_text
from app.types import numeric, steps
from app.types.base import AnnotationType, Key, Scheme, as_int
from app.types.choices import label_counts
from app.types.panel import SchemeRows

FINAL = "final_answer"


def fields(scheme: Scheme | dict) -> list[str]:
    return list(scheme.get("editable_fields") or [scheme.get("step_text_key") or "action"])


def original(step: Step, field: str, scheme: Scheme | dict) -> str:
    """The text of a step's field: the field itself, else (a step without it, or a bare string
    step) the step's text as the trace shows it, for the first editable field."""
    if isinstance(step.raw, dict) and field in step.raw:
        return content_text(step.raw[field])
    return step.text if field == fields(scheme)[0] else ""


def final_original(data: dict, scheme: Scheme | dict) -> str:
    x = data.get(scheme.get("final_answer_key") or FINAL) if isinstance(data, dict) else None
    return "" if x is None else content_text(x)


def changed(a: str, b: str) -> int:
    """Characters deleted plus inserted to turn `a` into `b` (by difflib's matching blocks)."""
    if a == b:
        return 0
    same = sum(block.size for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return (len(a) - same) + (len(b) - same)


def parse(value: Any) -> list[dict]:
    entries = value.get("edits") if isinstance(value, dict) else None
    out = {}
    for e in entries if isinstance(entries, list) else []:
        if isinstance(e, dict) and as_int(e.get("step_index")) is not None:
            key = (as_int(e["step_index"]), str(e.get("field") or ""))
            out[key] = {"step_index": key[0], "field": key[1], "original": str(e.get("original") or ""),
                        "corrected": "" if e.get("corrected") is None else str(e["corrected"]),
                        "reason": str(e.get("reason") or "")}
    return [out[k] for k in sorted(out)]


def build(edits: list[dict], final: dict | None = None) -> dict:
    """The stored value: the edits that change something, sorted; the final answer's if changed."""
    out: dict[str, Any] = {"edits": [e for e in parse({"edits": edits}) if e["corrected"] != e["original"]]}
    if final and final.get("corrected") is not None and final.get("corrected") != final.get("original"):
        out[FINAL] = {"original": final.get("original") or "", "corrected": final["corrected"],
                      "reason": final.get("reason") or ""}
    return out


def put(value: Any, edit: dict) -> dict:
    rest = [e for e in parse(value) if (e["step_index"], e["field"]) != (edit["step_index"], edit["field"])]
    return build(rest + [edit], value.get(FINAL) if isinstance(value, dict) else None)


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or not isinstance(value.get("edits"), list):
        return [f"expected {{\"edits\": [...]}}, got {v.show(value)}"]
    out = [f"edits[{n}]: expected {{step_index, field, original, corrected, reason}}, got {v.show(e)}"
           for n, e in enumerate(value["edits"]) if not isinstance(e, dict) or as_int(e.get("step_index")) is None]
    allowed = fields(scheme)
    for e in parse(value):
        where = f"step {e['step_index']} {e['field']}"
        why, step = steps.step_problem(e["step_index"], scheme, derivation, f"step {e['step_index']}:")
        if why:
            out.append(why)
        if e["field"] not in allowed:
            out.append(f"{where}: not an editable field ({', '.join(allowed)})")
        elif step is not None and original(step, e["field"], scheme) != e["original"]:
            out.append(f"{where}: the original text is no longer the trace's (the trace changed?)")
        if e["corrected"] == e["original"]:
            out.append(f"{where}: the correction changes nothing")
        if scheme.get("require_reason_on_edit") and not e["reason"].strip():
            out.append(f"{where}: the scheme asks for a reason for each edit")
    final = value.get(FINAL)
    if final is not None and not scheme.get("edit_final_answer"):
        out.append("the scheme does not edit the final answer (edit_final_answer)")
    elif final is not None and not (isinstance(final, dict) and isinstance(final.get("corrected"), str)):
        out.append(f"final_answer: expected {{original, corrected, reason}}, got {v.show(final)}")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    out = [{"step": e["step_index"], "field": e["field"], "chars_changed": changed(e["original"], e["corrected"])}
           for e in parse(value)]
    final = value.get(FINAL) if isinstance(value, dict) else None
    if isinstance(final, dict) and isinstance(final.get("corrected"), str):
        out.append({"step": None, "field": FINAL,
                    "chars_changed": changed(str(final.get("original") or ""), final["corrected"])})
    return out


def rollup(scheme_rows: SchemeRows) -> dict:
    out = label_counts(scheme_rows, "field", fields(scheme_rows.scheme) + [FINAL])
    t = scheme_rows.table
    out["edits"] = int(len(t))
    out["judgements_with_edits"] = int(len(t.drop_duplicates(["item_id", "annotator"]))) if len(t) else 0
    out["chars_changed"] = numeric.stats(t["chars_changed"].tolist() if "chars_changed" in t else [])
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    """Whether each annotator edited each step the scheme asks about (any field)."""
    panel = scheme_rows.panel

    def of_item(item: str) -> list[dict]:
        return [{"step": s.index, "agent": s.agent} for s in steps.asked(scheme_rows.scheme, scheme_rows.derive(item))]

    objs = panel.objects(of_item, lambda s: f"step {s['step']} ({s['agent']})")
    given = panel.members(scheme_rows.table)
    if "step" not in given:
        given = given.assign(step=pd.Series([], dtype="int64"))
    given = steps.positions(given)
    edited = objs.attach(given[["item", "rater", "step"]], on=["step"])
    return {"steps_edited": marked(edited, objs.every_rater())}


def objects(value: Any, derivation) -> Any:
    """Each edited step (agent and text) as the trace is now."""
    return steps.objects([e["step_index"] for e in parse(value)], derivation)


TYPE = AnnotationType(
    name="trajectory_edit", title="Trajectory correction", page="pages/trajectory_edit.py", trace=True,
    keys={"step_text_key": Key(v.nonempty_string, default="action"), "editable_fields": Key(v.string_list(1)),
          "require_reason_on_edit": Key(v.boolean, default=False), "edit_final_answer": Key(v.boolean, default=False),
          "final_answer_key": Key(v.nonempty_string, default=FINAL)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement,
    looks_like=lambda value: isinstance(value, dict) and "edits" in value, validate=validate, objects=objects,
    headline=lambda measures: measures.get("steps_edited"),
    scheme_problems=steps.binding_problems, honours=steps.HONOURS, ignored_keys=steps.binding_ignored)
