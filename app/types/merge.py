"""Two tabs, one annotator: a save applies what this click changed on top of what is on disk now.

A type spreads a stored value into independent fields (`parts`: {field: value}, a field left
alone absent) and builds a value back from them (`join`): an attribution's agent, step and
reason; each label of a multiselect; each handoff's flags and quality; each score of a
scorecard. `merge` compares three values field by field: what the tab's controls were drawn
from (`base`), what the click made of it (`mine`) and what is on disk now (`theirs`, another
tab's or session's saves since). A field this click did not change keeps the disk's value; a
field it changed takes the click's, unless the disk changed it meanwhile to something else:
then the disk's value stays and the conflict is reported, for the tab to say so and show it.

No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.types.base import AnnotationType, Scheme


@dataclass(frozen=True)
class Conflict:
    field: tuple
    mine: Any  # what this click set (None: cleared)
    theirs: Any  # what is on disk now, and stays

    def __str__(self) -> str:
        def shown(x: Any) -> str:
            return "nothing" if x is None else ("set" if x is True else repr(x) if isinstance(x, str) else str(x))
        return (f"{describe(self.field)}: another tab or session set it to {shown(self.theirs)} meanwhile; "
                f"that is kept (your {shown(self.mine)} was not saved)")


def describe(field: tuple) -> str:
    """A field's name in words ("handoff 2 quality", "label loop")."""
    return " ".join(str(x) for x in field if x is not None)


def merge(kind: AnnotationType, scheme: Scheme, base: Any, mine: Any, theirs: Any) -> tuple[Any, list[Conflict]]:
    """(the value to store, the fields where the disk's other value was kept); see the module's docstring."""
    b, m, t = (kind.parts(v, scheme) for v in (base, mine, theirs))
    out = dict(t)
    conflicts = []
    for field in dict.fromkeys([*b, *m]):
        was, now, there = b.get(field), m.get(field), t.get(field)
        if now == was:
            continue  # not this click's change: the disk's value (or its absence) stands
        if there == was or there == now:
            if now is None:
                out.pop(field, None)
            else:
                out[field] = now
        else:
            conflicts.append(Conflict(field, now, there))
    # the click's order first (a surface puts its value in the order it shows, e.g. agents in
    # trace order), then what only the disk holds
    out = {f: out[f] for f in dict.fromkeys([*m, *out]) if f in out}
    return kind.join(out, scheme), conflicts


def is_empty(kind: AnnotationType, scheme: Scheme, value: Any) -> bool:
    """Nothing set in any field ("not annotated")."""
    return not kind.parts(value, scheme)
