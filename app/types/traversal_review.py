"""traversal_review values: a forward pass with only the past, then a backward pass with hindsight.

Forward, the steps come one at a time in trace order (depth-first over the span tree for span-tree
traces, see `order`); each is flagged (error or fine, with MAST modes from the scheme's
`error_types`) and may get a note. Backward, once every step was seen, the flagged steps come from
last to first with the whole trace in view: each is a root cause, a consequence of an earlier step,
or redundant (not an error after all); a root cause the forward pass missed may be added.

Stored value (the `value` of the Parquet row; steps are trace positions, as text keys)::

    {"forward": {"3": {"flag": "error" | "fine", "modes": [{"type", "subtype"}], "note": str}},  # (*)
     "backward": {"3": {"verdict": "root_cause" | "consequence" | "redundant",
                        "caused_by": int | None}},      # caused_by: consequences only
     "root_causes": [int, ...]}                          # sorted; every root_cause verdict, and added ones

(*) `modes` and `note` are left out when empty (they are read as `[]` and `""`). It is saved at
every step: the forward pass resumes at the first step (in order) with no forward
entry, the backward pass at the latest flagged step with no verdict.

In the summary: a row per run judged (kind "run"), per step flagged forward (kind "flag", with its
verdict) and per root cause (kind "root"). The rollup counts per annotator and overall the flags
raised, the share pruned as redundant, and the root causes per run; agreement is on each run's
earliest root cause (equal, within ±k) and on the sets of root causes (Jaccard). Accuracy against
gold is app/summary/traversal.py's.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from app.stats.agreement import Disagreements, jaccard, judgements, sets_of, show_set, within
from app.types import trajectory_eval
from app.types.base import AnnotationType, Scheme, as_int, hidden_input
from app.types.panel import SchemeRows
from app.types.trajectory_eval import Mode, modes as scheme_modes

ERROR, FINE = "error", "fine"
FLAGS = (FINE, ERROR)
ROOT_CAUSE, CONSEQUENCE, REDUNDANT = "root_cause", "consequence", "redundant"
VERDICTS = (ROOT_CAUSE, CONSEQUENCE, REDUNDANT)
FORWARD, BACKWARD, DONE = "forward", "backward", "done"


# --- the order of the pass -----------------------------------------------------------------------

def order(data: dict, n_steps: int) -> list[int]:
    """The step positions in the order the pass walks them: for a span-tree trace (``trace.spans``,
    listed depth-first by the readers) the order of each step's span in that list, steps without
    a span after the step before them; otherwise trace order."""
    trace = data.get("trace") if isinstance(data, dict) else None
    spans = trace.get("spans") if isinstance(trace, dict) else None
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(spans, list) or not isinstance(steps, list) or len(steps) != n_steps:
        return list(range(n_steps))
    place = {str(r.get("id")): i for i, r in enumerate(spans) if isinstance(r, dict)}
    keys, last = [], -1.0
    for i, s in enumerate(steps):
        at = place.get(str(s.get("id"))) if isinstance(s, dict) else None
        last = float(at) if at is not None else last + 1e-6  # (no span: right after the step before)
        keys.append((last, i))
    return [i for _, i in sorted(keys)]


# --- the stored value ----------------------------------------------------------------------------

def empty() -> dict:
    return {"forward": {}, "backward": {}, "root_causes": []}


def _mode(x: Any) -> dict | None:
    if isinstance(x, dict) and isinstance(x.get("type"), str):
        sub = x.get("subtype")
        return {"type": x["type"], "subtype": None if sub in (None, "") else str(sub)}
    return None


class Parsed(dict):
    """A parsed value: what `parse` gives, and takes back as it is (a page asks for the phase,
    the places and the flags of one value: at 2,000 steps each parse is milliseconds)."""


def parse(value: Any) -> Parsed:
    """The stored value as {"forward": {int: entry}, "backward": {int: entry}, "root_causes": [int]}
    (entries that are not of the shape are left out: `validate` names them); every entry with
    its modes and note."""
    if isinstance(value, Parsed):
        return value
    value = value if isinstance(value, dict) else {}
    fwd, bwd = {}, {}
    for k, e in (value.get("forward") or {}).items() if isinstance(value.get("forward"), dict) else ():
        i = as_int(k)
        if i is not None and isinstance(e, dict) and e.get("flag") in FLAGS:
            ms = [m for m in map(_mode, e.get("modes") or []) if m] if e["flag"] == ERROR else []
            fwd[i] = {"flag": e["flag"], "modes": ms, "note": str(e.get("note") or "")}
    for k, e in (value.get("backward") or {}).items() if isinstance(value.get("backward"), dict) else ():
        i = as_int(k)
        if i is not None and isinstance(e, dict) and e.get("verdict") in VERDICTS:
            cause = as_int(e.get("caused_by")) if e["verdict"] == CONSEQUENCE else None
            bwd[i] = {"verdict": e["verdict"], "caused_by": cause}
    roots = value.get("root_causes") if isinstance(value.get("root_causes"), list) else []
    return Parsed(forward=fwd, backward=bwd, root_causes=sorted({i for i in map(as_int, roots) if i is not None}))


def _fresh(value: Any) -> Parsed:
    """A parsed value to change (a Parsed given is copied: the caller's stays as it was)."""
    p = parse(value)
    return Parsed(forward=dict(p["forward"]), backward=dict(p["backward"]), root_causes=list(p["root_causes"]))


def _compact(e: dict) -> dict:
    """A forward entry as stored: empty modes and note left out (most steps are fine, without a
    note: at 2,000 steps the value is half the size, and it is written at every step)."""
    return {k: x for k, x in e.items() if k == "flag" or x}


def stored(p: dict) -> dict:
    """The stored form of a parsed value (text keys in step order; root causes kept in step with the verdicts)."""
    roots = set(p["root_causes"]) | {i for i, e in p["backward"].items() if e["verdict"] == ROOT_CAUSE}
    return {"forward": {str(i): _compact(p["forward"][i]) for i in sorted(p["forward"])},
            "backward": {str(i): p["backward"][i] for i in sorted(p["backward"])},
            "root_causes": sorted(roots)}


def is_empty(value: Any) -> bool:
    p = parse(value)
    return not (p["forward"] or p["backward"] or p["root_causes"])


def flag(value: Any, step: int, flag_: str, modes: list = (), note: str = "") -> dict:
    """`value` with the forward entry of `step` set (a fine step keeps no modes); a step no
    longer flagged loses its backward verdict."""
    p = _fresh(value)
    ms = [m.as_dict() if isinstance(m, Mode) else _mode(m) for m in modes] if flag_ == ERROR else []
    p["forward"][int(step)] = {"flag": flag_, "modes": [m for m in ms if m], "note": note or ""}
    if flag_ != ERROR and int(step) in p["backward"]:
        if p["backward"].pop(int(step))["verdict"] == ROOT_CAUSE:
            p["root_causes"] = [r for r in p["root_causes"] if r != int(step)]
    return stored(p)


def judge(value: Any, step: int, verdict: str, caused_by: int | None = None) -> dict:
    """`value` with the backward verdict of a flagged `step` (root causes follow the verdicts)."""
    p = _fresh(value)
    was = p["backward"].get(int(step))
    p["backward"][int(step)] = {"verdict": verdict, "caused_by": int(caused_by) if verdict == CONSEQUENCE
                                and caused_by is not None else None}
    if was and was["verdict"] == ROOT_CAUSE and verdict != ROOT_CAUSE:
        p["root_causes"] = [r for r in p["root_causes"] if r != int(step)]
    return stored(p)


def add_root_cause(value: Any, step: int) -> dict:
    p = _fresh(value)
    p["root_causes"] = sorted(set(p["root_causes"]) | {int(step)})
    return stored(p)


def remove_root_cause(value: Any, step: int) -> dict:
    """`step` no longer a root cause (a flagged step's verdict is then taken back too)."""
    p = _fresh(value)
    p["root_causes"] = [r for r in p["root_causes"] if r != int(step)]
    if p["backward"].get(int(step), {}).get("verdict") == ROOT_CAUSE:
        del p["backward"][int(step)]
    return stored(p)


def forward_at(value: Any, walk: list[int]) -> int:
    """Where the forward pass stands: the place in `walk` of the first step without a forward
    entry (len(walk): every step seen)."""
    seen = parse(value)["forward"]
    return next((i for i, s in enumerate(walk) if s not in seen), len(walk))


def flagged(value: Any, walk: list[int]) -> list[int]:
    """The steps flagged forward, from last to first (in the pass's order): the backward pass."""
    fwd = parse(value)["forward"]
    return [s for s in reversed(walk) if fwd.get(s, {}).get("flag") == ERROR]


def backward_at(value: Any, walk: list[int]) -> int:
    """The place in `flagged` of the first step without a verdict (its length: all judged)."""
    p = parse(value)
    todo = flagged(value, walk)
    return next((i for i, s in enumerate(todo) if s not in p["backward"]), len(todo))


def phase(value: Any, walk: list[int]) -> str:
    if forward_at(value, walk) < len(walk):
        return FORWARD
    return BACKWARD if backward_at(value, walk) < len(flagged(value, walk)) else DONE


def causes(value: Any, walk: list[int], step: int) -> list[int]:
    """What a consequence at `step` may follow: the steps before it (in the pass's order) flagged
    forward or named root causes, nearest first."""
    p = parse(value)
    before = walk[:walk.index(step)] if step in walk else []
    marked = {s for s, e in p["forward"].items() if e["flag"] == ERROR} | set(p["root_causes"])
    return [s for s in reversed(before) if s in marked]


# --- validation and import -----------------------------------------------------------------------

def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and bool({"forward", "backward", "root_causes"} & set(value))


def coerce(value: Any, scheme: Scheme) -> Any:
    """Potato's hidden-input wrapper taken off; step keys given as numbers written as text (JSON's
    keys are text; YAML or a hand-made dict may hold ints). Anything else is left for validate."""
    value = hidden_input(value, looks_like)
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for part in ("forward", "backward"):
        if isinstance(out.get(part), dict):
            out[part] = {(str(as_int(k)) if as_int(k) is not None else k): e for k, e in out[part].items()}
    return out


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """What does not fit: the shape, flags, verdicts and modes not in the scheme, steps the trace
    does not have, verdicts on steps not flagged, a consequence without an earlier cause."""
    if not isinstance(value, dict):
        return [f"expected {{forward, backward, root_causes}}, got {type(value).__name__}"]
    out = [f"unknown key {k!r}: expected forward, backward, root_causes"
           for k in value if k not in ("forward", "backward", "root_causes")]
    n = len(derivation.steps) if derivation is not None else None
    allowed = set(scheme_modes(scheme.get("error_types") or []))

    def step_of(k: Any, where: str) -> int | None:
        i = as_int(k)
        if i is None:
            out.append(f"{where}: {k!r} is not a step number")
        elif n is not None and not 0 <= i < n:
            out.append(f"{where}: step {i} is not in this trace ({n} steps)")
            return None
        return i

    fwd = value.get("forward", {})
    if not isinstance(fwd, dict):
        out.append("forward: expected {step: {flag, modes, note}}")
        fwd = {}
    for k, e in fwd.items():
        i = step_of(k, "forward")
        if i is None:
            continue
        if not isinstance(e, dict) or e.get("flag") not in FLAGS:
            out.append(f"forward[{k}]: expected {{flag: error | fine, modes, note}}, got {e!r}"[:200])
            continue
        extra = set(e) - {"flag", "modes", "note"}
        if extra:
            out.append(f"forward[{k}]: unknown key(s) {', '.join(sorted(map(str, extra)))}")
        ms = e.get("modes") or []
        if not isinstance(ms, list):
            out.append(f"forward[{k}].modes: expected a list")
            ms = []
        if ms and e["flag"] != ERROR:
            out.append(f"forward[{k}]: a step flagged fine has no failure modes")
        for m in ms:
            mode = _mode(m)
            if mode is None or Mode(mode["type"], mode["subtype"]) not in allowed:
                out.append(f"forward[{k}].modes: {m!r} is not a failure mode of this scheme"[:200])
        if not isinstance(e.get("note", ""), str):
            out.append(f"forward[{k}].note: expected text")
    bwd = value.get("backward", {})
    if not isinstance(bwd, dict):
        out.append("backward: expected {step: {verdict, caused_by}}")
        bwd = {}
    flagged_steps = {as_int(k) for k, e in fwd.items() if isinstance(e, dict) and e.get("flag") == ERROR}
    roots = value.get("root_causes", [])
    if not isinstance(roots, list):
        out.append("root_causes: expected a list of steps")
        roots = []
    root_steps = [step_of(r, "root_causes") for r in roots]
    if len([r for r in root_steps if r is not None]) != len({r for r in root_steps if r is not None}):
        out.append("root_causes: a step is listed twice")
    for k, e in bwd.items():
        i = step_of(k, "backward")
        if i is None:
            continue
        if not isinstance(e, dict) or e.get("verdict") not in VERDICTS:
            out.append(f"backward[{k}]: expected {{verdict: root_cause | consequence | redundant, caused_by}}")
            continue
        if i not in flagged_steps:
            out.append(f"backward[{k}]: step {i} was not flagged as an error in the forward pass")
        cause = e.get("caused_by")
        if e["verdict"] == CONSEQUENCE:
            c = as_int(cause)
            if c is None:
                out.append(f"backward[{k}]: a consequence names the earlier step it follows (caused_by)")
            elif c == i or (n is not None and not 0 <= c < n):
                out.append(f"backward[{k}].caused_by: step {c} is not another step of this trace")
        elif cause is not None:
            out.append(f"backward[{k}]: only a consequence has caused_by")
        if e["verdict"] == ROOT_CAUSE and i not in root_steps:
            out.append(f"backward[{k}]: a root cause verdict whose step is not in root_causes")
    return out


def objects(value: Any, derivation) -> Any:
    """Each step the value names (agent and text) as the trace is now (None: no such step)."""
    if derivation is None or not isinstance(value, dict):
        return None
    p = parse(value)
    steps = {s.index: s for s in derivation.steps}
    named = sorted(set(p["forward"]) | set(p["backward"]) | set(p["root_causes"]))
    return {"steps": {str(i): (None if (s := steps.get(i)) is None else
                               {"agent": s.agent, "text": trajectory_eval.cut(s.text, 200)}) for i in named}}


# --- the summary ---------------------------------------------------------------------------------

def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A "run" row (how many steps were seen forward, judged backward), a "flag" row per step
    flagged forward (its modes, note given, verdict, cause), a "root" row per root cause (added:
    not flagged forward)."""
    p = parse(value)
    out = [{"kind": "run", "step": None, "seen": len(p["forward"]), "judged": len(p["backward"])}]
    for i, e in sorted(p["forward"].items()):
        if e["flag"] == ERROR:
            b = p["backward"].get(i, {})
            out.append({"kind": "flag", "step": i, "modes": len(e["modes"]), "note": bool(e["note"].strip()),
                        "verdict": b.get("verdict"), "caused_by": b.get("caused_by")})
    roots = set(p["root_causes"]) | {i for i, e in p["backward"].items() if e["verdict"] == ROOT_CAUSE}
    for i in sorted(roots):
        out.append({"kind": "root", "step": i,
                    "added": p["forward"].get(i, {}).get("flag") != ERROR})
    return out


def _counted(table: pd.DataFrame) -> pd.DataFrame:
    """Per row of the long table, as 0/1 columns, what it adds to each count of `_tally`."""
    kind = table["kind"].to_numpy(dtype=object)
    is_run, is_flag, is_root = kind == "run", kind == "flag", kind == "root"
    first_run = np.zeros(len(table), dtype=bool)
    first_run[np.flatnonzero(is_run)] = ~table.loc[is_run, ["item_id", "annotator"]].duplicated().to_numpy()
    verdict = table["verdict"]
    judged = is_flag & verdict.notna().to_numpy(dtype=bool)
    return pd.DataFrame({
        "runs": first_run, "forward_complete": is_run & table["complete"].astype(bool).to_numpy(),
        "flags_forward": is_flag, "flags_judged_backward": judged,
        "pruned_redundant": judged & (verdict == REDUNDANT).to_numpy(dtype=bool),
        "consequences": judged & (verdict == CONSEQUENCE).to_numpy(dtype=bool),
        "root_causes": is_root, "root_causes_added": is_root & table["added"].astype(bool).to_numpy()},
        index=table.index).astype(np.int64)


def _tally(counts: pd.Series) -> dict:
    """The rollup's numbers from the summed counts of `_counted`."""
    n = {name: int(x) for name, x in counts.items()}
    runs, flags, judged, roots = n["runs"], n["flags_forward"], n["flags_judged_backward"], n["root_causes"]
    return {"runs": runs, "forward_complete": n["forward_complete"], "flags_forward": flags,
            "flags_per_run": flags / runs if runs else None,
            "flags_judged_backward": judged, "pruned_redundant": n["pruned_redundant"],
            "share_pruned": n["pruned_redundant"] / judged if judged else None,
            "consequences": n["consequences"], "root_causes": roots,
            "root_causes_added": n["root_causes_added"],
            "root_causes_per_run": roots / runs if runs else None}


def rollup(scheme_rows: SchemeRows) -> dict:
    """Per annotator and overall: runs, forward passes complete, flags raised forward, the share of
    the flags judged backward pruned as redundant, consequences, root causes (added ones) per run."""
    table = scheme_rows.table
    if table.empty or "kind" not in table:
        table = pd.DataFrame({c: pd.Series([], dtype=object) for c in ("item_id", "annotator", "kind", "step")})
    # (a column only some kinds of row have is missing when no row of that kind was made)
    table = table.assign(**{c: pd.Series([None] * len(table), index=table.index, dtype=object)
                            for c in ("seen", "verdict", "added") if c not in table})
    # a forward pass is complete when it saw every step of the item's trace (each item looked up once)
    is_run = (table["kind"] == "run").to_numpy(dtype=bool)
    lengths = {item: (len(d.steps) if (d := scheme_rows.derive(item)) is not None else None)
               for item in pd.unique(table.loc[is_run, "item_id"].astype(object))}
    steps = pd.to_numeric(table["item_id"].astype(object).map(lengths), errors="coerce")
    seen = pd.to_numeric(table["seen"], errors="coerce")
    table = table.assign(complete=is_run & steps.notna().to_numpy() & (seen >= steps).fillna(False).to_numpy(dtype=bool))
    counts = _counted(table)
    per = counts.groupby(table["annotator"], sort=True).sum()  # (all counts per annotator at once)
    return {"overall": _tally(counts.sum()), "by_annotator": {who: _tally(row) for who, row in per.iterrows()}}


def earliest_roots(table: pd.DataFrame) -> pd.DataFrame:
    """(item_id, annotator, step): each judgement's earliest root cause."""
    roots = table[table["kind"] == "root"] if "kind" in table else table.iloc[:0]
    if roots.empty:
        return pd.DataFrame({"item_id": [], "annotator": [], "step": []})
    return roots.groupby(["item_id", "annotator"], sort=False)["step"].min().reset_index()


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """The earliest root cause of each run (equal, within ±k) and the sets of root causes (Jaccard),
    over the runs two or more annotators judged (a run without root causes gives no step)."""
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    roots = given[given["kind"] == "root"] if "kind" in given else given.iloc[:0]
    first = roots.groupby(["item", "rater"], sort=True)["step"].min().reset_index() if len(roots) else roots
    steps = judgements(first["item"] if len(first) else [], first["rater"] if len(first) else [],
                       [int(x) for x in first["step"]] if len(first) else [])
    sets = sets_of(roots["item"] if len(roots) else [], roots["rater"] if len(roots) else [],
                   [int(x) for x in roots["step"]] if len(roots) else [])
    describe = lambda unit: (panel.items[unit], "root causes")  # noqa: E731
    disagreements.add(sets.assign(value=[tuple(sorted(v)) for v in sets["value"]]), describe, "traversal",
                      show_set)
    return {"root_cause_step": within(steps, scheme_rows.k), "root_cause_sets": jaccard(sets)}


TYPE = AnnotationType(
    name="traversal_review", title="Traversal review", page="pages/traversal_review.py", trace=True,
    keys={name: trajectory_eval.TYPE.keys[name] for name in ("error_types", "step_text_key")},
    section="traversal", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, looks_like=looks_like,
    validate=validate, objects=objects,
    headline=lambda measures: measures.get("root_cause_step"))
