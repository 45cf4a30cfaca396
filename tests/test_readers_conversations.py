"""The loop the chat and AutoGen readers share (app/traces/readers/conversations.py): records
holding messages are items, loose messages one item named after the file, ids from the record
or the file, a record of another shape an error naming what it looks like."""
import json

import pytest

from app.traces.readers import read_file

CHAT = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "name": "Coder", "content": "ok"}]}
AUTOGEN = {"messages": [{"source": "user", "type": "TextMessage", "content": "hi"},
                        {"source": "Coder", "type": "TextMessage", "content": "ok"}], "stop_reason": "done"}


def _write(tmp_path, name: str, records: list) -> object:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


@pytest.mark.parametrize("fmt, record", [("chat", CHAT), ("autogen", AUTOGEN)])
def test_records_loose_messages_and_ids(tmp_path, fmt, record):
    records = [{**record, "id": "run-a"}, {**record, "id": {"not": "an id"}}, record, *record["messages"]]
    items, problems = read_file(_write(tmp_path, "runs.jsonl", records), data_format=fmt)
    assert not [p for p in problems if p.level == "error"]
    # an id from the record; a missing or unusable one from the file and the line; loose messages
    # are one item named after the file
    assert [it.id for it in items] == ["run-a", "runs-2", "runs-3", "runs"]
    assert all(it.format == fmt and [s["agent"] for s in it.data["steps"]] == ["user", "Coder"] for it in items)
    assert items[0].source.endswith("runs.jsonl:1") and items[-1].source.endswith("runs.jsonl")


@pytest.mark.parametrize("fmt, other", [("chat", AUTOGEN), ("autogen", CHAT)])
def test_a_record_of_the_other_shape_is_named(tmp_path, fmt, other):
    _, problems = read_file(_write(tmp_path, "runs.jsonl", [other]), data_format=fmt)
    (p,) = [p for p in problems if p.level == "error"]
    assert p.where == "line 1" and f"data_format is {fmt}" in p.message
    assert f"(it looks like {'autogen' if fmt == 'chat' else 'chat'})" in p.message
