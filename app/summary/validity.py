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

import pandas as pd

from app.store.rows import DONE, STATUS_CLEARED, STATUS_INVALID
from app.store.storage import AnnotationStore
from app.summary.rows import Derivations, parse
from app.types.registry import TYPES

LISTED = 200  # rows listed by name in the summary (all are counted)


def checked(ws, df: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """(the rows the summary counts, the report of those it leaves out)."""
    empty = {"count": 0, "rows": []}
    if df.empty:
        return df, empty
    schemes = {s.name: s for s in ws.project.schemes}
    judged = (df["scheme"] != DONE) & (df["status"] != STATUS_CLEARED) & df["scheme"].isin(list(schemes))
    kept_invalid = (df["status"] == STATUS_INVALID).to_numpy(dtype=bool)
    candidates = df[judged.to_numpy(dtype=bool) & ~kept_invalid]
    items = candidates["item_id"].astype(object).to_numpy()
    # the item matters only to a trace type's row made on the trace as it is now (checked
    # against that trace); any other row is checked against its scheme alone
    on_trace = candidates["scheme"].isin([n for n, s in schemes.items() if TYPES[s.type].trace]).to_numpy(dtype=bool)
    hashes = {i: ws.by_id[i].trace_hash for i in pd.unique(items[on_trace]) if i in ws.by_id}
    current = on_trace & (candidates["trace_hash"].astype(object).to_numpy() == pd.Series(items).map(hashes).to_numpy())
    # one check per distinct (scheme, item or None, stored text)
    keys = pd.MultiIndex.from_arrays([candidates["scheme"].astype(object), pd.Series(items).where(current, None),
                                      candidates["value"].astype(object)])
    codes, distinct = pd.factorize(keys)
    getters = {name: Derivations.of(ws).getter(s) for name, s in schemes.items() if TYPES[s.type].trace}
    memo = Derivations.of(ws).memo  # (the project and its items are fixed in a workspace: a summary
    # after a save checks only the values it has not seen)
    found = [memo("validity", (scheme, item, text),
                  lambda scheme=scheme, item=item, text=text: _reasons(
                      schemes[scheme], text, getters[scheme](item) if isinstance(item, str) else None))
             for scheme, item, text in distinct]
    bad_code = [bool(r) for r in found]
    bad = pd.Series(False, index=df.index)
    if len(candidates):
        bad.loc[candidates.index] = [bad_code[c] for c in codes]
    reasons_of = dict(zip(candidates.index, (found[c] for c in codes)))
    left_out = bad.to_numpy(dtype=bool) | kept_invalid
    if not left_out.any():
        return df, empty
    store = AnnotationStore(ws.project.output_dir)
    rows = []
    for at, item, who, scheme in zip(df.index[left_out], *(df.loc[left_out, c].tolist()
                                                         for c in ("item_id", "annotator", "scheme"))):
        if len(rows) >= LISTED:
            break
        why = reasons_of.get(at) or ["stored as invalid (imported with --keep-invalid)"]
        rows.append({"file": _file(store, item, who, scheme), "item_id": item, "annotator": who, "scheme": scheme,
                     "reasons": why})
    return df[~left_out], {"count": int(left_out.sum()), "rows": rows}


def _reasons(scheme, text: Any, derivation) -> list[str]:
    value = parse(text)
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
