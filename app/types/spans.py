"""What span and error_span share: highlighted character ranges of a step's text.

A span is Potato's `{"start", "end", "text", ...}` (character offsets, `end` exclusive, `text`
the highlighted characters) plus `step`, the index of the step whose text it highlights
(Baton's addition: Potato's documented span has no step; an imported span without one is
refused by `validate`, since its offsets say nothing in a multi-step trace). Each type adds
its own fields (span: `label`; error_span: `type`, `subtype`, `severity`).

In agreement, an item's spans are a set of (step, start, end, fields): two annotators agree
on a span when they highlight the same characters of the same step with the same label.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any, Iterable

import pandas as pd

from app.project import validators as v
from app.stats.agreement import jaccard, marked, marked_each, sets_of, show_set, with_default
from app.stats.counting import in_order
from app.types.base import Scheme, as_int, hidden_input
from app.types.panel import SchemeRows
from app.types import steps as stepmod

# other names imports use for a span's fields (Potato's older span export, other tools)
ALIASES = {"step": ("step_index", "turn", "turn_index", "turn_id"), "text": ("span",), "label": ("annotation",)}


def clean(e: Any, fields: Iterable[str]) -> dict | None:
    """One span in its stored form (offsets as ints, the type's fields as text), or None when
    it is no span at all (not a mapping)."""
    if not isinstance(e, dict):
        return None
    get = lambda k: next((e[a] for a in (k, *ALIASES.get(k, ())) if a in e), None)  # noqa: E731
    step = get("step")
    if isinstance(step, str) and step.startswith("t") and step[1:].isdigit():  # Potato's turn id "t3"
        step = step[1:]
    out = {"step": as_int(step) if as_int(step) is not None else step,
           "start": as_int(get("start")) if as_int(get("start")) is not None else get("start"),
           "end": as_int(get("end")) if as_int(get("end")) is not None else get("end"),
           "text": "" if get("text") is None else str(get("text"))}
    for f in fields:
        x = get(f)
        out[f] = None if x in (None, "") else str(x)
    return out


def parse(value: Any, fields: Iterable[str], key: str | None = None) -> list[dict]:
    """The spans of a stored or imported value: a list of spans, or a mapping holding them
    under `key` (or "spans")."""
    fields = tuple(fields)
    if isinstance(value, dict):
        value = value.get(key) if key and key in value else value.get("spans")
    out = [clean(e, fields) for e in value] if isinstance(value, list) else []
    return [e for e in out if e is not None]


def coerce(value: Any, fields: Iterable[str]) -> Any:
    """The stored list of an imported value: a list of spans, Potato's hidden-input wrapper
    `{name: "<JSON list>"}`, or `{"spans": [...]}`; anything else is left as it is (and the
    import refuses it, naming it)."""
    value = hidden_input(value, lambda x: isinstance(x, list))
    if isinstance(value, dict) and isinstance(value.get("spans"), list):
        value = value["spans"]
    if isinstance(value, list) and all(isinstance(e, dict) for e in value):
        return parse(value, fields)
    return value


def problems(spans: list[dict], scheme: Scheme, derivation) -> list[str]:
    """Steps, offsets and text of each span against the trace."""
    out = []
    for n, e in enumerate(spans):
        where = f"span {n}"
        if e["step"] is None:
            out.append(f"{where}: names no step (a span highlights the text of one step)")
            continue
        why, step = stepmod.step_problem(e["step"], scheme, derivation, f"{where}: step")
        if why:
            out.append(why)
            continue
        start, end = e["start"], e["end"]
        if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start < end:
            out.append(f"{where}: expected offsets 0 <= start < end, got start {v.show(start)}, end {v.show(end)}")
            continue
        if step is None:
            continue
        text = stepmod.text_of(step, scheme)
        if end > len(text):
            out.append(f"{where}: ends at {end}, past the end of step {e['step']}'s text ({len(text)} characters)")
        elif e["text"] and text[start:end] != e["text"]:
            out.append(f"{where}: says it highlights {v.show(e['text'])}, step {e['step']} has "
                       f"{v.show(text[start:end])} there (the trace changed?)")
    return out


def unknown(spans: list[dict], field: str, allowed: Iterable[str], what: str) -> list[str]:
    allowed = list(allowed)
    return [f"span {n}: {what} {v.show(e[field])} is not one of the scheme's ({', '.join(allowed)})"
            for n, e in enumerate(spans) if e.get(field) is not None and e[field] not in allowed]


def add(spans: list[dict], new: dict) -> list[dict]:
    """The spans with `new` added (an identical span is not added twice), in step and offset order."""
    kept = [e for e in spans if e != new] + [new]
    return sorted(kept, key=lambda e: (e["step"], e["start"], e["end"]))


def remove(spans: list[dict], n: int) -> list[dict]:
    return [e for i, e in enumerate(spans) if i != n]


def find(text: str, needle: str, occurrence: int = 1) -> int | None:
    """The offset of the `occurrence`-th (1 up) appearance of `needle` in `text` (None: not there)."""
    at = -1
    for _ in range(max(occurrence, 1)):
        at = text.find(needle, at + 1)
        if at < 0:
            return None
    return at


def agreement(rows: SchemeRows, disagreements, fields: list[str], label: str) -> dict:
    """Exact spans: the Jaccard of each item's sets of (step, start, end, fields); whether each
    annotator highlighted anything on each asked step of the trace, and with each `label`."""
    panel = rows.panel
    given = panel.members(rows.table)
    if "start" not in given:
        given = given.assign(**{c: pd.Series([], dtype=object) for c in ["step", "start", "end", *fields]})
    given = given[given["start"].notna()]  # (an error_span judgement without errors holds a score row only)
    keys = [tuple(x) for x in given[["step", "start", "end", *fields]].itertuples(index=False)]
    sets = sets_of(given["item"], given["rater"], keys)
    every = panel.per_item()
    shown = sets.assign(value=[tuple(f"step {k[0]} [{k[1]}:{k[2]}] " + "/".join(str(x) for x in k[3:] if x)
                                     for k in sorted(s)) for s in sets["value"]])
    disagreements.add(with_default(shown, every, ()), lambda unit: (panel.items[unit], "spans"), "spans", show_set)

    def of_item(item: str) -> list[dict]:
        return [{"step": s.index, "agent": s.agent} for s in stepmod.asked(rows.scheme, rows.derive(item))]

    steps = panel.objects(of_item, lambda s: f"step {s['step']} ({s['agent']})")
    on_steps = stepmod.positions(given)
    marks = steps.attach(on_steps[["item", "rater", "step", label]], on=["step"])
    seen = rows.table[label].dropna().unique() if label in rows.table else []
    return {"spans_jaccard": jaccard(with_default(sets, every, frozenset())),
            "steps_marked": marked(marks, steps.every_rater()),
            "by_" + label: marked_each(marks, steps.every_rater(), label, in_order(None, seen))}
