"""The summary's `orchestration` section: outcomes and failure rates per confirmed pattern, and
how often annotators kept the pattern suggested from the trace.

- The pattern of a run, per annotator, is that annotator's answer to the orchestration question
  (the project's `orchestration_scheme`, or the radio recognised by its labels:
  app/project/orchestration.py). An unanswered item has no confirmed pattern: the suggestion
  alone is never counted as an answer.
- The outcome is the same annotator's answer, on the same item, to the outcome question: the
  first other radio scheme with a label `failure` (or `fail`, `failed`). `failure_rate` is the
  share of the pattern's answered outcomes that are failures; `partial` and the other labels are
  counted under `outcomes`. `items_with_gold_failure`: the pattern's items whose gold (Who&When,
  TRAIL, AgentRx) locates a failure.
- The suggestion is worked out again from each item's trace as it is now (it is a function of the
  trace alone: app/traces/orchestration.suggest), and compared with the answer: `kept` when they
  are the same label.

No Streamlit here.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from app.summary import gold as goldmod
from app.summary.rows import Derivations, judgements, parse
from app.traces.orchestration import PATTERNS, suggest
from app.types.radio import TYPE as RADIO, choice
from app.types.registry import TYPES

FAILED = ("failure", "fail", "failed")


def outcome_scheme(project) -> Any:
    """The outcome question: the first radio other than the orchestration one with a failure label."""
    for s in project.schemes:
        if s.type == RADIO.name and s.name != project.orchestration_scheme:
            if any(lab["name"].lower() in FAILED for lab in s["labels"]):
                return s
    return None


def _answers(judged: pd.DataFrame, scheme_name: str) -> dict[tuple[str, str], str]:
    """{(item, annotator): chosen label} of one radio scheme."""
    rows = judged[judged["scheme"] == scheme_name]
    codes, texts = pd.factorize(rows["value"])
    chosen = [choice(v if isinstance(v := parse(text), dict) else None) for text in texts]  # (each text once)
    out = {}
    for item, who, code in zip(rows["item_id"].tolist(), rows["annotator"].tolist(), codes.tolist()):
        if code >= 0 and chosen[code] is not None:
            out[(item, who)] = chosen[code]
    return out


def _suggested(ws, d, item: str) -> str | None:
    return suggest(ws.by_id[item].data, d).pattern if d is not None else None


def _rate(n: int, of: int) -> float | None:
    return n / of if of else None


def orchestration(ws, df: pd.DataFrame, item_ids: list[str]) -> dict:
    """The section (JSON-ready), under the summary's filters (`df` already filtered)."""
    project = ws.project
    name = project.orchestration_scheme
    outcome = outcome_scheme(project)
    base = {"scheme": name, "outcome_scheme": outcome.name if outcome is not None else None}
    if name is None:
        return {**base, "patterns": [], "suggestion": None,
                "note": "no orchestration question in the project (see docs/layouts.md)"}
    wanted = set(item_ids)
    judged = judgements(df)
    judged = judged[judged["item_id"].isin(wanted)]
    patterns = _answers(judged, name)
    outcomes = _answers(judged, outcome.name) if outcome is not None else {}
    golds = {it.id for it in ws.items if it.id in wanted and goldmod.normalize(it.gold)}
    trace = next((s for s in project.schemes if TYPES[s.type].trace), None)
    derive = Derivations.of(ws).getter(trace)
    suggested: dict[str, str | None] = {}
    for item, _ in patterns:
        if item not in suggested:
            suggested[item] = Derivations.of(ws).memo(
                "orchestration", item, lambda item=item: _suggested(ws, derive(item), item))

    per: dict[str, dict] = {}
    for (item, who), pattern in patterns.items():
        p = per.setdefault(pattern, {"pattern": pattern, "judgements": 0, "items": set(), "outcomes": Counter(),
                                     "suggested_here": 0})
        p["judgements"] += 1
        p["items"].add(item)
        if (item, who) in outcomes:
            p["outcomes"][outcomes[(item, who)]] += 1
        p["suggested_here"] += suggested.get(item) == pattern
    order = {p: i for i, p in enumerate(PATTERNS)}
    table = []
    for p in sorted(per.values(), key=lambda p: (order.get(p["pattern"], len(order)), p["pattern"])):
        answered = sum(p["outcomes"].values())
        failed = sum(n for label, n in p["outcomes"].items() if label.lower() in FAILED)
        table.append({"pattern": p["pattern"], "judgements": p["judgements"], "items": len(p["items"]),
                      "outcomes": dict(p["outcomes"]), "outcomes_answered": answered, "failures": failed,
                      "failure_rate": _rate(failed, answered),
                      "items_with_gold_failure": len(p["items"] & golds),
                      "suggested_and_kept": p["suggested_here"]})
    return {**base, "patterns": table, "suggestion": _kept(patterns, suggested)}


def _kept(patterns: dict[tuple[str, str], str], suggested: dict[str, str | None]) -> dict:
    """How often the answer is the suggestion: overall, per annotator, per suggested pattern."""
    kept = Counter()
    seen = Counter()
    by_suggestion: dict[str, Counter] = {}
    for (item, who), pattern in patterns.items():
        s = suggested.get(item)
        if s is None:
            continue
        seen[who] += 1
        kept[who] += s == pattern
        by_suggestion.setdefault(s, Counter())[pattern] += 1
    n, k = sum(seen.values()), sum(kept.values())
    return {"judgements": n, "kept": k, "changed": n - k, "kept_rate": _rate(k, n),
            "by_annotator": [{"annotator": w, "judgements": seen[w], "kept": kept[w],
                              "kept_rate": _rate(kept[w], seen[w])} for w in sorted(seen)],
            "by_suggested": [{"suggested": s, "judgements": sum(c.values()), "kept": c[s],
                              "chosen_instead": {p: x for p, x in c.items() if p != s}}
                             for s, c in sorted(by_suggestion.items())]}
