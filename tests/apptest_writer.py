"""The app's real save path driven from a child process (crash and concurrency tests):
an AppTest of the whole app, signed in through the URL, on the free-text page."""
from __future__ import annotations

import os


def open_text_page(root: str, who: str, item: str, timeout: float = 60):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(os.path.join(root, "streamlit_app.py"), default_timeout=timeout)
    at.query_params["annotator"] = who
    at.query_params["item"] = item
    at.run()
    at.switch_page("pages/text.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def type_note(at, k: int, text: str) -> dict:
    """Type `text` into the page's k-th text card (an instant text card: what the browser sends
    after a pause in typing) and return that card as the browser then gets it."""
    from tests.conftest import text_cards, type_card
    key = list(text_cards(at))[k]
    type_card(at, key, text)
    return text_cards(at)[key]
