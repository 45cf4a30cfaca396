"""One scheme's judgements as the summary sees them, and the panel of annotators who judged each item.

`SchemeRows` is what a type's summary functions receive: the scheme, its judgement rows, its
long table (one row per thing a stored value says: an attribution, a handoff entry, a score,
a marked turn; built by the type's own `rows`), the summary's items in order, the tolerance k
and the trace derivations.

`Panel` holds the items two or more annotators judged on the scheme: those are the only ones
where agreement means anything. An annotator who judged an item on the scheme and left one of
its objects alone gave that object the type's default ("normal" edge, untagged step). Items
are numbered in the summary's order (those no longer in the project after, by first
judgement), annotators listed by name.

No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np
import pandas as pd

from app.types.base import Scheme
from app.traces.derive import Derivation


class Panel:
    """The items of one scheme judged by two or more annotators, and who judged each."""

    def __init__(self, judged: pd.DataFrame, item_order: list[str]):
        item_code, item_names = pd.factorize(judged["item_id"])
        rater_code, rater_names = pd.factorize(judged["annotator"])
        named = (item_code >= 0) & (rater_code >= 0)
        width = max(len(rater_names), 1)
        pairs = pd.unique(item_code[named].astype(np.int64) * width + rater_code[named])
        pair_item, pair_rater = pairs // width, pairs % width
        raters_per_item = np.bincount(pair_item, minlength=len(item_names))
        names = np.asarray(item_names, dtype=object)
        place = {item: i for i, item in enumerate(dict.fromkeys(item_order))}
        shared = np.flatnonzero(raters_per_item >= 2)
        first_pair = np.zeros(len(item_names), dtype=np.int64)
        seen_items, first_at = np.unique(pair_item, return_index=True)
        first_pair[seen_items] = first_at
        # (the summary's items in its order, then those no longer in the project by first judgement)
        ordered = sorted(shared.tolist(),
                         key=lambda c: (0, place[names[c]]) if names[c] in place else (1, int(first_pair[c])))
        self.items: list[str] = names[ordered].tolist()
        self.code: dict[str, int] = {item: i for i, item in enumerate(self.items)}
        new_code = np.full(len(item_names), -1, dtype=np.int64)
        new_code[ordered] = np.arange(len(ordered))
        on_panel = new_code[pair_item] >= 0
        self.entries = pd.DataFrame({"item": new_code[pair_item[on_panel]],
                                     "rater": np.asarray(rater_names, dtype=object)[pair_rater[on_panel]]}
                                    ).sort_values(["item", "rater"], kind="stable").reset_index(drop=True)
        self.raters: list[str] = sorted(self.entries["rater"].unique())

    def __len__(self) -> int:
        return len(self.items)

    def members(self, table: pd.DataFrame) -> pd.DataFrame:
        """The rows of `table` (item_id, annotator, ...) whose annotator is on the item's panel,
        with the item's code (`item`) and the annotator (`rater`) as columns."""
        if table.empty or not len(self):
            return table.iloc[:0].assign(item=pd.Series([], dtype=np.int64), rater=pd.Series([], dtype=object))
        code = table["item_id"].map(self.code)
        # (every row of a panel item is its annotator's: the panel is made of the scheme's own rows)
        keep = (code.notna() & table["annotator"].notna()).to_numpy(dtype=bool)
        return table[keep].assign(item=code[keep].astype(np.int64).to_numpy(),
                                  rater=table["annotator"][keep].to_numpy(dtype=object))

    def per_item(self) -> pd.DataFrame:
        """(unit, rater) of every panel member, the item being the unit."""
        return self.entries.rename(columns={"item": "unit"})

    def objects(self, of_item: Callable[[str], list[dict]], describe: Callable[[dict], str]) -> "Objects":
        """The objects annotators judge on each panel item (its steps, handoffs, regions)."""
        return Objects(self, of_item, describe)


class Objects:
    """One row per object of each panel item, with its unit code (in item, then object order)."""

    def __init__(self, panel: Panel, of_item: Callable[[str], list[dict]], describe: Callable[[dict], str]):
        rows = [{"item": code, **obj} for code, item in enumerate(panel.items) for obj in of_item(item)]
        self.frame = pd.DataFrame(rows) if rows else pd.DataFrame({"item": pd.Series([], dtype=np.int64)})
        self.frame["unit"] = np.arange(len(self.frame), dtype=np.int64)
        self.panel = panel
        self._describe = describe

    def __len__(self) -> int:
        return len(self.frame)

    def every_rater(self, units: pd.Series | None = None) -> pd.DataFrame:
        """(unit, rater) for every panel rater of each object's item (of `units`, or all)."""
        frame = self.frame if units is None else self.frame[self.frame["unit"].isin(units)]
        return frame[["item", "unit"]].merge(self.panel.entries, on="item")[["unit", "rater"]]

    def attach(self, given: pd.DataFrame, on: list[str]) -> pd.DataFrame:
        """`given` (with item codes) joined to the objects it names on `on`: adds `unit`, drops
        judgements of objects the trace does not have."""
        if given.empty or self.frame.empty:
            return given.iloc[:0].assign(unit=pd.Series([], dtype=np.int64))
        keys = self.frame[["item", "unit"] + on]
        left = given.copy()
        for c in on:
            if pd.api.types.is_integer_dtype(keys[c]):
                left[c] = pd.to_numeric(left[c], errors="coerce").astype("Int64")
                keys = keys.astype({c: "Int64"})
            else:
                left[c] = left[c].astype(object)
                keys = keys.astype({c: object})
        return left.merge(keys, on=["item"] + on, how="inner")

    def describe(self, unit: int) -> tuple[str, str]:
        row = self.frame.iloc[unit]
        return self.panel.items[int(row["item"])], self._describe(row.to_dict())


@dataclass
class SchemeRows:
    """One scheme's judgements under the summary's filters (see the module's docstring)."""

    scheme: Scheme
    judged: pd.DataFrame  # item_id, annotator, status, seconds_spent: one row per judgement
    table: pd.DataFrame  # item_id, annotator, status + the type's row columns
    item_ids: list[str]  # the summary's items, in order
    k: int
    derive: Callable[[str], Derivation | None]
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def panel(self) -> Panel:
        return Panel(self.judged, self.item_ids)
