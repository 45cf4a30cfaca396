"""The summary of a study: progress, each scheme's rollup and agreement, the interaction graph
across runs, accuracy against gold. One plain pass over the stored rows.

`summarize(ws, rows)` returns one JSON-ready dict; `python -m app summary --json` prints it,
the summary page and the HTML report draw it. Every table is a list of records.

Conventions (docs/summary.md says what each number means):

- judgements are rows with status ``annotated`` or ``reviewed_clean`` (app/summary/rows.py);
- a label that names an object of the trace (a handoff, a region, a step) counts only while the
  trace still has that object (else it is ``stale``);
- a disagreement is a categorical or set judgement differing between annotators, a score
  differing by 2 points or more, decisive steps further apart than k.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from app.stats.agreement import Disagreements
from app.stats.counting import plain
from app.summary import gold as goldmod
from app.summary import suggestions as hints, traversal
from app.summary.interaction import interaction
from app.summary.orchestration import orchestration
from app.summary.overview import runs_behind
from app.summary.progress import progress
from app.traces.derive import no_gc
from app.summary.rows import Derivations, apply_filters, done_marks, judgements, load, long_table
from app.summary.validity import checked
from app.types.panel import SchemeRows
from app.types.registry import TYPES

FREE_TEXT = "free text: no agreement measure"
# the summary's sections of rollups, in the order they are listed (the interaction graph
# between the first three and the others)
SECTIONS = ["scorecards", "attribution", "handoffs"]
SECTIONS_AFTER = ["contention", "emergent", "tool_verdicts", "mast", "traversal", "choices"]


def clean(obj: Any) -> Any:
    """A nested structure made JSON-safe: numpy scalars as Python ones, NaN as None, tuples as lists."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    return plain(obj)


def scheme_rows(ws, df: pd.DataFrame, scheme, item_ids: list[str], k: int,
                judged: dict[str, pd.DataFrame] | None = None) -> SchemeRows:
    """One scheme's judgements and long table under the summary's filters (`judged`: the
    judgements already split by scheme)."""
    if judged is None:
        rows = judgements(df)
        mine = rows[rows["scheme"] == scheme.name]
    else:
        mine = judged.get(scheme.name, df.iloc[:0])
    kind = TYPES[scheme.type]
    return SchemeRows(scheme=scheme, judged=mine[["item_id", "annotator", "status", "seconds_spent"]],
                      table=long_table(mine, kind, scheme), item_ids=item_ids, k=k,
                      derive=Derivations.of(ws).getter(scheme))


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


def _gold(ws, per_scheme: dict[str, SchemeRows], chosen: list, item_ids: list[str], k: int) -> dict:
    """Accuracy of the first failure attribution scheme (and the step reviews' tags) against gold."""
    ids = set(item_ids)
    golds = {it.id: g for it in ws.items if it.id in ids and (g := goldmod.normalize(it.gold))}
    attribution = next((s for s in chosen if s.type == "failure_attribution"), None)
    attributions = []
    if attribution is not None:
        t = per_scheme[attribution.name].table
        t = t[t["item_id"].isin(golds)] if len(t) else t.assign(agent=[], step=[])
        attributions = [{"item_id": i, "annotator": w, "agent": a,
                         "step": None if s is None or s != s else int(s), "status": st}
                        for i, w, a, s, st in zip(*(t[c].tolist() for c in ("item_id", "annotator", "agent", "step",
                                                                              "status")))]
    tags: dict[tuple[str, str], set[int]] = {}
    for s in (s for s in chosen if s.type == "trajectory_eval"):
        rows = per_scheme[s.name]
        table = rows.table
        modes = table[table["item_id"].isin(golds) & table["category"].notna()] if "category" in table else table.iloc[:0]
        modes = modes if "step" in modes else modes.assign(step=[])
        for i, w, step in zip(*(modes[c].tolist() for c in ("item_id", "annotator", "step"))):
            tags.setdefault((i, w), set()).add(int(step))
        judged = rows.judged[rows.judged["item_id"].isin(golds)]
        for i, w in zip(judged["item_id"].tolist(), judged["annotator"].tolist()):
            tags.setdefault((i, w), set())
    found = goldmod.accuracy(attributions, golds, k, tags)
    return {"by_annotator": found["by_annotator"],
            "detail": {"scheme": attribution.name if attribution is not None else None,
                       "items_with_gold": len(golds), "confusion": found["confusion"], "items": found["items"]}}


def summarize(ws, df: pd.DataFrame | None = None, **filters) -> dict:
    """Everything the summary page, `python -m app summary` and the report show (JSON-ready);
    see _summarize. (The cyclic garbage collector paused meanwhile: the summary allocates
    many small objects, and each collection would walk every live one, the parsed traces
    included.)"""
    with no_gc():
        return _summarize(ws, df, **filters)


def _summarize(ws, df: pd.DataFrame | None = None, *, annotators: Iterable[str] | None = None,
              schemes: Iterable[str] | None = None, items: Iterable[str] | None = None, k: int = 1,
              disagreements: bool = True, validate: bool = True) -> dict:
    """Everything the summary page, `python -m app summary` and the report show (JSON-ready).

    With `disagreements`, the records of every object annotators disagree on are listed under
    ``disagreements``, and the records some rollups count one by one (each decisive step, each
    run's behaviours) under their scheme; without, ``disagreements`` is None and the counts
    alone are given. Rows whose value does not fit its scheme (or trace) are left out and listed
    under ``invalid`` (app/summary/validity.py); `validate=False` counts every row as stored."""
    df = load(ws) if df is None else df
    item_ids = [it.id for it in ws.items] if items is None else list(dict.fromkeys(items))
    df = apply_filters(df, annotators, schemes, item_ids)
    df, invalid = checked(ws, df) if validate else (df, {"count": 0, "rows": []})  # (left out, and listed)
    project = ws.project
    chosen = [s for s in project.schemes if not schemes or s.name in set(schemes)]
    judged = judgements(df)
    by_scheme = {name: part for name, part in judged.groupby("scheme", sort=False)}
    per_scheme = {s.name: scheme_rows(ws, df, s, item_ids, k, by_scheme) for s in chosen}
    prog = progress(df, judged, done_marks(df), len(item_ids), [s.name for s in project.schemes])
    wanted = set(item_ids)
    out: dict[str, Any] = {
        "project": project.name,
        "filters": {"annotators": list(annotators) if annotators else None,
                    "schemes": list(schemes) if schemes else None,
                    "items": None if items is None else len(item_ids), "k": k},
        "counts": {"items": len(item_ids), "annotators": prog.pop("annotators"), "judgements": prog.pop("judgements"),
                   "items_with_gold": sum(1 for it in ws.items if it.id in wanted and goldmod.normalize(it.gold))},
        "progress": prog,
    }
    rollups: dict[str, dict] = {section: {} for section in SECTIONS + SECTIONS_AFTER}
    for s in chosen:
        kind = TYPES[s.type]
        if kind.section is None or kind.rollup is None:
            continue
        part = kind.rollup(per_scheme[s.name])
        if disagreements and kind.listings:
            listed = {what: fn(per_scheme[s.name]) for what, fn in kind.listings.items()}
            part = {**listed, **part} if kind.listings_first else {**part, **listed}
        rollups[kind.section][s.name] = part
    out.update((section, rollups[section]) for section in SECTIONS)
    out["interaction"] = interaction(per_scheme, chosen, item_ids, Derivations.of(ws))
    out.update((section, rollups[section]) for section in SECTIONS_AFTER)
    listed: list[dict] = []
    out["agreement"] = {}
    for s in chosen:
        measures, records = agreement(per_scheme[s.name], disagreements)
        out["agreement"][s.name] = measures
        listed += records
    g = _gold(ws, per_scheme, chosen, item_ids, k)
    out["gold"] = g["by_annotator"]
    out["gold_detail"] = g["detail"]
    out["traversal_gold"] = traversal.against_gold(ws, per_scheme, chosen, item_ids, k)
    out["suggestions"] = hints.summary(ws, per_scheme, chosen, item_ids, k)
    out["disagreements"] = listed if disagreements else None
    out["orchestration"] = orchestration(ws, df, item_ids)
    out["invalid"] = invalid
    out["runs"] = runs_behind(per_scheme)  # the runs behind the Overview's figures (app/summary/overview.py)
    return clean(out)


def _one_scheme(ws, df: pd.DataFrame | None, scheme: str, annotators, items, k: int) -> SchemeRows:
    """One scheme's rows under the summary's filters."""
    df = load(ws) if df is None else df
    item_ids = [it.id for it in ws.items] if items is None else list(dict.fromkeys(items))
    rows, _invalid = checked(ws, apply_filters(df, annotators, [scheme], item_ids))
    return scheme_rows(ws, rows, ws.project.scheme(scheme), item_ids, k)


def disagreements(ws, df: pd.DataFrame | None, scheme: str, *, annotators: Iterable[str] | None = None,
                  items: Iterable[str] | None = None, k: int = 1) -> list[dict]:
    """What annotators disagree on in one scheme, under the summary's filters (the summary
    without its listed records gives how many; this lists them, for the scheme someone opens)."""
    return clean(agreement(_one_scheme(ws, df, scheme, annotators, items, k), listed=True)[1])


def listing(ws, df: pd.DataFrame | None, scheme: str, what: str, *, annotators: Iterable[str] | None = None,
            items: Iterable[str] | None = None) -> list[dict]:
    """Records one scheme's rollup counts but lists only when asked (its type's `listings`)."""
    rows = _one_scheme(ws, df, scheme, annotators, items, 1)
    found = TYPES[rows.scheme.type].listings.get(what)
    if found is None:
        listers = ", ".join(name for name, kind in TYPES.items() if what in kind.listings) or "no"
        raise ValueError(f"{scheme} is a {rows.scheme.type} scheme; {what} lists {listers} schemes")
    return clean(found(rows))


def fingerprint(df: pd.DataFrame) -> str:
    """What identifies the stored rows' state (how many, and the sum of each whole row's hash):
    a save, a clear or a delete changes it; equal for an unchanged store, so a summary computed
    from it can be shown again."""
    hashes = pd.util.hash_pandas_object(df, index=False).to_numpy()
    return f"{len(hashes)}:{int(hashes.sum(dtype=np.uint64))}"
