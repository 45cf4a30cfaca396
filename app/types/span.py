"""span: highlighted character ranges of a step's text, each with a label of the scheme.

Stored value: Potato's list of spans, each with the step it highlights::

    [{"step": int, "start": int, "end": int, "text": str, "label": str}, ...]

`end` is exclusive and `text` is the step's text[start:end] when it was highlighted. An empty
list with the reviewed_clean status is "reviewed, nothing to highlight". Keys: `labels`
(required), `bad_text_label` (Potato's "no answer" option: accepted, ignored),
`allow_discontinuous` and `entity_linking` (accepted, ignored: one range per span, no linking).

Summary: a row per span; the count of each label; agreement in app/types/spans.py.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.types import spans, steps
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import label_counts
from app.types.panel import SchemeRows

FIELDS = ("label",)


def names(scheme: Scheme) -> list[str]:
    return [lab["name"] for lab in scheme["labels"]]


def entry(step: int, start: int, end: int, text: str, label: str) -> dict:
    return {"step": int(step), "start": int(start), "end": int(end), "text": text, "label": label}


def parse(value: Any) -> list[dict]:
    return spans.parse(value, FIELDS)


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, list):
        return [f"expected a list of spans, got {v.show(value)}"]
    found = parse(value)
    out = [f"span {n}: expected {{step, start, end, text, label}}, got {v.show(e)}"
           for n, e in enumerate(value) if not isinstance(e, dict)]
    out += [f"span {n}: has no label" for n, e in enumerate(found) if e["label"] is None]
    return out + spans.unknown(found, "label", names(scheme), "label") + spans.problems(found, scheme, derivation)


def rows(value: Any, scheme: Scheme) -> list[dict]:
    return [{"step": e["step"], "start": e["start"], "end": e["end"], "label": e["label"],
             "chars": e["end"] - e["start"] if isinstance(e["end"], int) and isinstance(e["start"], int) else None}
            for e in parse(value)]


def rollup(scheme_rows: SchemeRows) -> dict:
    out = label_counts(scheme_rows, "label", names(scheme_rows.scheme))
    table = scheme_rows.table
    out["spans"] = int(len(table))
    out["steps_highlighted"] = int(len(table.drop_duplicates(["item_id", "step"]))) if len(table) else 0
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    return spans.agreement(scheme_rows, disagreements, list(FIELDS), "label")


def objects(value: Any, derivation) -> Any:
    """Each highlighted step (agent and text) as the trace is now."""
    return steps.objects([e["step"] for e in parse(value)], derivation)


TYPE = AnnotationType(
    name="span", title="Text spans", page="pages/span.py", trace=True,
    keys={**steps.STEP_KEYS, "labels": Key(v.labels, required=True), "bad_text_label": Key(v.anything),
          "allow_discontinuous": Key(v.boolean, default=False), "entity_linking": Key(v.anything)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement,
    coerce=lambda value, scheme: spans.coerce(value, FIELDS),
    looks_like=lambda value: isinstance(value, list), validate=validate, objects=objects,
    headline=lambda measures: measures.get("spans_jaccard"),
    scheme_problems=steps.binding_problems, honours=steps.HONOURS,
    ignored_keys=lambda o: steps.binding_ignored(o) + [
        (k, why) for k, why in (("bad_text_label", "a reviewed item with no span is \"Reviewed, nothing to flag\""),
                                ("allow_discontinuous", "a span is one range; mark each part as a span"),
                                ("entity_linking", "spans are not linked to knowledge bases"))
        if o.get(k) not in (None, False)])
