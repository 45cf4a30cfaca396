"""A project opened for work: its validated config and its items."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .config import Project, load_config
from .problems import Problem, errors
from .readers import load_items
from .trace import Item


class ProjectError(Exception):
    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(p) for p in errors(problems)))
        self.problems = problems


@dataclass
class Workspace:
    project: Project
    items: list[Item]
    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self):
        self.by_id = {it.id: it for it in self.items}

    def item(self, item_id: str) -> Item:
        return self.by_id[item_id]


def open_project(path: str | Path) -> Workspace:
    """Load config and items; raises ProjectError if the config itself is invalid.
    Data problems (a bad line, a missing id) are kept in `problems`, the rest still read."""
    project, problems = load_config(path)
    if project is None:
        raise ProjectError(problems)
    items, data_problems = load_items(project)
    if not items and not errors(data_problems):
        data_problems.append(Problem(str(project.path), "data_files", "no items found in the data files"))
    return Workspace(project, items, problems + data_problems)
