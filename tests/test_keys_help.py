"""Issue 27, point 13: the keys are listed in the README and in the app (its *Keyboard shortcuts*
page and the sidebar's box), and the lists agree, row for row; every key the app listens to is in them."""
from __future__ import annotations

import re

from app.ui import keyboard
from app.ui.nav import KEYS_HELP, SHORTCUTS
from tests.conftest import ROOT, make_app, open_page, write_project


def table_rows(markdown: str) -> list[tuple[str, str]]:
    """The (key, does) rows of the first Markdown table in `markdown`, its head and rule left out."""
    rows, seen_table = [], False
    for line in markdown.splitlines():
        if not line.startswith("|"):
            if seen_table:
                break
            continue
        seen_table = True
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("key", "---"):
            continue
        rows.append((cells[0], cells[1]))
    return rows


def readme_keys() -> list[tuple[str, str]]:
    """The rows of the README's "Keyboard shortcuts" table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return table_rows(text.split("## Keyboard shortcuts\n", 1)[1])


def test_the_readme_and_the_apps_help_list_the_same_keys():
    assert readme_keys() == table_rows(KEYS_HELP)
    assert len(readme_keys()) >= 10


def test_every_key_the_app_listens_to_is_in_the_help():
    keys = {k for key, _ in table_rows(KEYS_HELP) for k in re.split(r"[\s,/]+", key)}
    for alt in SHORTCUTS.values():  # the sidebar's buttons
        assert alt in keys, alt
    for k in ["j", "k", "s", "t", "Esc", "[", "]", "n", "p", "d", "1", "9", "↑", "↓"]:
        assert k in keys, k
    # and the keyboard's script handles each of its own (a key removed there leaves the table)
    for handled in ["'j'", "'k'", "'s'", "'t'", "'['", "']'", "'n'", "'p'", "'d'", "'Escape'", "[1-9]"]:
        assert handled in keyboard._JS, handled


def test_the_keys_have_a_page_of_their_own_in_the_menu(tmp_path):
    at = make_app(write_project(tmp_path), item="code-team-002")
    at.run()
    assert [link.proto.label for link in at.sidebar.get("page_link")][-1] == "Keyboard shortcuts"
    open_page(at, "keys")
    assert at.title[0].value == "Keyboard shortcuts"
    tables = [m.value for m in at.markdown if "| key | does |" in m.value]
    assert len(tables) == 2  # the page's, and the sidebar's box
    assert all(table_rows(t) == readme_keys() for t in tables)
