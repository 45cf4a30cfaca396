"""The stored rows as the summary reads them: judgements, done marks, time, and each scheme's long table.

A judgement is a row with status ``annotated`` or ``reviewed_clean`` (reviewed, nothing to
flag: an empty judgement that still takes part in rates and agreement). ``cleared`` rows and
the per-item done marks (scheme ``_item``) are not judgements; every row counts for time.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from app.store.storage import DONE, STATUS_CLEARED, AnnotationStore
from app.traces import jsontext
from app.traces.derive import Derivation, derive, scheme_keys
from app.types.base import AnnotationType, Scheme


KEY = ["item_id", "annotator", "status"]
# every text column: each a category (integer codes under its distinct texts, held as Python
# strings), so that the summary's groupings, matchings, copies and per-text work run on integers
# and each distinct stored value is handled once, however many rows hold it
CODED = ["item_id", "annotator", "scheme", "annotation_type", "status", "value", "trace_hash"]


def load(ws) -> pd.DataFrame:
    """Every stored row of the project, text as Python strings."""
    return frame(AnnotationStore(ws.project.output_dir).to_table())


def frame(table) -> pd.DataFrame:
    """The store's table (pyarrow) as a pandas frame, its text columns as categories (CODED)
    whose distinct texts are Python strings (Arrow-backed ones cost a conversion on every use)."""
    df = table.to_pandas(categories=CODED)
    for name in CODED:
        if name in df and isinstance(df[name].dtype, pd.CategoricalDtype):
            column = df[name].array
            texts = pd.Index(column.categories.to_numpy(dtype=object), dtype=object)
            df[name] = pd.Categorical.from_codes(column.codes, dtype=pd.CategoricalDtype(texts))
    return df


def apply_filters(df: pd.DataFrame, annotators: Iterable[str] | None, schemes: Iterable[str] | None,
                  items: Iterable[str] | None) -> pd.DataFrame:
    """Rows of the chosen annotators, schemes (the done marks kept) and items."""
    keep = pd.Series(True, index=df.index)
    if annotators:
        keep &= df["annotator"].isin(list(annotators))
    if items is not None:
        keep &= df["item_id"].isin(list(items))
    if schemes:
        keep &= df["scheme"].isin(list(schemes) + [DONE])
    return df[keep]


def parse(text: Any) -> Any:
    """A stored value (None: no value, or not JSON)."""
    if not isinstance(text, str):
        return None
    try:
        return jsontext.loads(text)
    except ValueError:
        return None


def parse_each(texts: Iterable[Any]) -> dict[str, Any]:
    """Each stored text parsed once (None: not JSON), by text: a scheme's validation and its long
    table read the same parse of each distinct value."""
    strings = [t for t in dict.fromkeys(texts) if isinstance(t, str)]
    return {t: None if isinstance(v, ValueError) else v for t, v in zip(strings, jsontext.loads_each(strings))}


def judgements(df: pd.DataFrame) -> pd.DataFrame:
    """The rows that are judgements (see the module's docstring)."""
    return df[(df["scheme"] != DONE) & (df["status"] != STATUS_CLEARED)]


def done_marks(df: pd.DataFrame) -> pd.DataFrame:
    """Items marked done: item_id, annotator."""
    marks = df[(df["scheme"] == DONE) & (df["status"] != STATUS_CLEARED)]
    codes, texts = pd.factorize(marks["value"], use_na_sentinel=False)
    done = np.asarray([isinstance(v, dict) and bool(v.get("done")) for v in map(parse, texts)], dtype=bool)
    return marks[done[codes] if len(done) else np.zeros(len(marks), dtype=bool)][["item_id", "annotator"]]


def long_table(judged: pd.DataFrame, kind: AnnotationType, scheme: Scheme,
               parsed: dict[str, Any] | None = None) -> pd.DataFrame:
    """One scheme's judgements spread by its type's `rows`: each distinct stored text parsed
    (or taken from `parsed`, parse_each's) and spread once, its rows then repeated for every
    judgement holding it (in judgement order, then the order `rows` gives)."""
    codes, distinct = pd.factorize(judged["value"], use_na_sentinel=True)
    spread: list[dict] = []
    per_text = np.zeros(len(distinct), dtype=np.int64)
    texts = distinct.tolist()  # (a list: iterating a pandas array costs per element)
    values = parsed if parsed is not None else parse_each(texts)
    for code, text in enumerate(texts):
        found = kind.rows(values.get(text) if isinstance(text, str) else None, scheme)
        spread += found
        per_text[code] = len(found)
    base = judged[["item_id", "annotator", "status"]]
    if not spread:
        return base.iloc[:0].reset_index(drop=True)
    rows = records(spread)
    first_row = np.cumsum(per_text) - per_text
    per_judgement = np.where(codes >= 0, per_text[np.maximum(codes, 0)], 0)
    judgement = np.repeat(np.arange(len(codes)), per_judgement)
    # (the k-th row of a judgement is the k-th row of its text)
    kth = np.arange(len(judgement)) - np.repeat(np.cumsum(per_judgement) - per_judgement, per_judgement)
    row = first_row[codes[judgement]] + kth
    left = base.iloc[judgement].reset_index(drop=True)
    right = rows.iloc[row].reset_index(drop=True)
    return pd.concat([left, right.drop(columns=[c for c in left if c in right])], axis=1)


def records(rows: list[dict]) -> pd.DataFrame:
    """Rows of plain fields as a frame, each column's type inferred as pandas does, except that
    text stays Python strings (object): the types' measures match and group these small
    columns over and over, and converting to and from Arrow strings each time costs more than
    the work itself."""
    frame = pd.DataFrame(rows)
    return frame.astype({name: object for name in frame.columns if frame[name].dtype == "str"})


class Derivations:
    """derive() of each item for a scheme's trace keys, computed once per workspace (its items
    never change: a new project state is a new workspace)."""

    @classmethod
    def of(cls, ws) -> "Derivations":
        found = ws.__dict__.get("_derivations")
        if found is None:
            found = ws.__dict__["_derivations"] = cls(ws)
        return found

    def __init__(self, ws):
        self.ws = ws
        self._cache: dict[tuple, dict[str, Derivation | None]] = {}
        self._memo: dict[str, dict] = {}

    def memo(self, what: str, key: Any, compute):
        """compute() of something that follows from the items alone (a suggestion made from a
        trace), computed once per workspace under (what, key)."""
        found = self._memo.setdefault(what, {})
        if key not in found:
            found[key] = compute()
        return found[key]

    def getter(self, scheme: Scheme | None):
        """derive(item) for one scheme's keys (None: no such item)."""
        keys = tuple(sorted(scheme_keys(scheme).items()))
        cache = self._cache.setdefault(keys, {})

        def get(item_id: str) -> Derivation | None:
            if item_id not in cache:
                item = self.ws.by_id.get(item_id)
                cache[item_id] = derive(item.data, **dict(keys)) if item is not None else None
            return cache[item_id]
        return get
