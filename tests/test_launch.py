"""The server's set-up: plotly.js for the contention timeline, served from static/."""
import os
import re
from pathlib import Path

import plotly

from app.ui.launch import PLOTLY_JS, PLOTLY_SOURCE, provide_plotly


def _version(js: Path) -> str:
    """The plotly.js version its bundle's banner names."""
    return re.search(r"plotly\.js(?: \([^)]*\))? v(\d+\.\d+\.\d+)", js.read_text(encoding="utf-8")[:400]).group(1)


def test_the_vendored_plotly_js_is_the_version_the_plotly_package_draws_with():
    # figures built in Python (the plotly package) are drawn by this bundle in the browser
    assert _version(PLOTLY_SOURCE) == _version(Path(plotly.__file__).parent / "package_data" / "plotly.min.js")
    assert (PLOTLY_SOURCE.parent / "LICENSE.plotly.js.txt").read_text(encoding="utf-8").startswith("MIT License")


def test_plotly_js_copied_once_and_kept(tmp_path):
    src = PLOTLY_SOURCE
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
