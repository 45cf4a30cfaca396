"""Emergent behaviour marking, without Streamlit: which turns show which team behaviour.

A turn is a step of the trace (every step, across all agents), numbered by its index in
the trace, as the trace view numbers it. Stored value:
`{behavior: {"turns": [idx, ...], "note": "..."}}` with turns sorted and unique, keeping
only the behaviours that have turns or a non-blank note.

In the summary: a row per marked turn (behavior, turn). The rollup counts, per behaviour, the
runs showing it, its marks and who marked it (each run's own record listed apart, `per_run`);
agreement is, per behaviour, whether each annotator marked each step of the trace (an
annotator who judged the item and did not mark a step left it unmarked) and the Jaccard of the
turns each marked; a step where annotators marked different behaviours is a disagreement.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import pandas as pd

from app.paging import page_count
from app.traces.trace import Step, one_line, step_label
from app.project import validators as v
from app.stats.agreement import Disagreements, jaccard, marked_each, sets_of, show_set, with_default
from app.stats.counting import in_order, sorted_keys
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme
from app.types.failure_attribution import cut
from app.types.panel import SchemeRows

EXCERPT = 90  # characters of a step's text shown beside its number


@dataclass(frozen=True)
class Turn:
    index: int
    agent: str
    excerpt: str

    @property
    def label(self) -> str:
        """Plain text: "Step 3 · Planner · first words…" (escape before rendering as Markdown)."""
        return step_label(self.index, self.agent, self.excerpt)


def turns(steps: Iterable[Step], limit: int = EXCERPT) -> list[Turn]:
    """Every step as a turn: index, agent, one-line excerpt."""
    return [Turn(s.index, s.agent, one_line(s.text, limit)) for s in steps]


def _turn_list(raw: Any) -> list[int]:
    out = set()
    for t in raw if isinstance(raw, (list, tuple)) else []:
        if isinstance(t, bool):
            continue
        if isinstance(t, int):
            out.add(t)
        elif isinstance(t, float) and t.is_integer():
            out.add(int(t))
        elif isinstance(t, str) and t.strip().lstrip("-").isdigit():
            out.add(int(t))
    return sorted(out)


def entry(turns: Iterable[int] = (), note: str = "") -> dict:
    return {"turns": _turn_list(list(turns)), "note": note if isinstance(note, str) else ""}


def parse(value: Any) -> dict[str, dict]:
    """{behaviour: {"turns", "note"}} from a stored value, tolerant of malformed entries."""
    out: dict[str, dict] = {}
    if not isinstance(value, dict):
        return out
    for name, e in value.items():
        if isinstance(e, dict):
            out[str(name)] = entry(_turn_list(e.get("turns")), e.get("note") or "")
        elif isinstance(e, list):  # a bare list of turns
            out[str(name)] = entry(_turn_list(e))
    return out


def build(entries: dict[str, dict], order: Iterable[str] = ()) -> dict:
    """The stored value: behaviours with turns or a non-blank note, in `order` then as given."""
    names = list(dict.fromkeys([*order, *entries]))
    out = {}
    for name in names:
        e = entries.get(name)
        if not e:
            continue
        e = entry(e.get("turns") or (), e.get("note") or "")
        if not e["note"].strip():
            e["note"] = ""
        if e["turns"] or e["note"]:
            out[name] = e
    return out


def get(value: Any, behavior: str) -> dict:
    return parse(value).get(behavior, entry())


def _update(value: Any, behavior: str, order: Iterable[str], turns_=None, note=None) -> dict:
    entries = parse(value)
    e = entries.get(behavior, entry())
    entries[behavior] = entry(e["turns"] if turns_ is None else turns_, e["note"] if note is None else note)
    return build(entries, order)


def set_turn(value: Any, behavior: str, turn: int, on: bool, order: Iterable[str] = ()) -> dict:
    cur = set(get(value, behavior)["turns"])
    cur = cur | {int(turn)} if on else cur - {int(turn)}
    return _update(value, behavior, order, turns_=cur)


def set_turns(value: Any, behavior: str, turns_: Iterable[int], order: Iterable[str] = ()) -> dict:
    """The value with the behaviour's turns replaced by `turns_` (its note kept)."""
    return _update(value, behavior, order, turns_=set(turns_))


def turn_range(start: int, stop: int, valid: Iterable[int]) -> list[int]:
    """The valid turns from start to stop inclusive (either order)."""
    lo, hi = sorted((int(start), int(stop)))
    return [t for t in valid if lo <= t <= hi]


def add_turns(value: Any, behavior: str, extra: Iterable[int], order: Iterable[str] = ()) -> dict:
    return _update(value, behavior, order, turns_=set(get(value, behavior)["turns"]) | set(extra))


def remove_turns(value: Any, behavior: str, gone: Iterable[int], order: Iterable[str] = ()) -> dict:
    return _update(value, behavior, order, turns_=set(get(value, behavior)["turns"]) - set(gone))


def set_note(value: Any, behavior: str, note: str, order: Iterable[str] = ()) -> dict:
    return _update(value, behavior, order, note=note or "")


def ranges_text(turns_: Iterable[int]) -> str:
    """Compact text for a set of turns: [2, 3, 4, 5, 9] -> "2–5, 9"."""
    runs: list[list[int]] = []
    for t in sorted(set(turns_)):
        if runs and t == runs[-1][1] + 1:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def summary(value: Any, behaviors: Iterable[str]) -> list[str]:
    """One plain-text line per configured behaviour saying what is marked."""
    entries = parse(value)
    out = []
    for b in behaviors:
        e = entries.get(b, entry())
        n = len(e["turns"])
        marked = f"{n} turn{'s' if n != 1 else ''} ({ranges_text(e['turns'])})" if n else "no turns"
        out.append(f"{b}: {marked}" + (" · note" if e["note"] else ""))
    return out


# --- the summary ----------------------------------------------------------------------------------------

def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per marked turn: behavior, turn (a behaviour with a note and no turns gives none)."""
    return [{"behavior": name, "turn": turn} for name, e in parse(value).items() for turn in e["turns"]]


def _marks(scheme_rows: SchemeRows) -> pd.DataFrame:
    """The scheme's marks naming an item (item_id, annotator, behavior, turn)."""
    table = scheme_rows.table
    if "behavior" not in table:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in ("item_id", "annotator", "behavior", "turn")})
    return table[table["item_id"].notna() & table["behavior"].notna()]


def rollup(scheme_rows: SchemeRows) -> dict:
    """Per behaviour marked anywhere (configured ones first, in their order): the runs showing
    it, the annotators who marked it and its marks (a turn marked by an annotator)."""
    marks = _marks(scheme_rows)
    by_behaviour = marks.groupby("behavior", sort=False)
    runs, annotators = by_behaviour["item_id"].nunique(), by_behaviour["annotator"].nunique()
    counted = by_behaviour.size()
    return {"totals": [{"behavior": b, "runs": int(runs[b]), "annotators": int(annotators[b]), "marks": int(counted[b])}
                       for b in in_order(scheme_rows.scheme.get("behaviors"), runs.index) if b in runs.index]}


def per_run(scheme_rows: SchemeRows) -> list[dict]:
    """Per run and behaviour shown in it: how many annotators marked it, on how many turns, and
    its marks; by run, then behaviour."""
    marks = _marks(scheme_rows)
    grouped = marks.groupby(["item_id", "behavior"], sort=False)
    annotators, turns, counted = grouped["annotator"].nunique(), grouped["turn"].nunique(), grouped.size()
    return [{"item_id": item, "behavior": b, "annotators": int(annotators[(item, b)]), "turns": int(turns[(item, b)]),
             "marks": int(counted[(item, b)])} for item, b in sorted_keys(counted.index)]


def _steps(scheme_rows: SchemeRows, item: str) -> list[dict]:
    """The item's steps as objects to mark, by position in the trace (none: no such item)."""
    derivation = scheme_rows.derive(item)
    return [] if derivation is None else [{"step": i} for i in range(len(derivation.steps))]


def _positions(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """The rows of `frame` whose `column` may be a step's position (0 up, below 2**62): others
    name no step of any trace, and would not fit the trace objects' int64 keys."""
    number = pd.to_numeric(frame[column], errors="coerce")
    return frame[((number >= 0) & (number < 2 ** 62)).to_numpy(dtype=bool)]


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """Per behaviour (configured ones first, then any other marked anywhere in the scheme's
    rows, sorted): whether each annotator marked each step of the item's trace, and the mean
    Jaccard of the turns each annotator marked (an annotator who marked none: the empty set).
    A step where annotators marked different behaviours is a disagreement. Marks of a turn the
    trace does not have count in the Jaccard of the turns, not on the steps."""
    panel = scheme_rows.panel
    table = scheme_rows.table
    seen = table["behavior"].dropna().unique().tolist() if "behavior" in table else []
    behaviours = in_order(scheme_rows.scheme.get("behaviors"), seen)
    given = panel.members(table)
    if "behavior" not in given:
        given = given.assign(behavior=pd.Series([], dtype=object), turn=pd.Series([], dtype="int64"))
    steps = panel.objects(lambda item: _steps(scheme_rows, item), lambda step: f"step {step['step']}")
    marks = _positions(given, "turn")[["item", "rater", "behavior", "turn"]].rename(columns={"turn": "step"})
    on_steps = steps.attach(marks, on=["step"])
    every_step = steps.every_rater()
    on_each_step = marked_each(on_steps, every_step, "behavior", behaviours)
    every_item = panel.per_item()
    measures = {}
    for behaviour in behaviours:
        mine = given[given["behavior"] == behaviour]
        turn_sets = sets_of(mine["item"], mine["rater"], mine["turn"])
        measures[behaviour] = {**on_each_step[behaviour],
                               "turns_jaccard": jaccard(with_default(turn_sets, every_item, frozenset()))["jaccard"]}
    # what each annotator marked on a step, as one value: the behaviours in their listed order
    rank = {b: i for i, b in enumerate(behaviours)}
    marked_on = sets_of(on_steps["unit"], on_steps["rater"], on_steps["behavior"])
    shown = marked_on.assign(value=[tuple(sorted(x, key=rank.get)) for x in marked_on["value"]])
    raters_of_marked = every_step[every_step["unit"].isin(shown["unit"])]
    disagreements.add(with_default(shown, raters_of_marked, ()), steps.describe, "behaviour", show_set)
    return {"behaviors": measures}


# --- import and export -----------------------------------------------------------------------------------

def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(e, (dict, list)) for e in value.values())


def objects(value: Any, derivation) -> Any:
    """Each marked turn's step (agent and text) as the trace is now (None: no such step); the
    turns as the summary reads them (parse)."""
    if derivation is None or not isinstance(value, dict):
        return None
    steps = {s.index: s for s in derivation.steps}
    marked_turns = sorted({t for e in parse(value).values() for t in e["turns"]})
    return {"turns": {str(t): (None if (s := steps.get(t)) is None else {"agent": s.agent, "text": cut(s.text, 200)})
                      for t in marked_turns}}


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """Configured behaviours, each with turns that are steps of the run and a text note."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    out: list[str] = []
    for name, e in value.items():
        what = f'behaviour "{name}"'
        out += c.gather(c.one_of(name, scheme.get("behaviors") or [], "behaviour"))
        if not isinstance(e, dict):
            out.append(c.shape(e, dict, what))
            continue
        out += c.keys(e, ["turns", "note"], what)
        marked = e.get("turns", [])
        if not isinstance(marked, list):
            out.append(c.shape(marked, list, f"{what}: turns"))
        else:
            out += c.gather(*(c.step(t, derivation, f"{what}: turn") for t in marked))
        out += c.gather(c.text(e.get("note"), f"{what}: note"))
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    """Each turn marked with each behaviour, and each behaviour's note."""
    found: dict = {}
    for name, e in parse(value).items():
        found.update({("behaviour", name, "turn", t): True for t in e["turns"]})
        if e["note"].strip():
            found[("behaviour", name, "note")] = e["note"]
    return found


def join(fields: dict, scheme: Scheme) -> dict:
    entries: dict[str, dict] = {}
    for field, x in fields.items():
        e = entries.setdefault(field[1], {"turns": [], "note": ""})
        if field[2] == "turn":
            e["turns"].append(field[3])
        else:
            e["note"] = x
    return build(entries, scheme.get("behaviors") or [])


TYPE = AnnotationType(
    name="emergent_behavior", title="Emergent behaviour", page="pages/emergent_behavior.py", trace=True,
    keys={"behaviors": Key(v.string_list(1), required=True), "allow_note": Key(v.boolean, default=True)},
    section="emergent", rows=rows, rollup=rollup, agreement=agreement,
    listings_first=True, listings={"per_run": per_run},
    looks_like=looks_like, objects=objects, validate=validate,
    parts=parts, join=join)
