"""A one-file HTML report for people who will not open Baton: headline numbers, the charts with
their tables, and a few runs with their decisive step and flagged handoffs.

The file is self-contained and works offline: Plotly's JavaScript is inlined once, nothing is
fetched. Every string from a trace or an annotation is HTML-escaped (`html.escape`), in the page
and in the charts' labels; figure data is JSON that Plotly writes with ``<``/``>``/``/`` escaped,
so no trace text can close a script element. No Streamlit here.
"""
from __future__ import annotations

import html
from datetime import datetime, timezone
from typing import Any, Iterable

import pandas as pd

from app.summary import charts, overview_charts
from app.summary.human import duration, names, percent
from app.summary.overview import GRAPH_MATRIX_TITLE, flag_matrix, graph_matrix, overview
from app.summary.rows import apply_filters, load
from app.summary.summarize import scheme_rows, summarize
from app.types.panel import SchemeRows
from app.types.registry import TYPES

MAX_ROWS = 200
RUNS = 5
TEXT = 400


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3f}".rstrip("0").rstrip(".") if v == v else "–"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


LISTED = 200  # disagreement records in the report (a large study has hundreds of thousands)


def table(records: list[dict], caption: str = "") -> str:
    if not records:
        return f"<p class='none'>{_e(caption)}: nothing yet.</p>" if caption else ""
    cols = list(dict.fromkeys(k for r in records for k in r))
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_e(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>"
                   for r in records[:MAX_ROWS])
    more = f"<p class='more'>{len(records) - MAX_ROWS} more rows not shown.</p>" if len(records) > MAX_ROWS else ""
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _fig(fig) -> str:
    return "<div class='chart'>" + fig.to_html(include_plotlyjs=False, full_html=False,
                                               config={"displaylogo": False, "responsive": True}) + "</div>"


def _measure(m: dict | None) -> str:
    """One agreement measure as text: the coefficient, or why there is none."""
    if not m:
        return "–"
    v = m.get("kappa", m.get("alpha", m.get("jaccard", m.get("exact"))))
    name = m.get("measure") or ("Jaccard" if "jaccard" in m else "")
    pa = m.get("percent_agreement")
    if v is None:
        return f"undefined ({m.get('note', 'no data')})" + (f", {pa:.0%} agree" if pa is not None else "")
    return f"{name.replace('_', ' ')} {v:.2f}" + (f" · {pa:.0%} agree" if pa is not None else "") + \
        f" · {m.get('n_units', 0)} units"


def extra_tables(rollup: dict) -> list[tuple[str, list[dict]]]:
    """A choices rollup's tables besides its label counts (win rates, mean ranks, comments per
    category, ...): each list of records, and each mapping of plain values as one record."""
    out = []
    for key, x in rollup.items():
        if key in ("type", "labels"):
            continue
        if isinstance(x, list) and x and all(isinstance(r, dict) for r in x):
            out.append((key.replace("_", " "), x))
        elif isinstance(x, dict) and x and not any(isinstance(y, (dict, list)) for y in x.values()):
            out.append((key.replace("_", " "), [x]))
        elif isinstance(x, dict) and isinstance(x.get("values"), list):  # (a distribution with its summary)
            out.append((key.replace("_", " "), [{k: y for k, y in x.items() if k != "values"}]))
            out.append((f"{key.replace('_', ' ')} values", x["values"]))
        elif not isinstance(x, (dict, list)) and x is not None:
            out.append((key.replace("_", " "), [{key: x}]))
    return out


def headline_agreement(agreement: dict) -> list[dict]:
    """One line per scheme: its main agreement figure."""
    rows = []
    for name, a in agreement.items():
        kind = TYPES.get(a.get("type"))
        main = kind.headline(a) if kind is not None else None
        rows.append({"scheme": name, "type": a.get("type"), "items compared": a.get("items_compared"),
                     "agreement": _measure(main) if a.get("items_compared") else a.get("note", "–"),
                     "objects disagreed on": a.get("disagreements")})
    return rows


def runs(ws, per_scheme: dict[str, SchemeRows], n: int = RUNS) -> list[dict]:
    """Up to n runs with attributions (most-annotated first): decisive steps and flagged handoffs."""
    of = lambda section: [r for r in per_scheme.values() if TYPES[r.scheme.type].section == section]  # noqa: E731
    attributions = [r.table.assign(scheme=r.scheme.name) for r in of("attribution") if len(r.table)]
    if not attributions:
        return []
    att = pd.concat(attributions, ignore_index=True)
    counts = att.groupby("item_id")["annotator"].nunique().sort_values(ascending=False, kind="stable")
    out = []
    for item_id in list(counts.index)[:n]:
        item = ws.by_id.get(item_id)
        if item is None:
            continue
        decisive = []
        mine = att[att["item_id"] == item_id]
        for who, agent, step, scheme in zip(mine["annotator"], mine["agent"], mine["step"], mine["scheme"]):
            d = per_scheme[scheme].derive(item_id)
            known = d is not None and step is not None and step == step and 0 <= int(step) < len(d.steps)
            at = d.steps[int(step)] if known else None
            decisive.append({"annotator": who, "agent": agent if isinstance(agent, str) else "(no failure)",
                             "step": None if step is None or step != step else int(step),
                             "acting": at.agent if at else None, "text": (at.text[:TEXT] if at else "")})
        flagged = []
        for rows in of("handoffs"):
            ho = rows.table[rows.table["item_id"] == item_id] if len(rows.table) else rows.table
            if not {"index", "src", "dst", "flags", "quality"} <= set(ho.columns):
                continue
            for who, idx, src, dst, fl, q in zip(*(ho[c] for c in ("annotator", "index", "src", "dst", "flags",
                                                                   "quality"))):
                if fl or (q == q and q is not None and q <= 2):
                    flagged.append({"annotator": who, "handoff": f"#{idx}: {src} → {dst}",
                                    "flags": ", ".join(fl) or "–", "quality": None if q != q else q})
        for rows in per_scheme.values():
            if not {"src", "dst", "state"} <= set(rows.table.columns):
                continue  # (the interaction graph's marked edges)
            ge = rows.table[(rows.table["item_id"] == item_id) & rows.table["state"].notna()]
            for who, src, dst, state in zip(ge["annotator"], ge["src"], ge["dst"], ge["state"]):
                flagged.append({"annotator": who, "handoff": f"{src} → {dst}", "flags": f"marked {state}",
                                "quality": None})
        out.append({"item_id": item_id, "task": (item.text or "")[:TEXT], "gold": item.gold,
                    "decisive": decisive, "flagged": flagged})
    return out


def overview_html(s: dict) -> str:
    """The Overview, as on the summary page: who is blamed most (ties as ties), the most-flagged
    handoffs, MAST modes by agent, team scores with intervals, agreement in words, gold."""
    o = overview(s)
    parts = ["<h2>Overview</h2><ul class='lead'>" + "".join(f"<li>{_e(h)}</li>" for h in o["headlines"]) + "</ul>"]
    for b in o["blamed"]:
        parts.append(f"<h3>Who is blamed most · {_e(b['scheme'])}</h3><p class='lead'>{_e(b['sentence'])}</p>")
        parts.append(_fig(overview_charts.blamed(b)))
        parts.append(table([{"rank": r["rank"], "agent": r["agent"], "attributions": r["count"], "runs": r["runs"],
                             "share of failed runs": percent(r["share_of_failed_runs"]),
                             "runs behind it": ", ".join(r["run_ids"][:10]) + (" …" if len(r["run_ids"]) > 10 else "")}
                            for r in b["agents"]]))
    for p in o["pairs"]:
        parts.append(f"<h3>Most-flagged handoffs · {_e(p['scheme'])}</h3>")
        parts.append(table([{"rank": r["rank"], "from → to": r["pair"], "flagged": r["flagged"],
                             "reviewed": r["handoffs_reviewed"], "flag rate": percent(r["flag_rate"]),
                             "runs behind it": ", ".join(r["run_ids"][:10])} for r in p["pairs"]]))
    if o["pairs"]:
        parts.append(_fig(overview_charts.flag_matrix(flag_matrix(s))))
    for m in o["mast"]:
        parts.append(f"<h3>Failure modes by agent (MAST) · {_e(m['scheme'])}</h3>")
        parts.append(_fig(overview_charts.mast_by_agent(m)))
    for t in o["team"]:
        parts.append(f"<h3>Team scores · {_e(t['scheme'])}</h3>")
        parts.append(table([{"dimension": d["dimension"], "mean": None if d["mean"] is None else round(d["mean"], 1),
                             "95% interval": "–" if d["ci_low"] is None else f"{d['ci_low']:.1f}–{d['ci_high']:.1f}",
                             "scores": d["n"]} for d in t["dimensions"]]))
    parts.append("<h3>How far annotators agree</h3><ul>" + "".join(
        f"<li><b>{_e(a['scheme'])}</b> ({a['items_compared']} items compared): {_e(a['meaning'])}</li>"
        for a in o["agreement"]) + "</ul>")
    g = o["gold"]
    if g:
        parts.append(f"<h3>Accuracy against gold</h3><p>Annotators named the gold culprit in "
                     f"{percent(g['agent_accuracy'])} of {g['judged']} judgements on {g['items_with_gold']} runs "
                     f"with gold; the decisive step within ±{s['filters']['k']} in "
                     f"{percent(g['step_accuracy_within_k'])}.</p>")
    return "\n".join(parts)


CSS = """.lead{font-size:1.1rem;font-weight:600}

body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;
padding:0 1rem;color:#222;line-height:1.45}
h1{margin-bottom:.2rem} .meta{color:#666;margin-top:0}
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.9rem;width:100%}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f4} caption{text-align:left;font-weight:600;padding:.3rem 0}
.cards{display:flex;flex-wrap:wrap;gap:1rem;margin:1rem 0}
.card{border:1px solid #ddd;border-radius:8px;padding:.8rem 1rem;min-width:150px}
.card b{display:block;font-size:1.6rem} .none,.more{color:#666;font-style:italic}
.run{border:1px solid #ddd;border-radius:8px;padding:.5rem 1rem;margin:1rem 0}
.run blockquote{white-space:pre-wrap;background:#fafafa;border-left:3px solid #ccc;margin:.3rem 0;padding:.3rem .6rem}
"""


def _shape_and_hints(s: dict) -> list[str]:
    """The orchestration patterns, the traversal reviews against gold and the suggestions, as tables."""
    parts = []
    orch = s.get("orchestration") or {}
    if orch.get("patterns"):
        parts.append(f"<h2>Orchestration: {_e(orch.get('scheme'))}</h2>"
                     + table([{k: v for k, v in p.items() if k != "outcomes"} for p in orch["patterns"]],
                             "Outcomes and failure rate per confirmed pattern")
                     + table([{k: v for k, v in orch["suggestion"].items() if not isinstance(v, list)}],
                             "How often annotators kept the suggested pattern"))
    for name, t in (s.get("traversal_gold") or {}).items():
        if t.get("reviews"):
            o = t["overall"]
            parts.append(f"<h2>Traversal review against gold: {_e(name)}</h2>" + table(
                [{"judged by": what, **o[what]} for what in ("root_cause", "forward_flags")],
                f"Root causes after the backward pass, and the forward flags alone (precision gain "
                f"{o.get('precision_gain')})"))
    hints = s.get("suggestions") or {}
    used = [{"scheme": n, **{k: v for k, v in x.items() if not isinstance(v, (list, dict))}}
            for n, x in (hints.get("schemes") or {}).items() if x.get("judgements_with_suggestion")]
    if used or (hints.get("accuracy") or {}).get("runs_with_suggestion"):
        acc = {k: v for k, v in (hints.get("accuracy") or {}).items() if not isinstance(v, (list, dict))}
        parts.append("<h2>Suggestions from the runs' own signals</h2>" + table(used, "What annotators did with them")
                     + table([acc], "How often the suggestion itself was right"))
    return parts


def build_html(ws, df=None, *, annotators: Iterable[str] | None = None, schemes: Iterable[str] | None = None,
               items: Iterable[str] | None = None, k: int = 1, summary: dict | None = None) -> str:
    """The report as one HTML string."""
    from plotly.offline import get_plotlyjs

    if df is None:
        df = load(ws)
    s = summary or summarize(ws, df, annotators=annotators, schemes=schemes, items=items, k=k)
    item_ids = [it.id for it in ws.items] if items is None else list(dict.fromkeys(items))
    chosen = [x for x in ws.project.schemes if not schemes or x.name in set(schemes)]
    filtered = apply_filters(df, annotators, schemes, item_ids)
    per_scheme = {x.name: scheme_rows(ws, filtered, x, item_ids, k) for x in chosen}
    parts: list[str] = []
    c = s["counts"]
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f"<h1>{_e(s['project'])}</h1><p class='meta'>Baton report · {when} · "
                 f"{c['items']} runs · {c['annotators']} annotators · {c['judgements']} judgements</p>")

    # headline
    cards = [("runs", c["items"]), ("annotators", c["annotators"]), ("judgements", c["judgements"]),
             ("runs with gold", c["items_with_gold"])]
    for b in overview(s)["blamed"]:
        if b["leaders"]:  # every agent sharing first place: a tie is never one winner
            cards.append((f"most blamed ({b['scheme']})" + (", tied" if len(b["leaders"]) > 1 else ""),
                          f"{names(b['leaders'])} ({b['agents'][0]['count']})"))
    for who, g in s["gold"].items():
        if g.get("agent_accuracy") is not None:
            cards.append((f"{who}: agent accuracy", f"{g['agent_accuracy']:.0%}"))
    parts.append("<h2>At a glance</h2><div class='cards'>" + "".join(
        f"<div class='card'><b>{_e(v)}</b>{_e(n)}</div>" for n, v in cards) + "</div>")
    parts.append(overview_html(s))
    parts.append(table([{**{k: v for k, v in r.items() if k != "seconds"}, "time spent": duration(r["seconds"])}
                        for r in s["progress"]["by_annotator"]], "Progress per annotator"))

    # failure attribution
    for name, att in s["attribution"].items():
        parts.append(f"<h2>Failure attribution: {_e(name)}</h2>")
        parts.append(_fig(charts.blame(att)) + table(att["blame"], "Blame per agent"))
        parts.append(_fig(charts.position_histogram(att)) + table(att["position_histogram"],
                                                                   "Decisive-step position"))
        acting = att.get("acting_is_blamed") or {}
        if acting.get("of"):
            parts.append(f"<p>The blamed agent acts at the decisive step in {acting['share']:.0%} of attributions "
                         f"({acting['count']} of {acting['of']}).</p>")
    # gold
    if s["gold"]:
        parts.append("<h2>Accuracy against gold</h2>")
        parts.append(_fig(charts.gold_accuracy(s["gold"])))
        parts.append(table([{"annotator": w, **g} for w, g in s["gold"].items()], "Accuracy per annotator"))
        parts.append(table(s["gold_detail"]["confusion"], "Gold agent × annotated agent"))
    # scorecards
    for name, sc in s["scorecards"].items():
        scale = ws.project.scheme(name).get("scale") if name in {x.name for x in chosen} else None
        parts.append(f"<h2>Scorecard: {_e(name)}</h2>")
        parts.append(_fig(charts.scorecard_heatmap(sc["agents"], scale)))
        parts.append(table(sc["agents"], "Per agent and dimension (mean, 95% interval)"))
        parts.append(table(sc["team"], "Team dimensions") + table(sc["milestones"], "Milestones reached"))
    # handoffs and interaction graph
    inter = s["interaction"]
    if inter["edges"]:
        parts.append("<h2>Interaction graph across runs</h2>")
        marked = graph_matrix(s)
        if marked["cells"]:
            parts.append(_fig(overview_charts.flag_matrix(marked, title=GRAPH_MATRIX_TITLE, flagged="problematic")))
        parts.append(table(inter["edges"], "Ordered agent pairs"))
    for name, h in s["handoffs"].items():
        parts.append(f"<h2>Handoffs: {_e(name)}</h2>")
        recs = [{**p, "pair": f"{p['src']} → {p['dst']}"} for p in h["pairs"]]
        parts.append(_fig(charts.bar(recs, "pair", "flag_rate", "Flag rate per ordered pair", percent=True)))
        parts.append(table(h["pairs"], "Flag rate and mean quality per pair"))
    for name, m in s["mast"].items():
        parts.append(f"<h2>MAST failure modes: {_e(name)}</h2>")
        parts.append(_fig(charts.bar(m["by_category"], "category", "tags", "Tags per category")))
        parts.append(_fig(charts.bar(m["by_agent"], "agent", "tags", "Tags per acting agent", color="category")))
        parts.append(table(m["by_mode"], "Tags per mode") + table(m["by_agent"], "Tags per agent and category"))
    for name, ct in s["contention"].items():
        parts.append(f"<h2>Contention: {_e(name)}</h2>")
        parts.append(_fig(charts.bar(ct["labels"], "resource", "count", "Labels per resource", color="label")))
        parts.append(table(ct["labels"], "Labels per resource"))
    for name, tv in s["tool_verdicts"].items():
        parts.append(f"<h2>Tool calls: {_e(name)}</h2>")
        parts.append(_fig(charts.bar(tv, "tool", "count", "Verdicts per tool", color="verdict")))
        parts.append(table(tv, "Verdicts per tool"))
    for name, em in s["emergent"].items():
        parts.append(f"<h2>Emergent behaviours: {_e(name)}</h2>" + table(em["totals"], "Behaviours")
                     + table(em.get("per_run") or TYPES[per_scheme[name].scheme.type].listings["per_run"](
                         per_scheme[name]), "Per run"))
    for name, ch in s["choices"].items():
        parts.append(f"<h2>{_e(name)}</h2>")
        parts.append(_fig(charts.bar(ch["labels"], "label", "count", f"{name}")) + table(ch["labels"]))
        parts.extend(table(records, title) for title, records in extra_tables(ch))
    parts += _shape_and_hints(s)
    # agreement
    parts.append("<h2>Agreement between annotators</h2>")
    parts.append(table(headline_agreement(s["agreement"]), "Main measure per scheme"))
    dis = s["disagreements"] or []
    n = sum(a.get("disagreements", 0) for a in s["agreement"].values())
    caption = f"Where annotators differ ({n:,})" if len(dis) <= LISTED else (
        f"Where annotators differ ({n:,}; the first {LISTED} listed: the Summary page and "
        "`python -m app summary --json` list every one)")
    parts.append(table(dis[:LISTED], caption))
    # runs
    rs = runs(ws, per_scheme)
    if rs:
        parts.append("<h2>A few runs</h2>")
    for r in rs:
        gold = r["gold"] or {}
        g = (f"<p>Gold: {_e(gold.get('mistake_agent'))} at step {_e(gold.get('mistake_step'))}</p>"
             if gold.get("mistake_agent") is not None else "")
        dec = "".join(
            f"<li><b>{_e(d['annotator'])}</b>: {_e(d['agent'])}"
            + (f", decisive step {d['step']} (acting: {_e(d['acting'])})<blockquote>{_e(d['text'])}</blockquote>"
               if d["step"] is not None else "") + "</li>" for d in r["decisive"])
        parts.append(f"<div class='run'><h3>{_e(r['item_id'])}</h3><blockquote>{_e(r['task'])}</blockquote>{g}"
                     f"<ul>{dec}</ul>{table(r['flagged'], 'Flagged handoffs')}</div>")
    body = "\n".join(parts)
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{_e(s['project'])} · Baton report</title><style>{CSS}</style>"
            f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>{body}</body></html>")
