"""Progress: per annotator, per scheme and per annotator × scheme, items, judgements and time.

Time is every stored row's `seconds_spent` (done marks and cleared rows too), summed in whole
microseconds so that the total does not depend on the rows' order; a missing time adds
nothing and a hand-made one past MAX_SECONDS is taken as that.

No Streamlit here.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from app.stats.counting import in_order, order_key

MAX_SECONDS = 9e12  # 285,000 years: whole microseconds still fit in 64 bits


def _micros(seconds: pd.Series) -> pd.Series:
    x = pd.to_numeric(seconds, errors="coerce").to_numpy(dtype=np.float64)
    x = np.clip(np.where(np.isfinite(x), x, 0.0), -MAX_SECONDS, MAX_SECONDS)
    return pd.Series(np.rint(x * 1e6).astype(np.int64), index=seconds.index)


def progress(every_row: pd.DataFrame, judged: pd.DataFrame, done: pd.DataFrame, n_items: int,
             configured: list[str]) -> dict:
    """The progress section, with how many annotators and judgements there are."""
    rows = every_row[every_row["annotator"].notna()]
    micros = _micros(rows["seconds_spent"])
    secs_of = micros.groupby(rows["annotator"]).sum()
    secs_by_scheme = micros.groupby(every_row.loc[rows.index, "scheme"]).sum()
    named = judged[judged["annotator"].notna()]
    who = sorted(set(rows["annotator"].unique().tolist()) | set(named["annotator"].unique().tolist()))
    judged_by = named.groupby("annotator").size()
    touched = named.groupby("annotator")["item_id"].nunique()
    done_by = done.groupby("annotator").size()
    by_annotator = [{"annotator": a, "items_done": int(done_by.get(a, 0)), "items_total": n_items,
                     "items_touched": int(touched.get(a, 0)), "judgements": int(judged_by.get(a, 0)),
                     "seconds": int(secs_of.get(a, 0)) / 1e6} for a in who]
    per_scheme = judged.groupby("scheme").size()
    schemes = [s for s in in_order(configured, per_scheme.index) if per_scheme.get(s, 0)]
    types = judged.groupby(["scheme", "annotation_type"]).size()
    items = judged.groupby("scheme")["item_id"].nunique()
    raters = judged[judged["item_id"].notna()].groupby("scheme")["annotator"].nunique()
    clean = judged[judged["status"] == "reviewed_clean"].groupby("scheme").size()
    by_scheme = []
    for s in schemes:
        stored = types.loc[s]
        typ = min(stored.items(), key=lambda x: (-x[1], order_key(x[0])))[0]  # (the most common stored type)
        sec = int(secs_by_scheme.get(s, 0)) / 1e6
        n = int(per_scheme[s])
        by_scheme.append({"scheme": s, "type": typ, "items": int(items.get(s, 0)), "annotators": int(raters.get(s, 0)),
                          "judgements": n, "reviewed_clean": int(clean.get(s, 0)),
                          "seconds": sec, "seconds_per_judgement": sec / n})
    rank = {s: i for i, s in enumerate(schemes)}
    grid = named[named["scheme"].isin(rank)].groupby(["annotator", "scheme"])["item_id"].nunique()
    cells = sorted(((a, s, int(n)) for (a, s), n in grid.items() if n), key=lambda x: (x[0], rank[x[1]]))
    return {"by_annotator": by_annotator, "by_scheme": by_scheme,
            "by_annotator_scheme": [{"annotator": a, "scheme": s, "items": n} for a, s, n in cells],
            "annotators": int(rows.groupby("annotator").size().gt(0).sum()), "judgements": int(len(judged))}
