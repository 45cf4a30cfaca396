"""Everything the summary says about one scheme, from that scheme's stored rows alone.

A scheme's rows decide its part of the summary: which of them count (validation), its long
table, rollup, agreement, listed disagreements, the runs behind the Overview's figures and what
its annotators did with the suggestions. The other sections (progress, gold, the interaction
graph, orchestration) read these parts.

A save changes one scheme's rows. So each part is kept in memory per workspace, under the
digest of its rows (every column, in order) and the summary's options: a summary after a save
recomputes the part of the scheme that changed and reuses the others, and equal rows always
give the part they gave before. Nothing is kept on disk, and the parts of one summary's options
replace those of the last (memory stays one summary's worth, per option set, for a few sets).

No Streamlit here.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from app.stats.agreement import Disagreements
from app.stats.counting import clean
from app.summary import suggestions as hints
from app.summary.overview import runs_of
from app.summary.rows import Derivations, judgements, long_table, parse_each
from app.summary.validity import left_out
from app.types.base import Scheme
from app.types.panel import SchemeRows
from app.types.registry import TYPES

FREE_TEXT = "free text: no agreement measure"
KEPT = 4  # option sets (filters, k, listing) whose parts are kept per workspace


@dataclass
class Options:
    """The summary's options that a scheme's part depends on, besides its rows."""

    item_ids: list[str]
    k: int
    listed: bool  # the records of disagreements and listings given
    validate: bool
    golds: dict[str, dict]  # the gold of the summary's items that have one

    def key(self) -> tuple:
        return (hash(tuple(self.item_ids)), self.k, self.listed, self.validate)


@dataclass
class SchemePart:
    """One scheme's part of the summary (its JSON parts already made JSON-safe)."""

    rows: SchemeRows | None  # (kept only for a scheme that a section across schemes reads)
    judged: pd.DataFrame | None  # its judgements that count, every stored column (likewise)
    left_out: np.ndarray  # per stored row of the scheme (in the rows' order): not counted
    invalid: list[tuple[Any, Any, str, list[str]]]  # (item, annotator, scheme, reasons) of those
    rollup: dict | None
    agreement: dict
    records: list[dict]
    runs: dict
    hints: dict | None


def digest(row_hashes: np.ndarray) -> str:
    """What identifies some stored rows, in order (from pandas' hash of each row)."""
    return hashlib.blake2b(np.ascontiguousarray(row_hashes).tobytes(), digest_size=16).hexdigest()


def scheme_part(ws, scheme: Scheme, rows: pd.DataFrame, row_hashes: np.ndarray, options: Options,
                keep: tuple[bool, bool] = (True, True)) -> SchemePart:
    """The part of one scheme (`rows`: its stored rows under the summary's filters, `row_hashes`
    theirs), reused from memory while rows and options are the same. `keep`: whether the part
    holds on to its SchemeRows and to its judgement rows (a section across schemes reads them;
    the others are dropped once the part is made: a scorecard's long table is several times
    the stored rows)."""
    kept: dict = ws.__dict__.setdefault("_summary_parts", {})
    key = options.key()
    parts = kept.setdefault(key, {})
    if len(kept) > KEPT:  # (the oldest option set goes)
        kept.pop(next(iter(kept)))
    mark = (digest(row_hashes), len(rows))
    found = parts.get(scheme.name)
    if found is None or found[0] != mark:
        found = parts[scheme.name] = (mark, _computed(ws, scheme, rows, options, keep))
    return found[1]


def across(ws, options: Options, section: str, inputs: list[SchemePart], compute: Callable[[], Any]) -> Any:
    """compute() of a section read from some schemes' parts (`inputs`), reused while those parts
    are the same objects (a save recomputes only the part of the scheme it changed)."""
    kept = ws.__dict__.setdefault("_summary_parts", {}).setdefault(options.key(), {})
    found = kept.get(("across", section))
    if found is None or len(found[0]) != len(inputs) or any(a is not b for a, b in zip(found[0], inputs)):
        found = kept[("across", section)] = (list(inputs), compute())
    return found[1]


def _computed(ws, scheme: Scheme, rows: pd.DataFrame, options: Options, keep: tuple[bool, bool]) -> SchemePart:
    kind = TYPES[scheme.type]
    parsed = parse_each(pd.unique(rows["value"]).tolist())  # (validation and the long table share it)
    if options.validate and len(rows):
        bad, reasons = left_out(ws, scheme, rows, parsed)
        invalid = list(zip(rows["item_id"].to_numpy()[bad].tolist(), rows["annotator"].to_numpy()[bad].tolist(),
                           [scheme.name] * int(bad.sum()), reasons))
        rows = rows[~bad]
    else:
        bad, invalid = np.zeros(len(rows), dtype=bool), []
    judged = judgements(rows)
    mine = SchemeRows(scheme=scheme, judged=judged[["item_id", "annotator", "status", "seconds_spent"]],
                      table=long_table(judged, kind, scheme, parsed), item_ids=options.item_ids, k=options.k,
                      derive=Derivations.of(ws).getter(scheme))
    rollup = None
    if kind.section is not None and kind.rollup is not None:
        rollup = kind.rollup(mine)
        if options.listed and kind.listings:
            listed = {what: fn(mine) for what, fn in kind.listings.items()}
            rollup = {**listed, **rollup} if kind.listings_first else {**rollup, **listed}
    measures, records = agreement(mine, options.listed)
    return SchemePart(rows=mine if keep[0] else None, judged=judged if keep[1] else None, left_out=bad, invalid=invalid, rollup=clean(rollup),
                      agreement=clean(measures), records=clean(records), runs=clean(runs_of(mine)),
                      hints=clean(hints.tally(ws, mine, options.golds, options.k)))


def agreement(rows: SchemeRows, listed: bool) -> tuple[dict, list[dict]]:
    """Agreement measures of one scheme, and the records of what annotators disagree on when `listed`."""
    scheme, panel = rows.scheme, rows.panel
    kind = TYPES[scheme.type]
    base: dict[str, Any] = {"type": scheme.type, "items_compared": len(panel), "annotators": len(panel.raters)}
    dis = Disagreements(scheme.name, listed)
    if kind.agreement is None:
        return {**base, "note": FREE_TEXT}, []
    if not len(panel):
        note = "no item has two or more annotators for this scheme: no agreement to compute"
        return {**base, "note": note if len(rows.judged) else "no annotations"}, []
    base.update(kind.agreement(rows, dis))
    base["disagreements"] = dis.count
    return base, dis.records
