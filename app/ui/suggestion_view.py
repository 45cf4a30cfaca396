"""A suggestion from the run's own signals (app/traces/suggestions.py), shown as such, with its
reason and one key to accept it: nothing is saved until the annotator accepts."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from app.traces import suggestions as hints
from app.traces.derive import Derivation
from app.traces.trace import Item
from app.ui import shell
from app.ui.text import md

ACCEPT_KEY = "Alt+A"


def decisive(item: Item, d: Derivation) -> hints.Suggestion | None:
    """The suggested decisive step of the item (computed once per derivation)."""
    return shell.per_derivation(d, "suggestion.decisive", lambda: hints.decisive_step(item.data, d))


def path(item: Item, d: Derivation) -> hints.PathSuggestion | None:
    return shell.per_derivation(d, "suggestion.path", lambda: hints.critical_path(item.data, d, decisive(item, d)))


def slot():
    """The place of a suggestion on the page, drawn whether one is offered or not: draw the
    offer `with` it. A suggestion that comes and goes (accepted, or met by the annotator's own
    clicks) would otherwise move every card after it; a card moved in the page is mounted anew,
    and a click on it in that moment was lost (seen under load: the graph's second handoff card,
    just after the critical path matched the suggestion)."""
    return st.container()


def offer(what: str, reason: str, key: str, accept: Callable[[], None]) -> None:
    """`what` is suggested because of `reason`: an info line and its accept button (Alt+A);
    drawn in its `slot()`."""
    st.info(f"Suggested {md(what)}, from the run's own signals (not saved until you accept): {md(reason)}")
    st.button("Accept the suggestion", key=key, on_click=accept, shortcut=ACCEPT_KEY,
              help=f"Save the suggestion as your answer ({ACCEPT_KEY}); you can change it afterwards")
