"""error_span: MQM-style error spans of a step's text, each with an error type, subtype and
severity, and a quality score.

Stored value: Potato's documented shape, each error with the step it highlights::

    {"errors": [{"step": int, "start": int, "end": int, "text": str, "type": str,
                 "subtype": str | None, "severity": str}, ...],
     "score": number}        # max_score + the errors' severity weights, within [0, max_score]

`score` is kept with show_score (Potato's default) and recomputed by `build`; an imported
score that disagrees with the errors is refused by `validate`. `{"errors": []}` with the
reviewed_clean status is "reviewed, no error".

Summary: a row per error (with the judgement's score), a judgement without errors one row of
its score; counts per error type and severity, the mean score; agreement on the exact error
spans (type and subtype with them) and, as interval alpha, on the score.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from app.project import validators as v
from app.stats.counting import count, sorted_keys
from app.types import numeric, spans, steps
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import label_counts
from app.types.panel import SchemeRows
from app.types.trajectory_eval import modes, score

FIELDS = ("type", "subtype", "severity")
DEFAULT_SEVERITIES = [{"name": "Minor", "weight": -1}, {"name": "Major", "weight": -5},
                      {"name": "Critical", "weight": -10}]


def errors(value: Any) -> list[dict]:
    return spans.parse(value, FIELDS, "errors")


def build(found: list[dict], scheme: Scheme) -> dict:
    """The stored value of these errors (sorted), with the score when the scheme shows it."""
    kept = sorted(found, key=lambda e: (e["step"], e["start"], e["end"]))
    out: dict[str, Any] = {"errors": kept}
    if scheme.get("show_score", True):
        out["score"] = score(kept, scheme.get("severities") or DEFAULT_SEVERITIES, scheme.get("max_score", 100))
    return out


def coerce(value: Any, scheme: Scheme) -> Any:
    value = spans.coerce(value, FIELDS) if not isinstance(value, dict) or "errors" not in value else value
    if isinstance(value, list):  # (a bare list of errors)
        value = {"errors": value}
    if isinstance(value, dict) and isinstance(value.get("errors"), list):
        out = {"errors": errors(value)}
        if "score" in value:
            out["score"] = value["score"]
        return out
    return value


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or not isinstance(value.get("errors"), list):
        return [f"expected {{\"errors\": [...], \"score\": n}}, got {v.show(value)}"]
    found = errors(value)
    kinds = {m.type: m for m in modes(scheme["error_types"])}
    subs = {et["name"]: et.get("subtypes") or [] for et in scheme["error_types"]}
    severities = [s["name"] for s in scheme.get("severities") or DEFAULT_SEVERITIES]
    out = [f"span {n}: has no error type" for n, e in enumerate(found) if e["type"] is None]
    out += spans.unknown(found, "type", kinds, "error type")
    out += [f"span {n}: subtype {v.show(e['subtype'])} is not one of {e['type']}'s ({', '.join(subs[e['type']]) or 'none'})"
            for n, e in enumerate(found) if e["subtype"] is not None and e["type"] in subs
            and e["subtype"] not in subs[e["type"]]]
    out += spans.unknown(found, "severity", severities, "severity")
    out += spans.problems(found, scheme, derivation)
    if "score" in value and not out:
        want = build(found, {**scheme.options, "show_score": True})["score"]
        got = numeric.number_of(value["score"])
        if got is None or abs(got - want) > 1e-6:
            out.append(f"score {v.show(value['score'])} does not follow from the errors ({want})")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    found = errors(value)
    s = numeric.number_of(value.get("score")) if isinstance(value, dict) else None
    return [{"step": e["step"], "start": e["start"], "end": e["end"], "type": e["type"], "subtype": e["subtype"],
             "severity": e["severity"], "score": s} for e in found] or [
        {"step": None, "start": None, "end": None, "type": None, "subtype": None, "severity": None, "score": s}]


def _scores(scheme_rows: SchemeRows) -> pd.DataFrame:
    """One row (item_id, annotator, score) per judgement with a score."""
    t = scheme_rows.table
    if "score" not in t:
        return t.iloc[:0].assign(score=pd.Series([], dtype=float))
    return t.drop_duplicates(["item_id", "annotator"])[lambda x: x["score"].notna()]


def rollup(scheme_rows: SchemeRows) -> dict:
    t = scheme_rows.table
    out = label_counts(scheme_rows, "type", [et["name"] for et in scheme_rows.scheme["error_types"]])
    tagged = t[t["type"].notna()] if "type" in t else t
    by_sev = count(tagged, ["severity"]) if len(tagged) else {}
    out["errors"] = int(len(tagged))
    out["by_severity"] = [{"severity": s, "count": by_sev[s]} for s in sorted_keys(by_sev)]
    out["score"] = numeric.stats(_scores(scheme_rows)["score"].tolist())
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    out = spans.agreement(scheme_rows, disagreements, ["type", "subtype"], "type")
    out["score"] = numeric.item_agreement(scheme_rows, _scores(scheme_rows), "score", disagreements, "score",
                                          level="interval", gap=5)
    return out


TYPE = AnnotationType(
    name="error_span", title="Error spans (MQM)", page="pages/error_span.py", trace=True,
    keys={**steps.STEP_KEYS, "error_types": Key(v.error_types, required=True),
          "severities": Key(v.severities, default=DEFAULT_SEVERITIES),
          "show_score": Key(v.boolean, default=True), "max_score": Key(v.number, default=100)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce,
    looks_like=lambda value: isinstance(value, dict) and "errors" in value, validate=validate,
    objects=lambda value, derivation: steps.objects([e["step"] for e in errors(value)], derivation),
    headline=lambda measures: measures.get("spans_jaccard"),
    scheme_problems=steps.binding_problems, honours=steps.HONOURS, ignored_keys=steps.binding_ignored)
