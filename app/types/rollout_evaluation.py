"""rollout_evaluation: several rollouts of one scenario (a recording and model rollouts, in
Potato's world-model evaluation), each judged for where it stops making sense (a break: a time,
a violation type, a severity), or marked clean; a preferred rollout; whether a divergence after
the scenario's intervention follows from it.

Baton shows each rollout's field (its video's path or URL) as text and plays no video (nothing
is fetched); times are typed in seconds. Stream ids are the streams' `id`, else their `field`.

Stored as Potato stores it: `{"violations": [{"stream": "gen_a", "t": 3.42, "type":
"interpenetration", "severity": 2, "note": ""}], "clean": ["real"], "preference": {"winner":
"gen_a", "confidence": "2", "rubric": {"physics": 4}}, "counterfactual": {"verdict":
"plausible", "t": 2.1, "note": ""}}`.

Summary: breaks per stream and type, clean marks, wins per stream, counterfactual verdicts.
Agreement (as Potato decomposes it, at one tolerance only, no sweep): detection (nominal on
break/clean per stream, over the annotators who answered about it: an unanswered stream is not
counted as clean), the earliest break's time (interval alpha) and type (nominal) per stream,
its severity (ordinal), the winner and the counterfactual verdict (nominal).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from app.project import validators as v
from app.project.validators import Invalid, show
from app.stats.agreement import judgements, nominal, ordinal
from app.stats.counting import count, in_order
from app.types.base import AnnotationType, Key, Scheme, as_int
from app.types.choices import choice_agreement, label_counts
from app.types.options import names, optional_integer, text_map
from app.types.panel import SchemeRows

LAYERS = ["violations", "preference", "counterfactual"]
VIOLATIONS = ["object_permanence", "rigid_body_violation", "interpenetration", "gravity_violation",
              "causality_violation", "identity_flicker", "appearance_drift", "implausible_deformation",
              "agent_intent_break", "affordance_violation"]
SEVERITIES = [{"value": 1, "name": "subtle"}, {"value": 2, "name": "clear"}, {"value": 3, "name": "breaks the scene"}]
CF_VERDICTS = ["plausible", "implausible", "unchanged", "unclear"]
BREAK, CLEAN = "break", "clean"


def streams(value: Any) -> list[dict]:
    """`streams: [{field, name, role, id, fps}]`, each with its id (`id`, else `field`)."""
    if not isinstance(value, list) or not value:
        raise Invalid(f"expected a list of {{field, name, role}}, got {show(value)}")
    out = []
    for i, s in enumerate(value):
        if not isinstance(s, dict) or not isinstance(s.get("field"), str) or not s["field"].strip():
            raise Invalid(f"expected {{field, name, role, id, fps}} with a field, got {show(s)}", f"[{i}]")
        extra = set(s) - {"field", "name", "role", "id", "fps"}
        if extra:
            raise Invalid(f"unknown key(s) {v.keys(extra)}; expected field, name, role, id, fps", f"[{i}]")
        if s.get("role", "model") not in ("real", "model", "counterfactual"):
            raise Invalid(f"expected real, model or counterfactual, got {show(s.get('role'))}", f"[{i}].role")
        out.append({"field": s["field"], "id": str(s.get("id") or s["field"]), "name": str(s.get("name") or s["field"]),
                    "role": s.get("role", "model"), "fps": s.get("fps")})
    v._unique([s["id"] for s in out], "stream id")
    return out


def severities(value: Any) -> list[dict]:
    """`severities: [{value, name, description}]`, ordered by value."""
    if not isinstance(value, list) or not value:
        raise Invalid(f"expected a list of {{value, name}}, got {show(value)}")
    out = []
    for i, s in enumerate(value):
        if not isinstance(s, dict) or as_int(s.get("value")) is None or not isinstance(s.get("name"), str):
            raise Invalid(f"expected {{value: integer, name, description}}, got {show(s)}", f"[{i}]")
        out.append({"value": as_int(s["value"]), "name": s["name"], "description": str(s.get("description") or "")})
    v._unique([str(s["value"]) for s in out], "severity value")
    return sorted(out, key=lambda s: s["value"])


def layers(value: Any) -> list[str]:
    got = v.string_list(1)(value)
    bad = [x for x in got if x not in LAYERS]
    if bad:
        raise Invalid(f"expected some of {', '.join(LAYERS)}, got {show(bad[0])}")
    return got


def ids(scheme: Scheme) -> list[str]:
    return [s["id"] for s in scheme.get("streams") or []]


def parse(value: Any) -> dict:
    """The well-formed parts of a stored value."""
    value = value if isinstance(value, dict) else {}
    marks = [{"stream": m.get("stream"), "t": float(m["t"]), "type": m.get("type"), "severity": as_int(m.get("severity")),
              "note": str(m.get("note") or "")}
             for m in value.get("violations") or [] if isinstance(m, dict) and _number(m.get("t")) is not None]
    clean = [s for s in value.get("clean") or [] if isinstance(s, str)]
    pref = value.get("preference") if isinstance(value.get("preference"), dict) else {}
    cf = value.get("counterfactual") if isinstance(value.get("counterfactual"), dict) else {}
    return {"violations": marks, "clean": clean, "preference": pref, "counterfactual": cf}


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def build(violations: list[dict], clean: list[str], preference: dict, counterfactual: dict) -> dict:
    out: dict[str, Any] = {}
    if violations:
        out["violations"] = sorted(violations, key=lambda m: (m["stream"], m["t"]))
    if clean:
        out["clean"] = list(dict.fromkeys(clean))
    preference = {k: x for k, x in preference.items() if x not in (None, "", {})}
    if preference:
        out["preference"] = preference
    counterfactual = {k: x for k, x in counterfactual.items() if x not in (None, "")}
    if counterfactual:
        out["counterfactual"] = counterfactual
    return out


def changed(value: Any, **parts) -> dict:
    now = {**parse(value), **parts}
    return build(now["violations"], now["clean"], now["preference"], now["counterfactual"])


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or set(value) - set(LAYERS) - {"clean"}:
        return [f"expected {{violations, clean, preference, counterfactual}}, got {show(value)}"]
    out = []
    known, on = ids(scheme), scheme.get("layers") or LAYERS
    for layer in LAYERS:
        if layer in value and layer not in on:
            out.append(f"{layer}: this scheme's layers are {', '.join(on)}")
    types, sevs = scheme.get("violation_types"), [s["value"] for s in scheme.get("severities")]
    marks = value.get("violations", [])
    for i, m in enumerate(marks if isinstance(marks, list) else [None]):
        if not isinstance(m, dict) or set(m) - {"stream", "t", "type", "severity", "note"}:
            out.append(f"violation {i}: expected {{stream, t, type, severity, note}}, got {show(m)}")
            continue
        if m.get("stream") not in known:
            out.append(f"violation {i}: stream {show(m.get('stream'))} is not one of {', '.join(known)}")
        t = _number(m.get("t"))
        if t is None or t < 0:
            out.append(f"violation {i}: t {show(m.get('t'))} is not a time in seconds")
        if m.get("type") not in types:
            out.append(f"violation {i}: type {show(m.get('type'))} is not one of {', '.join(types)}")
        if m.get("severity") is not None and as_int(m.get("severity")) not in sevs:
            out.append(f"violation {i}: severity {show(m.get('severity'))} is not one of {', '.join(map(str, sevs))}")
    cap = scheme.get("max_violations")
    if cap is not None and isinstance(marks, list) and len(marks) > cap:
        out.append(f"{len(marks)} violations marked, max_violations is {cap}")
    clean = value.get("clean", [])
    broken = {m.get("stream") for m in marks if isinstance(m, dict)} if isinstance(marks, list) else set()
    for s in clean if isinstance(clean, list) else [clean]:
        if s not in known:
            out.append(f"clean: {show(s)} is not a stream ({', '.join(known)})")
        elif s in broken:
            out.append(f"clean: {show(s)} is marked clean and has a violation")
    pref = value.get("preference", {})
    if not isinstance(pref, dict) or set(pref) - {"winner", "confidence", "rubric"}:
        out.append(f"preference: expected {{winner, confidence, rubric}}, got {show(pref)}")
    else:
        if pref.get("winner") is not None and pref["winner"] not in known:
            out.append(f"preference: winner {show(pref['winner'])} is not a stream ({', '.join(known)})")
        rubric = pref.get("rubric", {})
        dims = scheme.get("rubric") or {}
        for d, x in (rubric.items() if isinstance(rubric, dict) else [(None, rubric)]):
            if d not in dims:
                out.append(f"preference.rubric: {show(d)} is not a rubric dimension ({', '.join(dims) or 'none'})")
            elif as_int(x) not in range(1, 6):
                out.append(f"preference.rubric.{d}: {show(x)} is not a score from 1 to 5")
    cf = value.get("counterfactual", {})
    if not isinstance(cf, dict) or set(cf) - {"verdict", "t", "note"}:
        out.append(f"counterfactual: expected {{verdict, t, note}}, got {show(cf)}")
    elif cf.get("verdict") is not None and cf["verdict"] not in scheme.get("cf_verdicts"):
        out.append(f"counterfactual: verdict {show(cf['verdict'])} is not one of {', '.join(scheme.get('cf_verdicts'))}")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per answered stream (its detection, and its earliest break's time, type and
    severity), per mark, for the winner and the counterfactual verdict."""
    p = parse(value)
    out = []
    earliest: dict[str, dict] = {}
    for m in p["violations"]:
        out.append({"part": "mark", "stream": m["stream"], "type": m["type"], "severity": m["severity"]})
        if m["stream"] not in earliest or m["t"] < earliest[m["stream"]]["t"]:
            earliest[m["stream"]] = m
    for s, m in earliest.items():
        out.append({"part": "stream", "stream": s, "detection": BREAK, "t": m["t"], "type": m["type"],
                    "severity": m["severity"]})
    out += [{"part": "stream", "stream": s, "detection": CLEAN} for s in dict.fromkeys(p["clean"]) if s not in earliest]
    if isinstance(p["preference"].get("winner"), str):
        out.append({"part": "preference", "winner": p["preference"]["winner"]})
    if isinstance(p["counterfactual"].get("verdict"), str):
        out.append({"part": "counterfactual", "verdict": p["counterfactual"]["verdict"]})
    return out


def _part(table: pd.DataFrame, part: str) -> pd.DataFrame:
    return table[table["part"] == part] if "part" in table else table.iloc[:0]


def rollup(scheme_rows: SchemeRows) -> dict:
    scheme, table = scheme_rows.scheme, scheme_rows.table
    out = label_counts(scheme_rows, "winner", ids(scheme))  # (labels: wins per stream)
    marks, answered = _part(table, "mark"), _part(table, "stream")
    per = count(marks, ["stream", "type"]) if len(marks) else {}
    out["violations"] = [{"stream": s, "type": t, "count": per[(s, t)]}
                         for s in in_order(ids(scheme), {k[0] for k in per})
                         for t in in_order(scheme.get("violation_types"), {k[1] for k in per}) if (s, t) in per]
    det = count(answered, ["stream", "detection"]) if len(answered) else {}
    out["streams"] = [{"stream": s, "broken": det.get((s, BREAK), 0), "clean": det.get((s, CLEAN), 0)}
                      for s in in_order(ids(scheme), {k[0] for k in det})]
    cf = count(_part(table, "counterfactual"), ["verdict"]) if "verdict" in table else {}
    out["counterfactual"] = [{"verdict": x, "count": cf[x]} for x in in_order(scheme.get("cf_verdicts"), cf) if x in cf]
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    answered = _part(given, "stream")
    codes, streams_ = pd.factorize(answered["stream"].astype(object)) if len(answered) else (np.zeros(0, np.int64), [])
    width = max(len(streams_), 1)
    unit = answered["item"].to_numpy(dtype=np.int64) * width + codes

    def describe(u: int) -> tuple[str, str]:
        return panel.items[u // width], f"stream {streams_[u % width]}"

    rater = answered["rater"].to_numpy(dtype=object)
    column = lambda c: answered[c].to_numpy(dtype=object) if c in answered else np.full(len(answered), None)  # noqa: E731
    detection = judgements(unit, rater, column("detection"))
    disagreements.add(detection, describe, "detection")
    broke = column("detection") == BREAK
    t = judgements(unit[broke], rater[broke], column("t")[broke])
    kind = judgements(unit[broke], rater[broke], column("type")[broke])
    disagreements.add(kind, describe, "violation type")
    rated = broke & pd.notna(column("severity"))
    severity = judgements(unit[rated], rater[rated], column("severity")[rated])
    out = {"detection": nominal(detection), "break_time": ordinal(t, level="interval"), "violation_type": nominal(kind),
           "severity": ordinal(severity)}
    out["preference"] = choice_agreement(scheme_rows, disagreements, column="winner", kind="preference")["preference"]
    cf = scheme_rows.table
    has_cf = "verdict" in cf and cf["verdict"].notna().any()
    out["counterfactual"] = choice_agreement(scheme_rows, disagreements, column="verdict",
                                             kind="counterfactual")["counterfactual"] if has_cf else None
    return out


TYPE = AnnotationType(
    name="rollout_evaluation", title="Rollout evaluation", page="pages/rollout_evaluation.py",
    keys={"streams": Key(streams, required=True, doc="the item fields holding each rollout"),
          "fps": Key(v.number, doc="frame rate (Baton stores times in seconds and shows no frames)"),
          "prompt_field": Key(v.nonempty_string, default="prompt"),
          "intervention_field": Key(v.nonempty_string, default="intervention"),
          "intervention_time_field": Key(v.nonempty_string, default="intervention_t"),
          "layers": Key(layers, default=list(LAYERS)),
          "violation_types": Key(names(1), default=list(VIOLATIONS)),
          "severities": Key(severities, default=[dict(s, description="") for s in SEVERITIES]),
          "cf_verdicts": Key(names(1), default=list(CF_VERDICTS)),
          "rubric": Key(text_map, doc="{dimension: description}, each scored 1-5 with the preference"),
          "blind": Key(v.boolean, default=True), "shuffle": Key(v.boolean, default=True),
          "require_clean": Key(v.boolean, default=True),
          "max_violations": Key(optional_integer(1, 100000))},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, validate=validate,
    looks_like=lambda value: isinstance(value, dict) and bool(set(value) & (set(LAYERS) | {"clean"})),
    headline=lambda measures: measures.get("detection"))
