"""Magentic-One message logs: a file that is a bare JSON list (or JSON Lines) of
`{"role": "Orchestrator (-> WebSurfer)", "content"}` messages, as AgentRx and Who&When ship
Magentic-One runs: the whole file is one run, each message one step.

The agent is the role without its tag (`"Orchestrator (thought)"` and `"Orchestrator (->
WebSurfer)"` are both Orchestrator; the tag is kept as the step's `tag`); `human` (the task) is
an agent of its own, as in Who&When. The first human message is the item's text. The item id is
`<folder>-<file stem>`, as for a one-run Who&When file.
"""
from __future__ import annotations

import sys

from app.traces.trace import Item, content_text
from app.traces.readers import whowhen
from app.traces.readers.context import wrong_shape

NAME = "magentic"
SHAPE = 'a Magentic-One message list ([{"role": "Orchestrator (-> WebSurfer)", "content"}, ...])'
# chat's roles: a list of {"role": "user", ...} messages is a chat log, not a Magentic-One run
_CHAT_ROLES = {"system", "user", "assistant", "tool", "function", "developer", "model"}
# keys of other shapes: such a record is an item, a run or a trace, not one message of a run
_OTHER = {"id", "steps", "history", "messages", "observations", "spans", "trajectory", "trace"}


def detect(record) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("role"), str) and "content" in record
            and record["role"].strip().lower() not in _CHAT_ROLES and _OTHER.isdisjoint(record))


def read(records, ctx):
    problems, steps = [], []
    for record, where in records:
        if not detect(record):
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
            continue
        step = {"agent": whowhen.agent_of(record), "content": content_text(record.get("content")), "role": record["role"]}
        tag = whowhen._tag(record["role"])
        if tag:
            step["tag"] = tag
        steps.append(step)
    if not steps:
        return [], problems
    path = ctx.path
    item_id = f"{path.parent.name}-{path.stem}" if path.parent.name else path.stem
    text = next((s["content"] for s in steps if s["agent"] == "human"), "")
    data = {ctx.id_key: item_id, ctx.text_key: text, "steps": steps}
    return [Item(item_id, data, str(path), NAME, text, None)], problems

