"""Conversations as prefix trees: show each agent's conversation once.

Successive LLM calls of one agent repeat the whole conversation so far in their input (a
step's `input`: [{role, content}], as the span readers record it). Per agent, the inputs
form a prefix tree of messages; a step shows only the messages below the point where its
input leaves what earlier steps of that agent already showed, and a message that repeats
one of that agent's earlier outputs is shown as a reference to that step instead of again.

- A thread is a branch from the root of an agent's tree: a change of agent or of the first
  message (the system prompt) starts a new thread.
- A step whose input shares less with its thread's previous step than that step's whole
  input (the conversation was rewritten or cut) is marked as branching from it.
- Savings: characters shown (new input messages, minus echoes, plus every output) against
  characters in the raw steps (every input message plus every output).

Pure: no Streamlit; the trace view and `check` use it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from app.traces.trace import content_text, read_steps


@dataclass(frozen=True)
class Echo:
    """An input message that repeats what an earlier step already showed."""
    step: int  # the earlier step
    pos: int | None  # its input message; None for its output
    start: int = 0  # the repeated part within this message (all of it unless `partial`)
    end: int = 0
    partial: bool = False


@dataclass
class StepView:
    step: int  # the step's index
    agent: str
    thread: int | None  # thread number in the item (first-seen order); None for a step without input
    new_thread: bool = False  # this step opens its thread
    known: int = 0  # leading input messages already shown by earlier steps of this agent
    new: list[int] = field(default_factory=list)  # input positions shown at this step
    echoes: dict[int, Echo] = field(default_factory=dict)  # input position -> what it repeats
    branch_of: int | None = None  # the thread's previous step, when this input does not extend it
    input_messages: int = 0
    input_chars: int = 0
    output_chars: int = 0
    shown_chars: int = 0

    @property
    def has_input(self) -> bool:
        return self.thread is not None


@dataclass
class Thread:
    index: int
    agent: str
    first_step: int
    opening: str  # the first message (usually the system prompt)
    steps: list[int] = field(default_factory=list)


@dataclass
class ConversationView:
    steps: list[StepView]
    threads: list[Thread]
    raw_chars: int
    shown_chars: int

    @property
    def has_inputs(self) -> bool:
        return bool(self.threads)

    @property
    def saved(self) -> float:
        """Fraction of the raw characters not shown (0 when nothing repeats)."""
        return 1 - self.shown_chars / self.raw_chars if self.raw_chars else 0.0


class _Node:
    __slots__ = ("children", "thread")

    def __init__(self, thread: int | None = None):
        self.children: dict[tuple[str, str], _Node] = {}
        self.thread = thread


def messages_of(raw: Any) -> list[tuple[str, str]] | None:
    """A step's input as (role, text) pairs, or None when the step records no input."""
    if not isinstance(raw, dict) or not isinstance(raw.get("input"), list):
        return None
    out = []
    for m in raw["input"]:
        if isinstance(m, dict):
            c = m.get("content")
            out.append((str(m.get("role") or ""), c if isinstance(c, str) else content_text(c)))
        else:
            out.append(("", "" if m is None else str(m)))
    return out


RECENT_OUTPUTS = 20  # outputs searched for inside longer messages (bounds the cost)
MIN_CONTAINED = 200  # shorter outputs are not looked for inside other messages


def build(steps: Iterable) -> ConversationView:
    """The prefix-tree view of a trace's steps (app.trace.Step objects: index, agent, text, raw).

    Per agent, each input walks that agent's tree: the walked prefix was shown before; the
    rest is new. A new message equal to anything an earlier step showed (an input message
    or an output, of any agent) is an `Echo`; a long message containing a recent output is
    shown with that output folded (a partial echo)."""
    roots: dict[str, _Node] = {}
    seen: dict[str, tuple[int, int | None]] = {}  # stripped text shown -> (step, input pos | None)
    recent: list[tuple[str, int]] = []  # (output text, step), newest last
    threads: list[Thread] = []
    last_in_thread: dict[int, tuple[int, int]] = {}  # thread -> (step, input length)
    views: list[StepView] = []
    raw_total = shown_total = 0
    for s in steps:
        out_chars = len(s.text or "")
        msgs = messages_of(s.raw)
        if msgs is None:
            views.append(StepView(s.index, s.agent, None, output_chars=out_chars, shown_chars=out_chars))
            raw_total += out_chars
            shown_total += out_chars
            _remember_output(s, seen, recent)
            continue
        node = roots.setdefault(s.agent, _Node())
        k = 0
        while k < len(msgs) and msgs[k] in node.children:
            node = node.children[msgs[k]]
            k += 1
        v = StepView(s.index, s.agent, None, known=k, input_messages=len(msgs), output_chars=out_chars)
        if k == 0:  # a new first message (system prompt), or a new agent: a new thread
            t = Thread(len(threads), s.agent, s.index, msgs[0][1][:200] if msgs else "")
            threads.append(t)
            v.thread, v.new_thread = t.index, True
        else:
            v.thread = node.thread
        prev = last_in_thread.get(v.thread)
        if prev is not None and k < prev[1]:
            v.branch_of = prev[0]
        for p in range(k, len(msgs)):
            child = _Node(v.thread)
            node.children[msgs[p]] = child
            node = child
        shown = out_chars
        for p in range(k, len(msgs)):
            text = msgs[p][1]
            key = text.strip()
            if key and key in seen:
                v.echoes[p] = Echo(*seen[key], 0, len(text))
                continue
            v.new.append(p)
            hit = None
            if len(key) >= MIN_CONTAINED:
                for out, step in reversed(recent[-RECENT_OUTPUTS:]):
                    if len(out) < len(key) and (hit is None or len(out) > len(hit[0])):
                        at = text.find(out)
                        if at >= 0:
                            hit = (out, step, at)
            if hit is not None:
                out, step, at = hit
                v.echoes[p] = Echo(step, None, at, at + len(out), True)
                shown += len(text) - len(out)
            else:
                shown += len(text)
            if key:
                seen.setdefault(key, (s.index, p))
        v.input_chars = sum(len(t) for _, t in msgs)
        v.shown_chars = shown
        _remember_output(s, seen, recent)
        last_in_thread[v.thread] = (s.index, len(msgs))
        threads[v.thread].steps.append(s.index)
        raw_total += v.input_chars + out_chars
        shown_total += shown
        views.append(v)
    return ConversationView(views, threads, raw_total, shown_total)


def _remember_output(s, seen: dict, recent: list) -> None:
    text = (s.text or "").strip()
    if text:
        seen.setdefault(text, (s.index, None))
        if len(text) >= MIN_CONTAINED:
            recent.append((text, s.index))


def savings(data: dict, steps_key: str = "steps", agent_key: str = "agent") -> ConversationView:
    """The view of an item's data (what `check` reports)."""
    return build(read_steps(data, steps_key, agent_key))
