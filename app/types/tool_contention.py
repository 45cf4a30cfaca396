"""tool_contention: a label for each contention region of a run's tool calls (deadlock,
circular wait, race condition, benign).

Stored value: `{"contentions": {"<region index>": label}}` for the labelled regions; a region
left alone is "unlabelled". The regions are the derivation's (app/traces/contention.py),
numbered deterministically so that a stored index always names the same region of an
unchanged trace; a label whose region the trace no longer has is stale.

The timeline the surface draws (lanes, bars, shading, clicks, paging) is app/ui/contention_view.py.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from app.project import validators as v
from app.stats.agreement import NO_PAIRS, NO_VARIATION, Disagreements, judgements, nominal, with_default
from app.stats.counting import in_order, sorted_keys
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme, as_int
from app.types.panel import SchemeRows

UNLABELLED = "unlabelled"
KEY = "contentions"


def labels_of(value: Any) -> dict[int, str]:
    """{region index: label} from a stored value; anything malformed is skipped."""
    raw = value.get(KEY) if isinstance(value, dict) else None
    out: dict[int, str] = {}
    if isinstance(raw, dict):
        for k, label in raw.items():
            try:
                i = int(k)
            except (TypeError, ValueError):
                continue
            if isinstance(label, str) and label and str(i) == str(k):
                out[i] = label
    return out


def to_value(labels: dict[int, str]) -> dict:
    """{"contentions": {"<idx>": label}} in region order; unlabelled regions left out."""
    return {KEY: {str(i): labels[i] for i in sorted(labels) if labels[i] and labels[i] != UNLABELLED}}


def set_label(value: Any, region: int, label: str | None) -> dict:
    """The value with one region labelled (or unlabelled when label is None/UNLABELLED)."""
    labels = labels_of(value)
    if label is None or label == UNLABELLED:
        labels.pop(region, None)
    else:
        labels[region] = label
    return to_value(labels)


def is_empty(value: Any) -> bool:
    return not labels_of(value)


# --- the summary ------------------------------------------------------------------------------

def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per labelled region (region index, label) of a stored value."""
    raw = value.get(KEY) if isinstance(value, dict) else None
    out = []
    for key, label in (raw.items() if isinstance(raw, dict) else ()):
        region = as_int(key)
        if region is not None and isinstance(label, str) and label and label != UNLABELLED:
            out.append({"region": region, "label": label})
    return out


def _regions(scheme_rows: SchemeRows, item_id: str) -> list[dict]:
    """The contention regions of an item's trace now, in the derivation's order."""
    derivation = scheme_rows.derive(item_id)
    return [] if derivation is None else [{"region": r.index, "resource": r.resource} for r in derivation.contentions]


def rollup(scheme_rows: SchemeRows) -> dict:
    """How many labels each (resource, label) got, the resource being that of the region the
    label names in the trace now; `stale`: labels naming a region the trace does not have."""
    table = scheme_rows.table
    counts: dict[tuple, int] = {}
    stale = 0
    resources: dict[str, dict] = {}  # item -> {region index: resource} (regions sharing an index: the last)
    if len(table) and "region" in table:
        for item, region, label in zip(table["item_id"].tolist(), table["region"].tolist(), table["label"].tolist()):
            if item not in resources:
                resources[item] = {r["region"]: r["resource"] for r in _regions(scheme_rows, item)}
            if region not in resources[item]:
                stale += 1
                continue
            key = (resources[item][region], label)
            if not any(x is None or x != x for x in key):
                counts[key] = counts.get(key, 0) + 1
    return {"labels": [{"resource": resource, "label": label, "count": counts[(resource, label)]}
                       for resource, label in sorted_keys(counts)],
            "stale": stale}


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """The label of each region of the trace ("unlabelled" where an annotator who judged the
    item left it alone), over every label, and per label whether each annotator gave it.
    Labels naming a region the trace no longer has are left out."""
    panel = scheme_rows.panel
    regions = panel.objects(lambda item: _regions(scheme_rows, item),
                            lambda region: f"region {region['region']} ({region['resource']})")
    given = panel.members(scheme_rows.table)
    given = given if "region" in given else given.assign(region=pd.Series([], dtype=object), label=[])
    on = regions.attach(given[["item", "rater", "region", "label"]], on=["region"])
    every = regions.every_rater()
    explicit = judgements(on["unit"], on["rater"], on["label"])
    overall = with_default(explicit, every, UNLABELLED)
    # (the labels seen anywhere in the scheme's rows, on items two annotators judged or not)
    seen = scheme_rows.table["label"].dropna().unique().tolist() if "label" in scheme_rows.table else []
    per_label = _PerLabel(explicit, every, len(regions))
    labels = {label: per_label.nominal(label)
              for label in in_order(scheme_rows.scheme.get("contention_labels"), seen) if label != UNLABELLED}
    disagreements.add(overall, regions.describe, "contention")
    return {"label": nominal(overall), "labels": labels}


class _PerLabel:
    """Per label, nominal agreement on whether each annotator gave it to each region, as the
    summary before the one-pass one counted it (the golden files hold its numbers).

    That count differs from nominal(with_default(...)) in one way: within a region, the
    annotators who left it alone (not giving the label) and those who gave it another label
    (not giving it either) are two groups that do not pair as agreeing, while the totals
    (Fleiss' and alpha's expected agreement, Cohen's margins) count both as "not given". For
    the plain measure, use nominal(with_default(judgements(unit, rater, label == x), every,
    False)) instead."""

    def __init__(self, explicit: pd.DataFrame, every: pd.DataFrame, n_units: int):
        self.unit = explicit["unit"].to_numpy(dtype=np.int64)
        self.rater = explicit["rater"].to_numpy(dtype=object)
        self.label = explicit["value"].to_numpy(dtype=object)
        # raters per region (each who gave a label is on the region's panel)
        self.m = np.bincount(every["unit"].to_numpy(dtype=np.int64), minlength=n_units).astype(np.float64)
        self.ok = self.m >= 2
        self.given = np.bincount(self.unit, minlength=n_units).astype(np.float64)
        self.raters = sorted(every.loc[self.ok[every["unit"].to_numpy(dtype=np.int64)], "rater"].unique())
        self.everyone = int(every["rater"].nunique())

    def nominal(self, label: str) -> dict:
        if not self.ok.any():
            return {"measure": None, "kappa": None, "alpha": None, "percent_agreement": None, "n_units": 0,
                    "n_raters": self.everyone, "note": NO_PAIRS}
        hit = self.label == label
        ok, n_units = self.ok, int(self.ok.sum())
        m = self.m[ok]
        gave = np.bincount(self.unit[hit], minlength=len(self.m)).astype(np.float64)[ok]
        other = self.given[ok] - gave  # gave another label
        silent = m - self.given[ok]  # left the region alone
        pairs = gave * (gave - 1) + other * (other - 1) + silent * (silent - 1)
        judged = m.sum()
        totals = np.array([gave.sum(), judged - gave.sum()])
        p_bar = float((pairs / (m * (m - 1))).mean())
        d_o = (judged - (pairs / (m - 1)).sum()) / judged
        d_e = (judged * judged - np.square(totals).sum()) / (judged * (judged - 1))
        out: dict[str, Any] = {"n_units": n_units, "n_raters": len(self.raters), "percent_agreement": p_bar,
                               "alpha": None if np.isclose(d_e, 0.0) else float(1.0 - d_o / d_e)}
        if len(self.raters) == 2:
            agreeing = int(((gave == m) | (other == m) | (silent == m)).sum())
            in_ok = ok[self.unit]
            # each rater's "given" count, and "not given" (another label, or nothing) over the units
            margins = [(int((hit & in_ok & (self.rater == r)).sum()),) for r in self.raters]
            margins = [(g, n_units - g) for (g,) in margins]
            p_e = sum(a * b for a, b in zip(*margins)) / (n_units * n_units)
            out.update(measure="cohen_kappa",
                       kappa=None if np.isclose(p_e, 1.0) else (agreeing / n_units - p_e) / (1 - p_e))
        else:
            p_e = float(np.square(totals / judged).sum())
            out.update(measure="fleiss_kappa", kappa=None if np.isclose(p_e, 1.0) else (p_bar - p_e) / (1 - p_e))
        if out["kappa"] is None:
            out["note"] = NO_VARIATION
        return out


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and KEY in value


def objects(value: Any, derivation) -> Any:
    """Each labelled region as the trace has it now (None: no such region)."""
    if derivation is None or not isinstance(value, dict):
        return None
    regions = {r.index: r for r in derivation.contentions}
    out = {}
    for key in (value.get(KEY) or {}):
        r = regions.get(int(key)) if str(key).lstrip("-").isdigit() else None
        out[str(key)] = None if r is None else {"resource": r.resource, "start": r.start, "end": r.end,
                                                "agents": list(r.agents), "calls": list(r.calls)}
    return {"regions": out}


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """Each label names a contention region of the run (its index) and is one of the scheme's."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    out = c.keys(value, [KEY])
    raw = value.get(KEY, {})
    if not isinstance(raw, dict):
        return out + [c.shape(raw, dict, "contentions")]
    count = None if derivation is None else len(derivation.contentions)
    labels = list(scheme.get("contention_labels") or [])
    for key, label in raw.items():
        region = as_int(key) if isinstance(key, str) and key.isdigit() and str(int(key)) == key else None
        out += c.gather(c.index(region if region is not None else key, count, "region", "contention regions"),
                        c.one_of(label, labels, f"region {c.show(key)}: label"))
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    return {("region", i): label for i, label in labels_of(value).items() if label != UNLABELLED}


def join(fields: dict, scheme: Scheme) -> dict:
    return to_value({f[1]: label for f, label in fields.items()})


TYPE = AnnotationType(
    name="tool_contention", title="Tool contention", page="pages/tool_contention.py", trace=True,
    keys={"calls_key": Key(v.nonempty_string, default="calls"), "resource_key": Key(v.nonempty_string, default="resource"),
          "contention_labels": Key(v.string_list(1), default=["deadlock", "circular_wait", "race_condition", "benign"]),
          "include_same_agent": Key(v.boolean, default=False,
                                    doc="also count overlapping calls of one agent as contention")},
    section="contention", rows=rows, rollup=rollup, agreement=agreement, looks_like=looks_like, validate=validate, parts=parts, join=join,
    objects=objects, headline=lambda measures: measures.get("label"))
