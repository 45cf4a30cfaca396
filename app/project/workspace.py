"""A project opened for work: its validated config and its items."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from app.project.config import Project, load_config
from app.project.problems import Problem, errors
from app.traces.readers import data_paths, load_items
from app.traces.trace import Item
from app.traces.cot import segment


class ProjectError(Exception):
    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(p) for p in errors(problems)))
        self.problems = problems


@dataclass
class Workspace:
    project: Project
    items: list[Item]
    problems: list[Problem] = field(default_factory=list)
    # the config's and data files' sizes and modification times when read (files_stamp): what
    # is kept on disk from this workspace (app/kept.py) is taken again by a workspace with the
    # same stamp only ("": none known, nothing kept)
    stamp: str = ""

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
    stamp = files_stamp(project)  # (before the items are read: an edit while reading changes it)
    items, data_problems = load_items(project)
    if project.cot_segmentation:
        _segment(items, project.cot_segmentation)
    if not items and not errors(data_problems):
        data_problems.append(Problem(str(project.path), "data_files", "no items found in the data files"))
    return Workspace(project, items, problems + data_problems, stamp)


def _segment(items: list, options: dict) -> None:
    """Potato's cot_segmentation: each item whose `source_key` holds text and whose `target_key`
    holds no list yet gets the text's steps there (the item's hash follows its new data)."""
    source, target = options["source_key"], options["target_key"]
    for it in items:
        text = it.data.get(source)
        if isinstance(text, str) and text.strip() and not isinstance(it.data.get(target), list):
            it.data[target] = segment(text, options)
            it._hash = ""


def files_stamp(project: Project) -> str:
    """A digest of the config's and every data file's path, size and modification time."""
    h = hashlib.sha256()
    for p in [Path(project.path)] + [f for df in project.data_files for f in data_paths(df.path)]:
        try:
            st = p.stat()
            h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
        except OSError:
            h.update(f"{p}\0-\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:24]
