"""Tallies: the summary's numbers as additive whole-number counts.

A tally is a nested dict whose leaves are Python ints: counts, and sums of whole numbers,
keyed by what they count (a value, a rater, a number of raters). Tallies of disjoint sets of
items add key by key (:func:`merge`), so a kept tally is brought up to date by subtracting the
old tally of the items that changed and adding their new one, at a cost that grows with the
change, not with the study. Every number is computed from a tally by a finish function that
reads keys in one fixed order (:func:`ordered`), so a tally kept and updated gives the same
floats, bit for bit, as the same tally computed at once.

Keys are text or tuples of plain values (text, numbers, booleans, None, and tuples of them
for sets of labels). A count that reaches zero is dropped, so equal tallies are equal dicts.

No Streamlit, no pandas.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import orjson


def merge(a: dict, b: dict, sign: int = 1) -> dict:
    """a + sign * b, key by key (a new dict; neither is changed)."""
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict):
            got = merge(out.get(k) or {}, v, sign)
            if got:
                out[k] = got
            else:
                out.pop(k, None)
        else:
            got = out.get(k, 0) + sign * v
            if got:
                out[k] = got
            else:
                out.pop(k, None)
    return out


def prune(t: dict) -> dict:
    """t without zero counts and empty dicts (nested), as merge() leaves them."""
    try:  # a flat tally (counts only): summed in C, kept as it is unless it holds a zero
        sum(t.values())
    except TypeError:  # (nested: some values are dicts)
        pass
    else:
        return t if 0 not in t.values() else {k: v for k, v in t.items() if v}
    out = {}
    for k, v in t.items():
        if isinstance(v, dict):
            v = prune(v)
        if v:
            out[k] = v
    return out


def total(counts: dict | None) -> int:
    """The sum of a flat tally's counts."""
    return sum(counts.values()) if counts else 0


_RANK = {type(None): 0, bool: 1, int: 2, float: 2, str: 3, tuple: 4}


def order_key(x: Any):
    """A total order over key values of mixed types: None, booleans, numbers, text, tuples
    (element by element); anything else by its text."""
    rank = _RANK.get(type(x))
    if rank is None:
        return (5, str(x))
    if rank == 4:
        return (4, tuple(order_key(v) for v in x))
    return (rank, x)


def ordered(counts: dict | None) -> list[tuple[Any, int]]:
    """A flat tally's (key, count) in the fixed order finish functions read them in: keys
    sorted as they are where they compare, else by order_key (the same keys always take the
    same way, so the same tally is always read in the same order)."""
    if not counts:
        return []
    try:
        return sorted(counts.items())  # (keys are distinct: counts are never compared)
    except TypeError:
        return sorted(counts.items(), key=lambda kv: order_key(kv[0]))


def in_order(configured, seen) -> list:
    """Labels to report: those configured (names, or dicts with a name), in their order, then
    the others seen (any iterable of keys), sorted by order_key."""
    known = list(dict.fromkeys(x["name"] if isinstance(x, dict) else x for x in (configured or [])))
    taken = set(known)
    return known + sorted((x for x in set(seen or ()) if x not in taken), key=order_key)


def _combined(cols: list[np.ndarray]) -> tuple[np.ndarray, list[int], list[int], int] | None:
    """Code columns as one integer key per row, with each column's lowest code and span and the
    number of possible keys; None when that number passes 2**62."""
    lows = [int(c.min()) for c in cols]
    spans = [int(c.max()) - lo + 1 for c, lo in zip(cols, lows)]
    bound = 1
    for span in spans:
        bound *= span
    if bound >= 2 ** 62:
        return None
    key = cols[0] - lows[0] if lows[0] else cols[0]
    for c, lo, span in zip(cols[1:], lows[1:], spans[1:]):
        key = key * span + (c - lo)
    return key, lows, spans, bound


def _split(keys: np.ndarray, lows: list[int], spans: list[int]) -> list[np.ndarray]:
    """_combined keys back into their columns' codes."""
    parts = []
    for lo, span in zip(reversed(lows), reversed(spans)):
        keys, at = np.divmod(keys, span)
        parts.append(at + lo)
    return parts[::-1]


def sum_by(columns: Sequence[np.ndarray], labels: Sequence[Sequence | None], weights=None) -> dict:
    """{key: sum of weights (or count)} over rows grouped by integer code columns, each code
    turned into its label (`labels[i][code]`, or the code itself where labels[i] is None). One
    column gives scalar keys, several give tuples. Zero sums are left out."""
    cols = [np.asarray(c, dtype=np.int64) for c in columns]
    n = len(cols[0]) if cols else 0
    if not n:
        return {}
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    if w is not None and len(w) and int(np.abs(w).max()) >= (1 << 53) // len(w):
        return _exact_sum_by(cols, labels, w)  # (bincount's float sums would round)
    combined = _combined(cols)
    if combined is not None:  # one integer key per row
        key, lows, spans, bound = combined
        if bound <= 8 * n + (1 << 20):  # a sum per possible key: no sort
            sums = np.bincount(key, weights=w, minlength=bound)  # (counts: whole numbers)
            uniq = np.flatnonzero(sums)
            sums = sums[uniq]
        else:
            uniq, inverse = np.unique(key, return_inverse=True)
            sums = np.bincount(inverse, weights=w, minlength=len(uniq))
            keep = sums != 0
            uniq, sums = uniq[keep], sums[keep]
        parts = [p.tolist() for p in _split(uniq, lows, spans)]
    else:  # (codes too wide to combine: rows of codes)
        uniq, inverse = np.unique(np.stack(cols), axis=1, return_inverse=True)
        sums = np.bincount(inverse.ravel(), weights=w, minlength=uniq.shape[1])
        keep = sums != 0
        parts = [row[keep].tolist() for row in uniq]
        sums = sums[keep]
    # (weighted sums come as float64: exact for whole numbers below 2**53)
    sums = sums.astype(np.int64).tolist()
    named = [[lab[x] for x in p] if lab is not None else p for p, lab in zip(parts, labels)]
    if len(named) == 1:
        return dict(zip(named[0], sums))
    return dict(zip(zip(*named), sums))


def _exact_sum_by(cols: list[np.ndarray], labels: Sequence[Sequence | None], w: np.ndarray) -> dict:
    """sum_by() with weights summed as Python integers (sums past 2**53 stay exact)."""
    out: dict = {}
    for key, x in zip(zip(*(c.tolist() for c in cols)), w.tolist()):
        out[key] = out.get(key, 0) + x
    named = {tuple(lab[k] if lab is not None else k for k, lab in zip(key, labels)): s
             for key, s in out.items() if s}
    return {k[0]: s for k, s in named.items()} if len(cols) == 1 else named


def distinct_by(columns: Sequence[np.ndarray], labels: Sequence[Sequence | None], col: np.ndarray) -> dict:
    """{key of columns: how many distinct codes of col its rows hold} (col's negative codes,
    missing values, left out); the keys as sum_by makes them."""
    col = np.asarray(col, dtype=np.int64)
    keep = col >= 0
    cols = [np.asarray(c, dtype=np.int64)[keep] for c in columns]
    col = col[keep]
    if not len(col):
        return {}
    # each distinct (columns, col) once, by marks or a sort of one integer key per row
    combined = _combined(cols + [col])
    if combined is None:
        rows = np.unique(np.stack(cols + [col]), axis=1)
        return sum_by(list(rows[:-1]), labels)
    key, lows, spans, bound = combined
    if bound <= 8 * len(key) + (1 << 22):  # a mark per possible key: no sort
        seen = np.zeros(bound, dtype=bool)
        seen[key] = True
        distinct = np.flatnonzero(seen)
    else:
        distinct = np.unique(key)
    return sum_by(_split(distinct, lows, spans)[:-1], labels)


# --- kept on disk: JSON with tuple keys ---------------------------------------------------------

_PLAIN = (str, int, bool, type(None))


def _plain(x) -> bool:
    """A value JSON gives back as it was: text, an integer, a boolean, None or a number."""
    return type(x) in _PLAIN or (type(x) is float and math.isfinite(x))


def _enc(x):
    if isinstance(x, dict):
        keys, values = list(x), list(x.values())
        vals = values if all(type(v) is int for v in values) else [_enc(v) for v in values]
        # flat keys (the usual case) as plain lists, read back at C speed; any other key in full
        if all(_plain(k) for k in keys):
            return {"k": keys, "v": vals}
        if all(type(k) is tuple and all(_plain(e) for e in k) for k in keys):
            return {"tk": keys, "v": vals}
        return {"d": [[_enc(k), _enc(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {"t": [_enc(v) for v in x]}
    if isinstance(x, list):
        return [_enc(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return {"f": repr(x)}  # (nan, inf, -inf: not JSON)
    return x


def _dec(x):
    if isinstance(x, dict):
        if "v" in x:
            vals = x["v"]
            if any(type(v) is not int for v in vals):
                vals = [_dec(v) for v in vals]
            return dict(zip(x["k"] if "k" in x else map(tuple, x["tk"]), vals))
        if "d" in x:
            return {_dec(k): _dec(v) for k, v in x["d"]}
        if "t" in x:
            return tuple(_dec(v) for v in x["t"])
        return float(x["f"])
    if isinstance(x, list):
        return [_dec(v) for v in x]
    return x


def encoded(t: Any) -> Any:
    """t as plain JSON values (see dumps)."""
    return _enc(t)


def decoded(x: Any) -> Any:
    """encoded() undone."""
    return _dec(x)


def dumps(t: Any) -> bytes:
    """A tally (or any nest of dicts, tuples and plain values) as JSON bytes; :func:`loads`
    gives it back equal, tuples and non-text keys included."""
    return orjson.dumps(_enc(t))


def loads(data: bytes) -> Any:
    return _dec(orjson.loads(data))
