"""pairwise: which of two things an item holds is better (Potato's pairwise comparison).

What is compared: two candidates **within one item**, shown side by side: the first two entries
of the item's list named by `items_key` (e.g. `responses: [run A's answer, run B's answer]`, or
two runs' traces), else the item's `left` and `right` fields. Potato does the same; it compares
neither two items of the project nor two steps of a trace. The sides are stored by position, A
(left) and B (right), never by text, as Potato stores them.

Stored as Potato stores it: binary mode `{"selection": "A" | "B" | "tie"}`; scale mode
`{"scale_value": "-2"}` (negative: A preferred, 0: equal, positive: B preferred); multi_dimension
mode `{"helpfulness": "A", "safety": "tie", ...}`, one side per configured dimension. With a
`justification` block, the value also holds `"justification": "{\"reasons\": [...],
\"rationale\": \"...\"}"` (JSON text, as Potato stores it).

Summary: counts of each side, win rates (A's and B's share of the decided comparisons, the tie
rate), per dimension in multi_dimension mode; scale mode the distribution and mean; the reasons
given. Agreement: nominal on the selection (binary; per dimension), ordinal alpha on the scale
value and nominal on its direction (scale).

No Streamlit here.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from app.project import validators as v
from app.project.validators import Invalid, show
from app.stats.agreement import judgements, nominal, ordinal, show_number
from app.stats.counting import count, in_order, mean_interval
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import choice_agreement, label_counts
from app.types.options import names, one_of
from app.types.panel import SchemeRows

SIDES = ["A", "B"]
TIE = "tie"
MULTI = "multi_dimension"
DEFAULT_SCALE = {"min": -3, "max": 3, "step": 1, "default": 0, "labels": {}}
SCORE_GAP = 2  # scale values this far apart are listed as a disagreement


def scale_config(value: Any) -> dict:
    """Potato's `scale: {min, max, step, default, labels: {min, max, center}}`."""
    if not isinstance(value, dict):
        raise Invalid(f"expected {{min, max, step, default, labels}}, got {show(value)}")
    extra = set(value) - set(DEFAULT_SCALE)
    if extra:
        raise Invalid(f"unknown key(s) {v.keys(extra)}; expected min, max, step, default, labels")
    out = {**DEFAULT_SCALE, **value}
    for k in ("min", "max", "step", "default"):
        if isinstance(out[k], bool) or not isinstance(out[k], (int, float)):
            raise Invalid(f"expected a number, got {show(out[k])}", f".{k}")
    if not out["min"] < 0 < out["max"] or out["step"] <= 0 or not out["min"] <= out["default"] <= out["max"]:
        raise Invalid(f"expected min < 0 < max, a positive step and min ≤ default ≤ max, got {show(value)}")
    labels = out["labels"] or {}
    if not isinstance(labels, dict) or set(labels) - {"min", "max", "center"} or \
            not all(isinstance(x, str) for x in labels.values()):
        raise Invalid(f"expected {{min, max, center}} texts, got {show(labels)}", ".labels")
    out["labels"] = dict(labels)
    return out


def two_labels(value: Any) -> list[str]:
    """The two sides' display names."""
    if not isinstance(value, list) or len(value) != 2 or not all(isinstance(x, str) and x.strip() for x in value):
        raise Invalid(f"expected two names (the left and the right side), got {show(value)}")
    return list(value)


def scale_of(scheme: Scheme) -> dict:
    return scheme.get("scale") or DEFAULT_SCALE


def candidates(data: dict, scheme: Scheme) -> list[Any]:
    """The two things an item holds to compare ([] when it holds none): the first two entries of
    the `items_key` list, else its `left` and `right` fields (Potato reads them in this order)."""
    key = scheme.get("items_key")
    listed = data.get(key) if key else None
    if isinstance(listed, list) and len(listed) >= 2:
        return listed[:2]
    if key is None and isinstance(scheme.get("items"), list) and len(scheme["items"]) >= 2:
        return scheme["items"][:2]
    if "left" in data and "right" in data:
        return [data["left"], data["right"]]
    return []


def build(selection: str | None = None, scale_value: float | None = None) -> dict:
    if scale_value is not None:
        return {"scale_value": f"{scale_value:g}"}
    return {"selection": selection} if selection else {}


def number(x: Any) -> float | None:
    if isinstance(x, bool):
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def justification(value: Any) -> tuple[list, str] | None:
    """(reasons, rationale) of a stored justification (JSON text, as Potato stores it, or a
    mapping); None when it is not one."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, dict) or set(value) - {"reasons", "rationale"}:
        return None
    reasons, rationale = value.get("reasons", []), value.get("rationale", "")
    if not isinstance(reasons, list) or not isinstance(rationale, str):
        return None
    return reasons, rationale


def justify(reasons: list[str], rationale: str) -> str | None:
    """The stored justification (None when there is none)."""
    if not reasons and not (rationale or "").strip():
        return None
    return json.dumps({"reasons": list(reasons), "rationale": rationale or ""}, ensure_ascii=False)


def dimensions_of(scheme: Scheme) -> list[dict]:
    return (scheme.get("dimensions") or []) if scheme.get("mode") == MULTI else []


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: a bare side ("A", "B", "tie", or a side's display
    name) or a number (scale mode); Potato's `{"selection": ...}`, `{"scale_value": ...}` and
    `{dimension: side, ..., "justification": "<JSON>"}` as they are."""
    if scheme.get("mode") == "scale" and number(value) is not None:
        return build(scale_value=number(value))
    if isinstance(value, str):
        by_name = {n: s for n, s in zip(scheme.get("labels") or [], SIDES)}
        return build(by_name.get(value, value))
    return value


def _sides(value: Any, allowed: list[str], what: str) -> list[str]:
    return [] if value in allowed else [f"{what} {show(value)} is not one of {', '.join(allowed)}"
                                        + (" (ties are off)" if value == TIE else "")]


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict):
        return [f"expected a mapping, got {show(value)}"]
    out, value = [], dict(value)
    if "justification" in value:
        given, wanted = justification(value.pop("justification")), scheme.get("justification")
        if not wanted:
            out.append("justification: this scheme asks for none")
        elif given is None:
            out.append('justification: expected {"reasons": [...], "rationale": "..."} as JSON text')
        else:
            known = wanted.get("reason_categories") or []
            out += [f"justification: reason {show(r)} is not one of {', '.join(known)}" for r in given[0] if r not in known]
    mode = scheme.get("mode")
    if not value and out == [] and scheme.get("justification"):
        return []  # (a justification given before the choice)
    if mode == "scale":
        if set(value) != {"scale_value"}:
            return out + [f'expected {{"scale_value": number}} (scale mode), got {show(value)}']
        x, sc = number(value["scale_value"]), scale_of(scheme)
        if x is None:
            return out + [f"scale_value {show(value['scale_value'])} is not a number"]
        if not sc["min"] <= x <= sc["max"]:
            return out + [f"scale_value {x:g} is outside {sc['min']:g}..{sc['max']:g}"]
        off = (x - sc["min"]) / sc["step"]
        return out + ([] if abs(off - round(off)) < 1e-9 else [f"scale_value {x:g} is not on the scale's steps of {sc['step']:g}"])
    if mode == MULTI:
        dims = {d["name"]: d for d in dimensions_of(scheme)}
        for k, x in value.items():
            if k not in dims:
                out.append(f"{show(k)} is not a dimension ({', '.join(dims)})")
            else:
                out += _sides(x, SIDES + ([TIE] if dims[k]["allow_tie"] else []), k)
        return out
    allowed = SIDES + ([TIE] if scheme.get("allow_tie") else [])
    if set(value) != {"selection"}:
        return out + [f'expected {{"selection": one of {", ".join(allowed)}}}, got {show(value)}']
    return out + _sides(value["selection"], allowed, "selection")


def rows(value: Any, scheme: Scheme) -> list[dict]:
    if not isinstance(value, dict):
        return []
    given = justification(value.get("justification")) if "justification" in value else None
    out = [{"reason": r} for r in (given[0] if given else []) if isinstance(r, str)]
    if "scale_value" in value:
        x = number(value["scale_value"])
        if x is not None:
            out.append({"score": x, "side": "A" if x < 0 else "B" if x > 0 else TIE})
    elif "selection" in value:
        sel = value.get("selection")
        out += [{"label": sel, "side": sel}] if isinstance(sel, str) else []
    else:
        out += [{"dimension": k, "side": x} for k, x in value.items() if k != "justification" and isinstance(x, str)]
    return out


def _win_rates(table, names: dict) -> tuple[list[dict], float | None]:
    sides = count(table, ["side"]) if "side" in table else {}
    a, b, tie = sides.get("A", 0), sides.get("B", 0), sides.get(TIE, 0)
    decided, total = a + b, a + b + tie
    return ([{"side": s, "name": names[s], "wins": n, "win_rate": n / decided if decided else None}
             for s, n in (("A", a), ("B", b))], tie / total if total else None)


def rollup(scheme_rows: SchemeRows) -> dict:
    """Each side's count and share, and win rates over the decided comparisons (per dimension too)."""
    scheme, table = scheme_rows.scheme, scheme_rows.table
    names = dict(zip(SIDES, scheme.get("labels") or SIDES))
    names[TIE] = scheme.get("tie_label") or "No preference"
    out = label_counts(scheme_rows, "side", SIDES + [TIE])
    for row in out["labels"]:
        row["name"] = names.get(row["label"], row["label"])
    out["win_rates"], out["tie_rate"] = _win_rates(table, names)
    if scheme.get("mode") == "scale":
        out["scale"] = {**mean_interval(table["score"].tolist() if "score" in table else []),
                        "values": [{"value": k, "count": n} for k, n in sorted(count(table, ["score"]).items())]
                        if "score" in table else []}
    if scheme.get("mode") == MULTI:
        out["dimensions"] = []
        for d in dimensions_of(scheme):
            mine = table[table["dimension"] == d["name"]] if "dimension" in table else table.iloc[:0]
            (a, b), tie = _win_rates(mine, names)
            out["dimensions"].append({"dimension": d["name"], "A": a["wins"], "B": b["wins"],
                                      "win_rate_A": a["win_rate"], "win_rate_B": b["win_rate"], "tie_rate": tie})
    if "reason" in table and table["reason"].notna().any():
        reasons = count(table, ["reason"])
        known = (scheme.get("justification") or {}).get("reason_categories")
        out["reasons"] = [{"reason": r, "count": reasons[r]} for r in in_order(known, reasons) if r in reasons]
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    scheme = scheme_rows.scheme
    if scheme.get("mode") == MULTI:
        out = {"dimensions": {}}
        for d in dimensions_of(scheme):
            mine = scheme_rows.table[scheme_rows.table["dimension"] == d["name"]] if "dimension" in scheme_rows.table \
                else scheme_rows.table.iloc[:0]
            part = replace(scheme_rows, table=mine)
            out["dimensions"][d["name"]] = choice_agreement(part, disagreements, column="side", kind=d["name"])[d["name"]]
        return out
    if scheme.get("mode") != "scale":
        return choice_agreement(scheme_rows, disagreements, column="label", kind="choice")
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    given = given[given["score"].notna()] if "score" in given else given
    table = judgements(given["item"], given["rater"], given.get("score", []))
    disagreements.add(table, lambda unit: (panel.items[unit], "preference"), "preference", show_number, gap=SCORE_GAP)
    return {"scale": ordinal(table), "direction": nominal(judgements(given["item"], given["rater"], given.get("side", [])))}


def dimensions(value: Any) -> list[dict]:
    """`dimensions: [{name, description, allow_tie, tie_label}]` (multi_dimension mode)."""
    if not isinstance(value, list) or not value:
        raise Invalid(f"expected a list of {{name, description, allow_tie}}, got {show(value)}")
    out = []
    for i, d in enumerate(value):
        d = {"name": d} if isinstance(d, str) else d
        if not isinstance(d, dict) or not isinstance(d.get("name"), str) or not d["name"].strip() \
                or d["name"] == "justification" or set(d) - {"name", "description", "allow_tie", "tie_label"}:
            raise Invalid(f"expected {{name, description, allow_tie, tie_label}}, got {show(d)}", f"[{i}]")
        out.append({"name": d["name"], "description": str(d.get("description") or ""),
                    "allow_tie": v.boolean(d.get("allow_tie", False)), "tie_label": str(d.get("tie_label") or "Tie")})
    v._unique([d["name"] for d in out], "dimension")
    return out


def justification_config(value: Any) -> dict:
    """`justification: {required, reason_categories, min_rationale_chars, rationale_placeholder}`."""
    keys = {"required", "reason_categories", "min_rationale_chars", "rationale_placeholder"}
    if not isinstance(value, dict) or set(value) - keys:
        raise Invalid(f"expected {{{', '.join(sorted(keys))}}}, got {show(value)}")
    return {"required": v.boolean(value.get("required", False)),
            "reason_categories": names(0)(value.get("reason_categories", [])),
            "min_rationale_chars": v.integer(0, 100000)(value.get("min_rationale_chars", 0)),
            "rationale_placeholder": v.string(value.get("rationale_placeholder", ""))}


TYPE = AnnotationType(
    name="pairwise", title="Pairwise comparison", page="pages/pairwise.py",
    keys={"mode": Key(one_of("binary", "scale", MULTI), default="binary"),
          "items_key": Key(v.nonempty_string, doc="item field holding the list whose first two entries are compared"),
          "items": Key(v.string_list(2), doc="two fixed candidates, when the items hold none"),
          "show_labels": Key(v.boolean, default=True),
          "labels": Key(two_labels, default=["A", "B"]),
          "allow_tie": Key(v.boolean, default=False),
          "tie_label": Key(v.nonempty_string, default="No preference"),
          "scale": Key(scale_config),
          "dimensions": Key(dimensions, doc="multi_dimension mode: the dimensions, each its own A/B choice"),
          "justification": Key(justification_config, doc="reasons and a rationale for the preference"),
          "randomize_order": Key(v.boolean, default=False, doc="accepted; Baton always shows A left, B right")},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate,
    looks_like=lambda value: isinstance(value, dict) and (bool(set(value) & {"selection", "scale_value"}) or (
        bool(value) and all(x in SIDES + [TIE] for k, x in value.items() if k != "justification"))),
    headline=lambda measures: measures.get("choice") or measures.get("scale")
    or next(iter((measures.get("dimensions") or {}).values()), None))
