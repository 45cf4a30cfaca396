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

from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from app.stats.counting import clean
from app.summary import gold as goldmod
from app.summary import suggestions as hints, traversal
from app.summary.interaction import interaction
from app.summary.orchestration import orchestration, outcome_scheme
from app.summary.overview import RUN_KEYS
from app.summary.parts import Options, SchemePart, across, agreement, scheme_part
from app.summary.progress import progress
from app.traces.derive import no_gc
from app.summary.rows import Derivations, apply_filters, done_marks, judgements, load, long_table
from app.summary.validity import checked, report
from app.types import agent_interaction_graph, failure_attribution, handoff_review, trajectory_eval
from app.types.panel import SchemeRows
from app.types.registry import TYPES

# the summary's sections of rollups, in the order they are listed (the interaction graph
# between the first three and the others)
SECTIONS = ["scorecards", "attribution", "handoffs"]
# the types whose parts the sections across schemes read
INTERACTION = (agent_interaction_graph.TYPE.name, handoff_review.TYPE.name)
GOLD = (failure_attribution.TYPE.name, trajectory_eval.TYPE.name)
SECTIONS_AFTER = ["contention", "emergent", "tool_verdicts", "mast", "traversal", "choices"]


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


def _gold(ws, per_scheme: dict[str, SchemeRows], chosen: list, item_ids: list[str], k: int) -> dict:
    """Accuracy of the first failure attribution scheme (and the step reviews' tags) against gold."""
    ids = set(item_ids)
    golds = {it.id: g for it in ws.items if it.id in ids and (g := goldmod.normalize(it.gold))}
    attribution = next((s for s in chosen if s.type == failure_attribution.TYPE.name), None)
    attributions = []
    if attribution is not None:
        t = per_scheme[attribution.name].table
        t = t[t["item_id"].isin(golds)] if len(t) else t.assign(agent=[], step=[])
        attributions = [{"item_id": i, "annotator": w, "agent": a,
                         "step": None if s is None or s != s else int(s), "status": st}
                        for i, w, a, s, st in zip(*(t[c].tolist() for c in ("item_id", "annotator", "agent", "step",
                                                                              "status")))]
    tags: dict[tuple[str, str], set[int]] = {}
    for s in (s for s in chosen if s.type == trajectory_eval.TYPE.name):
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
              disagreements: bool = True, validate: bool = True,
              on_scheme: Callable[[int, int, str], None] | None = None) -> dict:
    """Everything the summary page, `python -m app summary` and the report show (JSON-ready).

    With `disagreements`, the records of every object annotators disagree on are listed under
    ``disagreements``, and the records some rollups count one by one (each decisive step, each
    run's behaviours) under their scheme; without, ``disagreements`` is None and the counts
    alone are given. Rows whose value does not fit its scheme (or trace) are left out and listed
    under ``invalid`` (app/summary/validity.py); `validate=False` counts every row as stored.

    `on_scheme(done, of, scheme)` is told before each scheme's part (a page shows the progress).
    Each scheme's part comes from its own rows (app/summary/parts.py: reused from memory while
    they are the same); the sections across schemes are computed from the parts."""
    df = load(ws) if df is None else df
    item_ids = [it.id for it in ws.items] if items is None else list(dict.fromkeys(items))
    df = apply_filters(df, annotators, schemes, item_ids).reset_index(drop=True)
    project = ws.project
    chosen = [s for s in project.schemes if not schemes or s.name in set(schemes)]
    wanted = set(item_ids)
    golds = Derivations.of(ws).memo("golds", tuple(item_ids), lambda: {
        it.id: g for it in ws.items if it.id in wanted and (g := goldmod.normalize(it.gold))})
    options = Options(item_ids=item_ids, k=k, listed=disagreements, validate=validate, golds=golds)
    row_hashes = pd.util.hash_pandas_object(df, index=False).to_numpy()
    at = df.groupby("scheme", sort=False, observed=True).indices
    none = np.zeros(0, dtype=np.int64)
    radios = [n for n in (project.orchestration_scheme, getattr(outcome_scheme(project), "name", None))
              if n in {s.name for s in chosen}]
    parts: dict[str, SchemePart] = {}
    for done, s in enumerate(chosen):
        if on_scheme is not None:
            on_scheme(done, len(chosen), s.name)
        read_across = s.type in INTERACTION + GOLD or TYPES[s.type].section == traversal.SECTION
        parts[s.name] = scheme_part(ws, s, df.iloc[at.get(s.name, none)], row_hashes[at.get(s.name, none)], options,
                                    keep=(read_across, s.name in radios))
    left_out = np.zeros(len(df), dtype=bool)
    for name, part in parts.items():
        left_out[at.get(name, none)[part.left_out]] = True
    counted = df[~left_out] if left_out.any() else df
    per_scheme = {name: part.rows for name, part in parts.items() if part.rows is not None}
    judged = judgements(counted)
    prog = progress(counted, judged, done_marks(counted), len(item_ids), [s.name for s in project.schemes])
    out: dict[str, Any] = {
        "project": project.name,
        "filters": {"annotators": list(annotators) if annotators else None,
                    "schemes": list(schemes) if schemes else None,
                    "items": None if items is None else len(item_ids), "k": k},
        "counts": {"items": len(item_ids), "annotators": prog.pop("annotators"), "judgements": prog.pop("judgements"),
                   "items_with_gold": len(golds)},
        "progress": prog,
    }
    rollups: dict[str, dict] = {section: {} for section in SECTIONS + SECTIONS_AFTER}
    for s in chosen:
        if parts[s.name].rollup is not None:
            rollups[TYPES[s.type].section][s.name] = parts[s.name].rollup
    out.update((section, rollups[section]) for section in SECTIONS)
    def using(*types: str) -> list[SchemePart]:
        return [parts[s.name] for s in chosen if s.type in types]
    out["interaction"] = across(ws, options, "interaction", using(*INTERACTION),
                                lambda: clean(interaction(per_scheme, chosen, item_ids, Derivations.of(ws))))
    out.update((section, rollups[section]) for section in SECTIONS_AFTER)
    out["agreement"] = {name: part.agreement for name, part in parts.items()}
    g = across(ws, options, "gold", using(*GOLD), lambda: clean(_gold(ws, per_scheme, chosen, item_ids, k)))
    out["gold"] = g["by_annotator"]
    out["gold_detail"] = g["detail"]
    out["traversal_gold"] = across(ws, options, "traversal_gold", [p for s, p in zip(chosen, parts.values())
                                                                   if TYPES[s.type].section == traversal.SECTION],
                                   lambda: clean(traversal.against_gold(ws, per_scheme, chosen, item_ids, k)))
    out["suggestions"] = {"schemes": {name: part.hints for name, part in parts.items() if part.hints is not None}}
    accuracy = Derivations.of(ws).memo("suggestions.accuracy", (tuple(s.name for s in chosen), tuple(item_ids), k),
                                       lambda: hints.accuracy(ws, chosen, item_ids, golds, k))
    if accuracy is not None:
        out["suggestions"]["accuracy"] = accuracy
    out["disagreements"] = [r for part in parts.values() for r in part.records] if disagreements else None
    out["orchestration"] = across(ws, options, "orchestration", [parts[n] for n in radios], lambda: clean(orchestration(
        ws, pd.concat([parts[n].judged for n in radios]) if radios else counted.iloc[:0], item_ids)))
    out["invalid"] = report(ws, [row for part in parts.values() for row in part.invalid]) if validate \
        else {"count": 0, "rows": []}
    out["runs"] = {key: {name: part.runs[key] for name, part in parts.items() if key in part.runs} for key in RUN_KEYS}
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
