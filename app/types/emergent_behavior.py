"""Emergent behaviour marking, without Streamlit: which turns show which team behaviour.

A turn is a step of the trace (every step, across all agents), numbered by its index in
the trace, as the trace view numbers it. Stored value:
`{behavior: {"turns": [idx, ...], "note": "..."}}` with turns sorted and unique, keeping
only the behaviours that have turns or a non-blank note.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from app.paging import page_count
from app.traces.trace import Step, one_line, step_label
from app.project import validators as v
from app.types.base import AnnotationType, Key

EXCERPT = 90  # characters of a step's text shown beside its number


@dataclass(frozen=True)
class Turn:
    index: int
    agent: str
    excerpt: str

    @property
    def label(self) -> str:
        """Plain text: "Step 3 · Planner · first words…" (escape before rendering as Markdown)."""
        return step_label(self.index, self.agent, self.excerpt)


def turns(steps: Iterable[Step], limit: int = EXCERPT) -> list[Turn]:
    """Every step as a turn: index, agent, one-line excerpt."""
    return [Turn(s.index, s.agent, one_line(s.text, limit)) for s in steps]


def _turn_list(raw: Any) -> list[int]:
    out = set()
    for t in raw if isinstance(raw, (list, tuple)) else []:
        if isinstance(t, bool):
            continue
        if isinstance(t, int):
            out.add(t)
        elif isinstance(t, float) and t.is_integer():
            out.add(int(t))
        elif isinstance(t, str) and t.strip().lstrip("-").isdigit():
            out.add(int(t))
    return sorted(out)


def entry(turns: Iterable[int] = (), note: str = "") -> dict:
    return {"turns": _turn_list(list(turns)), "note": note if isinstance(note, str) else ""}


def parse(value: Any) -> dict[str, dict]:
    """{behaviour: {"turns", "note"}} from a stored value, tolerant of malformed entries."""
    out: dict[str, dict] = {}
    if not isinstance(value, dict):
        return out
    for name, e in value.items():
        if isinstance(e, dict):
            out[str(name)] = entry(_turn_list(e.get("turns")), e.get("note") or "")
        elif isinstance(e, list):  # a bare list of turns
            out[str(name)] = entry(_turn_list(e))
    return out


def build(entries: dict[str, dict], order: Iterable[str] = ()) -> dict:
    """The stored value: behaviours with turns or a non-blank note, in `order` then as given."""
    names = list(dict.fromkeys([*order, *entries]))
    out = {}
    for name in names:
        e = entries.get(name)
        if not e:
            continue
        e = entry(e.get("turns") or (), e.get("note") or "")
        if not e["note"].strip():
            e["note"] = ""
        if e["turns"] or e["note"]:
            out[name] = e
    return out


def get(value: Any, behavior: str) -> dict:
    return parse(value).get(behavior, entry())


def _update(value: Any, behavior: str, order: Iterable[str], turns_=None, note=None) -> dict:
    entries = parse(value)
    e = entries.get(behavior, entry())
    entries[behavior] = entry(e["turns"] if turns_ is None else turns_, e["note"] if note is None else note)
    return build(entries, order)


def set_turn(value: Any, behavior: str, turn: int, on: bool, order: Iterable[str] = ()) -> dict:
    cur = set(get(value, behavior)["turns"])
    cur = cur | {int(turn)} if on else cur - {int(turn)}
    return _update(value, behavior, order, turns_=cur)


def turn_range(start: int, stop: int, valid: Iterable[int]) -> list[int]:
    """The valid turns from start to stop inclusive (either order)."""
    lo, hi = sorted((int(start), int(stop)))
    return [t for t in valid if lo <= t <= hi]


def add_turns(value: Any, behavior: str, extra: Iterable[int], order: Iterable[str] = ()) -> dict:
    return _update(value, behavior, order, turns_=set(get(value, behavior)["turns"]) | set(extra))


def remove_turns(value: Any, behavior: str, gone: Iterable[int], order: Iterable[str] = ()) -> dict:
    return _update(value, behavior, order, turns_=set(get(value, behavior)["turns"]) - set(gone))


def set_note(value: Any, behavior: str, note: str, order: Iterable[str] = ()) -> dict:
    return _update(value, behavior, order, note=note or "")


def ranges_text(turns_: Iterable[int]) -> str:
    """Compact text for a set of turns: [2, 3, 4, 5, 9] -> "2–5, 9"."""
    runs: list[list[int]] = []
    for t in sorted(set(turns_)):
        if runs and t == runs[-1][1] + 1:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def summary(value: Any, behaviors: Iterable[str]) -> list[str]:
    """One plain-text line per configured behaviour saying what is marked."""
    entries = parse(value)
    out = []
    for b in behaviors:
        e = entries.get(b, entry())
        n = len(e["turns"])
        marked = f"{n} turn{'s' if n != 1 else ''} ({ranges_text(e['turns'])})" if n else "no turns"
        out.append(f"{b}: {marked}" + (" · note" if e["note"] else ""))
    return out


TYPE = AnnotationType(
    name="emergent_behavior", title="Emergent behaviour", page="pages/emergent_behavior.py", trace=True,
    keys={"behaviors": Key(v.string_list(1), required=True), "allow_note": Key(v.boolean, default=True)})
