"""ranking: an order of candidates from best to worst, ties allowed where configured (Potato's
drag-and-drop ranking).

What is ranked: the scheme's `labels` (the same candidates for every item: e.g. the agents of a
run, or named systems whose outputs the item shows), or, with `items_key`, the entries of that
list in each item, named by position A, B, C, ... (the entries themselves may be long texts or
whole runs; a position stays the same name however the text is edited).

Stored as Potato stores it, `{"rank_order": "B,D=A,C"}`: best first, commas between ranks, `=`
between tied candidates. Ranks are standard competition ranks: B 1st, D and A 2nd, C 4th.

Summary: per candidate how often it was ranked, its mean rank and how often it came first.
Agreement: Krippendorff's ordinal alpha on each candidate's rank (one unit per item and
candidate), and nominal agreement on which candidate came first.

No Streamlit here.
"""
from __future__ import annotations

import string
from typing import Any

import numpy as np
import pandas as pd

from app.project import validators as v
from app.project.validators import show
from app.stats.agreement import judgements, nominal, ordinal, show_number
from app.stats.counting import in_order
from app.types.base import AnnotationType, Key, Scheme
from app.types.options import split_known
from app.types.panel import SchemeRows

RANK_GAP = 2  # ranks this far apart are listed as a disagreement


def letters(n: int) -> list[str]:
    """Position names A, B, ..., Z, AA, AB, ... for n candidates."""
    out = []
    for i in range(n):
        name, i = "", i + 1
        while i:
            i, r = divmod(i - 1, 26)
            name = string.ascii_uppercase[r] + name
        out.append(name)
    return out


def candidates(data: dict | None, scheme: Scheme) -> list[tuple[str, Any]]:
    """(name, what is shown) of each candidate for an item: the labels, or the item's list entries."""
    key = scheme.get("items_key")
    if key:
        listed = (data or {}).get(key)
        listed = listed if isinstance(listed, list) else []
        return list(zip(letters(len(listed)), listed))
    return [(x["name"], x.get("tooltip") or "") for x in scheme.get("labels") or []]


def parse(order: Any, known: list[str] = ()) -> list[list[str]] | None:
    """The groups of a rank order text, best first (None: not a text); the `known` names are
    matched whole, so a label holding "," or "=" is read as one (as Potato reads it)."""
    if not isinstance(order, str):
        return None
    groups: list[list[str]] = []
    for before, name in split_known(order, list(known), ",="):
        if before == "=" and groups:
            groups[-1].append(name)
        else:
            groups.append([name])
    return groups


def known_names(scheme: Scheme) -> list[str]:
    return [] if scheme.get("items_key") else [x["name"] for x in scheme.get("labels") or []]


def text(groups: list[list[str]]) -> str:
    return ",".join("=".join(group) for group in groups)


def build(groups: list[list[str]]) -> dict:
    groups = [g for g in groups if g]
    return {"rank_order": text(groups)} if groups else {}


def ranks(groups: list[list[str]]) -> dict[str, int]:
    """Each candidate's competition rank (tied candidates share the best rank of their group)."""
    out, place = {}, 1
    for group in groups:
        for name in group:
            out[name] = place
        place += len(group)
    return out


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the rank order text, or a list (of names, or of lists
    of tied names)."""
    if isinstance(value, str):
        return {"rank_order": value}
    if isinstance(value, list):
        return build([[str(x) for x in g] if isinstance(g, list) else [str(g)] for g in value])
    return value


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or set(value) != {"rank_order"}:
        return [f'expected {{"rank_order": "B,A=C"}}, got {show(value)}']
    groups = parse(value["rank_order"], known_names(scheme))
    if groups is None:
        return [f"rank_order is not a text: {show(value['rank_order'])}"]
    out = []
    names = [n for g in groups for n in g]
    if len(set(names)) != len(names):
        out.append(f"rank_order {show(value['rank_order'])} names a candidate twice")
    if not scheme.get("allow_ties") and any(len(g) > 1 for g in groups):
        out.append(f"rank_order {show(value['rank_order'])} has ties (=), and allow_ties is off")
    if not scheme.get("items_key"):
        known = [x["name"] for x in scheme.get("labels") or []]
        unknown = [n for n in names if n not in known]
        if unknown:
            out.append(f"{', '.join(map(show, unknown))} not among the labels ({', '.join(known)})")
        missing = [n for n in known if n not in names]
        if missing and not unknown:
            out.append(f"rank_order leaves out {', '.join(map(show, missing))} (a ranking orders every label)")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    groups = parse(value.get("rank_order"), known_names(scheme)) if isinstance(value, dict) else None
    return [{"candidate": name, "rank": float(r)} for name, r in ranks(groups or []).items()]


def rollup(scheme_rows: SchemeRows) -> dict:
    """Per candidate: how often ranked, first, and its mean rank (`labels` counts first places)."""
    table, scheme = scheme_rows.table, scheme_rows.scheme
    if table.empty:
        return {"type": scheme.type, "labels": [], "candidates": []}
    by = table.groupby("candidate", sort=False)["rank"]
    n, mean, first = by.size(), by.mean(), table[table["rank"] == 1].groupby("candidate", sort=False).size()
    judged = max(len(scheme_rows.judged), 1)
    order = in_order(None if scheme.get("items_key") else scheme.get("labels"), n.index)
    cands = [{"candidate": c, "ranked": int(n[c]), "mean_rank": float(mean[c]), "first": int(first.get(c, 0)),
              "share_first": int(first.get(c, 0)) / judged} for c in order if c in n]
    return {"type": scheme.type,
            "labels": [{"label": c["candidate"], "count": c["first"], "share": c["share_first"]} for c in cands],
            "candidates": sorted(cands, key=lambda c: c["mean_rank"])}


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    if given.empty:
        empty = judgements([], [], [])
        return {"rank": ordinal(empty), "first": nominal(empty)}
    codes, names = pd.factorize(given["candidate"].astype(object))
    width = max(len(names), 1)
    unit = given["item"].to_numpy(dtype=np.int64) * width + codes
    table = judgements(unit, given["rater"], given["rank"])
    disagreements.add(table, lambda u: (panel.items[u // width], f"rank of {names[u % width]}"), "rank",
                      show_number, gap=RANK_GAP)
    top = given[given["rank"] == 1].sort_values("candidate", kind="stable")
    firsts = top.groupby(["item", "rater"], sort=True)["candidate"].agg(lambda c: "=".join(c)).reset_index()
    return {"rank": ordinal(table), "first": nominal(judgements(firsts["item"], firsts["rater"], firsts["candidate"]))}


TYPE = AnnotationType(
    name="ranking", title="Ranking", page="pages/ranking.py",
    keys={"labels": Key(v.labels, doc="the candidates every item ranks (or items_key)"),
          "allow_ties": Key(v.boolean, default=False),
          "items_key": Key(v.nonempty_string, doc="item field holding the list to rank (instead of labels)")},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate,
    looks_like=lambda value: isinstance(value, dict) and "rank_order" in value,
    headline=lambda measures: measures.get("rank"))
