"""Suggestions from a run's own signals: where it probably went wrong, and who was on the way.

No model and no network: only what the trace itself records.

Signals (each placed on a step, by its position in the trace):

- ``error_status``: a step, or a span of the span tree, with an error status (a span that is no
  step is placed on its own step, the step holding it as a tool call, or the first step inside it);
- ``tool_error``: a tool call that returned an error or an exception (an error status or field,
  a result that reads as a Python exception or a traceback), or a tool's output step
  (``role: tool``, a terminal or executor agent) reporting a non-zero exit code: placed on the
  step that made the call (for an output step, the step before it by another agent);
- ``verifier_rejected``: a verifier agent (named verifier, critic, reviewer, checker, judge,
  validator, grader, evaluator) whose text rejects what came before, with no word of approval:
  placed on the step before it by another agent;
- ``no_final_answer``: the run ended without a final answer (no ``final answer`` / ``final_answer``,
  ``answer:``, ``task complete``, ``as final`` in any step's text or tool calls, no ``TERMINATE`` in
  its last two steps): placed on the last step.

From them: the **suggested decisive step** (the earliest step with a failure signal; without one,
the last step of a run that ended without a final answer), and the **suggested critical path**
(the agents on the way from the task to that step: for a span tree the chain of agent spans
enclosing it; otherwise the shortest way along the handoffs made up to it, from the agent that
acted first to the step's agent), each with its
reason in one line. A suggestion is only shown: a surface saves it only when the annotator
accepts it.

No Streamlit here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.traces.derive import Derivation
from app.traces.readers.spantree import locate
from app.traces.trace import one_line

TOOL_ERROR, VERIFIER_REJECTED, ERROR_STATUS, NO_FINAL_ANSWER = (
    "tool_error", "verifier_rejected", "error_status", "no_final_answer")
FAILING = (ERROR_STATUS, TOOL_ERROR, VERIFIER_REJECTED)  # what marks a step as failing
EXCERPT = 60  # characters of an error message in a reason

_ERROR_STATUSES = {"error", "status_code_error", "failed", "failure", "exception", "2"}  # (OTLP's code 2)
# (an exception's name as Python writes it, FileNotFoundError: ...; "error:" opening a line, any case)
_EXCEPTION = re.compile(r"(?i:traceback \(most recent call last\))|\b[A-Z]\w*(?:Error|Exception)\b\s*:"
                        r"|^\s*(?i:error|exception)\b\s*:", re.MULTILINE)
_EXCEPTION_WORDS = ("traceback", "error", "exception")  # (every match of _EXCEPTION holds one of them)
_EXIT_CODE = re.compile(r"exit\s*code:?\s*(-?\d+)", re.IGNORECASE)
_TOOL_AGENT = re.compile(r"terminal|executor|computer|tool|interpreter|shell", re.IGNORECASE)
_VERIFIER = re.compile(r"verif|critic|review|checker|judge|validat|grader|evaluat", re.IGNORECASE)
_REJECT = re.compile(r"\b(?:incorrect|not correct|wrong|reject\w*|violat\w*|fails?|failed|mistakes?|invalid|"
                     r"inaccurate|does not (?:meet|match|satisfy)|doesn't (?:meet|match|satisfy)|not (?:right|valid|"
                     r"acceptable)|needs? (?:to be )?(?:fixed|revised|redone))\b", re.IGNORECASE)
_APPROVE = re.compile(r"\b(?:lgtm|approv\w*|looks good|is correct|are correct|verified|confirmed)\b", re.IGNORECASE)
_FINAL = re.compile(r"final[ _]answer|\banswer\s*:|\btask (?:is )?complete|\bas final\b"
                    r"|\bfinal (?:plan|result|report)\b", re.IGNORECASE)
_FINAL_WORDS = ("final", "answer", "complete")  # (every match of _FINAL holds one of them)
_TERMINATE = re.compile(r"\bTERMINATE\b")
_READ = 4000  # characters of a step's text read for the words above (a step can be megabytes)


@dataclass(frozen=True)
class Signal:
    step: int
    kind: str
    reason: str


@dataclass(frozen=True)
class Suggestion:
    """A suggested decisive step: the step, its agent, the reason in one line, the signals seen."""

    step: int
    agent: str
    reason: str
    signals: tuple[Signal, ...] = field(default=())


@dataclass(frozen=True)
class PathSuggestion:
    """A suggested critical path: agents from the task to the failing step, and the handoffs between them."""

    agents: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    step: int
    reason: str


def _is_error_status(status: Any) -> bool:
    if isinstance(status, dict):
        status = status.get("code", status.get("status_code"))
    return status is not None and str(status).strip().lower() in _ERROR_STATUSES


def _text(x: Any) -> str:
    return (x if isinstance(x, str) else "" if x is None else str(x))[:_READ]


def _tool_failure(call: Any) -> str | None:
    """Why a raw tool call (a dict of the step) failed, or None."""
    if not isinstance(call, dict):
        return None
    fn = call.get("function")
    name = str(call.get("name") or (fn.get("name") if isinstance(fn, dict) else None) or call.get("tool") or "a tool")
    if call.get("error") not in (None, "", False):
        return f"tool {name} returned an error ({one_line(_text(call['error']), EXCERPT)})"
    if _is_error_status(call.get("status")):
        return f"tool {name} ended with an error status"
    result = call.get("result", call.get("output"))
    if isinstance(result, dict) and result.get("error") not in (None, "", False):
        return f"tool {name} returned an error ({one_line(_text(result['error']), EXCERPT)})"
    m = _EXCEPTION.search(text) if _mentions(text := _text(result), _EXCEPTION_WORDS) else None
    if m:
        return f"tool {name} returned an exception ({one_line(text[m.start():], EXCERPT)})"
    return None


def _previous_other(d: Derivation, step: int) -> int:
    """The nearest step before `step` by another agent (the step itself when there is none)."""
    agent = d.steps[step].agent
    for j in range(step - 1, -1, -1):
        if d.steps[j].agent != agent:
            return j
    return step


def signals(data: dict, d: Derivation) -> list[Signal]:
    """Every signal of the run, by step (then in the order above)."""
    out: list[Signal] = []
    steps = d.steps
    for s in steps:
        raw = s.raw if isinstance(s.raw, dict) else {}
        if _is_error_status(raw.get("status")):
            msg = raw.get("status_message")
            out.append(Signal(s.index, ERROR_STATUS, f"step {s.index} ({s.agent}) ended with an error status"
                              + (f": {one_line(_text(msg), EXCERPT)}" if msg else "")))
        calls = raw.get("tool_calls") if isinstance(raw.get("tool_calls"), list) else []
        own = [raw] if ("tool" in raw and ("result" in raw or "error" in raw)) else []
        for call in calls + own:
            why = _tool_failure(call)
            if why:
                out.append(Signal(s.index, TOOL_ERROR, f"step {s.index} ({s.agent}): {why}"))
                break
        is_output = raw.get("role") == "tool" or bool(_TOOL_AGENT.search(s.agent))
        code = _EXIT_CODE.search(_text(s.text)) if is_output else None
        if code and int(code.group(1)) != 0:
            caller = _previous_other(d, s.index) if raw.get("role") != "tool" else max(s.index - 1, 0)
            out.append(Signal(caller, TOOL_ERROR, f"{s.agent} at step {s.index} reports exit code {code.group(1)} "
                              f"for step {caller} ({steps[caller].agent})"))
        if _VERIFIER.search(s.agent) and s.index > 0:
            text = _text(s.text)
            if _REJECT.search(text) and not _APPROVE.search(text):
                before = _previous_other(d, s.index)
                if before != s.index:
                    out.append(Signal(before, VERIFIER_REJECTED,
                                      f"verifier {s.agent} rejected step {before} ({steps[before].agent}) at step "
                                      f"{s.index}: {one_line(text, EXCERPT)}"))
    trace = data.get("trace") if isinstance(data, dict) else None
    own_ids = {s.id for s in steps if isinstance(s.raw, dict) and _is_error_status(s.raw.get("status"))}
    for row in (trace.get("spans") or []) if isinstance(trace, dict) else []:
        if isinstance(row, dict) and _is_error_status(row.get("status")) and str(row.get("id")) not in own_ids:
            at, _agent = locate(data, row.get("id"))
            if at is not None and 0 <= at < len(steps):
                out.append(Signal(at, ERROR_STATUS, f"span {row.get('name') or row.get('id')} ({row.get('agent')}) "
                                  f"ended with an error status, at step {at}"))
    if steps and not _answered(steps):
        last = steps[-1]
        out.append(Signal(last.index, NO_FINAL_ANSWER, f"the run ended at step {last.index} ({last.agent}) "
                          "without a final answer"))
    # (at one step the most telling first: a tool's error says more than the status it caused)
    order = {k: i for i, k in enumerate((TOOL_ERROR, VERIFIER_REJECTED, ERROR_STATUS, NO_FINAL_ANSWER))}
    seen: set[tuple[int, str]] = set()
    kept = []
    for sig in sorted(out, key=lambda x: (x.step, order[x.kind])):
        if (sig.step, sig.kind) not in seen:  # one signal of a kind per step: the first found
            seen.add((sig.step, sig.kind))
            kept.append(sig)
    return kept


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    """Whether the text holds one of the words, in any case: a pattern that needs one of them
    is searched only then (a search per step of a long run costs more than the rest)."""
    folded = text.casefold()  # (as the patterns' IGNORECASE folds: ſ is s)
    return any(w in folded for w in words)


def _answered(steps) -> bool:
    for s in steps:
        raw = s.raw if isinstance(s.raw, dict) else {}
        for said in (_text(s.text), _text(raw.get("tool_calls")), _text(raw.get("action"))):
            if _mentions(said, _FINAL_WORDS) and _FINAL.search(said):
                return True
    return any(_TERMINATE.search(_text(s.text)) for s in steps[-2:])


def decisive_step(data: dict, d: Derivation, found: list[Signal] | None = None) -> Suggestion | None:
    """The suggested decisive step (see the module's docstring), or None when nothing points at one."""
    found = signals(data, d) if found is None else found
    failing = [s for s in found if s.kind in FAILING]
    pick = failing[0] if failing else next((s for s in found if s.kind == NO_FINAL_ANSWER), None)
    if pick is None:
        return None
    more = len({s.step for s in failing}) - 1 if failing else 0
    tail = f" (first of {more + 1} failing steps)" if more > 0 else ""
    return Suggestion(pick.step, d.steps[pick.step].agent, _sentence(pick.reason) + tail, tuple(found))


def critical_path(data: dict, d: Derivation, decisive: Suggestion | None = None) -> PathSuggestion | None:
    """The suggested critical path to the suggested decisive step, or None without one."""
    decisive = decisive_step(data, d) if decisive is None else decisive
    if decisive is None:
        return None
    target = d.steps[decisive.step].agent
    chain = _agent_chain(data, target)
    how = "the agent spans enclosing it"
    if not chain:
        chain = _handed(d, decisive.step)
        how = "the shortest way along the handoffs"
    edges = tuple(zip(chain, chain[1:]))
    return PathSuggestion(tuple(chain), edges, decisive.step,
                          f"{' → '.join(chain)}: from the task to failing step {decisive.step}, {how}")


def _handed(d: Derivation, step: int) -> list[str]:
    """For a flat trace: the shortest way along the handoffs made up to the failing step, from the
    agent that had the task (the first to act) to the failing step's agent (ties: the handoffs
    made first)."""
    start, target = d.steps[0].agent, d.steps[step].agent
    nxt: dict[str, list[str]] = {}
    for h in d.handoffs:
        if h.step <= step and h.dst not in nxt.setdefault(h.src, []):
            nxt[h.src].append(h.dst)
    came: dict[str, str | None] = {start: None}
    todo = [start]
    for cur in todo:  # (breadth first: the list grows as it is read)
        if cur == target:
            break
        for n in nxt.get(cur, []):
            if n not in came:
                came[n] = cur
                todo.append(n)
    chain, cur = [], target
    while cur is not None:
        chain.insert(0, cur)
        cur = came.get(cur)
    return chain


def _agent_chain(data: dict, agent: str) -> list[str]:
    """For a span tree: the agents of the agent spans from the root to `agent`'s (first) span."""
    trace = data.get("trace") if isinstance(data, dict) else None
    agents = (trace.get("agents") or []) if isinstance(trace, dict) else []
    parent = {}
    for a in agents:
        if isinstance(a, dict) and a.get("agent") not in parent:
            parent[a.get("agent")] = a.get("parent_agent")
    if agent not in parent:
        return []
    chain, cur = [], agent
    while cur is not None and cur not in chain:
        chain.append(cur)
        cur = parent.get(cur)
    return [str(a) for a in reversed(chain)]


def _sentence(reason: str) -> str:
    return reason[:1].upper() + reason[1:]
