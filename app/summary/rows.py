"""The stored rows as the summary reads them: judgements, done marks, time, and each scheme's long table.

A judgement is a row with status ``annotated`` or ``reviewed_clean`` (reviewed, nothing to
flag: an empty judgement that still takes part in rates and agreement). ``cleared`` rows and
the per-item done marks (scheme ``_item``) are not judgements; every row counts for time.

No Streamlit here.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import numpy as np
import pandas as pd

from app.store.storage import DONE, STATUS_CLEARED, AnnotationStore
from app.traces.derive import Derivation, derive, scheme_keys
from app.types.base import AnnotationType, Scheme


KEY = ["item_id", "annotator", "status"]


def load(ws) -> pd.DataFrame:
    """Every stored row of the project, text as Python strings."""
    return frame(AnnotationStore(ws.project.output_dir).to_table())


def frame(table) -> pd.DataFrame:
    """The store's table (pyarrow) as a pandas frame (text as pandas' Arrow-backed strings:
    comparisons and grouping run in C)."""
    return table.to_pandas()


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
        return json.loads(text)
    except ValueError:
        return None


def judgements(df: pd.DataFrame) -> pd.DataFrame:
    """The rows that are judgements (see the module's docstring)."""
    return df[(df["scheme"] != DONE) & (df["status"] != STATUS_CLEARED)]


def done_marks(df: pd.DataFrame) -> pd.DataFrame:
    """Items marked done: item_id, annotator."""
    marks = df[(df["scheme"] == DONE) & (df["status"] != STATUS_CLEARED)]
    codes, texts = pd.factorize(marks["value"], use_na_sentinel=False)
    done = np.asarray([isinstance(v, dict) and bool(v.get("done")) for v in map(parse, texts)], dtype=bool)
    return marks[done[codes] if len(done) else np.zeros(len(marks), dtype=bool)][["item_id", "annotator"]]


def long_table(judged: pd.DataFrame, kind: AnnotationType, scheme: Scheme) -> pd.DataFrame:
    """One scheme's judgements spread by its type's `rows`: each distinct stored text parsed
    and spread once, its rows then repeated for every judgement holding it."""
    texts = judged["value"]
    codes, distinct = pd.factorize(texts, use_na_sentinel=True)
    spread = [(code, row) for code, text in enumerate(distinct) for row in kind.rows(parse(text), scheme)]
    base = pd.DataFrame({"item_id": judged["item_id"].to_numpy(dtype=object),
                         "annotator": judged["annotator"].to_numpy(dtype=object),
                         "status": judged["status"].to_numpy(dtype=object), "code": codes})
    if not spread:
        return base.iloc[:0].drop(columns="code")
    rows = pd.DataFrame([row for _, row in spread])
    rows["code"] = [code for code, _ in spread]
    return base.merge(rows, on="code", how="inner", sort=False).drop(columns="code")


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
