"""CrewAI run logs, in the two JSON shapes CrewAI writes.

- `Crew(output_log_file="run.json")`: a JSON list of log entries `{"timestamp", "task_name",
  "task", "agent", "status": "started" | "completed", "output"?}` (CrewAI appends one when a
  task starts and one when it completes). Each task is one step of its `agent` (the agent's
  role), its text the completed task's `output`, its start and end the two entries' timestamps.
- The task-output file kept for `crewai replay` (`crew_tasks_output.json`): a list of
  `{"task_id", "task_index", "expected_output", "output": {"description", "name", "raw",
  "agent", "summary", ...}, "timestamp", "inputs", "was_replayed"}`: one step per task, in
  `task_index` order, of `output.agent`, its text `output.raw`.

The whole file is one run (id: the file stem). The handoffs are the changes of agent from task
to task. Neither log records tool calls, so a CrewAI run has none; the plain-text log
(`.txt`) is not read.
"""
from __future__ import annotations

import sys

from app.traces.trace import Item, agent_name, content_text
from app.traces.timeparse import parse_time
from app.traces.readers.context import wrong_shape

NAME = "crewai"
SHAPE = ('a CrewAI log entry ({"task_name", "task", "agent", "status"}) or task output '
         '({"task_id", "task_index", "output": {"raw", "agent"}})')


def _is_log(record) -> bool:
    return (isinstance(record, dict) and "agent" in record and "status" in record and "timestamp" in record
            and ("task" in record or "task_name" in record))


def _is_task_output(record) -> bool:
    return (isinstance(record, dict) and "task_id" in record and "task_index" in record
            and isinstance(record.get("output"), dict))


def detect(record) -> bool:
    return _is_log(record) or _is_task_output(record)


def _time(v, where, problems, ctx):
    if v in (None, ""):
        return None
    try:
        return parse_time(v)
    except ValueError as e:
        problems.append(ctx.problem(where or "record", f"timestamp: {e}; not placed in time", "warning"))
        return None


def read(records, ctx):
    problems = []
    steps: list[dict] = []
    open_tasks: dict[tuple, dict] = {}  # (task name, agent) -> its step, until it completes
    outputs = []
    for record, where in records:
        if _is_task_output(record):
            outputs.append((record, where))
            continue
        if not _is_log(record):
            problems.append(wrong_shape(ctx, where, sys.modules[__name__], record))
            continue
        agent = agent_name(record.get("agent"))
        key = (str(record.get("task_name") or record.get("task") or ""), agent)
        when = _time(record.get("timestamp"), where, problems, ctx)
        status = str(record.get("status") or "").lower()
        step = open_tasks.pop(key, None) if status == "completed" else None
        if step is None:
            step = {"agent": agent, "task_name": record.get("task_name"), "task": record.get("task"),
                    "content": "", "status": status}
            if when is not None:
                step["start"] = when
            steps.append(step)
            if status == "started":
                open_tasks[key] = step
                continue
        step["status"] = status
        step["content"] = content_text(record.get("output"))
        if when is not None:
            step["end"] = when
    for record, where in sorted(outputs, key=lambda e: (e[0]["task_index"] if isinstance(e[0]["task_index"], int)
                                                       else 10**9)):
        out = record["output"]
        steps.append({"agent": agent_name(out.get("agent")), "content": content_text(out.get("raw")),
                      "task_id": record.get("task_id"), "task_name": out.get("name"),
                      "task": out.get("description"), "task_index": record.get("task_index")})
    if not steps:
        return [], problems
    text = next((str(s["task"]) for s in steps if s.get("task")), "")
    item_id = ctx.path.stem
    data = {ctx.id_key: item_id, ctx.text_key: text, "steps": steps}
    return [Item(item_id, data, str(ctx.path), NAME, text, None)], problems
