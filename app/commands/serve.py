"""`python -m app serve`."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ._common import ROOT, open_or_exit

HELP = "start the app on a project"


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--address", help="address to listen on (default: all)")


def run(args) -> int:
    open_or_exit(args.config)  # fail early, in the terminal, on a broken project
    os.environ["BATON_CONFIG"] = str(Path(args.config).resolve())
    # Streamlit treats a `pages/` folder beside the entry script as a legacy multipage app
    # until the first st.navigation() call in the process; a deep link opened first would
    # then run a page without the entry script. Baton always uses st.navigation, so say so
    # before the server starts.
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli as stcli
    PagesManager.uses_pages_directory = False
    # Served, not developed: no polling of every source file for edits (without watchdog it
    # polls on a timer, costing CPU on every core-starved click), and no full garbage
    # collection after every script run (it walks every live object, the parsed traces
    # included, on each click; Python's own collector still runs, see shell.py's gc.freeze).
    argv = ["streamlit", "run", str(ROOT / "streamlit_app.py"), "--server.port", str(args.port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--runner.postScriptGC", "false"]
    if args.address:
        argv += ["--server.address", args.address]
    print(f"Baton on http://localhost:{args.port}  (project {args.config})", flush=True)
    sys.argv = argv
    return stcli.main()
