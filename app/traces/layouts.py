"""A run laid out by its shape: lanes (one per agent), a delegation tree, a board of messages.

Each builder returns plain data for the whole run, made once per item; the trace view shows a
page of it at a time (app/ui/layout_view.py). Every text is the trace's own, cut to an excerpt:
the view puts it on the page as text, never as HTML or Markdown.

- `lanes`: one lane per agent (first-seen order), the steps in trace order across them, and a
  handoff wherever the acting agent changes (derive.find_handoffs), drawn between the lanes.
- `tree`: for span-tree traces the span hierarchy (agent spans, their LLM, tool and chain spans,
  nested agents); for flat traces the manager → worker nesting inferred from handoffs: A hands
  to B, B is nested under A; B (or anyone below A) hands back to A, the nesting closes. Each
  node has its agent, kind, duration, a text excerpt and, for LLM steps, the compact
  conversation (only the input messages new since that agent's last call: app/traces/conversation).
- `board`: messages in order with speaker, reply-to where the trace says (a step's `reply_to`,
  `in_reply_to` or `parent_id`: a step index or id), and who spoke how often; for blackboard
  runs the shared entries (an item's `blackboard` list, else the timed calls on a resource two
  or more agents use) with who wrote and who read them.

Pure: no Streamlit.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from app.traces import conversation
from app.traces.derive import Derivation
from app.traces.trace import UNKNOWN_AGENT, content_text, one_line
from app.traces.readers.spantree import task_text

EXCERPT = 160  # characters of a step's text on a lane, a node or a message
MESSAGE_EXCERPT = 120  # characters of a new input message in a node's compact conversation


def _duration(raw: Any) -> float | None:
    """Seconds between a step's numeric `start` and `end`, when it has both."""
    if not isinstance(raw, dict):
        return None
    a, b = raw.get("start"), raw.get("end")
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and b >= a:
        return float(b) - float(a)
    return None


# --- lanes -------------------------------------------------------------------------------------

@dataclass(slots=True)
class LaneStep:
    step: int
    lane: int  # position in Lanes.agents
    excerpt: str
    handoff_from: int | None = None  # the lane that handed over to this step's agent, if it did
    tool_calls: int = 0


@dataclass
class Lanes:
    agents: list[str]
    rows: list[LaneStep]
    steps_per_lane: list[int]
    handoffs: int


def lanes(d: Derivation) -> Lanes:
    """One lane per agent, every step on its agent's lane in trace order, handoffs marked."""
    order = list(dict.fromkeys(s.agent for s in d.steps))
    lane_of = {a: i for i, a in enumerate(order)}
    calls = Counter(tc.step for tc in d.tool_calls)
    rows = [LaneStep(s.index, lane_of[s.agent], one_line(s.text, EXCERPT), None, calls.get(s.index, 0))
            for s in d.steps]
    for h in d.handoffs:
        rows[h.step].handoff_from = lane_of[h.src]
    per_lane = Counter(r.lane for r in rows)
    return Lanes(order, rows, [per_lane[i] for i in range(len(order))], len(d.handoffs))


# --- tree --------------------------------------------------------------------------------------

@dataclass
class Node:
    kind: str  # AGENT, LLM, TOOL, CHAIN, ... for spans; "agent" or "step" for flat traces
    agent: str
    name: str
    excerpt: str = ""
    step: int | None = None  # the step this node is (LLM spans, flat steps)
    duration: float | None = None
    status: str | None = None
    conversation: list[str] = field(default_factory=list)  # the compact conversation, line by line
    children: list["Node"] = field(default_factory=list)


@dataclass
class Row:
    """A node in pre-order, with its depth and its ancestors' labels (the page's context)."""
    depth: int
    node: Node
    path: tuple[str, ...]


def tree(data: dict, d: Derivation, view: conversation.ConversationView | None = None) -> list[Node]:
    """The run's delegation tree (its roots): spans when the trace has them, else handoffs."""
    view = view if view is not None else conversation.build(d.steps)
    spans = ((data.get("trace") or {}).get("spans") or []) if isinstance(data, dict) else []
    if spans:
        return _span_tree(data, spans, d, view)
    return _handoff_tree(d, view)


def compact(d: Derivation, view: conversation.ConversationView, step: int) -> list[str]:
    """What a step's input adds to its agent's conversation: the new messages (role: excerpt),
    the repeats counted, not shown again."""
    if step >= len(view.steps) or not view.steps[step].has_input:
        return []
    sv = view.steps[step]
    msgs = conversation.messages_of(d.steps[step].raw) or []
    out = [f"new conversation of {sv.agent}" if sv.new_thread
           else f"{sv.known} earlier message(s) of {sv.agent}'s conversation not repeated"]
    for p in sv.new:
        role, text = msgs[p]
        out.append(f"{role or 'message'}: {one_line(text, MESSAGE_EXCERPT) or '(empty)'}")
    repeats = sum(1 for e in sv.echoes.values() if not e.partial)
    if repeats:
        out.append(f"{repeats} message(s) repeat earlier steps")
    return out


def _span_tree(data: dict, spans: list, d: Derivation, view) -> list[Node]:
    step_of = {s.id: s.index for s in d.steps}
    calls: dict[str, tuple[int, dict]] = {}
    for s in d.steps:
        for tc in (s.raw.get("tool_calls") or []) if isinstance(s.raw, dict) else []:
            if isinstance(tc, dict) and tc.get("id") is not None:
                calls[str(tc["id"])] = (s.index, tc)
    tasks = {str(a.get("span")): a.get("task") for a in (data.get("trace") or {}).get("agents") or []
             if isinstance(a, dict)}
    nodes: dict[str, Node] = {}
    roots: list[Node] = []
    for row in spans:
        if not isinstance(row, dict):
            continue
        sid = str(row.get("id"))
        kind = str(row.get("kind") or "span")
        a, b = row.get("start"), row.get("end")
        dur = float(b) - float(a) if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b >= a else None
        node = Node(kind, str(row.get("agent") or UNKNOWN_AGENT), str(row.get("name") or ""), duration=dur,
                    status=row.get("status"))
        if sid in step_of:
            node.step = step_of[sid]
            node.excerpt = one_line(d.steps[node.step].text, EXCERPT)
            node.conversation = compact(d, view, node.step)
        elif sid in calls:
            _, tc = calls[sid]
            args = tc.get("arguments")
            node.excerpt = one_line(f"{tc.get('name') or node.name}({_text(args)})", EXCERPT)
            if tc.get("error"):
                node.excerpt = one_line(f"{node.excerpt} · failed: {tc['error']}", EXCERPT)
        elif sid in tasks:
            node.excerpt = one_line(task_text(tasks[sid]), EXCERPT)
        nodes[sid] = node
        parent = nodes.get(str(row.get("parent"))) if row.get("parent") is not None else None
        (parent.children if parent is not None else roots).append(node)
    return roots


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else content_text(value)


def _handoff_tree(d: Derivation, view) -> list[Node]:
    """Nesting from who hands to whom: a new agent opens a node under the current one; an agent
    already open (an ancestor) takes the work back, and the nodes below it close."""
    roots: list[Node] = []
    stack: list[Node] = []
    for s in d.steps:
        open_at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].agent == s.agent), None)
        if open_at is not None:
            del stack[open_at + 1:]
        else:
            node = Node("agent", s.agent, s.agent)
            (stack[-1].children if stack else roots).append(node)
            stack.append(node)
        stack[-1].children.append(Node("step", s.agent, f"Step {s.index}", one_line(s.text, EXCERPT), s.index,
                                       _duration(s.raw), (s.raw.get("status") if isinstance(s.raw, dict) else None),
                                       compact(d, view, s.index)))
    for root in roots:
        _agent_excerpts(root)
    return roots


def _agent_excerpts(node: Node) -> None:
    """An agent node's excerpt: how many steps it took there and how many agents it handed to."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind != "agent":
            continue
        steps = sum(1 for c in n.children if c.kind == "step")
        agents = [c.agent for c in n.children if c.kind == "agent"]
        n.excerpt = f"{steps} step(s)" + (f", hands to {', '.join(dict.fromkeys(agents))}" if agents else "")
        durations = [c.duration for c in n.children if c.kind == "step" and c.duration is not None]
        n.duration = sum(durations) if durations else None
        stack.extend(n.children)


def rows(roots: list[Node]) -> list[Row]:
    """Every node in pre-order with its depth (the tree as the pages of a list)."""
    out: list[Row] = []
    stack = [(r, 0, ()) for r in reversed(roots)]
    while stack:
        node, depth, path = stack.pop()
        out.append(Row(depth, node, path))
        inner = path + (f"{node.agent} · {node.name}" if node.name != node.agent else node.agent,)
        stack.extend((c, depth + 1, inner) for c in reversed(node.children))
    return out


def depth(roots: list[Node]) -> int:
    return max((r.depth for r in rows(roots)), default=-1) + 1


# --- board -------------------------------------------------------------------------------------

@dataclass(slots=True)
class Message:
    step: int
    speaker: str
    excerpt: str
    reply_to: int | None = None  # the step replied to, where the trace says


@dataclass(slots=True)
class Entry:
    """A shared entry of a blackboard: who wrote it, who read it."""
    index: int
    writer: str
    excerpt: str
    readers: list[str]
    resource: str = ""


@dataclass
class Board:
    messages: list[Message]
    spoke: list[tuple[str, int]]  # (speaker, messages), most first
    entries: list[Entry]


REPLY_KEYS = ("reply_to", "in_reply_to", "parent_id")
_WRITE = re.compile(r"write|post|put|set|add|append|update|insert|publish|save", re.IGNORECASE)
_READ = re.compile(r"read|get|fetch|load|query|list|search|subscribe|poll", re.IGNORECASE)


def board(data: dict, d: Derivation) -> Board:
    """The run as a board: messages, who spoke how often, the shared entries."""
    by_id = {s.id: s.index for s in d.steps}
    messages = []
    for s in d.steps:
        reply = None
        if isinstance(s.raw, dict):
            for k in REPLY_KEYS:
                v = s.raw.get(k)
                if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < s.index:
                    reply = v
                elif v is not None and str(v) in by_id and by_id[str(v)] < s.index:
                    reply = by_id[str(v)]
                if reply is not None:
                    break
        messages.append(Message(s.index, s.agent, one_line(s.text, EXCERPT), reply))
    spoke = Counter(m.speaker for m in messages).most_common()
    return Board(messages, spoke, entries(data, d))


def entries(data: dict, d: Derivation) -> list[Entry]:
    """The shared entries: the item's `blackboard` list ({agent|author|writer, content|text,
    read_by|readers}), else one per resource the timed calls of two or more agents share, its
    writers and readers told apart by the tool's name (write, post, put, ... / read, get, ...)."""
    board_list = data.get("blackboard") if isinstance(data, dict) else None
    out: list[Entry] = []
    if isinstance(board_list, list):
        for e in board_list:
            if not isinstance(e, dict):
                continue
            writer = e.get("agent") or e.get("author") or e.get("writer")
            readers = e.get("read_by") or e.get("readers") or []
            text = e.get("content") if e.get("content") is not None else e.get("text")
            out.append(Entry(len(out), UNKNOWN_AGENT if writer is None else str(writer),
                             one_line(_text(text), EXCERPT),
                             [str(r) for r in readers] if isinstance(readers, list) else [str(readers)],
                             str(e.get("key") or "")))
        return out
    by_resource: dict[str, list] = {}
    for c in d.calls:
        by_resource.setdefault(c.resource, []).append(c)
    verbs: dict[str, str] = {}  # tool -> "w", "r" or "" (a run has few distinct tools, many calls)
    for c in d.calls:
        if c.tool not in verbs:
            verbs[c.tool] = "w" if _WRITE.search(c.tool) else "r" if _READ.search(c.tool) else ""
    for res, cs in by_resource.items():
        if len({c.agent for c in cs}) < 2:
            continue
        writers = list(dict.fromkeys(c.agent for c in cs if verbs[c.tool] == "w"))
        readers = list(dict.fromkeys(c.agent for c in cs if verbs[c.tool] == "r"))
        others = [c.agent for c in cs if c.agent not in writers and c.agent not in readers]
        tools = ", ".join(dict.fromkeys(c.tool for c in cs))
        out.append(Entry(len(out), ", ".join(writers) or "(no write seen)",
                         one_line(f"{len(cs)} calls: {tools}", EXCERPT),
                         readers + list(dict.fromkeys(others)), res))
    return out
