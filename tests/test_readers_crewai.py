"""CrewAI logs: Crew(output_log_file="x.json") entries and the replay task-output file."""
import json

from app.traces.derive import derive
from app.traces.readers import read_file


def log():
    return [
        {"timestamp": "2025-07-01 10:00:00", "task_name": "research", "task": "Research AI agents in 2025",
         "agent": "Senior Researcher", "status": "started"},
        {"timestamp": "2025-07-01 10:01:30", "task_name": "research", "task": "Research AI agents in 2025",
         "agent": "Senior Researcher", "status": "completed", "output": "1. Agents use tools ..."},
        {"timestamp": "2025-07-01 10:01:31", "task_name": "write", "task": "Write a report",
         "agent": "Reporting Analyst", "status": "started"},
        {"timestamp": "2025-07-01 10:03:00", "task_name": "write", "task": "Write a report",
         "agent": "Reporting Analyst", "status": "completed", "output": "# Report\n..."},
    ]


def test_output_log_file(tmp_path):
    p = tmp_path / "crew_run.json"
    p.write_text(json.dumps(log()))
    items, problems = read_file(p)
    assert problems == [] and [it.id for it in items] == ["crew_run"]
    it = items[0]
    d = derive(it.data)
    assert it.format == "crewai" and it.text == "Research AI agents in 2025"
    assert d.agents == ["Senior Researcher", "Reporting Analyst"]
    assert [s.text for s in d.steps] == ["1. Agents use tools ...", "# Report\n..."]
    assert [(h.src, h.dst) for h in d.handoffs] == [("Senior Researcher", "Reporting Analyst")]
    assert it.data["steps"][0]["end"] - it.data["steps"][0]["start"] == 90
    assert d.tool_calls == []


def test_task_output_file(tmp_path):
    rows = [{"task_id": f"t{i}", "expected_output": "x", "task_index": i, "inputs": {"topic": "AI"},
             "was_replayed": False, "timestamp": "2025-07-01T10:00:00",
             "output": {"description": desc, "name": None, "expected_output": "x", "summary": desc[:10],
                        "raw": raw, "pydantic": None, "json_dict": None, "agent": agent, "output_format": "raw"}}
            for i, (desc, raw, agent) in enumerate([("Write a report", "# Report", "Reporting Analyst"),
                                                    ("Research AI", "notes", "Senior Researcher")])]
    p = tmp_path / "crew_tasks_output.json"
    p.write_text(json.dumps(rows[::-1]))  # written out of order: task_index decides
    it = read_file(p)[0][0]
    d = derive(it.data)
    assert d.agents == ["Reporting Analyst", "Senior Researcher"] and [s.text for s in d.steps] == ["# Report", "notes"]
