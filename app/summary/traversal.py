"""Traversal reviews against gold: does the backward pass find the step gold names?

For every traversal review of a run with gold (app/summary/gold.py `normalize`: Who&When's
``mistake_step``, the root cause of TRAIL or AgentRx, else their first failure), per annotator and
overall (all annotators' reviews together):

- ``root_cause``: the earliest root cause equals the gold step (``step_accuracy``) or is within ±k
  (``step_accuracy_within_k``); a review naming no root cause counts as wrong; ``precision``: of
  all root causes named, the share that are a gold failure step (``precision_within_k``: within ±k
  of one);
- ``forward_flags``: the same for the steps flagged as errors in the forward pass alone (its
  earliest flag, all its flags);
- ``precision_gain`` (and ``_within_k``): root-cause precision minus forward-flag precision, what
  the backward pass adds.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.summary import gold as goldmod
from app.types.panel import SchemeRows
from app.types.registry import TYPES

SECTION = "traversal"  # the traversal review's section (its type is named only in its own modules)


def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


def _measures(found: list[tuple[int, set[int], list[int]]], k: int) -> dict:
    """`found`: (gold step, gold failure steps, steps named) per review."""
    exact = sum(1 for g, _f, named in found if named and min(named) == g)
    near = sum(1 for g, _f, named in found if named and abs(min(named) - g) <= k)
    every = [(s, fails) for _g, fails, named in found for s in named]
    hit = sum(1 for s, fails in every if s in fails)
    close = sum(1 for s, fails in every if any(abs(s - f) <= k for f in fails))
    return {"n": len(found), "step_accuracy": _rate(exact, len(found)),
            "step_accuracy_within_k": _rate(near, len(found)),
            "named": len(every), "precision": _rate(hit, len(every)), "precision_within_k": _rate(close, len(every))}


def _both(reviews: list[tuple], k: int) -> dict:
    roots = _measures([(g, f, r) for g, f, r, _fl in reviews], k)
    flags = _measures([(g, f, fl) for g, f, _r, fl in reviews], k)

    def gain(key: str) -> float | None:
        return None if roots[key] is None or flags[key] is None else roots[key] - flags[key]
    return {"root_cause": roots, "forward_flags": flags, "precision_gain": gain("precision"),
            "precision_gain_within_k": gain("precision_within_k"), "k": k}


def reviews(scheme_rows: SchemeRows, golds: dict[str, dict]) -> list[tuple]:
    """(annotator, item, gold step, gold failure steps, root causes, forward flags) per review of a
    run with a gold step."""
    table = scheme_rows.table
    if table.empty or "kind" not in table:
        return []
    named: dict[tuple[str, str], tuple[set, set]] = {}
    for who, item, kind, step in zip(*(table[c].tolist() for c in ("annotator", "item_id", "kind", "step"))):
        entry = named.setdefault((who, item), (set(), set()))
        if kind == "root":
            entry[0].add(int(step))
        elif kind == "flag":
            entry[1].add(int(step))
    out = []
    for (who, item), (roots, flags) in sorted(named.items(), key=lambda x: (str(x[0][0]), str(x[0][1]))):
        g = golds.get(item)
        if not g or g["step"] is None:
            continue
        fails = {f["step"] for f in g["failures"] if f["step"] is not None} | {g["step"]}
        out.append((who, item, g["step"], fails, sorted(roots), sorted(flags)))
    return out


def against_gold(ws, per_scheme: dict[str, SchemeRows], chosen: list, item_ids: list[str], k: int) -> dict:
    """Per traversal scheme: the measures above per annotator and overall (none: no such scheme)."""
    ids = set(item_ids)
    golds = {it.id: g for it in ws.items if it.id in ids and (g := goldmod.normalize(it.gold))}
    out: dict[str, Any] = {}
    for s in chosen:
        if TYPES[s.type].section != SECTION:
            continue
        found = reviews(per_scheme[s.name], golds)
        by_who: dict[str, list] = {}
        for who, _item, g, fails, roots, flags in found:
            by_who.setdefault(who, []).append((g, fails, roots, flags))
        out[s.name] = {"items_with_gold": len(golds), "reviews": len(found),
                       "overall": _both([(g, f, r, fl) for _w, _i, g, f, r, fl in found], k),
                       "by_annotator": {who: _both(part, k) for who, part in sorted(by_who.items())}}
    return out
