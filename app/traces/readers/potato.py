"""Potato's item format: one JSON object per item, the id under `id_key`.

An item without a `steps` list whose trace is in one of the fields Potato's agent-trace examples
use gets its steps from it (the field itself is kept as it is):
- `conversation: [{speaker, text}]`: one step per turn of `speaker`;
- `structured_turns: [{role | speaker | agent | name, content | text, tool_calls?}]`: one step
  per turn, the agent the first of `agent`, `speaker`, `name`, `role` that is set;
- AutoGen-style messages `[{sender, receiver, content}]` (under `messages`, `chat_history` or
  `conversation`): one step per message of its `sender`, the `receiver` kept;
- LangGraph-style `events: [{node | name | agent, content | output | text | data, ...}]`: one
  step per event of its node (`__start__` / `__end__` bookkeeping events skipped);
- `run_tree`: a LangSmith run tree (sub-agents as nested chain runs), read as the `langsmith`
  reader reads one: its LLM steps, tool calls, timed calls and agents.
"""
from __future__ import annotations

from pathlib import Path

from app.traces.readers import langsmith
from app.traces.readers.context import Context
from app.traces.readers.spantree import Problems
from app.traces.trace import Item, agent_name, content_text

NAME = "potato"
SHAPE = "an item object with its id under id_key"
_SKIP_NODES = {"__start__", "__end__"}


def detect(record) -> bool:
    return isinstance(record, dict)


def _first(d: dict, keys: tuple) -> object:
    return next((d[k] for k in keys if d.get(k) not in (None, "")), None)


def _turns(turns: list, agent_keys: tuple, text_keys: tuple, skip=frozenset()) -> list[dict]:
    steps = []
    for t in turns:
        if not isinstance(t, dict):
            steps.append({"agent": agent_name(None), "content": "" if t is None else str(t)})
            continue
        agent = _first(t, agent_keys)
        if agent in skip:
            continue
        step = {k: v for k, v in t.items() if k not in text_keys}
        text = _first(t, text_keys)
        step["agent"] = agent_name(agent)
        step["content"] = text if isinstance(text, str) else ("" if text is None else content_text(text))
        steps.append(step)
    return steps


def _listed(record: dict, key: str, *needed: str) -> list | None:
    v = record.get(key)
    if isinstance(v, list) and v and all(isinstance(t, dict) for t in v[:5]) and any(
            k in v[0] for k in needed):
        return v
    return None


def steps_from_fields(record: dict) -> dict | None:
    """{"steps": [...], "calls"?: [...]} from a Potato trace field, or None when it has none."""
    for key in ("messages", "chat_history", "conversation"):
        msgs = _listed(record, key, "sender")
        if msgs:
            return {"steps": _turns(msgs, ("sender", "name", "role"), ("content", "text", "message"))}
    conv = _listed(record, "conversation", "speaker", "text")
    if conv:
        return {"steps": _turns(conv, ("speaker", "agent", "name", "role"), ("text", "content"))}
    turns = _listed(record, "structured_turns", "role", "speaker", "agent", "name", "content", "text")
    if turns:
        return {"steps": _turns(turns, ("agent", "speaker", "name", "role"), ("content", "text"))}
    events = _listed(record, "events", "node", "name", "agent")
    if events:
        return {"steps": _turns(events, ("node", "name", "agent"), ("content", "output", "text", "data"),
                                skip=_SKIP_NODES)}
    tree = record.get("run_tree")
    if isinstance(tree, dict) and isinstance(tree.get("child_runs"), list):
        return _run_tree(tree)
    return None


def _run_tree(tree: dict) -> dict:
    tree = dict(tree)
    tree.setdefault("run_type", "chain")
    got = langsmith._item(str(tree.get("id") or "run_tree"), list(langsmith._flatten(tree, "run_tree")),
                          Context(Path("run_tree")), Problems())
    return {"steps": got.data["steps"], "calls": got.data["calls"]}


def to_item(record: dict, source: str, id_key: str, text_key: str, **_) -> Item:
    if id_key not in record or record[id_key] in (None, ""):
        raise ValueError(f'item has no "{id_key}" (item_properties.id_key); keys present: '
                         + ", ".join(map(str, list(record)[:12])))
    text = record.get(text_key, "")
    if isinstance(text, list):  # Potato dialogue items hold a list of turns
        text = "\n".join(map(str, text))
    gold = record.get("gold") if isinstance(record.get("gold"), dict) else None
    data = record
    if "steps" not in record:
        derived = steps_from_fields(record)
        if derived:
            data = {**record, **{k: v for k, v in derived.items() if k not in record}}
    return Item(str(record[id_key]), data, source, NAME, "" if text is None else str(text), gold)
