"""What the choice types (radio, multiselect, likert) share in the summary: the count of each label.

No Streamlit here.
"""
from __future__ import annotations

from app.stats.counting import count, distinct, in_order
from app.types.panel import SchemeRows


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
