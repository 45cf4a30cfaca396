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

In the summary: a row per (step, failure mode) tagged, with the step's agent (as stored),
correctness and severity repeated; a step without modes is one row with no mode (`category`
and `mode` None). The rollup counts the tags per MAST category, mode and acting agent (the
agent acting at the tagged step in the trace now); agreement is whether each annotator tagged
each step of the trace (with any mode, a category, a mode), the Jaccard of the modes on the
steps anyone tagged, and the correctness given to the same step.

No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import pandas as pd

from app.project import validators as v
from app.stats.agreement import (Disagreements, jaccard, judgements, marked, marked_each, nominal, sets_of,
                                 show_set, with_default)
from app.stats.counting import count, distinct, in_order, sorted_keys
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme
from app.types.failure_attribution import cut
from app.types.panel import SchemeRows

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


# --- the summary ----------------------------------------------------------------------------------------

UNKNOWN = "(unknown)"  # the acting agent of a tag on a step the trace does not have, nothing stored


def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per (step, mode) tagged: step, agent (as stored), correctness, severity, category
    (the mode's error type) and mode (its label, "Category › subtype"); a step without modes
    gives one row, its category and mode None."""
    out = []
    for e in parse(value, scheme.get("correctness_options")):
        step = {"step": e["step_index"], "agent": e["agent"], "correctness": e["correctness"],
                "severity": e["severity"]}
        tagged = [Mode(m["type"], m.get("subtype") or None) for m in e["errors"]]
        out += [{**step, "category": m.type, "mode": m.label} for m in tagged] or [
            {**step, "category": None, "mode": None}]
    return out


def _tags(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of tagged modes (category given)."""
    if "category" not in table:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in ("item_id", "annotator", "step", "agent",
                                                                       "category", "mode")})
    return table[table["category"].notna()]


def _acting(scheme_rows: SchemeRows, tags: pd.DataFrame) -> list[str]:
    """The agent acting at each tag's step in the trace now; where the trace has no such step
    (or no such item), the agent stored with the tag, else UNKNOWN."""
    out = []
    for item, step, stored in zip(tags["item_id"].tolist(), tags["step"].tolist(), tags["agent"].tolist()):
        derivation = scheme_rows.derive(item) if isinstance(item, str) else None
        agents = derivation.step_agents if derivation is not None else ()
        inside = isinstance(step, int) and 0 <= step < len(agents)
        out.append(agents[step] if inside else (stored if isinstance(stored, str) and stored else UNKNOWN))
    return out


def rollup(scheme_rows: SchemeRows) -> dict:
    """Per MAST category: its tags, the distinct steps (item, step) and runs tagged with it;
    the tags per mode, and per agent acting at the tagged step."""
    tags = _tags(scheme_rows.table)
    tags = tags.assign(acting=pd.Series(_acting(scheme_rows, tags), index=tags.index, dtype=object))
    per_category = count(tags, ["category"])
    # (a missing item or step is a value of its own, as the summary before counted it)
    steps = count(tags.drop_duplicates(["category", "item_id", "step"]), ["category"])
    runs = distinct(tags, ["category"], "item_id")
    per_mode, per_agent = count(tags, ["category", "mode"]), count(tags, ["acting", "category"])
    return {"by_category": [{"category": c, "tags": per_category[c], "steps": steps.get(c, 0), "runs": runs.get(c, 0)}
                            for c in sorted_keys(per_category)],
            "by_mode": [{"category": c, "mode": m, "tags": per_mode[(c, m)]} for c, m in sorted_keys(per_mode)],
            "by_agent": [{"agent": a, "category": c, "tags": per_agent[(a, c)]} for a, c in sorted_keys(per_agent)]}


def _steps(scheme_rows: SchemeRows, item: str) -> list[dict]:
    """The item's steps as objects to tag, by position in the trace (none: no such item)."""
    derivation = scheme_rows.derive(item)
    return [] if derivation is None else [{"step": i, "agent": a} for i, a in enumerate(derivation.step_agents)]


def _positions(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """The rows of `frame` whose `column` may be a step's position (0 up, below 2**62): others
    name no step of any trace, and would not fit the trace objects' int64 keys."""
    number = pd.to_numeric(frame[column], errors="coerce")
    return frame[((number >= 0) & (number < 2 ** 62)).to_numpy(dtype=bool)]


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """Over every step of each item's trace: whether each annotator tagged it with any mode,
    with each category, with each mode (an annotator who judged the item and did not tag a
    step left it untagged; categories and modes tagged anywhere in the scheme's rows, sorted);
    the mean Jaccard of the modes on the steps anyone tagged; the correctness of the steps two
    or more annotators judged. A step tagged with different modes is a disagreement. Tags on a
    step the trace does not have are left out."""
    panel = scheme_rows.panel
    table = scheme_rows.table
    steps = panel.objects(lambda item: _steps(scheme_rows, item), lambda step: f"step {step['step']} ({step['agent']})")
    given = panel.members(table)
    if "category" not in given:
        given = given.assign(**{c: pd.Series([], dtype=object) for c in ("correctness", "category", "mode")},
                             step=pd.Series([], dtype="int64"))
    given = _positions(given, "step")
    tagged = steps.attach(given.loc[given["category"].notna(), ["item", "rater", "step", "mode", "category"]],
                          on=["step"])
    every_step = steps.every_rater()
    seen = _tags(table)
    # (the categories and modes tagged anywhere in the scheme's rows, on items two annotators judged or not)
    categories = marked_each(tagged, every_step, "category", in_order([], seen["category"].dropna().unique()))
    modes = marked_each(tagged, every_step, "mode", in_order([], seen["mode"].dropna().unique()))
    mode_sets = sets_of(tagged["unit"], tagged["rater"], tagged["mode"])
    raters_of_tagged = every_step[every_step["unit"].isin(mode_sets["unit"])]
    on_tagged = with_default(mode_sets, raters_of_tagged, frozenset())
    judged_correctness = given["correctness"].map(lambda c: isinstance(c, str) and c != "").astype(bool)
    judged = steps.attach(given.loc[judged_correctness, ["item", "rater", "step", "correctness"]], on=["step"])
    shown = mode_sets.assign(value=[tuple(sorted(x)) for x in mode_sets["value"]])
    disagreements.add(with_default(shown, raters_of_tagged, ()), steps.describe, "MAST modes", show_set)
    return {"any_mode": marked(tagged, every_step), "modes_jaccard_on_tagged_steps": jaccard(on_tagged),
            "categories": categories, "modes": modes,
            "correctness": nominal(judgements(judged["unit"], judged["rater"], judged["correctness"]))}


# --- import and export -----------------------------------------------------------------------------------

def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and "steps" in value


def objects(value: Any, derivation) -> Any:
    """Each reviewed step (agent and text) as the trace is now (None: no such step)."""
    if derivation is None or not isinstance(value, dict):
        return None
    steps = {s.index: s for s in derivation.steps}
    entries = value.get("steps") if isinstance(value.get("steps"), list) else []
    reviewed = sorted({e["step_index"] for e in entries
                       if isinstance(e, dict) and isinstance(e.get("step_index"), int)})
    return {"steps": {str(i): (None if (s := steps.get(i)) is None else {"agent": s.agent, "text": cut(s.text, 200)})
                      for i in reviewed}}


STEP_KEYS = ["step_index", "agent", "correctness", "errors", "severity", "rationale", "error_type", "error_subtype"]


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """Each entry names a step of the run, once; correctness, MAST
    modes and severity among the scheme's; the score a number."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    out = c.keys(value, ["steps", "score"])
    score = value.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float)) or score != score):
        out.append(f"score: expected a number, got {c.show(score)}")
    entries = value.get("steps", [])
    if not isinstance(entries, list):
        return out + [c.shape(entries, list, "steps")]
    known = {(m.type, m.subtype) for m in modes(scheme.get("error_types") or [])}
    correctness = list(scheme.get("correctness_options") or [])
    severities = [s["name"] for s in scheme.get("severities") or []]
    seen: set = set()
    for n, e in enumerate(entries):
        what = f"entry {n}"
        if not isinstance(e, dict):
            out.append(c.shape(e, dict, what))
            continue
        out += c.keys(e, STEP_KEYS, what)
        i = e.get("step_index")
        found = c.step(i, derivation, f"{what}: step")
        if found:
            out.append(found)
        elif i in seen:
            out.append(f"{what}: step {i} is reviewed twice")
        else:
            seen.add(i)  # (the agent stored with a step is not checked: the trace's acting agent counts)
        if e.get("correctness") not in (None, ""):
            out += c.gather(c.one_of(e["correctness"], correctness, f"{what}: correctness"))
        if e.get("severity") not in (None, ""):
            out += c.gather(c.one_of(e["severity"], severities, f"{what}: severity"))
        out += c.gather(c.text(e.get("rationale"), f"{what}: rationale"))
        errors = e.get("errors", [])
        if not isinstance(errors, list):
            out.append(c.shape(errors, list, f"{what}: errors"))
            continue
        for m in errors:
            mode = _mode_of(m)
            if mode is None or (mode.type, mode.subtype) not in known:
                out.append(f"{what}: {c.show(m)} is not a MAST mode of this scheme")
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    """Per step: its agent, correctness, severity, rationale, and each mode tagged."""
    found: dict = {}
    for e in parse(value, scheme.get("correctness_options")):
        if not touched(e):
            continue
        i = e["step_index"]
        found[("step", i, "agent")] = e["agent"]
        for name in ("correctness", "severity"):
            if e[name]:
                found[("step", i, name)] = e[name]
        if e["rationale"].strip():
            found[("step", i, "rationale")] = e["rationale"]
        found.update({("step", i, "mode", m["type"], m.get("subtype")): True for m in e["errors"]})
    return found


def join(fields: dict, scheme: Scheme) -> dict:
    options = scheme.get("correctness_options")
    steps = []
    for field, agent in fields.items():
        if field[2] != "agent":
            continue
        i = field[1]
        errors = [{"type": f[3], "subtype": f[4]} for f in fields if f[:3] == ("step", i, "mode")]
        steps.append(entry(i, agent, fields.get(("step", i, "correctness")), errors, fields.get(("step", i, "severity")),
                           fields.get(("step", i, "rationale")) or "", options))
    return build(steps, show_score=bool(scheme.get("show_score")), severities=scheme.get("severities"),
                 max_score=scheme.get("max_score") or 100, options=options)


TYPE = AnnotationType(
    name="trajectory_eval", title="Step review (MAST)", page="pages/trajectory_eval.py", trace=True,
    keys={"step_text_key": Key(v.nonempty_string, default="content"), "error_types": Key(v.error_types, required=True),
          "correctness_options": Key(v.string_list(1), default=["correct", "incorrect", "partially_correct"]),
          "severities": Key(v.severities, default=[{"name": "minor", "weight": -1}, {"name": "major", "weight": -5},
                                                   {"name": "critical", "weight": -10}]),
          "show_score": Key(v.boolean, default=False), "max_score": Key(v.number, default=100)},
    section="mast", rows=rows, rollup=rollup, agreement=agreement, looks_like=looks_like, validate=validate, parts=parts, join=join,
    objects=objects)
