"""What the choice types (radio, multiselect, likert, and the Potato types built on them) share in
the summary: the count of each label, agreement on one choice per item, agreement on sets of labels.

No Streamlit here.
"""
from __future__ import annotations

from app.stats.agreement import jaccard, judgements, marked_each, nominal, sets_of, show_set, with_default
from app.stats.counting import count, distinct, in_order
from app.types.panel import SchemeRows

NONE = "(none)"  # what an annotator who chose nothing chose, in agreement


def label_counts(rows: SchemeRows, column: str, configured: list | None) -> dict:
    """Per label: how many judgements chose it, on how many runs, and its share of the
    scheme's judgements; configured labels first, in their order."""
    table = rows.table
    counted = count(table, [column]) if column in table else {}
    runs = distinct(table, [column], "item_id") if column in table else {}
    n = max(len(rows.judged), 1)
    return {"type": rows.scheme.type,
            "labels": [{"label": x, "count": counted[x], "runs": runs.get(x, 0), "share": counted[x] / n}
                       for x in in_order(configured, counted) if x in counted]}


def choice_agreement(scheme_rows: SchemeRows, disagreements, column: str = "label", kind: str = "choice") -> dict:
    """Agreement on the one choice per item held in `column` (rows without one are not choices): an
    annotator on the item's panel who chose nothing chose NONE. Cohen's or Fleiss' kappa,
    Krippendorff's nominal alpha, percent agreement."""
    panel = scheme_rows.panel
    chosen = panel.members(scheme_rows.table)
    if column in chosen:
        chosen = chosen[chosen[column].notna()]
    table = with_default(judgements(chosen["item"], chosen["rater"], chosen.get(column, [])), panel.per_item(), NONE)
    disagreements.add(table, lambda unit: (panel.items[unit], kind), kind)
    return {kind: nominal(table)}


def set_agreement(scheme_rows: SchemeRows, disagreements, configured: list | None, column: str = "label") -> dict:
    """Agreement on the set of labels each annotator chose per item: per label, whether each
    annotator chose it; the Jaccard of the sets chosen (an annotator who chose none chose {})."""
    panel = scheme_rows.panel
    chosen = panel.members(scheme_rows.table)
    if column in chosen:
        chosen = chosen[chosen[column].notna()]
    seen = scheme_rows.table[column].dropna().unique() if column in scheme_rows.table else []
    every = panel.per_item()
    marks = chosen.rename(columns={"item": "unit"}) if column in chosen else chosen.assign(unit=[], **{column: []})
    labels = marked_each(marks, every, column, in_order(configured, seen))
    sets = sets_of(chosen["item"], chosen["rater"], chosen.get(column, []))
    shown = sets.assign(value=[tuple(sorted(x)) for x in sets["value"]])
    disagreements.add(with_default(shown, every, ()), lambda unit: (panel.items[unit], "labels"), "labels", show_set)
    return {"labels": labels, "jaccard": jaccard(with_default(sets, every, frozenset()))}
