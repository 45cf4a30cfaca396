"""Tool calls as timed intervals: each raw call of a trace made a Call (agent, tool, resource,
start, end), or one that says what is wrong with it. Read by the contention finder
(app/traces/contention.py) and the timeline.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from app.traces.timeparse import _show, parse_time

UNKNOWN = "(unknown)"


@dataclass(slots=True)
class Call:
    """One tool call; start/end are None where invalid, with `problem` set."""

    index: int
    agent: str
    tool: str
    resource: str
    start: float | None
    end: float | None
    problem: str | None = None


def _label(v: object) -> str | None:
    """Return v as display text, or None when it is missing or blank."""
    if v is None:
        return None
    text = str(v)
    return text if text.strip() else None


def _shown_names(tool: object, resource: object, agent: object) -> tuple[str, str, str] | None:
    """(agent, tool, resource) of a call as normalize_calls shows them, when all three given
    are text or None and there is a resource or a tool; else None (see normalize_calls)."""
    if (tool is None or type(tool) is str) and (resource is None or type(resource) is str) \
            and (agent is None or type(agent) is str):
        tool = tool if tool and tool.strip() else None
        resource = (resource if resource and resource.strip() else None) or tool
        if resource is not None:
            return agent if agent and agent.strip() else UNKNOWN, tool or UNKNOWN, resource
    return None


def normalize_calls(
    raw_calls: list, agent_key: str = "agent", resource_key: str = "resource"
) -> tuple[list[Call], list[str]]:
    """Turn raw call dicts into Calls, one per input entry, plus problem messages.

    Nothing is dropped: a non-dict entry, a missing or unparsable time,
    end < start, or no tool and no resource yields a Call with `problem` set
    (and the bad times None), and find_regions skips it. The resource
    defaults to the tool name; a missing agent becomes "(unknown)".
    """
    calls: list[Call] = []
    problems: list[str] = []
    names: dict[tuple, tuple[str, str, str] | None] = {}  # (tool, resource, agent) as given -> shown
    # finite bounds: an int beyond the largest float (JSON allows one) takes the general path,
    # which reports it, instead of overflowing when made a float
    lowest, highest = -sys.float_info.max, sys.float_info.max
    for i, raw in enumerate(raw_calls):
        # Fast path, the common case: a dict with finite numeric times, end >= start, and names
        # that are text (or missing), the same few over and over: each is checked once.
        if type(raw) is dict:
            start, end = raw.get("start"), raw.get("end")
            ts, te = type(start), type(end)
            # the chain is false for NaN and the infinities, and compares ints with the bounds exactly
            if (ts is float or ts is int) and (te is float or te is int) and lowest <= start <= end <= highest:
                given = raw.get("tool"), raw.get(resource_key), raw.get(agent_key)
                try:
                    shown = names[given]
                except KeyError:
                    shown = names[given] = _shown_names(*given)
                except TypeError:  # a name that is a dict or a list
                    shown = None
                if shown is not None:
                    agent, tool, resource = shown
                    # `* 1.0` (exact) makes a new float beside the new Call, where float() would
                    # keep the data's own, which can lie anywhere in memory: find_regions reads
                    # every start and end several times, and scattered reads cost it a third.
                    calls.append(Call(i, agent, tool, resource, start * 1.0, end * 1.0, None))
                    continue
        if not isinstance(raw, dict):
            msg = f"calls[{i}]: expected a dict, got {type(raw).__name__}"
            problems.append(msg)
            calls.append(Call(i, UNKNOWN, UNKNOWN, UNKNOWN, None, None, msg))
            continue
        own: list[str] = []
        tool = _label(raw.get("tool"))
        resource = _label(raw.get(resource_key))
        if resource is None:
            resource = tool
        if resource is None:
            # Defaulting to a shared placeholder would make every such call
            # appear to contend with every other one.
            own.append(
                f"calls[{i}].{resource_key}: expected a resource or a tool name, got nothing"
            )
        times: dict[str, float | None] = {}
        for key in ("start", "end"):
            if key not in raw or raw[key] is None:
                times[key] = None
                own.append(
                    f"calls[{i}].{key}: expected a number of seconds or an ISO 8601 time, got nothing"
                )
                continue
            try:
                times[key] = parse_time(raw[key])
            except ValueError as e:
                times[key] = None
                own.append(f"calls[{i}].{key}: {e}")
        start, end = times["start"], times["end"]
        if start is not None and end is not None and end < start:
            own.append(
                f"calls[{i}].end: expected a time at or after start ({_show(raw['start'])}), "
                f"got {_show(raw['end'])}"
            )
            end = None
        problems.extend(own)
        calls.append(
            Call(
                index=i,
                agent=_label(raw.get(agent_key)) or UNKNOWN,
                tool=tool or UNKNOWN,
                resource=resource or UNKNOWN,
                start=start,
                end=end,
                problem="; ".join(own) or None,
            )
        )
    return calls, problems
