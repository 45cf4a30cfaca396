"""The stored rows the summary must not count, found once per distinct value, and reported.

A store may hold what no save of the app would write: a file edited by hand, rows imported with
`--keep-invalid` (status ``invalid``), a scheme whose labels changed since. Before anything is
counted, each distinct (scheme, item, stored text) is checked once by its type's `validate`
(against the item's trace too while the row was made on the trace as it is now, i.e. its
trace_hash is the item's: a row made on other data is judged by the summary's stale rules), and
the rows that do not fit are left out and listed under the summary's ``invalid`` key: how many,
and for each the store's file, item, annotator, scheme and why.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from app.store.rows import DONE, STATUS_CLEARED, STATUS_INVALID
from app.store.storage import AnnotationStore
from app.summary.rows import Derivations, parse
from app.types.registry import TYPES

LISTED = 200  # rows listed by name in the summary (all are counted)


KEPT_INVALID = "stored as invalid (imported with --keep-invalid)"


def left_out(ws, scheme, rows: pd.DataFrame,
             parsed: dict[str, Any] | None = None) -> tuple[np.ndarray, list[list[str]]]:
    """Of one scheme's stored rows: which the summary does not count (a bool per row), and the
    reasons of each of those, in row order (`parsed`: parse_each of the rows' values, if made)."""
    judged = (rows["status"] != STATUS_CLEARED).to_numpy(dtype=bool)
    kept_invalid = (rows["status"] == STATUS_INVALID).to_numpy(dtype=bool)
    candidates = rows[judged & ~kept_invalid]
    bad = kept_invalid.copy()
    reasons: dict[int, list[str]] = {}
    if len(candidates):
        items = candidates["item_id"].astype(object).to_numpy()
        if TYPES[scheme.type].trace:
            # checked against the item's trace while the row was made on the trace as it is now;
            # a row made on other data is judged by the summary's stale rules, on its scheme alone
            hashes = {i: ws.by_id[i].trace_hash for i in pd.unique(items) if i in ws.by_id}
            current = candidates["trace_hash"].astype(object).to_numpy() == pd.Series(items).map(hashes).to_numpy()
            items = np.where(current, items, None)
            derive = Derivations.of(ws).getter(scheme)
        else:
            items = np.full(len(items), None, dtype=object)
            derive = None
        # one check per distinct (item or None, stored text), kept per workspace (its project and
        # items are fixed: a summary after a save checks only the values it has not seen)
        item_code, item_names = pd.factorize(pd.Series(items, dtype=object), use_na_sentinel=False)
        text_code, texts = pd.factorize(candidates["value"], use_na_sentinel=False)
        pairs, codes = np.unique(item_code.astype(np.int64) * max(len(texts), 1) + text_code, return_inverse=True)
        # (an item not checked against its trace is None: factorize gives it back as NaN)
        pair_item = [i if isinstance(i, str) else None for i in item_names[pairs // max(len(texts), 1)].tolist()]
        pair_text = texts[pairs % max(len(texts), 1)].tolist()
        memo = Derivations.of(ws).memo
        # (parsed only on a miss when the caller has not parsed the values already)
        found = [memo("validity", (scheme.name, item, text),
                      lambda item=item, text=text: _reasons(
                          scheme, text, parsed.get(text) if parsed is not None else parse(text),
                          derive(item) if isinstance(item, str) and derive else None))
                 for item, text in zip(pair_item, pair_text)]
        bad_code = np.fromiter((bool(r) for r in found), dtype=bool, count=len(found))
        at = np.flatnonzero(judged & ~kept_invalid)
        bad_here = bad_code[codes]
        bad[at[bad_here]] = True
        reasons = {int(i): found[c] for i, c in zip(at[bad_here], codes[bad_here])}
    return bad, [reasons.get(int(i), [KEPT_INVALID]) for i in np.flatnonzero(bad)]


def report(ws, rows: list[tuple[Any, Any, Any, list[str]]]) -> dict:
    """The summary's ``invalid`` entry for the rows left out, (item, annotator, scheme, reasons)
    each: how many, and the first LISTED with the store's file."""
    store = AnnotationStore(ws.project.output_dir)
    listed = sorted(rows, key=lambda r: (str(r[1]), str(r[0]), str(r[2])))[:LISTED]  # (the store's order)
    return {"count": len(rows),
            "rows": [{"file": _file(store, item, who, scheme), "item_id": item, "annotator": who, "scheme": scheme,
                      "reasons": why} for item, who, scheme, why in listed]}


def checked(ws, df: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """(the rows the summary counts, the report of those it leaves out)."""
    if df.empty:
        return df, {"count": 0, "rows": []}
    schemes = {s.name: s for s in ws.project.schemes}
    out = np.zeros(len(df), dtype=bool)
    found: list[tuple] = []
    for name, at in df.groupby("scheme", sort=False, observed=True).indices.items():
        if name == DONE or name not in schemes:
            continue
        part = df.iloc[at]
        bad, why = left_out(ws, schemes[name], part)
        out[at[bad]] = True
        found += [(i, w, name, r) for i, w, r in zip(part["item_id"].to_numpy()[bad].tolist(),
                                                     part["annotator"].to_numpy()[bad].tolist(), why)]
    return (df[~out], report(ws, found)) if out.any() else (df, {"count": 0, "rows": []})


def _reasons(scheme, text: Any, value: Any, derivation) -> list[str]:
    """Why a stored text (parsed: `value`) does not fit its scheme and trace ([]: it fits)."""
    if value is None:
        return [] if not isinstance(text, str) else ["the stored value is not JSON"]
    kind = TYPES[scheme.type]
    try:
        return list(kind.validate(value, scheme, derivation))
    except Exception as e:  # (a check that trips on a value no one foresaw: the row is not counted)
        return [f"could not be checked ({type(e).__name__})"]


def _file(store: AnnotationStore, item: Any, who: Any, scheme: Any) -> str | None:
    try:
        return str(store.key_file(item, who, scheme))
    except (TypeError, ValueError, OSError):
        return None
