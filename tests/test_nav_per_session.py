"""Pages are built per session (per run), never shared: `st.navigation` marks the pages of a
run as its own, and st.Page objects shared between sessions through an lru_cache made a
session die under concurrent use with "This page cannot be called directly" (the load test
in tests/browser/test_load.py shows that with 16 sessions at once)."""
from __future__ import annotations

import streamlit as st

from tests.conftest import make_app


def test_every_run_gets_page_objects_of_its_own(demo_project, monkeypatch):
    given: list[list] = []
    real = st.navigation

    def spy(pages, **kwargs):
        given.append(list(pages))
        return real(pages, **kwargs)

    monkeypatch.setattr(st, "navigation", spy)
    first, second = make_app(demo_project), make_app(demo_project)
    first.run()
    second.run()
    assert not first.exception and not second.exception
    assert len(given) == 2 and all(len(pages) > 2 for pages in given)  # items, surfaces, summary
    for i, pages in enumerate(given):
        for other in given[i + 1:]:
            assert not {id(p) for p in pages} & {id(p) for p in other}, "a page object is shared"
    # the same pages all the same: titles and addresses
    assert [p.title for p in given[0]] == [p.title for p in given[1]]
    assert [p.url_path for p in given[0]] == [p.url_path for p in given[1]]
