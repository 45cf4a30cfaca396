"""Start the Streamlit server on Baton's entry script: `python -m app.ui.launch PORT [ADDRESS]`.

`python -m app serve` checks the project, sets BATON_CONFIG and hands over to this module,
so the command line itself never imports Streamlit.
"""
from __future__ import annotations

import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli as stcli

ROOT = Path(__file__).resolve().parents[2]


def main(port: int, address: str | None = None) -> int:
    # Streamlit treats a `pages/` folder beside the entry script as a legacy multipage app
    # until the first st.navigation() call in the process; a deep link opened first would
    # then run a page without the entry script. Baton always uses st.navigation, so say so
    # before the server starts.
    PagesManager.uses_pages_directory = False
    # Served, not developed: no polling of every source file for edits (without watchdog it
    # polls on a timer, costing CPU on every core-starved click), and no full garbage
    # collection after every script run (it walks every live object, the parsed traces
    # included, on each click; Python's own collector still runs, see shell.py's gc.freeze).
    argv = ["streamlit", "run", str(ROOT / "streamlit_app.py"), "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--runner.postScriptGC", "false"]
    if address:
        argv += ["--server.address", address]
    sys.argv = argv
    return stcli.main()


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None))
