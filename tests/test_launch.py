"""The server's set-up: plotly.js for the contention timeline and the summary, served from static/."""
import os
import re
from pathlib import Path

import plotly

from app.ui.launch import PLOTLY_FILES, VENDOR, provide_plotly


def _version(js: Path) -> str:
    """The plotly.js version its bundle's banner names."""
    return re.search(r"plotly\.js(?: \([^)]*\))? v(\d+\.\d+\.\d+)", js.read_text(encoding="utf-8")[:400]).group(1)


def test_the_vendored_plotly_js_is_the_version_the_plotly_package_draws_with():
    # figures built in Python (the plotly package) are drawn by these bundles in the browser
    package = _version(Path(plotly.__file__).parent / "package_data" / "plotly.min.js")
    assert [_version(VENDOR / name) for name in PLOTLY_FILES] == [package] * len(PLOTLY_FILES)
    assert (VENDOR / "LICENSE.plotly.js.txt").read_text(encoding="utf-8").startswith("MIT License")


def test_plotly_js_copied_once_and_kept(tmp_path):
    static = tmp_path / "static"
    provide_plotly(static)
    assert sorted(p.name for p in static.iterdir()) == sorted(PLOTLY_FILES)  # no temporary file left
    for name in PLOTLY_FILES:
        src, got = VENDOR / name, static / name
        assert got.read_bytes() == src.read_bytes()
    got, src = static / PLOTLY_FILES[0], VENDOR / PLOTLY_FILES[0]
    mtime = got.stat().st_mtime_ns
    provide_plotly(static)  # already there: not copied again
    assert got.stat().st_mtime_ns == mtime
    got.write_text("half a file")  # a broken copy is replaced
    os.utime(got, ns=(mtime, mtime))
    provide_plotly(static)
    assert got.stat().st_size == src.stat().st_size
