"""The rows a summary's parts were counted over, as the next summary needs them (app/summary.py
Parts): which items' rows changed since, and those items' rows as they were.

Which items changed is told by per item and scheme sums: how many rows, and the sums of their
row hashes' two 32-bit halves (exact in float64 below 2**21 rows an item and scheme). The sums
of the rows counted are kept, so a summary sums its own rows only; the rows themselves are read
for the changed items only (from memory, or from the state kept on disk: app/kept.py).

No Streamlit here.
"""
from __future__ import annotations

import threading

import numpy as np
import pandas as pd

from app._old.labels import positions_in


# a part that reads every row (whatever its scheme): the progress
EVERY = "*"


def item_sums(df: pd.DataFrame, hashes: np.ndarray, items: pd.Index, names: pd.Index) -> np.ndarray:
    """Per item and scheme (item-major: item * len(names) + scheme), the rows, and the sums of
    their hashes' high and low 32 bits, as a (3, items x schemes + 1) array; the last column
    sums the rows outside (of other items or schemes, or missing either)."""
    n = len(items) * len(names)
    at, sc = positions_in(df["item_id"], items), positions_in(df["scheme"], names)
    key = np.where((at >= 0) & (sc >= 0), at * len(names) + sc, n)
    return np.stack([np.bincount(key, minlength=n + 1).astype(np.float64),
                     np.bincount(key, weights=(hashes >> np.uint64(32)).astype(np.float64), minlength=n + 1),
                     np.bincount(key, weights=(hashes & np.uint64(0xFFFFFFFF)).astype(np.float64),
                                 minlength=n + 1)])


class Changes:
    """What differs between two item_sums() over the same items and names: per item and scheme
    (rows added, removed or changed), and outside (rows no item stands for: counting by items
    cannot bring them in)."""

    def __init__(self, now: np.ndarray, before: np.ndarray, items: pd.Index, names: pd.Index):
        differ = now != before
        self.outside = bool(differ[:, -1].any())
        self._items, self._names = items, names
        self._per = differ[:, :-1].any(axis=0).reshape(len(items), len(names))

    def rows(self, rows: pd.DataFrame) -> np.ndarray:
        """Which of these rows (framed) are of an item and scheme whose rows differ."""
        at, sc = positions_in(rows["item_id"], self._items), positions_in(rows["scheme"], self._names)
        ok = (at >= 0) & (sc >= 0)
        out = np.zeros(len(rows), dtype=bool)
        out[ok] = self._per[at[ok], sc[ok]]
        return out

    def items(self, schemes) -> list[str]:
        """The items whose rows of these schemes (EVERY: of any) differ, in the items' order."""
        per = self._per
        if EVERY not in schemes:
            cols = self._names.get_indexer(list(schemes))
            per = per[:, cols[cols >= 0]]
        return self._items.take(np.flatnonzero(per.any(axis=1))).tolist()


class Counted:
    """The rows parts were counted over: their item_sums() (computed when first asked, from the
    rows and their hashes) and the rows of any items. `rows` is the frame itself, or the rows
    kept on disk (app/kept.py RowsOnDisk: anything with `.of(positions)` giving those items'
    rows framed)."""

    def __init__(self, rows, items: pd.Index, names: pd.Index, hashes: np.ndarray | None = None,
                 sums: np.ndarray | None = None):
        self.rows, self.items, self.names = rows, items, names
        self._hashes, self._sums = hashes, sums
        # (the next summary and the writer of the kept state may ask at once)
        self._lock = threading.Lock()

    def sums(self) -> np.ndarray:
        with self._lock:
            if self._sums is None:
                self._sums = item_sums(self.rows, self._hashes, self.items, self.names)
                self._hashes = None
            return self._sums

    def fits(self, items: pd.Index, names: pd.Index) -> bool:
        """Whether these are sums over the same items and scheme names."""
        return self.items.equals(items) and self.names.equals(names)

    def of(self, ids: list[str], hashes_of) -> pd.DataFrame:
        """The rows of these items (framed). Rows kept on disk must give the sums kept for these
        items (`hashes_of(rows)`: their row hashes), or ValueError: a file changed since it
        was written is not counted from."""
        if isinstance(self.rows, pd.DataFrame):
            return self.rows[self.rows["item_id"].isin(ids)]
        at = self.items.get_indexer(ids)
        at = at[at >= 0]
        rows = self.rows.of(at)
        got = item_sums(rows, hashes_of(rows), self.items, self.names)
        cols = (at[:, None] * len(self.names) + np.arange(len(self.names))).ravel()
        if not np.array_equal(got[:, cols], self.sums()[:, cols]):
            raise ValueError("the kept rows are not the rows their sums were taken of")
        return rows
