"""The server's set-up: plotly.js for the contention timeline, served from static/."""
import os
from pathlib import Path

import plotly

from app.ui.launch import PLOTLY_JS, provide_plotly


def test_plotly_js_copied_once_and_kept(tmp_path):
    src = Path(plotly.__file__).parent / "package_data" / PLOTLY_JS
    static = tmp_path / "static"
    provide_plotly(static)
    got = static / PLOTLY_JS
    assert got.read_bytes()[:200] == src.read_bytes()[:200] and got.stat().st_size == src.stat().st_size
    assert [p.name for p in static.iterdir()] == [PLOTLY_JS]  # no temporary file left
    mtime = got.stat().st_mtime_ns
    provide_plotly(static)  # already there: not copied again
    assert got.stat().st_mtime_ns == mtime
    got.write_text("half a file")  # a broken copy is replaced
    os.utime(got, ns=(mtime, mtime))
    provide_plotly(static)
    assert got.stat().st_size == src.stat().st_size
