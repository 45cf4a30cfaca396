"""The summary's Overview: the few answers a reviewer wants first, from `summarize()`'s output.

Which agents are blamed most (ties kept as ties, with their share of the failed runs), which
handoffs are flagged most, which MAST modes dominate per agent, the team's scorecard means with
their 95% intervals, agreement in one line per scheme with its meaning in words, and accuracy
against gold where gold exists. Every figure carries the ids of the runs behind it (`runs`), so
the page can open them.

`runs_behind(per_scheme)` is the one hook in summarize(): the run ids per agent, pair and
scheme, which the rollups count but do not list. `overview(summary)` builds the rest from the
summary's own numbers. No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.summary.human import names, percent
from app.types.registry import TYPES

TOP = 5  # entries per list (more when the last ones tie)


def _ids(values) -> list[str]:
    return sorted({str(v) for v in values})


RUN_KEYS = ("attribution", "handoffs", "mast", "judged")


def runs_behind(per_scheme: dict) -> dict:
    """Per scheme (by its summary section): the runs behind each blamed agent, flagged pair and
    MAST-tagged agent, the runs with a named culprit (failed runs) and the runs judged at all."""
    out: dict[str, dict] = {key: {} for key in RUN_KEYS}
    for name, rows in per_scheme.items():
        for key, entry in runs_of(rows).items():
            out[key][name] = entry
    return out


def runs_of(rows) -> dict:
    """One scheme's part of runs_behind: {key of RUN_KEYS: its entry}."""
    section, t = TYPES[rows.scheme.type].section, rows.table
    out: dict = {"judged": _ids(rows.judged["item_id"]) if len(rows.judged) else []}
    cols = set(t.columns)
    if section == "attribution" and "agent" in cols:
        named = t[t["agent"].notna()]
        out["attribution"] = {"failed_runs": _ids(named["item_id"]),
                              "by_agent": {str(a): _ids(g) for a, g in named.groupby("agent")["item_id"]}}
    elif section == "handoffs" and {"src", "dst", "flags"} <= cols:
        flagged = t[t["flags"].map(lambda f: bool(len(f)) if f is not None else False)]
        out["handoffs"] = [{"src": str(s), "dst": str(d), "runs": _ids(g)}
                           for (s, d), g in flagged.groupby(["src", "dst"])["item_id"]]
    elif section == "mast" and {"agent", "category"} <= cols:
        tagged = t[t["category"].notna()]
        out["mast"] = {str(a): _ids(g) for a, g in tagged.groupby("agent")["item_id"]}
    return out


def ranked(records: list[dict], key: str, top: int = TOP) -> list[dict]:
    """The records by `key`, largest first, each with its `rank` (equal values share a rank:
    1, 1, 3), the first `top` and any that tie with the last of them; zeros left out."""
    ordered = sorted((r for r in records if (r.get(key) or 0) > 0), key=lambda r: -r[key])
    out, rank, last = [], 0, None
    for i, r in enumerate(ordered):
        if r[key] != last:
            rank, last = i + 1, r[key]
        if i >= top and r[key] != out[-1][key]:  # past the cut, and not tied with the last kept
            break
        out.append({**r, "rank": rank})
    return out


def leaders(records: list[dict]) -> list[dict]:
    """The records sharing rank 1."""
    return [r for r in records if r.get("rank") == 1]


def _blamed(summary: dict, behind: dict) -> list[dict]:
    out = []
    for name, att in summary.get("attribution", {}).items():
        mine = behind.get("attribution", {}).get(name, {})
        failed = len(mine.get("failed_runs", []))
        by_agent = mine.get("by_agent", {})
        agents = [{"agent": b["agent"], "count": b["count"], "runs": b["runs"],
                   "share_of_failed_runs": (b["runs"] / failed) if failed else None,
                   "run_ids": by_agent.get(str(b["agent"]), [])} for b in att.get("blame", [])]
        top = ranked(agents, "count")
        out.append({"scheme": name, "attributions": att.get("attributions", 0), "failed_runs": failed,
                    "agents": top, "leaders": [r["agent"] for r in leaders(top)],
                    "sentence": _blame_sentence(leaders(top), failed)})
    return out


def _blame_sentence(first: list[dict], failed: int) -> str:
    """`Coder is blamed most: 4 attributions, in 2 of 3 failed runs (67%).` or, on a tie,
    `Coder and Tester are blamed most, tied: 3 attributions each, ...`."""
    if not first:
        return "No agent is blamed yet."
    who = names([r["agent"] for r in first])
    n = first[0]["count"]
    runs = sorted({r["runs"] for r in first})
    where = (f"in {runs[0]} of {failed} failed runs ({percent(runs[0] / failed)})"
             if len(runs) == 1 and failed else "")
    if len(first) == 1:
        return f"{who} is blamed most: {n} attribution{'s' * (n != 1)}" + (f", {where}" if where else "") + "."
    return (f"{who} are blamed most, tied: {n} attribution{'s' * (n != 1)} each"
            + (f", each {where}" if where else "") + ".")


def _pairs(summary: dict, behind: dict) -> list[dict]:
    out = []
    for name, h in summary.get("handoffs", {}).items():
        runs = {(p["src"], p["dst"]): p["runs"] for p in behind.get("handoffs", {}).get(name, [])}
        pairs = [{"pair": f"{p['src']} → {p['dst']}", "src": p["src"], "dst": p["dst"], "flagged": p["flagged"],
                  "handoffs_reviewed": p["handoffs_reviewed"], "flag_rate": p.get("flag_rate"),
                  "mean_quality": p.get("mean_quality"), "run_ids": runs.get((str(p["src"]), str(p["dst"])), [])}
                 for p in h.get("pairs", [])]
        top = ranked(pairs, "flagged")
        out.append({"scheme": name, "pairs": top, "leaders": [r["pair"] for r in leaders(top)]})
    return out


def _mast(summary: dict, behind: dict) -> list[dict]:
    out = []
    for name, m in summary.get("mast", {}).items():
        runs = behind.get("mast", {}).get(name, {})
        cells = [{"agent": r["agent"], "category": r["category"], "tags": r["tags"]} for r in m.get("by_agent", [])]
        per_agent: dict[str, int] = {}
        for c in cells:
            per_agent[c["agent"]] = per_agent.get(c["agent"], 0) + c["tags"]
        agents = ranked([{"agent": a, "tags": n, "run_ids": runs.get(str(a), [])} for a, n in per_agent.items()],
                        "tags", top=12)
        modes = ranked([{"mode": r["mode"], "category": r["category"], "tags": r["tags"]}
                        for r in m.get("by_mode", [])], "tags")
        out.append({"scheme": name, "cells": [c for c in cells if c["agent"] in {a["agent"] for a in agents}],
                    "agents": agents, "modes": modes})
    return out


def _team(summary: dict, behind: dict) -> list[dict]:
    return [{"scheme": name, "runs": len(behind.get("judged", {}).get(name, [])),
             "run_ids": behind.get("judged", {}).get(name, []),
             "dimensions": [{k: d.get(k) for k in ("dimension", "mean", "ci_low", "ci_high", "n")}
                            for d in sc.get("team", [])]}
            for name, sc in summary.get("scorecards", {}).items()]


# Landis and Koch's words for a chance-corrected coefficient (kappa, alpha)
STRENGTH = [(0.0, "worse than chance"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"),
            (0.8, "substantial"), (float("inf"), "almost perfect")]


def strength(value: float) -> str:
    return next(word for bound, word in STRENGTH if value < bound)


def agreement_line(name: str, a: dict) -> dict:
    """One scheme's agreement: its main measure and what it means, in words."""
    kind = TYPES.get(a.get("type"))
    main = kind.headline(a) if kind is not None and a.get("items_compared") else None
    base = {"scheme": name, "items_compared": a.get("items_compared", 0), "measure": None, "value": None}
    if not main:
        return {**base, "meaning": a.get("note") or "not enough overlap to measure"}
    pa = main.get("percent_agreement")
    same = f"; identical on {percent(pa)} of units" if pa is not None else ""
    for key, label in (("kappa", "κ"), ("alpha", "α")):
        if main.get(key) is not None:
            v = main[key]
            return {**base, "measure": label, "value": v,
                    "meaning": f"{strength(v)} agreement beyond chance ({label} {v:.2f}{same})"}
    if main.get("jaccard") is not None:
        v = main["jaccard"]
        return {**base, "measure": "Jaccard", "value": v,
                "meaning": f"annotators' marks overlap {percent(v)} on average"}
    if main.get("exact") is not None:
        return {**base, "measure": "exact", "value": main["exact"],
                "meaning": f"identical on {percent(main['exact'])} of units"}
    return {**base, "meaning": "undefined: " + str(main.get("note") or "every annotator gave the same answer")}


def _gold(summary: dict) -> dict | None:
    detail = summary.get("gold_detail") or {}
    if not detail.get("items_with_gold"):
        return None
    per = [{"annotator": w, **{k: g.get(k) for k in ("n", "agent_accuracy", "step_accuracy_within_k", "k")}}
           for w, g in (summary.get("gold") or {}).items()]
    judged = sum(r["n"] or 0 for r in per)

    def pooled(key):  # accuracy over every judgement with gold, not a mean of means
        got = [(r[key], r["n"]) for r in per if r[key] is not None and r["n"]]
        return sum(v * n for v, n in got) / sum(n for _, n in got) if got else None

    return {"scheme": detail.get("scheme"), "items_with_gold": detail["items_with_gold"], "judged": judged,
            "agent_accuracy": pooled("agent_accuracy"), "step_accuracy_within_k": pooled("step_accuracy_within_k"),
            "by_annotator": per, "run_ids": _ids(r["item_id"] for r in detail.get("items", []))}


def overview(summary: dict) -> dict:
    """The Overview of a summary (summarize()'s output, with its `runs` hook)."""
    behind = summary.get("runs") or {}
    o = {"blamed": _blamed(summary, behind), "pairs": _pairs(summary, behind), "mast": _mast(summary, behind),
         "team": _team(summary, behind),
         "agreement": [agreement_line(n, a) for n, a in summary.get("agreement", {}).items()],
         "gold": _gold(summary)}
    o["headlines"] = headlines(o)
    return o


def headlines(o: dict) -> list[str]:
    """One sentence per question, first of all: who fails, at which handoffs, which modes, how sure."""
    out = [b["sentence"] for b in o["blamed"] if b["leaders"]]
    for p in o["pairs"]:
        if p["leaders"]:
            top = p["pairs"][0]
            out.append(f"Handoff{'s' * (len(p['leaders']) > 1)} flagged most: "
                       f"{names(p['leaders'])} (" + (f"{top['flagged']} flagged handoffs each, tied)."
                                                     if len(p["leaders"]) > 1 else
                                                     f"{top['flagged']} flagged of {top['handoffs_reviewed']} reviewed)."))
    for m in o["mast"]:
        top = [r for r in m["modes"] if r["rank"] == 1]
        if top:
            out.append(f"Most tagged failure mode{'s' * (len(top) > 1)}: {names([r['mode'] for r in top])} "
                       f"({top[0]['tags']} tags{' each' if len(top) > 1 else ''}).")
    measured = [a for a in o["agreement"] if a["value"] is not None]
    if measured:
        weak = [a["scheme"] for a in measured if a["measure"] in ("κ", "α") and a["value"] < 0.4]
        out.append(f"Agreement is measured on {len(measured)} scheme{'s' * (len(measured) != 1)}"
                   + (f"; weak (below 0.4) on {names(weak)}: read those numbers with care." if weak else
                      "; none is below 0.4."))
    g = o["gold"]
    if g and g["agent_accuracy"] is not None:
        out.append(f"Against gold, annotators named the right agent in {percent(g['agent_accuracy'])} of "
                   f"{g['judged']} judgements.")
    return out


def flag_matrix(summary: dict) -> dict[str, Any]:
    """Agents × agents of every handoff review: flag rate (flagged / reviewed) from the row
    agent to the column agent, agents of the same name across runs merged; agents in order of
    how many handoffs they take part in (the busiest first)."""
    cells: dict[tuple[str, str], list[int]] = {}
    for h in summary.get("handoffs", {}).values():
        for p in h.get("pairs", []):
            c = cells.setdefault((str(p["src"]), str(p["dst"])), [0, 0])
            c[0] += p.get("flagged") or 0
            c[1] += p.get("handoffs_reviewed") or 0
    return {"agents": _busiest_first(cells), "cells": [{"src": s, "dst": d, "flagged": f, "reviewed": n,
                                                         "flag_rate": f / n if n else None}
                                                        for (s, d), (f, n) in sorted(cells.items())]}


GRAPH_MATRIX_TITLE = "Handoffs marked problematic on the interaction graph, from agent (row) to agent (column)"


def graph_matrix(summary: dict) -> dict[str, Any]:
    """Agents × agents of the interaction-graph reviews across runs (the summary's
    `interaction`, agents already merged by name): the share of graph reviews that marked the
    pair problematic (`flag_rate`, as in flag_matrix), with its critical marks and handoffs;
    agents in order of how many reviews saw them."""
    edges = [ed for ed in summary.get("interaction", {}).get("edges", []) if ed.get("graph_reviews")]
    cells = {(str(ed["src"]), str(ed["dst"])): [ed["problematic"], ed["graph_reviews"]] for ed in edges}
    return {"agents": _busiest_first(cells), "cells": [
        {"src": str(ed["src"]), "dst": str(ed["dst"]), "flagged": ed["problematic"], "reviewed": ed["graph_reviews"],
         "flag_rate": ed["problematic"] / ed["graph_reviews"], "critical": ed["critical"], "handoffs": ed["handoffs"]}
        for ed in edges]}


def _busiest_first(cells: dict[tuple[str, str], list[int]]) -> list[str]:
    """The agents of (src, dst) -> [flagged, reviewed] cells, the most reviewed first."""
    weight: dict[str, int] = {}
    for (src, dst), (_flagged, reviewed) in cells.items():
        weight[src] = weight.get(src, 0) + reviewed
        weight[dst] = weight.get(dst, 0) + reviewed
    return sorted(weight, key=lambda a: (-weight[a], a))
