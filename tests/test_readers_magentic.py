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


def test_a_real_magentic_one_run_as_a_bare_list_reads_as_its_who_and_when_file(tmp_path):
    """The hand-crafted Who&When run in data/ (MIT, data/whowhen/LICENSE) is a real Magentic-One
    log; its history alone, as AgentRx ships such runs, gives the same agents and steps."""
    from tests.conftest import ROOT
    src = ROOT / "data" / "whowhen" / "hand-crafted-33.json"
    run = json.loads(src.read_text())
    p = tmp_path / "33.json"
    p.write_text(json.dumps(run["history"]))
    items, problems = read_file(p)
    assert problems == [] and len(items) == 1 and items[0].format == "magentic"
    ww = derive(read_file(src)[0][0].data)
    d = derive(items[0].data)
    assert [s.agent for s in d.steps] == [s.agent for s in ww.steps]
    assert d.agents == ww.agents and not any("(" in a for a in d.agents)
