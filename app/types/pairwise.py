"""pairwise: which of two things an item holds is better (Potato's pairwise comparison).

What is compared: two candidates **within one item**, shown side by side: the first two entries
of the item's list named by `items_key` (e.g. `responses: [run A's answer, run B's answer]`, or
two runs' traces), else the item's `left` and `right` fields. Potato does the same; it compares
neither two items of the project nor two steps of a trace. The sides are stored by position, A
(left) and B (right), never by text, as Potato stores them.

Stored as Potato stores it: binary mode `{"selection": "A" | "B" | "tie"}`; scale mode
`{"scale_value": "-2"}` (negative: A preferred, 0: equal, positive: B preferred).

Summary: counts of each side, win rates (A's and B's share of the decided comparisons, the tie
rate); scale mode the distribution and mean. Agreement: nominal on the selection (binary), ordinal
alpha on the scale value and nominal on its direction (scale).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.project.validators import Invalid, show
from app.stats.agreement import judgements, nominal, ordinal, show_number
from app.stats.counting import count, mean_interval
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import choice_agreement, label_counts
from app.types.options import one_of
from app.types.panel import SchemeRows

SIDES = ["A", "B"]
TIE = "tie"
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


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: a bare side ("A", "B", "tie", or a side's display
    name) or a number (scale mode); Potato's `{"selection": ...}` and `{"scale_value": ...}` as they are."""
    if scheme.get("mode") == "scale" and number(value) is not None:
        return build(scale_value=number(value))
    if isinstance(value, str):
        by_name = {n: s for n, s in zip(scheme.get("labels") or [], SIDES)}
        return build(by_name.get(value, value))
    return value


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict):
        return [f"expected a mapping, got {show(value)}"]
    if scheme.get("mode") == "scale":
        if set(value) != {"scale_value"}:
            return [f'expected {{"scale_value": number}} (scale mode), got {show(value)}']
        x, sc = number(value["scale_value"]), scale_of(scheme)
        if x is None:
            return [f"scale_value {show(value['scale_value'])} is not a number"]
        if not sc["min"] <= x <= sc["max"]:
            return [f"scale_value {x:g} is outside {sc['min']:g}..{sc['max']:g}"]
        off = (x - sc["min"]) / sc["step"]
        return [] if abs(off - round(off)) < 1e-9 else [f"scale_value {x:g} is not on the scale's steps of {sc['step']:g}"]
    allowed = SIDES + ([TIE] if scheme.get("allow_tie") else [])
    if set(value) != {"selection"}:
        return [f'expected {{"selection": one of {", ".join(allowed)}}}, got {show(value)}']
    got = value["selection"]
    return [] if got in allowed else [f"selection {show(got)} is not one of {', '.join(allowed)}"
                                      + ("" if scheme.get("allow_tie") or got != TIE else " (allow_tie is off)")]


def rows(value: Any, scheme: Scheme) -> list[dict]:
    if not isinstance(value, dict):
        return []
    if "scale_value" in value:
        x = number(value["scale_value"])
        if x is None:
            return []
        return [{"score": x, "side": "A" if x < 0 else "B" if x > 0 else TIE}]
    sel = value.get("selection")
    return [{"label": sel, "side": sel}] if isinstance(sel, str) else []


def rollup(scheme_rows: SchemeRows) -> dict:
    """Each side's count and share, and win rates over the decided comparisons."""
    scheme, table = scheme_rows.scheme, scheme_rows.table
    names = dict(zip(SIDES, scheme.get("labels") or SIDES))
    names[TIE] = scheme.get("tie_label") or "No preference"
    out = label_counts(scheme_rows, "side", SIDES + [TIE])
    for row in out["labels"]:
        row["name"] = names.get(row["label"], row["label"])
    sides = count(table, ["side"]) if "side" in table else {}
    a, b, tie = sides.get("A", 0), sides.get("B", 0), sides.get(TIE, 0)
    decided, total = a + b, a + b + tie
    out["win_rates"] = [{"side": s, "name": names[s], "wins": n, "win_rate": n / decided if decided else None}
                        for s, n in (("A", a), ("B", b))]
    out["tie_rate"] = tie / total if total else None
    if scheme.get("mode") == "scale":
        out["scale"] = {**mean_interval(table["score"].tolist() if "score" in table else []),
                        "values": [{"value": k, "count": n} for k, n in sorted(count(table, ["score"]).items())]
                        if "score" in table else []}
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    if scheme_rows.scheme.get("mode") != "scale":
        return choice_agreement(scheme_rows, disagreements, column="label", kind="choice")
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    given = given[given["score"].notna()] if "score" in given else given
    table = judgements(given["item"], given["rater"], given.get("score", []))
    disagreements.add(table, lambda unit: (panel.items[unit], "preference"), "preference", show_number, gap=SCORE_GAP)
    return {"scale": ordinal(table), "direction": nominal(judgements(given["item"], given["rater"], given.get("side", [])))}


TYPE = AnnotationType(
    name="pairwise", title="Pairwise comparison", page="pages/pairwise.py",
    keys={"mode": Key(one_of("binary", "scale"), default="binary"),
          "items_key": Key(v.nonempty_string, doc="item field holding the list whose first two entries are compared"),
          "items": Key(v.string_list(2), doc="two fixed candidates, when the items hold none"),
          "show_labels": Key(v.boolean, default=True),
          "labels": Key(two_labels, default=["A", "B"]),
          "allow_tie": Key(v.boolean, default=False),
          "tie_label": Key(v.nonempty_string, default="No preference"),
          "scale": Key(scale_config),
          "randomize_order": Key(v.boolean, default=False, doc="accepted; Baton always shows A left, B right")},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate,
    looks_like=lambda value: isinstance(value, dict) and bool(set(value) & {"selection", "scale_value"}),
    headline=lambda measures: measures.get("choice") or measures.get("scale"))
