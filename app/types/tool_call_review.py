"""tool_call_review values: a verdict and notes per tool call.

Stored value (the `value` of the Parquet row): a list, sorted by `index`, of

    {"index": int, "step": int, "tool": str, "verdict": str | None, "notes": str}

for the calls the annotator touched: a call is kept while it has a verdict or
non-blank notes (verdict None = "no verdict yet", distinct from any verdict). `index`
is the call's position over the whole trace (Derivation.tool_calls), `step` the trace
step index and `tool` the tool name, both stored so that a label can be checked
against the call it was made for: when the data changes and `index` now names a
different call, the label is not re-attached to it (see `reconcile`).

An empty list is "not annotated" (the row is removed); "Reviewed, nothing to flag"
stores `[]` with the reviewed_clean status.

In the summary: a row per call given a verdict (index, step, tool, verdict); the rollup
counts each (tool, verdict), agreement is nominal on the verdict of each call (item, index)
two or more annotators gave one.

No Streamlit here.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import pandas as pd

from app.traces.toolcall import ToolCall
from app.project import validators as v
from app.stats.agreement import Disagreements, judgements, nominal
from app.stats.counting import count, sorted_keys
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme
from app.types.panel import SchemeRows


def entry(call: ToolCall, verdict: str | None, notes: str) -> dict:
    return {"index": call.index, "step": call.step, "tool": call.tool,
            "verdict": verdict or None, "notes": notes or ""}


def touched(e: dict) -> bool:
    return bool(e.get("verdict")) or bool((e.get("notes") or "").strip())


def _clean(e: Any) -> dict | None:
    """One stored entry, checked; None when it is not an entry at all."""
    if not isinstance(e, dict) or isinstance(e.get("index"), bool) or not isinstance(e.get("index"), int):
        return None
    step = e.get("step")
    verdict = e.get("verdict")
    return {"index": e["index"], "step": step if isinstance(step, int) and not isinstance(step, bool) else None,
            "tool": "" if e.get("tool") is None else str(e.get("tool")),
            "verdict": str(verdict) if verdict not in (None, "") else None,
            "notes": "" if e.get("notes") is None else str(e.get("notes"))}


def parse(value: Any) -> list[dict]:
    """A stored value as clean entries, sorted by index (the last entry wins on a repeated index)."""
    by_index: dict[int, dict] = {}
    for e in value if isinstance(value, list) else []:
        c = _clean(e)
        if c is not None:
            by_index[c["index"]] = c
    return [by_index[i] for i in sorted(by_index)]


def build(entries: Iterable[dict]) -> list[dict]:
    """The stored list: touched entries only, one per index, sorted by index."""
    return [e for e in parse(list(entries)) if touched(e)]


def put(value: Any, new: dict) -> list[dict]:
    """`value` with the entry for `new["index"]` replaced by `new` (dropped if untouched)."""
    rest = [e for e in parse(value) if e["index"] != new["index"]]
    return build(rest + [new])


def drop(value: Any, index: int) -> list[dict]:
    return build(e for e in parse(value) if e["index"] != index)


def matches(e: dict, call: ToolCall) -> bool:
    return e["index"] == call.index and e["step"] == call.step and e["tool"] == call.tool


def reconcile(value: Any, calls: list[ToolCall]) -> tuple[dict[int, dict], list[dict]]:
    """Split stored entries into ({call index: entry} for calls they still describe, orphans).

    An entry whose index, step and tool no longer name the same call (the trace was
    edited) is an orphan: it is shown apart and never attached to another call.
    """
    by_index = {c.index: c for c in calls}
    matched: dict[int, dict] = {}
    orphans: list[dict] = []
    for e in parse(value):
        call = by_index.get(e["index"])
        if call is not None and matches(e, call):
            matched[e["index"]] = e
        else:
            orphans.append(e)
    return matched, orphans


def pretty(data: Any) -> tuple[str, str | None]:
    """(text, code language) to show tool arguments or a result, pretty-printed.

    Dicts and lists become indented JSON; a string holding JSON (OpenAI sends arguments
    that way, tools often return it) is parsed and indented too; other strings stay as
    they are; None is "".
    """
    if data is None:
        return "", None
    if isinstance(data, str):
        s = data.strip()
        if s[:1] in ("{", "["):
            try:
                return json.dumps(json.loads(s), indent=2, ensure_ascii=False), "json"
            except (ValueError, RecursionError):
                pass
        return data, None
    if isinstance(data, (dict, list, tuple, int, float, bool)):
        return json.dumps(data, indent=2, ensure_ascii=False, default=str), "json"
    return str(data), None


def summary(value: Any, n_calls: int, verdicts: list[str]) -> str:
    """A text line: how many calls have a verdict, and the count per verdict."""
    with_verdict = [e for e in parse(value) if e["verdict"]]
    counts = dict.fromkeys(verdicts, 0)
    for e in with_verdict:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    parts = [f"{n} {v}" for v, n in counts.items() if n]
    text = f"{len(with_verdict)} of {n_calls} calls judged"
    return text + (f" ({', '.join(parts)})" if parts else "")


DEFAULT_VERDICTS = ["correct", "wrong_tool", "wrong_args", "wrong_order"]


# --- the summary ------------------------------------------------------------------------------

def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per entry with a verdict (index, step, tool, verdict), as parse() reads the value."""
    return [{"index": e["index"], "step": e["step"], "tool": e["tool"], "verdict": e["verdict"]}
            for e in parse(value) if e["verdict"]]


def rollup(scheme_rows: SchemeRows) -> list[dict]:
    """How many verdicts each tool got, per verdict, by tool then verdict (the tool as stored
    with the verdict)."""
    table = scheme_rows.table
    counted = count(table, ["tool", "verdict"]) if "verdict" in table else {}
    return [{"tool": tool, "verdict": verdict, "count": counted[(tool, verdict)]}
            for tool, verdict in sorted_keys(counted)]


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """The verdict of each call (an item's call index) two or more annotators judged: nominal,
    over the verdicts given (a call left alone has no verdict; it is not a category)."""
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    if "verdict" not in given:
        given = given.assign(index=pd.Series([], dtype="int64"), tool=[], verdict=[])
    given = given.assign(index=pd.to_numeric(given["index"], errors="coerce").fillna(-1).astype("int64"))
    # a unit per (item, call index): item by item, calls by index
    units = given.groupby(["item", "index"], sort=True).ngroup().to_numpy()
    given = given.assign(unit=units)
    # each call named by its tool as the first annotator by name who named one gave it (not
    # by the rows' order)
    named = given.assign(unnamed=given["tool"].isna()).sort_values(["unit", "unnamed", "rater"], kind="stable")
    first = named.drop_duplicates("unit")
    calls = {unit: (item, index, None if unnamed else tool) for unit, item, index, tool, unnamed in
             zip(*(first[c].tolist() for c in ("unit", "item", "index", "tool", "unnamed")))}

    def describe(unit: int) -> tuple[str, str]:
        item, index, tool = calls[unit]
        return panel.items[item], f"call {index}" + (f" ({tool})" if tool is not None else "")

    verdicts = judgements(given["unit"], given["rater"], given["verdict"])
    disagreements.add(verdicts, describe, "tool verdict")
    return {"verdict": nominal(verdicts)}


def looks_like(value: Any) -> bool:
    return isinstance(value, list)


def objects(value: Any, derivation) -> Any:
    """Each reviewed call as the trace has it now (None: no call at that index)."""
    if derivation is None or not isinstance(value, list):
        return None
    calls = {c.index: c for c in derivation.tool_calls}
    out = {}
    for e in value:
        if isinstance(e, dict) and isinstance(e.get("index"), int):
            c = calls.get(e["index"])
            out[str(e["index"])] = None if c is None else {"step": c.step, "agent": c.agent, "tool": c.tool,
                                                           "arguments": c.arguments}
    return {"tool_calls": out}


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    """Each entry names a tool call of the run (its index, step and tool as the run has them),
    once, with a verdict among the scheme's (or none yet) and text notes."""
    if not isinstance(value, list):
        return [c.shape(value, list)]
    calls = None if derivation is None else derivation.tool_calls
    verdicts = list(scheme.get("verdict_options") or DEFAULT_VERDICTS)
    out: list[str] = []
    for what, e, i in c.entries(value, None if calls is None else len(calls), ["index", "step", "tool", "verdict", "notes"],
                                "call", "tool calls", out):
        if i is not None and calls is not None and (e.get("step"), e.get("tool")) != (calls[i].step, calls[i].tool):
            out.append(f"{what}: call {i} of this run is {c.show(calls[i].tool)} at step {calls[i].step}, not "
                       f"{c.show(e.get('tool'))} at step {c.show(e.get('step'))}")
        if e.get("verdict") is not None:
            out += c.gather(c.one_of(e["verdict"], verdicts, f"{what}: verdict"))
        out += c.gather(c.text(e.get("notes"), f"{what}: notes"))
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    """Per call: which call it is (step and tool), its verdict, its notes."""
    found: dict = {}
    for e in parse(value):
        if not touched(e):
            continue
        found[("call", e["index"], "at")] = (e["step"], e["tool"])
        if e["verdict"]:
            found[("call", e["index"], "verdict")] = e["verdict"]
        if e["notes"].strip():
            found[("call", e["index"], "notes")] = e["notes"]
    return found


def join(fields: dict, scheme: Scheme) -> list[dict]:
    return build({"index": f[1], "step": at[0], "tool": at[1], "verdict": fields.get(("call", f[1], "verdict")),
                  "notes": fields.get(("call", f[1], "notes")) or ""} for f, at in fields.items() if f[2] == "at")


TYPE = AnnotationType(
    name="tool_call_review", title="Tool-call review", page="pages/tool_call_review.py", trace=True,
    keys={"verdict_options": Key(v.string_list(1), default=DEFAULT_VERDICTS)},
    section="tool_verdicts", rows=rows, rollup=rollup, agreement=agreement, looks_like=looks_like, validate=validate, parts=parts, join=join,
    objects=objects, headline=lambda measures: measures.get("verdict"))
