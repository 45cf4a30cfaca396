"""Every page names the data files it could not read, not only the Items page; a page with no
items says that no data file could be read, and which.

Before: annotation pages said only "The project has no items."
"""
from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT, demo_pages, make_app, write_project

PAGES = ["home"] + demo_pages() + ["summary"]


def broken_data(tmp_path: Path) -> Path:
    bad = tmp_path / "data" / "broken-run.json"
    bad.parent.mkdir()
    bad.write_bytes(b'{"id": "\xff\xfe"}')  # not UTF-8: the reader cannot read it at all
    return bad


def opened(cfg: Path, page: str):
    at = make_app(cfg)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
        at.run()
    assert not at.exception, (page, [e.value for e in at.exception])
    return at


def test_every_page_names_the_files_it_could_not_read(tmp_path):
    broken_data(tmp_path)
    cfg = write_project(tmp_path, data_files=[str(ROOT / "data" / "demo_runs.jsonl"), "data/broken-run.json"])
    for page in PAGES:
        at = opened(cfg, page)
        notes = [w.value for w in at.sidebar.warning]
        assert any("Could not read 1 data file" in n and "broken\\-run\\.json" in n for n in notes), (page, notes)


def test_a_page_without_items_says_which_files_could_not_be_read(tmp_path):
    broken_data(tmp_path)
    cfg = write_project(tmp_path, data_files=["data/broken-run.json"])
    for page in [p for p in PAGES if p not in ("home", "summary")]:
        at = opened(cfg, page)
        said = [i.value for i in at.info]
        assert any("no items" in s and "could not be read" in s and "broken\\-run\\.json" in s for s in said), \
            (page, said)
