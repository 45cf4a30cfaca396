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
    who = sorted(set(rows["annotator"]) | set(named["annotator"]))
    judged_by = named.groupby("annotator").size()
    touched = named.groupby("annotator")["item_id"].nunique()
    done_by = done.groupby("annotator").size()
    by_annotator = [{"annotator": a, "items_done": int(done_by.get(a, 0)), "items_total": n_items,
                     "items_touched": int(touched.get(a, 0)), "judgements": int(judged_by.get(a, 0)),
                     "seconds": int(secs_of.get(a, 0)) / 1e6} for a in who]
    per_scheme = judged.groupby("scheme").size()
    schemes = [s for s in in_order(configured, per_scheme.index) if per_scheme.get(s, 0)]
    by_scheme = []
    for s in schemes:
        mine = judged[judged["scheme"] == s]
        types = mine["annotation_type"].value_counts()
        typ = min(types.items(), key=lambda x: (-x[1], order_key(x[0])))[0]
        sec = int(secs_by_scheme.get(s, 0)) / 1e6
        n = int(per_scheme[s])
        by_scheme.append({"scheme": s, "type": typ, "items": int(mine["item_id"].nunique()),
                          "annotators": int(mine.loc[mine["item_id"].notna(), "annotator"].nunique()),
                          "judgements": n, "reviewed_clean": int((mine["status"] == "reviewed_clean").sum()),
                          "seconds": sec, "seconds_per_judgement": sec / n})
    rank = {s: i for i, s in enumerate(schemes)}
    grid = named[named["scheme"].isin(rank)].groupby(["annotator", "scheme"])["item_id"].nunique()
    cells = sorted(((a, s, int(n)) for (a, s), n in grid.items() if n), key=lambda x: (x[0], rank[x[1]]))
    return {"by_annotator": by_annotator, "by_scheme": by_scheme,
            "by_annotator_scheme": [{"annotator": a, "scheme": s, "items": n} for a, s, n in cells],
            "annotators": int(rows.groupby("annotator").size().gt(0).sum()), "judgements": int(len(judged))}
