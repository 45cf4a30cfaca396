"""Counting and ordering helpers shared by the summary's rollups.

Lists in the summary come in a fixed order: the configured labels first, in their order, then
any other seen, sorted. Values of mixed types (a hand-edited store) sort by `order_key`:
None, booleans, numbers, text, tuples.

No Streamlit here.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np
import pandas as pd

_RANK = {type(None): 0, bool: 1, int: 2, float: 2, str: 3, tuple: 4}


def order_key(x: Any):
    """A total order over values of mixed types (anything else sorts by its text, last)."""
    rank = _RANK.get(type(x))
    if rank is None:
        return (5, str(x))
    if rank == 4:
        return (4, tuple(order_key(v) for v in x))
    return (rank, x)


def in_order(configured: Iterable | None, seen: Iterable | None) -> list:
    """Labels to report: the configured ones (names, or dicts with a name) in their order, then
    the others seen, sorted."""
    known = list(dict.fromkeys(x["name"] if isinstance(x, dict) else x for x in (configured or [])))
    taken = set(known)
    return known + sorted((x for x in set(seen if seen is not None else ()) if x not in taken), key=order_key)


def sorted_keys(keys: Iterable) -> list:
    """Keys sorted as they are where they compare, else by order_key."""
    keys = list(keys)
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=order_key)


def plain(x: Any) -> Any:
    """A value as JSON takes it: numpy scalars as Python ones, NaN and pandas' NA as None."""
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and math.isnan(x):
        return None
    if x is pd.NA or x is pd.NaT:
        return None
    return x


def clean(obj: Any) -> Any:
    """A nested structure made JSON-safe: numpy scalars as Python ones, NaN as None, tuples as
    lists, keys as text."""
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): clean(v) for k, v in obj.items()}
    if kind is list or kind is tuple:
        return [clean(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    return plain(obj)


def count(frame: pd.DataFrame, columns: list[str]) -> dict:
    """{key: rows} of a frame grouped by columns (a one-column key is the value itself); rows
    with a missing key left out."""
    if frame.empty:
        return {}
    sizes = frame.groupby(columns, sort=False, dropna=True, observed=True).size()
    return {(tuple(plain(v) for v in k) if isinstance(k, tuple) else plain(k)): int(n) for k, n in sizes.items()}


def distinct(frame: pd.DataFrame, columns: list[str], of: str) -> dict:
    """{key: how many distinct values of `of` (missing left out)} of a frame grouped by columns."""
    if frame.empty:
        return {}
    sizes = frame.groupby(columns, sort=False, dropna=True, observed=True)[of].nunique()
    return {(tuple(plain(v) for v in k) if isinstance(k, tuple) else plain(k)): int(n) for k, n in sizes.items()}


_T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]


def t975(degrees: int) -> float:
    """The 0.975 quantile of Student's t (a table to 30 degrees of freedom, then the
    Cornish-Fisher expansion, error < 1e-4)."""
    if degrees < 1:
        return math.nan
    if degrees <= len(_T975):
        return _T975[degrees - 1]
    z = 1.959963985
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / degrees + g2 / degrees ** 2 + g3 / degrees ** 3 + g4 / degrees ** 4


def mean_interval(scores: Iterable[float]) -> dict:
    """n, mean, sd and the 95 % interval mean ± t(0.975, n-1) · sd / √n (none for one score)."""
    x = np.asarray([s for s in scores if s is not None and not math.isnan(s)], dtype=np.float64)
    n = len(x)
    if not n:
        return {"n": 0, "mean": None, "sd": None, "ci_low": None, "ci_high": None}
    mean = float(x.mean())
    if n < 2:
        return {"n": n, "mean": mean, "sd": None, "ci_low": None, "ci_high": None}
    sd = float(x.std(ddof=1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half}
