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

No Streamlit here: pure functions on plain data.
"""
from __future__ import annotations

from typing import Any, Iterable
from app.project import validators as v
from app.types.base import AnnotationType, Key

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


TYPE = AnnotationType(
    name="agent_scorecard", title="Agent scorecard", page="pages/agent_scorecard.py", trace=True,
    keys={"scale": Key(v.integer(2, 10), default=5), "agent_dimensions": Key(v.string_list(1), required=True),
          "team_dimensions": Key(v.string_list(0), default=[]), "milestones": Key(v.string_list(0), default=[])})
