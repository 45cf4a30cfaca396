"""agent_scorecard values: per-agent and team scores 1..scale, milestones reached.

Stored value (the `value` of the Parquet row)::

    {"agents": {agent: {dimension: score}}, "team": {dimension: score},
     "milestones": {milestone: bool}}

- A score is an int in 1..scale. "Not scored" is the absence of the entry: an agent
  with no scored dimension is left out of "agents", an unscored team dimension out of
  "team". There is no score 0 and no null.
- Milestones: as soon as the scorecard holds anything (a score or a milestone marked
  reached), every configured milestone is stored with a bool, so the record says
  "reached: true/false" for each of them exactly as the checkboxes show it. A milestone
  no longer configured is kept only while it is true.
- Nothing scored and no milestone reached is the empty scorecard: the row is removed
  ("not annotated"). "Reviewed, nothing to flag" stores `EMPTY` with the reviewed_clean
  status instead.
- Scores stored for an agent that no longer appears in the trace are kept (never lost
  silently); the page lists them apart.

In the summary (`summary_rows`): a row per valid score (level "agent" or "team", agent,
dimension, score) and per milestone (milestone, reached); the rollup gives each agent's and
the team's scores per dimension (mean and 95 % interval) and each milestone's rate, agreement
the ordinal alpha of each dimension (an agent × item is a unit) and the nominal agreement on
each milestone.

No Streamlit here: pure functions on plain data.
"""
from __future__ import annotations

import math
from typing import Any, Iterable

import pandas as pd

from app.project import validators as v
from app.stats.agreement import Disagreements, judgements, nominal, ordinal, show_number
from app.stats.counting import in_order, order_key, t975
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme
from app.types.panel import SchemeRows

EMPTY: dict = {"agents": {}, "team": {}, "milestones": {}}


def empty() -> dict:
    return {"agents": {}, "team": {}, "milestones": {}}


def valid_score(x: Any, scale: int) -> int | None:
    """An int score in 1..scale, or None ("not scored") for anything else."""
    if isinstance(x, bool):
        return None
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, int) and 1 <= x <= scale:
        return x
    if isinstance(x, str) and x.strip().isdigit():
        return valid_score(int(x.strip()), scale)
    return None


TEAM = "(team)"  # the agent named in a team score's row


def table_rows(value: Any, scale: int) -> tuple[list[tuple], list[tuple]]:
    """A stored value's valid scores as rows (level, agent, dimension, score), agents in order
    and then the team's (level "team", agent TEAM), and its milestones as (milestone, reached).

    The one reading of a stored scorecard (parse() builds on it): the summary spreads these
    rows straight into its tables, with no clean scorecard in between (a large study's
    scorecards are most of its distinct stored values)."""
    if not isinstance(value, dict):
        return [], []
    scores: list[tuple] = []
    add = scores.append

    def scored(level: str, agent: str, dims: dict) -> None:
        for d, s in dims.items():
            # an int in range is the common case (a stored value Baton wrote): taken without a
            # call; `type(s) is int` leaves bools (an int subclass) to valid_score, which refuses them
            if type(s) is not int or not 1 <= s <= scale:
                s = valid_score(s, scale)
                if s is None:
                    continue
            add((level, agent, d if type(d) is str else str(d), s))

    agents = value.get("agents")
    if isinstance(agents, dict):
        for agent, dims in agents.items():
            if isinstance(dims, dict):
                scored("agent", str(agent), dims)
    team = value.get("team")
    if isinstance(team, dict):
        scored("team", TEAM, team)
    ms = value.get("milestones")
    miles = [(str(m), r is True or r == "true") for m, r in ms.items()] if isinstance(ms, dict) else []
    return scores, miles


def parse(value: Any, scale: int) -> dict:
    """A stored value (possibly hand-edited or from an older config) as a clean scorecard."""
    scores, miles = table_rows(value, scale)
    out = empty()
    for level, agent, d, s in scores:
        (out["agents"].setdefault(agent, {}) if level == "agent" else out["team"])[d] = s
    out["milestones"] = dict(miles)
    return out


def is_empty(value: Any) -> bool:
    """True when nothing is scored and no milestone is reached."""
    if not isinstance(value, dict):
        return True
    agents = value.get("agents") or {}
    return (not any(dims for dims in agents.values()) and not value.get("team")
            and not any(r is True for r in (value.get("milestones") or {}).values()))


def build(agents: dict[str, dict[str, Any]], team: dict[str, Any], reached: Iterable[str],
          milestones: list[str], scale: int) -> dict:
    """The stored value from scores (None = not scored) and the set of reached milestones.

    Agents and dimensions keep the order given; returns `empty()` when nothing is scored
    and nothing reached (the caller then clears the row).
    """
    reached = set(reached)
    out = empty()
    for agent, dims in agents.items():
        scored = {d: s for d, s in ((d, valid_score(s, scale)) for d, s in dims.items()) if s is not None}
        if scored:
            out["agents"][agent] = scored
    out["team"] = {d: s for d, s in ((d, valid_score(s, scale)) for d, s in team.items()) if s is not None}
    if not out["agents"] and not out["team"] and not reached:
        return empty()
    out["milestones"] = {m: m in reached for m in milestones}
    for m in sorted(reached - set(milestones)):  # reached, then dropped from the config: keep it
        out["milestones"][m] = True
    return out


def _reached(value: dict) -> set[str]:
    return {m for m, r in value["milestones"].items() if r}


def with_agent_score(value: Any, agent: str, dim: str, score: Any, milestones: list[str], scale: int) -> dict:
    """`value` with one agent score set (None removes it)."""
    card = parse(value, scale)
    card["agents"].setdefault(agent, {})[dim] = score
    return build(card["agents"], card["team"], _reached(card), milestones, scale)


def with_team_score(value: Any, dim: str, score: Any, milestones: list[str], scale: int) -> dict:
    card = parse(value, scale)
    card["team"][dim] = score
    return build(card["agents"], card["team"], _reached(card), milestones, scale)


def with_milestone(value: Any, name: str, reached: bool, milestones: list[str], scale: int) -> dict:
    card = parse(value, scale)
    done = _reached(card)
    (done.add if reached else done.discard)(name)
    return build(card["agents"], card["team"], done, milestones, scale)


def rows(agents: list[str], value: Any, scale: int) -> tuple[list[str], list[str]]:
    """(agents shown as rows, of which those scored but absent from the trace).

    The trace's agents come first in their order; agents that only the stored value
    knows (the data changed since) follow, so their scores stay visible and editable.
    """
    card = parse(value, scale)
    extra = [a for a in card["agents"] if a not in agents]
    return list(agents) + extra, extra


def summary(value: Any, n_agents: int, agent_dims: list[str], team_dims: list[str], scale: int) -> str:
    """A one-line text summary ("5 of 15 agent scores, 1 of 3 team scores, 2 of 3 milestones")."""
    card = parse(value, scale)
    n_agent = sum(1 for dims in card["agents"].values() for d in dims if d in agent_dims)
    n_team = sum(1 for d in card["team"] if d in team_dims)
    parts = [f"{n_agent} of {n_agents * len(agent_dims)} agent scores"]
    if team_dims:
        parts.append(f"{n_team} of {len(team_dims)} team scores")
    if card["milestones"]:
        parts.append(f"{len(_reached(card))} of {len(card['milestones'])} milestones reached")
    return ", ".join(parts)


# --- the summary ------------------------------------------------------------------------------

SCORE_GAP = 2  # two annotators' scores this far apart are listed as a disagreement
LEVELS = (("agent", "agent_dimensions"), ("team", "team_dimensions"))  # (level, its dimensions' key)


def _scale(scheme: Scheme) -> int:
    return int(scheme.get("scale") or 10)


def summary_rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per valid score (level, agent, dimension, score) and per milestone (milestone,
    reached) of a stored value, as table_rows reads it; the other kind's columns None."""
    scores, miles = table_rows(value, _scale(scheme))
    return ([{"level": level, "agent": agent, "dimension": dim, "score": score, "milestone": None, "reached": None}
             for level, agent, dim, score in scores]
            + [{"level": None, "agent": None, "dimension": None, "score": None, "milestone": m, "reached": reached}
               for m, reached in miles])


ROW_COLUMNS = ["level", "agent", "dimension", "score", "milestone", "reached"]


def _columns(table: pd.DataFrame) -> pd.DataFrame:
    """`table` with the row columns, present even when no stored value spread into a row."""
    missing = {c: pd.Series([None] * len(table), index=table.index, dtype=object)
               for c in ROW_COLUMNS if c not in table}
    return table.assign(**missing) if missing else table


def _scores(table: pd.DataFrame) -> pd.DataFrame:
    table = _columns(table)
    return table[table["level"].notna() & table["score"].notna()]


def _milestones(table: pd.DataFrame) -> pd.DataFrame:
    table = _columns(table)
    return table[table["milestone"].notna() & table["reached"].notna()]


def _dimensions(scores: pd.DataFrame, level: str, scheme: Scheme, key: str) -> list[str]:
    """A level's dimensions present in `scores`, the configured ones first, in their order."""
    seen = scores.loc[scores["level"] == level, "dimension"].dropna().unique().tolist()
    return [d for d in in_order(scheme.get(key), seen) if d in set(seen)]


def _interval(n: int, mean: float, sd: float) -> dict:
    """mean_interval()'s record from a group's n, mean and sd (NaN for a single score)."""
    if n < 2:
        return {"n": n, "mean": mean, "sd": None, "ci_low": None, "ci_high": None}
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": mean - half, "ci_high": mean + half}


def rollup(scheme_rows: SchemeRows) -> dict:
    """Per agent and dimension, and per team dimension: the scores' n, mean, sd and 95 %
    interval (mean_interval), the runs and the annotators scoring it (agents by name,
    dimensions as configured); per milestone: how many answered it, how many reached it, and
    the rate."""
    scheme = scheme_rows.scheme
    scores = _scores(scheme_rows.table)
    found: dict[str, list] = {"agent": [], "team": []}
    if len(scores):  # (pandas' groupby of no rows loses the aggregates' columns)
        groups = scores.assign(score=scores["score"].astype(float)).groupby(["level", "agent", "dimension"], sort=False)
        stats = groups["score"].agg(["size", "mean", "std"]).join(groups[["item_id", "annotator"]].nunique())
        rank = {level: {d: i for i, d in enumerate(_dimensions(scores, level, scheme, key))} for level, key in LEVELS}
        for (level, agent, dim), n, mean, sd, runs, annotators in zip(stats.index, *(
                stats[c].tolist() for c in ("size", "mean", "std", "item_id", "annotator"))):
            entry = {"agent": agent} if level == "agent" else {}
            found[level].append(((order_key(agent), rank[level][dim]), {
                **entry, "dimension": dim, **_interval(n, mean, sd), "runs": runs, "annotators": annotators}))
    out: dict[str, list] = {"agents": [row for _, row in sorted(found["agent"], key=lambda pair: pair[0])],
                            "team": [row for _, row in sorted(found["team"], key=lambda pair: pair[0])]}
    miles = _milestones(scheme_rows.table)
    answers = miles.assign(reached=miles["reached"].astype(bool)).groupby("milestone", sort=False)["reached"]
    answered, reached = answers.size().to_dict(), answers.sum().to_dict()
    out["milestones"] = [{"milestone": m, "n": answered[m], "reached": int(reached[m]),
                          "rate": reached[m] / answered[m]}
                         for m in in_order(scheme.get("milestones"), answered) if m in answered]
    return out


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """Each dimension's scores (ordinal alpha; a unit is an agent of an item, or the team of an
    item), listing scores SCORE_GAP or more apart; each milestone reached or not (nominal)."""
    scheme, panel = scheme_rows.scheme, scheme_rows.panel
    given = panel.members(scheme_rows.table)
    scores = _scores(given)
    # a unit per (level, dimension, item, agent): in a dimension, item by item, agents by name
    scores = scores.assign(unit=scores.groupby(["level", "dimension", "item", "agent"], sort=True).ngroup())
    named = scores.drop_duplicates("unit")
    of_unit = dict(zip(named["unit"].tolist(), zip(named["item"].tolist(), named["agent"].tolist())))
    parts = dict(tuple(scores.groupby(["level", "dimension"], sort=False)))
    out: dict[str, dict] = {}
    for level, key in LEVELS:
        measures = out[key] = {}
        for dim in _dimensions(scores, level, scheme, key):
            part = parts[(level, dim)]
            table = judgements(part["unit"].to_numpy(), part["rater"].to_numpy(dtype=object),
                               part["score"].to_numpy(dtype=float))
            measures[dim] = ordinal(table)

            def describe(unit: int, level: str = level, dim: str = dim) -> tuple[str, str]:
                item, agent = of_unit[unit]
                return panel.items[item], f"team · {dim}" if level == "team" else f"{agent} · {dim}"
            disagreements.add(table, describe, "score", show_number, gap=SCORE_GAP)
    miles = _milestones(given)
    parts = dict(tuple(miles.groupby("milestone", sort=False)))
    out["milestones"] = {}
    for m in in_order(scheme.get("milestones"), parts):
        if m in parts:
            part = parts[m]
            table = judgements(part["item"].to_numpy(), part["rater"].to_numpy(dtype=object),
                               part["reached"].to_numpy(dtype=bool))
            out["milestones"][m] = nominal(table)
            disagreements.add(table, lambda unit, m=m: (panel.items[unit], f"milestone {m}"), "milestone",
                              lambda reached: "reached" if reached else "not reached")
    return out


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and bool({"agents", "team", "milestones"} & set(value))


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """Scores of the run's agents and the team on configured dimensions, each within
    1..scale; milestones among the configured ones, reached or not."""
    if not isinstance(value, dict):
        return [c.shape(value, dict)]
    scale = _scale(scheme)
    out = c.keys(value, ["agents", "team", "milestones"])
    agents = c.agents_of(derivation)

    def scores(dims: Any, allowed: list[str], what: str) -> list[str]:
        if not isinstance(dims, dict):
            return [c.shape(dims, dict, what)]
        return c.gather(*(c.one_of(d, allowed, f"{what}: dimension") for d in dims),
                        *(c.integer(s, f"{what} · {d}: score", 1, scale) for d, s in dims.items()))

    per_agent = value.get("agents", {})
    if not isinstance(per_agent, dict):
        out.append(c.shape(per_agent, dict, "agents"))
    else:
        for a, dims in per_agent.items():
            out += c.gather(c.agent(a, agents, "scored agent"))
            out += scores(dims, list(scheme.get("agent_dimensions") or []), f'agent "{a}"')
    out += scores(value.get("team", {}), list(scheme.get("team_dimensions") or []), "team")
    miles = value.get("milestones", {})
    if not isinstance(miles, dict):
        return out + [c.shape(miles, dict, "milestones")]
    for m, reached in miles.items():
        out += c.gather(c.one_of(m, scheme.get("milestones") or [], "milestone"))
        if not isinstance(reached, bool):
            out.append(f"milestone {c.show(m)}: expected true or false, got {c.show(reached)}")
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    """Each score (an agent's or the team's, per dimension) and each milestone reached."""
    scores, miles = table_rows(value, _scale(scheme))
    found: dict = {("agent", agent, dim) if level == "agent" else ("team", dim): s for level, agent, dim, s in scores}
    found.update({("milestone", m): True for m, reached in miles if reached})
    return found


def join(fields: dict, scheme: Scheme) -> dict:
    agents: dict[str, dict] = {}
    for field, s in fields.items():
        if field[0] == "agent":
            agents.setdefault(field[1], {})[field[2]] = s
    team = {f[1]: s for f, s in fields.items() if f[0] == "team"}
    reached = [f[1] for f in fields if f[0] == "milestone"]
    return build(agents, team, reached, list(scheme.get("milestones") or []), _scale(scheme))


TYPE = AnnotationType(
    name="agent_scorecard", title="Agent scorecard", page="pages/agent_scorecard.py", trace=True,
    keys={"scale": Key(v.integer(2, 10), default=5), "agent_dimensions": Key(v.string_list(1), required=True),
          "team_dimensions": Key(v.string_list(0), default=[]), "milestones": Key(v.string_list(0), default=[])},
    section="scorecards", rows=summary_rows, rollup=rollup, agreement=agreement, looks_like=looks_like, validate=validate, parts=parts, join=join,
    headline=lambda measures: next(iter((measures.get("agent_dimensions") or {}).values()), None))
