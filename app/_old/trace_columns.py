"""The derivations of a summary's items as flat columns, read once per summary.

Rollups and agreement each need some part of every judged item's derivation: the agent of
each step (behaviours, MAST tags, decisive steps), the edges (the graph), the handoffs
(handoff reviews, the interaction graph), the contention regions. Read item by item, a
million-row summary went through 10,000 derivations eight times, a Python pass each over
objects scattered in memory. Here each part is read once per summary and scheme keys into
flat arrays (one block per item, in item order), and any list of items is then gathered from
them with integer arithmetic.

No Streamlit here.
"""
from __future__ import annotations

import functools
from itertools import chain
from typing import Iterable

import numpy as np

from app._old.labels import _objects


class Flat:
    """One part of every item's derivation: `sizes[k]` entries for item k (-1: the item has no
    derivation), stored one block after another in `columns`."""

    def __init__(self, sizes: list[int], columns: dict[str, np.ndarray]):
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.columns = columns
        n = np.maximum(self.sizes, 0)
        self.starts = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64)

    def take(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(entries per item, -1 where the slot is -1 or the item has no derivation; positions
        of their entries in the columns, item after item)."""
        slots = np.asarray(slots, dtype=np.int64)
        sizes = np.where(slots >= 0, self.sizes[slots] if len(self.sizes) else -1, -1)
        n = np.maximum(sizes, 0)
        starts = np.where(slots >= 0, self.starts[slots] if len(self.starts) else 0, 0)
        within = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
        return sizes, np.repeat(starts, n) + within


class TraceColumns:
    """Derivations (one per item id, None where there is none) as lazily built Flat parts."""

    def __init__(self, item_ids: list[str], derivations: list):
        self.item_ids = item_ids
        self.slot = {i: k for k, i in enumerate(item_ids)}
        self._ds = derivations

    def slots(self, ids: Iterable[str]) -> np.ndarray:
        """The position of each item id (-1: not one of these items)."""
        get = self.slot.get
        ids = list(ids)
        return np.fromiter((get(i, -1) for i in ids), dtype=np.int64, count=len(ids))

    def gather(self, part: Flat, ids: Iterable[str]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """How many entries of `part` each of these items has (0 where it has none), and every
        column of `part` for them, item after item."""
        sizes, at = part.take(self.slots(ids))
        return np.maximum(sizes, 0), {c: v[at] for c, v in part.columns.items()}

    def _parts(self, read) -> tuple[list[int], list]:
        per_item = [read(d) if d is not None else None for d in self._ds]
        return [len(x[0]) if x is not None else -1 for x in per_item], per_item

    @staticmethod
    def _column(per_item: list, k: int, kind=None) -> np.ndarray:
        values = list(chain.from_iterable(x[k] for x in per_item if x is not None))
        return np.asarray(values, dtype=np.int64) if kind is int else _objects(values)

    @functools.cached_property
    def steps(self) -> Flat:
        """Each step's agent (column agent), by position in the run."""
        sizes, per_item = self._parts(lambda d: (d.step_agents,))
        return Flat(sizes, {"agent": self._column(per_item, 0)})

    @functools.cached_property
    def edges(self) -> Flat:
        """Each edge's agents and how many handoffs it holds (src, dst, n), in the
        derivation's order."""
        sizes, per_item = self._parts(lambda d: (*d.edge_columns, [e[2] for e in d.edges]))
        return Flat(sizes, {"src": self._column(per_item, 0), "dst": self._column(per_item, 1),
                            "n": self._column(per_item, 2, int)})

    @functools.cached_property
    def handoffs(self) -> Flat:
        """Each handoff's index, step and agents (index, step, src, dst)."""
        sizes, per_item = self._parts(lambda d: d.handoff_columns)
        return Flat(sizes, {"index": self._column(per_item, 0, int), "step": self._column(per_item, 1, int),
                            "src": self._column(per_item, 2), "dst": self._column(per_item, 3)})

    @functools.cached_property
    def regions(self) -> Flat:
        """Each contention region's index and resource."""
        sizes, per_item = self._parts(lambda d: ([r.index for r in d.contentions],
                                                 [r.resource for r in d.contentions]))
        return Flat(sizes, {"index": self._column(per_item, 0, int), "resource": self._column(per_item, 1)})


def of(memo: dict, der, scheme, item_ids: Iterable[str]) -> TraceColumns:
    """The TraceColumns of `der` (app.summary.Derived) for this scheme's keys, covering at least
    `item_ids`: built once for every item the summary covers when it knows them (cover(), in
    `memo`, one summary's: see app.labels.Labels.memo), else grown to the union.

    Kept on `der`, which lives as long as the workspace: derivations never change, so the
    summary after a save reads the columns the one before built (a tenth of a second at a
    million rows) instead of walking every item's derivation again."""
    kept = der.__dict__.setdefault("_trace_columns", {})
    key = der.keys_of(scheme)
    found = kept.get(key)
    ids = list(item_ids)
    covered = memo.get("covered_items") or []
    if found is not None:
        slot = found.slot
        if all(i in slot for i in ids):
            return found
        # grown once to every item this summary covers, not only the ones asked for now
        ids = found.item_ids + [i for i in dict.fromkeys(covered + ids) if i not in slot]
    else:
        known = set(covered)
        ids = covered + [i for i in dict.fromkeys(ids) if i not in known]
    # (two sessions may build it at once: each gets a whole one, the last kept)
    columns = kept[key] = TraceColumns(ids, der.many(ids, scheme))
    return columns


def cover(memo: dict, item_ids: list[str]) -> None:
    """Record the items a summary covers, so the first TraceColumns holds them all."""
    memo["covered_items"] = list(item_ids)


def forget(der) -> None:
    """Drop the columns kept on `der` (see of()): the next summary builds them again, as the
    first summary of a workspace does (the benchmark's from-scratch summaries)."""
    der.__dict__.pop("_trace_columns", None)
