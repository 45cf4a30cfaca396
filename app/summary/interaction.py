"""The interaction graph across runs: steps per agent, and per ordered pair of agents its handoffs,
the runs holding it, how often it was marked on an interaction-graph scheme and flagged on a
handoff review.

The runs are the summary's items, read through the first interaction-graph scheme's trace keys
(else the first handoff review's, else the defaults). For each ordered pair:

- ``handoffs``: its handoffs over every run; ``runs``: the runs holding one or more;
- ``graph_reviews``: the judgements on interaction-graph schemes of the runs holding it;
- ``critical`` / ``problematic``: the marks in that state on those schemes (every judgement,
  the run's trace having the pair or not: a pair marked on no run of the summary is listed too);
  ``marked_rate``: (critical + problematic) / graph_reviews (None: no review);
- ``handoff_review_flags``: the handoffs between them flagged on a handoff review (as the trace
  is now, app/types/handoff_review.judgements).

Pairs come sorted by (from, to), agents by name.

No Streamlit here.
"""
from __future__ import annotations

from collections import Counter

from app.stats.counting import sorted_keys
from app.summary.rows import Derivations
from app.types import agent_interaction_graph, handoff_review
from app.types.base import Scheme
from app.types.panel import SchemeRows

GRAPH, REVIEW = agent_interaction_graph.TYPE.name, handoff_review.TYPE.name


def interaction(per_scheme: dict[str, SchemeRows], chosen: list[Scheme], item_ids: list[str],
                derivations: Derivations) -> dict:
    """{"nodes": [{agent, steps, critical_marks}], "edges": [{src, dst, handoffs, runs,
    graph_reviews, critical, problematic, marked_rate, handoff_review_flags}]} (see the module's
    docstring)."""
    graphs = [per_scheme[name] for name in dict.fromkeys(s.name for s in chosen if s.type == GRAPH)]
    reviews = [per_scheme[s.name] for s in chosen if s.type == REVIEW]
    trace_scheme = graphs[0].scheme if graphs else (reviews[0].scheme if reviews else None)
    derive = derivations.getter(trace_scheme)

    reviews_of: Counter = Counter()  # graph judgements per run
    for rows in graphs:
        reviews_of.update(rows.judged["item_id"].dropna())
    steps: Counter = Counter()
    handoffs: Counter = Counter()
    runs: Counter = Counter()
    graph_reviews: Counter = Counter()
    for item_id in item_ids:
        d = derive(item_id)
        if d is None:
            continue
        steps.update(step.agent for step in d.steps)
        for src, dst, n in d.edges:  # (a run lists each pair once)
            handoffs[(src, dst)] += n
            runs[(src, dst)] += 1
            graph_reviews[(src, dst)] += reviews_of[item_id]

    marks: Counter = Counter()  # (src, dst, state) -> marks
    critical_marks: Counter = Counter()  # agent -> marks
    for rows in graphs:
        table = rows.table
        if not len(table):
            continue
        # (a node's row has no state, an edge's no agent: missing, None or NaN)
        marks.update(mark for mark in zip(*(table[c].tolist() for c in ("src", "dst", "state")))
                     if isinstance(mark[2], str))
        critical_marks.update(agent for agent in table["agent"].tolist() if isinstance(agent, str))
    flags: Counter = Counter()
    for rows in reviews:
        found, _stale = handoff_review.judgements(rows)
        flagged = found[found["flagged"]]
        flags.update(zip(flagged["src"].tolist(), flagged["dst"].tolist()))

    pairs = dict.fromkeys(list(runs) + list(handoffs) + [(a, b) for a, b, _state in marks])
    edges = []
    for src, dst in sorted_keys(pairs):
        critical, problematic = marks[(src, dst, "critical")], marks[(src, dst, "problematic")]
        reviewed = graph_reviews[(src, dst)]
        edges.append({"src": src, "dst": dst, "handoffs": handoffs[(src, dst)], "runs": runs[(src, dst)],
                      "graph_reviews": reviewed, "critical": critical, "problematic": problematic,
                      "marked_rate": (critical + problematic) / reviewed if reviewed else None,
                      "handoff_review_flags": flags[(src, dst)]})
    nodes = [{"agent": agent, "steps": steps[agent], "critical_marks": critical_marks[agent]}
             for agent in sorted_keys(steps)]
    return {"nodes": nodes, "edges": edges}
