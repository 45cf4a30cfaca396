"""trajectory_eval values: per-step correctness, failure modes, severity, rationale, score.

Stored value (the `value` of the Parquet row)::

    {"steps": [{"step_index": int, "agent": str, "correctness": str | None,
                "errors": [{"type": str, "subtype": str | None}, ...],
                "severity": str | None, "rationale": str}, ...],
     "score": number}            # only when the scheme has show_score

- `steps` holds the steps the annotator touched (a correctness, a mode, a severity
  or a non-blank rationale), sorted by `step_index`, the trace's step index.
  `agent` is the step's acting agent, stored so a label can be checked against the
  step it was made for (see `reconcile`).
- Several failure modes may be tagged on one step. `type` is the error type (the MAST
  category), `subtype` one of its subtypes, or None for a type without subtypes.
- A step marked correct (the first of `correctness_options`, or any option named
  "correct") has no modes and no severity: marking it correct clears them.
- score = max_score + the sum of the weights of the touched steps' severities
  (Potato's weights are negative penalties), clamped to [0, max_score]; a step
  without severity adds nothing. An int when it is whole.
- No touched step is "not annotated" (the row is removed); "Reviewed, nothing to flag"
  stores `{"steps": []}` (plus `"score": max_score` with show_score) with the
  reviewed_clean status.

No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable
from app.project import validators as v
from app.types.base import AnnotationType, Key

SEP = " › "


@dataclass(frozen=True)
class Mode:
    type: str
    subtype: str | None

    @property
    def label(self) -> str:
        return self.type if self.subtype is None else f"{self.type}{SEP}{self.subtype}"

    def as_dict(self) -> dict:
        return {"type": self.type, "subtype": self.subtype}


def modes(error_types: list[dict]) -> list[Mode]:
    """Every taggable mode, grouped by error type in config order ("Category › subtype")."""
    out: list[Mode] = []
    for et in error_types:
        subs = et.get("subtypes") or []
        if subs:
            out.extend(Mode(et["name"], s) for s in subs)
        else:
            out.append(Mode(et["name"], None))
    return out


def is_correct(correctness: Any, options: list[str]) -> bool:
    """True for the first correctness option, or any option named "correct"."""
    if not isinstance(correctness, str):
        return False
    return (bool(options) and correctness == options[0]) or correctness.strip().lower() == "correct"


def _mode_of(e: Any) -> Mode | None:
    if isinstance(e, dict) and isinstance(e.get("type"), str):
        sub = e.get("subtype")
        return Mode(e["type"], None if sub in (None, "") else str(sub))
    return None


def entry(step_index: int, agent: str, correctness: str | None = None, errors: Iterable[Any] = (),
          severity: str | None = None, rationale: str = "", options: list[str] | None = None) -> dict:
    """One step's stored entry; a correct step keeps no modes and no severity.

    `errors` are Modes or `{"type", "subtype"}` dicts; repeats are dropped, order kept.
    """
    seen: list[Mode] = []
    for e in errors:
        m = e if isinstance(e, Mode) else _mode_of(e)
        if m is not None and m not in seen:
            seen.append(m)
    if is_correct(correctness, options or []):
        seen, severity = [], None
    return {"step_index": int(step_index), "agent": agent, "correctness": correctness or None,
            "errors": [m.as_dict() for m in seen], "severity": severity or None,
            "rationale": rationale or ""}


def touched(e: dict) -> bool:
    return bool(e.get("correctness") or e.get("errors") or e.get("severity")
                or (e.get("rationale") or "").strip())


def _clean(e: Any, options: list[str]) -> dict | None:
    if not isinstance(e, dict):
        return None
    idx = e.get("step_index")
    if isinstance(idx, bool) or not isinstance(idx, int):
        return None
    errors = e.get("errors")
    # Potato's own single-mode shape {"error_type", "error_subtype"} is read too.
    if not isinstance(errors, list):
        errors = [{"type": e["error_type"], "subtype": e.get("error_subtype")}] \
            if isinstance(e.get("error_type"), str) else []
    corr = e.get("correctness")
    sev = e.get("severity")
    return entry(idx, "" if e.get("agent") is None else str(e.get("agent")),
                 str(corr) if corr not in (None, "") else None, errors,
                 str(sev) if sev not in (None, "") else None,
                 "" if e.get("rationale") is None else str(e.get("rationale")), options)


def parse(value: Any, options: list[str] | None = None) -> list[dict]:
    """Stored steps as clean entries sorted by step_index (the last wins on a repeat)."""
    steps = value.get("steps") if isinstance(value, dict) else None
    by_index: dict[int, dict] = {}
    for e in steps if isinstance(steps, list) else []:
        c = _clean(e, options or [])
        if c is not None:
            by_index[c["step_index"]] = c
    return [by_index[i] for i in sorted(by_index)]


def score(steps: Iterable[dict], severities: list[dict], max_score: float) -> int | float:
    """max_score + sum of the severities' weights, clamped to [0, max_score]."""
    weight = {s["name"]: s.get("weight", 0) for s in severities}
    total = max_score + sum(weight.get(e.get("severity"), 0) for e in steps if e.get("severity"))
    total = min(max(total, 0), max_score)
    if isinstance(total, float):
        total = round(total, 6)
        if total.is_integer():
            total = int(total)
    return total


def build(steps: Iterable[dict], *, show_score: bool = False, severities: list[dict] | None = None,
          max_score: float = 100, options: list[str] | None = None) -> dict:
    """The stored value from step entries: touched ones, sorted, plus the score when shown."""
    kept = [e for e in parse({"steps": list(steps)}, options) if touched(e)]
    out: dict[str, Any] = {"steps": kept}
    if show_score:
        out["score"] = score(kept, severities or [], max_score)
    return out


def put(value: Any, new: dict, **kw) -> dict:
    """`value` with the entry of `new["step_index"]` replaced (dropped when untouched)."""
    opts = kw.get("options")
    rest = [e for e in parse(value, opts) if e["step_index"] != new["step_index"]]
    return build(rest + [new], **kw)


def drop(value: Any, step_index: int, **kw) -> dict:
    return build((e for e in parse(value, kw.get("options")) if e["step_index"] != step_index), **kw)


def is_empty(value: Any) -> bool:
    return not (value.get("steps") if isinstance(value, dict) else None)


def reconcile(value: Any, agents_by_step: dict[int, str],
              options: list[str] | None = None) -> tuple[dict[int, dict], list[dict]]:
    """({step index: entry} for steps the labels still describe, orphans).

    An entry whose step no longer exists, or is now taken by another agent (the trace
    was edited), is an orphan: listed apart and never shown on another step.
    """
    matched: dict[int, dict] = {}
    orphans: list[dict] = []
    for e in parse(value, options):
        if agents_by_step.get(e["step_index"]) == e["agent"]:
            matched[e["step_index"]] = e
        else:
            orphans.append(e)
    return matched, orphans


def summary(value: Any, n_steps: int, options: list[str]) -> str:
    """A text line: steps judged, steps with failure modes, modes tagged."""
    steps = parse(value, options)
    judged = sum(1 for e in steps if e["correctness"])
    flagged = [e for e in steps if e["errors"]]
    n_modes = sum(len(e["errors"]) for e in flagged)
    return (f"{judged} of {n_steps} steps judged · {len(flagged)} with failure modes "
            f"({n_modes} mode{'s' if n_modes != 1 else ''} tagged)")


TYPE = AnnotationType(
    name="trajectory_eval", title="Step review (MAST)", page="pages/trajectory_eval.py", trace=True,
    keys={"step_text_key": Key(v.nonempty_string, default="content"), "error_types": Key(v.error_types, required=True),
          "correctness_options": Key(v.string_list(1), default=["correct", "incorrect", "partially_correct"]),
          "severities": Key(v.severities, default=[{"name": "minor", "weight": -1}, {"name": "major", "weight": -5},
                                                   {"name": "critical", "weight": -10}]),
          "show_score": Key(v.boolean, default=False), "max_score": Key(v.number, default=100)})
