"""Magentic-One message lists (bare JSON lists of {role: "Orchestrator (-> WebSurfer)", content},
as AgentRx ships them): one run per file."""
import json

from app.traces.derive import derive
from app.traces.readers import read_file


def messages():
    return [
        {"role": "human", "content": "How many studio albums did Mercedes Sosa publish between 2000 and 2009?"},
        {"role": "Orchestrator (thought)", "content": "Initial plan: ask WebSurfer to search."},
        {"role": "Orchestrator (-> WebSurfer)", "content": "Search Wikipedia for Mercedes Sosa discography."},
        {"role": "WebSurfer", "content": "I typed 'Mercedes Sosa discography' into the search box."},
        {"role": "Orchestrator (thought)", "content": "Updated ledger: WebSurfer found the page."},
        {"role": "Orchestrator (-> Coder)", "content": "Count the albums from 2000 to 2009."},
        {"role": "Coder", "content": "```python\nprint(3)\n```"},
        {"role": "Orchestrator (termination condition)", "content": "The answer is 3."},
    ]


def test_one_run_per_file_with_tags_stripped(tmp_path):
    d_ = tmp_path / "magentic"
    d_.mkdir()
    for n in (1, 2):
        (d_ / f"{n}.json").write_text(json.dumps(messages()))
    items = []
    for n in (1, 2):
        got, problems = read_file(d_ / f"{n}.json")
        assert problems == []
        items += got
    assert [it.id for it in items] == ["magentic-1", "magentic-2"]
    it = items[0]
    assert it.format == "magentic" and it.text.startswith("How many studio albums")
    d = derive(it.data)
    assert d.agents == ["human", "Orchestrator", "WebSurfer", "Coder"]
    assert len(d.steps) == 8
    assert [(h.src, h.dst) for h in d.handoffs] == [
        ("human", "Orchestrator"), ("Orchestrator", "WebSurfer"), ("WebSurfer", "Orchestrator"),
        ("Orchestrator", "Coder"), ("Coder", "Orchestrator")]
    assert it.data["steps"][2]["tag"] == "-> WebSurfer"


def test_chat_roles_stay_a_chat_log(tmp_path):
    p = tmp_path / "chat.json"
    p.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    items, problems = read_file(p)
    assert problems == [] and items[0].format == "chat"
