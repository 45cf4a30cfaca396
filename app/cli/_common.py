"""Helpers shared by the commands. Commands import what they need inside `run` so that
`python -m app derive` pays only for what it uses."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def open_or_exit(config: str):
    """Open a project, or print every config problem and exit 1."""
    from app.project.workspace import ProjectError, open_project
    try:
        return open_project(config)
    except ProjectError as e:
        for p in e.problems:
            print(p, file=sys.stderr)
        n = sum(p.level == "error" for p in e.problems)
        print(f"{config}: {n} problem(s); the project was not loaded", file=sys.stderr)
        sys.exit(1)


def trace_scheme(project):
    """The scheme whose trace keys the trace view and `derive` use: the first trace scheme."""
    from app.types.registry import TYPES
    return next((s for s in project.schemes if TYPES[s.type].trace), None)
