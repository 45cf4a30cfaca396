"""`python -m app serve`."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from app.cli._common import ROOT, open_or_exit

HELP = "start the app on a project"


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--address", help="address to listen on (default: all)")


def secrets_problems(config: str) -> int:
    """Non-zero (after saying why) when a secrets file is present but damaged: the app would
    serve nothing, so it does not start (as `check` refuses it, with the same words)."""
    from app.project.access import load_access, secrets_files
    access = load_access(secrets_files(config))
    if not access.is_broken:
        return 0
    for problem in access.problems:
        print(f"access refused to everyone until fixed: {problem}", file=sys.stderr)
    print("not serving: fix the secrets file (or remove it to turn access control off)", file=sys.stderr)
    return 2


def run(args) -> int:
    open_or_exit(args.config)  # fail early, in the terminal, on a broken project
    refused = secrets_problems(args.config)
    if refused:
        return refused
    os.environ["BATON_CONFIG"] = str(Path(args.config).resolve())
    print(f"Baton on http://localhost:{args.port}  (project {args.config})", flush=True)
    # The server lives in the UI layer (app/ui/launch.py); exec keeps one process, so
    # signals sent to `serve` reach Streamlit directly.
    cmd = [sys.executable, "-m", "app.ui.launch", str(args.port)] + ([args.address] if args.address else [])
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + path if path else ""))
    os.execve(sys.executable, cmd, env)
    return 0
