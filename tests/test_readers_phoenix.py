"""Phoenix span exports: the REST API's {"data": [span]} and the spans dataframe saved as
JSON Lines and as Parquet (columns context.span_id, attributes.<OpenInference key>, ...)."""
import json
from datetime import datetime, timezone

import pyarrow as pa
import pyarrow.parquet as pq

from app.traces.derive import derive
from app.traces.readers import read_file

TID = "6f0c1c27a1b14b5e9c5f0a8f6d1e2a3b"


def rest_spans():
    def span(sid, parent, name, kind, start, end, attributes, status="OK"):
        return {"id": f"U3BhbjE{sid}", "name": name, "context": {"trace_id": TID, "span_id": sid},
                "span_kind": kind, "parent_id": parent, "start_time": f"2025-05-06T12:00:{start}+00:00",
                "end_time": f"2025-05-06T12:00:{end}+00:00", "status_code": status, "status_message": "",
                "attributes": attributes, "events": []}
    return [
        span("a1", None, "planner", "AGENT", "00.000", "09.000",
             {"openinference": {"span": {"kind": "AGENT"}}, "agent": {"name": "planner"},
              "input": {"value": "Plan a trip to Lisbon"}}),
        span("l1", "a1", "ChatCompletion", "LLM", "00.100", "01.000",
             {"openinference": {"span": {"kind": "LLM"}}, "llm": {
                 "model_name": "gpt-4o-mini",
                 "input_messages": [{"message": {"role": "user", "content": "Plan a trip to Lisbon"}}],
                 "output_messages": [{"message": {"role": "assistant", "content": "", "tool_calls": [
                     {"tool_call": {"function": {"name": "flights", "arguments": '{"to": "LIS"}'}}}]}}]}}),
        span("t1", "a1", "flights", "TOOL", "01.100", "02.600",
             {"openinference": {"span": {"kind": "TOOL"}}, "tool": {"name": "flights"},
              "input": {"value": '{"to": "LIS"}'}, "output": {"value": "TP123 at 9:00"}}),
        span("a2", "a1", "booker", "AGENT", "03.000", "08.000",
             {"openinference": {"span": {"kind": "AGENT"}}, "agent": {"name": "booker"}}),
        span("l2", "a2", "ChatCompletion", "LLM", "03.100", "04.000",
             {"openinference": {"span": {"kind": "LLM"}}, "llm": {
                 "output_messages": [{"message": {"role": "assistant", "content": "Booked TP123."}}]}}, "ERROR"),
    ]


def _check(it, fmt="phoenix"):
    d = derive(it.data)
    assert it.format == fmt and it.id == TID
    assert d.agents == ["planner", "booker"]
    assert [s.id for s in d.steps] == ["l1", "l2"]
    assert [(h.src, h.dst) for h in d.handoffs] == [("planner", "booker")]
    assert [(t.tool, t.step, t.arguments, t.result) for t in d.tool_calls] == [
        ("flights", 0, {"to": "LIS"}, "TP123 at 9:00")]
    assert [(c.agent, round(c.end - c.start, 3)) for c in d.calls] == [("planner", 1.5)]
    assert it.data["steps"][0]["input"] == [{"role": "user", "content": "Plan a trip to Lisbon"}]
    assert it.data["steps"][1]["status"] == "error"
    assert it.text == "Plan a trip to Lisbon"


def test_rest_response(tmp_path):
    p = tmp_path / "spans.json"
    p.write_text(json.dumps({"data": rest_spans(), "next_cursor": None}))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == [] and len(items) == 1
    _check(items[0])


def _flat(d, prefix=""):
    """The dataframe's columns: top-level attribute groups flattened, message lists kept as lists
    of dotted dicts, as get_spans_dataframe() returns them."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(_flat(v, key))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            out[key] = [_flat(x) for x in v]
        else:
            out[key] = v
    return out


def dataframe_rows():
    rows = []
    for s in rest_spans():
        row = {"name": s["name"], "span_kind": s["span_kind"], "parent_id": s["parent_id"],
               "start_time": s["start_time"], "end_time": s["end_time"], "status_code": s["status_code"],
               "status_message": s["status_message"], "events": [], "context.span_id": s["context"]["span_id"],
               "context.trace_id": TID}
        row.update(_flat(s["attributes"], "attributes"))
        rows.append(row)
    return rows


def test_dataframe_as_json_lines(tmp_path):
    p = tmp_path / "spans_df.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in dataframe_rows()))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == [] and len(items) == 1
    assert items[0].data["steps"][0]["input"][0]["content"] == "Plan a trip to Lisbon"
    _check(items[0])


def test_dataframe_as_parquet(tmp_path):
    rows = dataframe_rows()
    for r in rows:  # timestamp columns, as pandas writes them
        for k in ("start_time", "end_time"):
            r[k] = datetime.fromisoformat(r[k]).astimezone(timezone.utc)
    # one column set for all rows (a dataframe has every column on every row)
    cols = sorted({k for r in rows for k in r})
    table = pa.Table.from_pylist([{c: r.get(c) for c in cols} for r in rows])
    p = tmp_path / "spans.parquet"
    pq.write_table(table, p)
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == [] and len(items) == 1
    _check(items[0])


def test_not_parquet_is_one_error(tmp_path):
    p = tmp_path / "broken.parquet"
    p.write_bytes(b"not parquet at all")
    items, problems = read_file(p)
    assert items == [] and len(problems) == 1 and "cannot read as Parquet" in problems[0].message


def test_dataframe_json_lines_with_epoch_milliseconds(tmp_path):
    """pandas' to_json(orient="records", lines=True) writes datetimes as epoch milliseconds."""
    rows = dataframe_rows()
    for r in rows:
        for k in ("start_time", "end_time"):
            r[k] = int(datetime.fromisoformat(r[k]).timestamp() * 1000)
    p = tmp_path / "spans_ms.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows))
    items, problems = read_file(p)
    assert [p for p in problems if p.level != "note"] == []
    _check(items[0])
    assert 1.7e9 < items[0].data["calls"][0]["start"] < 1.8e9
