"""What the per-step types (span, error_span, process_reward, trajectory_edit) share: the
steps a scheme asks about, their text, and the checks of a stored step index.

A scheme's `turn_binding` (Potato's filter of the turns a scheme attaches to) is honoured
here: with `agents` or `speakers`, only the steps of those agents are offered and accepted;
with `turn_range: [first, last]`, only the steps of that index range (inclusive). Its other
filters (`field`, `step_types`, `tools`, `placement`) change nothing in Baton.

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.traces.trace import Step, step_text
from app.types.base import Key, Scheme, as_int
from app.types.failure_attribution import cut

# the per-step keys Potato gives these types (trace keys come on top)
STEP_KEYS = {"step_text_key": Key(v.nonempty_string, default=None, doc="step field holding the text shown")}
HONOURS = frozenset({"turn_binding"})
BINDING_IGNORED = ("field", "step_types", "tools", "placement")


def text_of(step: Step, scheme: Scheme | dict) -> str:
    """The step's text as the surface shows it (the scheme's step_text_key, else the trace's)."""
    key = scheme.get("step_text_key")
    return step_text(step.raw, key) if key else step.text


def bound(scheme: Scheme | dict, step: Step) -> bool:
    """Whether the scheme's turn_binding lets it ask about this step."""
    binding = scheme.get("turn_binding") or {}
    names = [str(x) for x in (binding.get("agents") or []) + (binding.get("speakers") or [])]
    if names and step.agent not in names:
        return False
    span = binding.get("turn_range")
    if isinstance(span, list) and len(span) == 2:
        lo, hi = as_int(span[0]), as_int(span[1])
        if (lo is not None and step.index < lo) or (hi is not None and step.index > hi):
            return False
    return True


def asked(scheme: Scheme | dict, derivation) -> list[Step]:
    """The steps of the trace the scheme asks about, in trace order."""
    return [] if derivation is None else [s for s in derivation.steps if bound(scheme, s)]


def binding_problems(options: dict) -> list[tuple[str, str]]:
    """What is wrong with a turn_binding's filters Baton reads."""
    binding = options.get("turn_binding") or {}
    out = []
    for key in ("agents", "speakers"):
        x = binding.get(key)
        if x is not None and not (isinstance(x, list) and all(isinstance(n, (str, int)) for n in x)):
            out.append((f"turn_binding.{key}", f"expected a list of names, got {v.show(x)}"))
    span = binding.get("turn_range")
    if span is not None and not (isinstance(span, list) and len(span) == 2 and all(as_int(x) is not None for x in span)):
        out.append(("turn_binding.turn_range", f"expected [first, last] step indexes, got {v.show(span)}"))
    return out


def binding_ignored(options: dict) -> list[tuple[str, str]]:
    binding = options.get("turn_binding") or {}
    return [(f"turn_binding.{k}", "Baton filters the steps by agents, speakers and turn_range only")
            for k in BINDING_IGNORED if k in binding]


def objects(indexes, derivation) -> dict | None:
    """Export: each step index named in a value, with its agent and text as the trace is now
    (None: the trace has no such step)."""
    if derivation is None:
        return None
    by_index = {s.index: s for s in derivation.steps}
    wanted = sorted({i for i in (as_int(x) for x in indexes) if i is not None})
    return {"steps": {str(i): None if (s := by_index.get(i)) is None else {"agent": s.agent, "text": cut(s.text, 200)}
                      for i in wanted}}


def positions(frame, column: str = "step"):
    """The rows of `frame` whose `column` may be a step's position (0 up, below 2**62): others
    name no step of any trace, and would not fit the trace objects' int64 keys."""
    import pandas as pd
    number = pd.to_numeric(frame[column], errors="coerce")
    return frame[((number >= 0) & (number < 2 ** 62)).to_numpy(dtype=bool)]


def step_problem(index: Any, scheme: Scheme | dict, derivation, what: str = "step") -> tuple[str | None, Step | None]:
    """(what is wrong with a stored step index, the step) against the trace (None: fits)."""
    i = as_int(index)
    if i is None:
        return f"{what} {v.show(index)} is not a step index", None
    if derivation is None:
        return None, None
    if not 0 <= i < len(derivation.steps):
        return f"{what} {i} is not a step of this trace (it has {len(derivation.steps)})", None
    step = derivation.steps[i]
    if not bound(scheme, step):
        return f"{what} {i} ({step.agent}) is not one the scheme asks about (turn_binding)", step
    return None, step
