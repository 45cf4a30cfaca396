"""What the types' `validate` share: one check of a step, an agent, a label, a score, an index.

Each check returns the reason a part of a stored value does not fit (a sentence naming the
part and what was expected), or None when it fits; a type's `validate` gathers them. Values
are checked in their stored form (after `coerce`): a step or a score is an int, never a bool,
a float or a digit string, so that what the summary counts is what the annotator meant.

No Streamlit here.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:
    from app.traces.derive import Derivation

SHOWN = 60  # characters of an offending value quoted in a reason


def show(x: Any) -> str:
    """A value as JSON text, cut, for a reason."""
    try:
        text = json.dumps(x, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(x)
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def integer(x: Any, what: str, low: int | None = None, high: int | None = None) -> str | None:
    """`x` an int within [low, high] (either bound may be open)."""
    if not is_int(x):
        return f"{what}: expected a whole number, got {show(x)}"
    if (low is not None and x < low) or (high is not None and x > high):
        span = f"{low}–{high}" if low is not None and high is not None else (f"≥ {low}" if low is not None else f"≤ {high}")
        return f"{what}: {x} is outside {span}"
    return None


def step(x: Any, derivation: "Derivation | None", what: str = "step") -> str | None:
    """`x` a step of the run (0 up to its last step); without a derivation, any index ≥ 0."""
    if derivation is None:
        return integer(x, what, 0)
    n = len(derivation.steps)
    found = integer(x, what, 0)
    if found is None and x >= n:
        return f"{what}: {x} is not a step of this run (it has {n} step{'s' if n != 1 else ''}, 0–{n - 1})" \
            if n else f"{what}: {x} is not a step of this run (it has no steps)"
    return found


def index(x: Any, count: int | None, what: str, of: str) -> str | None:
    """`x` the position of one of the run's `count` objects (handoffs, calls, regions)."""
    found = integer(x, what, 0)
    if found is None and count is not None and x >= count:
        return f"{what}: {x} is not one of this run's {count} {of}" if count else f"{what}: this run has no {of}"
    return found


def agent(name: Any, agents: Iterable[str] | None, what: str = "agent") -> str | None:
    """`name` one of the run's agents (None: the run is not known; any string). Case and blanks
    around the name aside, as gold answers are compared (app/summary/gold.py): data from other
    tools writes " Tickets_Pricing_Expert" for the run's tickets_pricing_expert."""
    if not isinstance(name, str) or not name:
        return f"{what}: expected an agent name, got {show(name)}"
    if agents is not None and name not in set(agents) and name.strip().casefold() not in {
            str(a).strip().casefold() for a in agents}:
        return f"{what}: {show(name)} is not an agent of this run"
    return None


def one_of(x: Any, allowed: Iterable[Any], what: str) -> str | None:
    """`x` one of the configured options."""
    allowed = list(allowed)
    if x not in allowed:
        return f"{what}: {show(x)} is not one of {', '.join(map(str, allowed)) or '(none configured)'}"
    return None


def text(x: Any, what: str) -> str | None:
    return None if x is None or isinstance(x, str) else f"{what}: expected text, got {show(x)}"


def keys(value: dict, allowed: Iterable[str], what: str = "value") -> list[str]:
    """A reason per key of `value` that the stored form does not have."""
    known = set(allowed)
    return [f"{what}: unknown field {show(k)} (expected {', '.join(sorted(known))})" for k in value if k not in known]


def shape(value: Any, kind: type, what: str = "value") -> str | None:
    names = {dict: "an object", list: "a list"}
    return None if isinstance(value, kind) else f"{what}: expected {names.get(kind, kind.__name__)}, got {show(value)}"


def label_names(labels: Any) -> list[str]:
    """The names of a scheme's configured labels (strings, or `{name: ...}`)."""
    return [x["name"] if isinstance(x, dict) else str(x) for x in labels or []]


def agents_of(derivation: "Derivation | None", configured: Iterable[str] | None = None) -> list[str] | None:
    """The agents a value may name: the run's, and any the scheme lists (None: not known)."""
    if derivation is None:
        return None
    return list(dict.fromkeys([*derivation.agents, *(configured or [])]))


def gather(*found: str | None | list[str]) -> list[str]:
    """The reasons among checks' results (None, a reason, or a list of reasons)."""
    out: list[str] = []
    for x in found:
        if isinstance(x, list):
            out += x
        elif x:
            out.append(x)
    return out


def entries(value: list, count: int | None, allowed: Iterable[str], noun: str, plural: str,
            out: list[str]) -> Iterator[tuple[str, dict, int | None]]:
    """The entries of a list value that each name an object of the run by its index (a handoff,
    a tool call): (how a reason names the entry, the entry, the index it names, or None when
    that index is no object of the run or was named before). What is wrong with an entry's
    shape, keys or index is added to `out`."""
    seen: set = set()
    for n, entry in enumerate(value):
        what = f"entry {n}"
        if not isinstance(entry, dict):
            out.append(shape(entry, dict, what))
            continue
        out += keys(entry, allowed, what)
        at = entry.get("index")
        wrong = index(at, count, f"{what}: {noun} index", plural)
        if wrong:
            out.append(wrong)
        elif at in seen:
            out.append(f"{what}: {noun} {at} is judged twice")
        else:
            seen.add(at)
            yield what, entry, at
            continue
        yield what, entry, None
