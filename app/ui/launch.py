"""Start the Streamlit server on Baton's entry script: `python -m app.ui.launch PORT [ADDRESS]`.

`python -m app serve` checks the project, sets BATON_CONFIG and hands over to this module,
so the command line itself never imports Streamlit.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli as stcli

from app.ui import asset_cache

ROOT = Path(__file__).resolve().parents[2]
VENDOR = Path(__file__).resolve().parent / "vendor"
# plotly.js, vendored (app/ui/vendor/README.md) and served from static/: one bundle of what the
# contention timeline (app/ui/timeline_chart.py) and the summary's figures (app/ui/figure_view.py)
# draw (bars, scatter, heatmaps)
PLOTLY_BUNDLE = "plotly-bar-heatmap.min.js"
PLOTLY_FILES = (PLOTLY_BUNDLE,)


def provide_plotly(static_dir: Path) -> None:
    """Put the vendored plotly.js bundles in `static_dir` (the folder Streamlit serves beside the
    entry script), each unless the same file is there already."""
    import shutil

    for name in PLOTLY_FILES:
        src, dst = VENDOR / name, static_dir / name
        if dst.exists() and dst.stat().st_size == src.stat().st_size and dst.stat().st_mtime >= src.stat().st_mtime:
            continue
        static_dir.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(f"{dst.name}.{os.getpid()}.tmp")
        shutil.copyfile(src, tmp)
        tmp.replace(dst)  # atomic: a server starting beside this one never serves half a file


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
    # the contention timeline draws with plotly.js served from static/ (see app/ui/timeline_chart.py)
    try:
        provide_plotly(ROOT / "static")
    except OSError as e:  # e.g. a read-only install: the rest of the app works; the timeline says why not
        print(f"Baton: could not put plotly.js in {ROOT / 'static'} ({e}); the contention timeline "
              "will not draw.", file=sys.stderr)
    # the graph component's content-hashed script kept by the browser (see app/ui/asset_cache.py)
    asset_cache.install()
    argv = ["streamlit", "run", str(ROOT / "streamlit_app.py"), "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--runner.postScriptGC", "false",
            "--server.enableStaticServing", "true"]
    if address:
        argv += ["--server.address", address]
    sys.argv = argv
    return stcli.main()


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None))
