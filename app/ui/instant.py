"""Choice cards whose clicks paint in the browser at once and are saved behind (issue 31).

One card is a set of options (a multi-label toggle group, or a radio group with `multi=False`),
its stored value, and a status line: "Saved" when the store holds what is shown, "Saving…" while
a save is on its way, or, when a save failed, why in words, with the options back at what is
stored. Two ways of building the same card, measured against each other by benchmarks/clicks.py:

- `instant_choice`: a Streamlit Components v2 element (inline HTML/JS in the page, no iframe).
  The option changes state in the page on the click or on its key (1–9); the whole chosen set
  goes to the server as a trigger value numbered in order, inside a fragment, so only the card
  reruns. The server saves a change only if it is newer than the last one it saved from that
  mount (a burst of clicks lands as its last state, in order; a lost or overtaken trigger is
  sent again by the page until the server has acknowledged the newest).
- `fragment_choice`: Streamlit's own checkbox / radio in an `st.fragment`; the widget paints
  its own tick, the save runs in its on_change callback and the fragment reruns to say "Saved".

Everything shown is untrusted text: it reaches the page as JSON and is written with
`textContent` (never `innerHTML`); the browser sends back only option values, which are checked
against the card's options before anything is saved.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

from app.ui.state import element_key
from app.ui.text import md, visible

_log = logging.getLogger(__name__)

SAVED = "Saved"
NOTHING = "Not annotated yet"
NOT_SAVED = "Not saved"

Load = Callable[[], list[str]]
Save = Callable[[list[str]], None]  # raises OSError when the store could not be written

_CSS = """
.bi-card { font-family: inherit; display: flex; flex-direction: column; gap: .35rem; outline: none; }
.bi-card:focus-visible { box-shadow: 0 0 0 2px var(--st-primary-color, #f63); border-radius: .4rem; }
.bi-title { font-weight: 600; }
.bi-title[data-hidden="true"] { display: none; }
.bi-opts { display: flex; flex-wrap: wrap; gap: .4rem; }
.bi-opt { font: inherit; padding: .25rem .7rem; border-radius: 1rem; cursor: pointer;
  border: 1px solid var(--st-border-color, #bbb); background: transparent; color: inherit; }
.bi-opt[aria-checked="true"] { background: var(--st-primary-color, #f63); color: #fff;
  border-color: var(--st-primary-color, #f63); }
.bi-opt[aria-checked="true"]::before { content: "✓ "; }
.bi-opt:disabled { opacity: .45; cursor: not-allowed; }
.bi-key { opacity: .6; font-size: .8em; margin-left: .3rem; }
.bi-status { font-size: .85em; opacity: .8; }
.bi-status[data-state="failed"] { color: #b00020; opacity: 1; }
"""

_HTML = '<div class="bi-card" tabindex="0"><div class="bi-title"></div><div class="bi-opts" role="group">' \
        '</div><div class="bi-status" role="status" aria-live="polite"></div></div>'

# Built once per mounted element (its DOM and counters live on parentElement across reruns);
# every rerun calls the function again with new `data`, which only updates the state.
_JS = r"""
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const root = parentElement.querySelector('.bi-card');
  let s = parentElement.__batonInstant;
  const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
  const paint = () => {
    for (const b of s.buttons) b.setAttribute('aria-checked', s.shown.includes(b.dataset.value) ? 'true' : 'false');
  };
  const status = (text, state) => { s.status.textContent = text; s.status.dataset.state = state; };
  const send = () => {
    s.sentAt = performance.now();
    setTriggerValue('change', {mount: s.mount, seq: s.seq, value: s.shown, holds: s.holds});
  };
  const savedWords = () => data.saved_text || 'Saved';
  if (!s) {
    s = parentElement.__batonInstant = {
      mount: Math.random().toString(36).slice(2) + Date.now().toString(36), seq: 0, shown: [],
      buttons: [], status: parentElement.querySelector('.bi-status'), timer: null, sentAt: 0,
      holds: data.holds || '', mark: 0,
    };
    s.choose = (value) => {
      const on = s.shown.includes(value);
      s.shown = s.multi ? (on ? s.shown.filter((v) => v !== value) : [...s.shown, value]) : (on ? [] : [value]);
      s.seq += 1;
      paint();  // the click is on screen now; the save goes behind
      status('Saving…', 'saving');
      send();
      // a trigger overtaken by a rerun, or lost, is sent again until the newest is acknowledged
      clearInterval(s.timer);
      s.timer = setInterval(() => { if (performance.now() - s.sentAt > 1500) send(); }, 500);
    };
    root.addEventListener('keydown', (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || !/^[1-9]$/.test(e.key)) return;
      const b = s.buttons[Number(e.key) - 1];
      // handled here: the page's own key listener (app/ui/keyboard.py) must not click it again
      if (b && !b.disabled) { e.preventDefault(); e.stopPropagation(); s.choose(b.dataset.value); }
    });
    s.shown = [...data.stored];
  }
  // the title and options, drawn again when they change (a card keyed by its place on the page
  // holds another handoff, call or step after a page turn or on the next item)
  const sig = JSON.stringify([data.title, data.options, !!data.multi, !!data.hide_title]);
  if (sig !== s.sig) {
    s.sig = sig;
    s.multi = !!data.multi;
    const title = parentElement.querySelector('.bi-title');
    title.textContent = data.title;
    title.dataset.hidden = data.hide_title ? 'true' : 'false';
    const group = parentElement.querySelector('.bi-opts');
    group.setAttribute('aria-label', data.title);
    group.setAttribute('role', data.multi ? 'group' : 'radiogroup');
    group.replaceChildren();
    s.buttons = [];
    data.options.forEach((o, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'bi-opt';
      b.setAttribute('role', data.multi ? 'checkbox' : 'radio');
      b.dataset.value = o.value;
      b.textContent = o.label;  // text, never markup
      if (o.tip) b.title = o.tip;  // (an attribute: text)
      if (i < 9) { const k = document.createElement('span'); k.className = 'bi-key'; k.textContent = String(i + 1);
        k.setAttribute('aria-hidden', 'true'); b.appendChild(k); b.setAttribute('aria-keyshortcuts', String(i + 1)); }
      b.addEventListener('click', () => { if (!b.disabled) s.choose(o.value); });
      group.appendChild(b);
      s.buttons.push(b);
    });
    paint();
  }
  for (const b of s.buttons) b.disabled = !!data.disabled;  // (a step marked correct: no modes)
  s.stored = [...data.stored];
  if ((data.holds || '') !== s.holds) {  // the card's place holds another object now (next item)
    s.holds = data.holds || '';
    s.mark = s.seq;
    clearInterval(s.timer);
  }
  const ack = data.ack || {};
  if (s.seq === s.mark) {  // nothing clicked for this object in this mount: show what is stored
    s.shown = [...data.stored];
    paint();
    if (data.error) status(data.error, 'failed');
    else status(data.stored.length ? savedWords() : 'Not annotated yet', data.stored.length ? 'saved' : 'empty');
  } else if (ack.mount === s.mount && ack.seq >= s.seq && (ack.holds || '') === s.holds) {  // the server has the newest click
    clearInterval(s.timer);
    s.shown = [...data.stored];
    paint();
    if (data.error) status(data.error, 'failed');
    // (a surface that merges with another tab's saves says so in its saved_text)
    else if (same(ack.value || [], data.stored) || data.saved_text) status(savedWords(), 'saved');
    else status('Stored value differs from the last click: showing what is stored', 'failed');
  }
  return () => clearInterval(s && s.timer);
}
"""

_component = st.components.v2.component("baton_instant_choice", html=_HTML, css=_CSS, js=_JS,
                                        isolate_styles=False)


@dataclass
class Ack:
    """The last click of a card that the server handled: its mount, number and outcome."""

    mount: str = ""
    seq: int = 0
    value: tuple[str, ...] = ()
    error: str | None = None
    holds: str = ""  # the object the card's place held (a place keeps its key across items)


class NotSaved(Exception):
    """Raised by a card's `save` when the value was not stored (refused by the type's check,
    the annotator signed out, …); its text says why in words, without server paths."""


def checked_value(event: Any, options: list[str], multi: bool) -> list[str] | None:
    """The chosen options an event from the browser carries, in the card's order, or None when
    the event is not one the card could have sent (unknown option, two picks in a radio)."""
    if not isinstance(event, dict) or not isinstance(event.get("value"), list):
        return None
    value = event["value"]
    if not all(isinstance(v, str) and v in options for v in value) or len(set(value)) != len(value):
        return None
    if not multi and len(value) > 1:
        return None
    return [o for o in options if o in value]


def newer(event: dict, last: Ack) -> bool:
    """Whether this event is a later click than the last one saved (same mount, higher number),
    or the first of a new mount (a refreshed page, the card drawn again)."""
    seq = event.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        return False
    return str(event.get("mount")) != last.mount or seq > last.seq


def failed_words(error: OSError, after: str = "Showing what is stored.") -> str:
    from app.ui.saving import why_not_saved  # the store's failure in words, without paths
    return f"{NOT_SAVED}: {why_not_saved(error)}. {after}"


def apply(event: Any, options: list[str], multi: bool, last: Ack, save: Save, holds: str = "") -> Ack:
    """Save the click an event carries if it is valid, newer than `last` and made on the object
    the card holds now (`holds`: a late click on the previous item's card is not saved on the
    next item's); the new Ack."""
    return settle(event, checked_value(event, options, multi), last, save, holds)


def settle(event: Any, value: Any, last: Ack, save: Callable[[Any], None], holds: str = "",
           after: str = "Showing what is stored.") -> Ack:
    """What a card does with an event from the browser, whatever it carries: `value` is what the
    event holds once checked (None: not an event the card could have sent). It is saved if the
    event is newer than `last` and made on the object the card holds now; the new Ack, whose
    error (after a failed save) says why in words, then `after`."""
    if value is None or not isinstance(event, dict) or str(event.get("holds", "")) != holds:
        return last
    if last.holds != holds:
        last = Ack(holds=holds)
    if not newer(event, last):
        return last
    shown = tuple(value) if isinstance(value, list) else (value,)
    ack = Ack(str(event["mount"]), int(event["seq"]), shown, holds=holds)
    try:
        save(value)
    except OSError as error:
        _log.warning("instant save failed", exc_info=error)
        ack.error = failed_words(error, after)
    except NotSaved as refusal:
        ack.error = f"{NOT_SAVED}: {refusal}. {after}"
    return ack


def _ack_key(key: str) -> str:
    return f"instant_ack::{key}"


def instant_choice(key: str, *, title: str, options: list[str], load: Load, save: Save,
                   multi: bool = True, labels: dict[str, str] | None = None, holds: str = "",
                   tips: dict[str, str] | None = None, hide_title: bool = False,
                   saved_text: Callable[[], str | None] | None = None,
                   after: Callable[[], None] | None = None, own_fragment: bool = True,
                   disabled: bool = False) -> None:
    """A Components v2 card (see the module docstring), in a fragment of its own.

    A card keyed by its place on the page names the object it shows in `holds` (item, handoff…):
    clicks are saved only onto that object. `saved_text()` says "Saved" in more words (when);
    `after()` runs once the card is drawn (a surface asking for a whole-page rerun). Without
    `own_fragment`, a click reruns the fragment the card is drawn in (a card of several controls
    and a line saying what they hold)."""

    def on_change() -> None:
        if disabled:  # (the page cannot send it: its buttons are disabled)
            return
        result = st.session_state.get(element_key(key))
        event = result.get("change") if hasattr(result, "get") else None
        last = st.session_state.get(_ack_key(key), Ack())
        st.session_state[_ack_key(key)] = apply(event, options, multi, last, save, holds)

    def card() -> None:
        ack = st.session_state.get(_ack_key(key), Ack())
        if ack.holds != holds:
            ack = Ack(holds=holds)
        try:
            stored = [o for o in options if o in load()]  # (what the card can show of it)
            error = ack.error
        except OSError as err:
            stored, error = [], failed_words(err)
        data = {"title": visible(title), "multi": multi, "stored": stored, "error": error,
                "options": [{"value": o, "label": visible((labels or {}).get(o, o)),
                             **({"tip": visible(tips[o])} if tips and tips.get(o) else {})} for o in options],
                "ack": {"mount": ack.mount, "seq": ack.seq, "value": list(ack.value), "holds": ack.holds},
                "holds": holds, "hide_title": hide_title, "card": key, "disabled": disabled,
                "saved_text": saved_text() if saved_text else None}
        _component(key=element_key(key), data=data, on_change_change=on_change)
        if after is not None:
            after()

    (st.fragment(card) if own_fragment else card)()


def fragment_choice(key: str, *, title: str, options: list[str], load: Load, save: Save,
                    multi: bool = True, labels: dict[str, str] | None = None) -> None:
    """The same card from Streamlit's own widgets in a fragment: the widget paints its tick, the
    save runs in on_change, the fragment reruns to say what is stored."""
    err_key = f"fragment_err::{key}"

    def widget_key(option: str) -> str:
        return f"{key}::{option}" if multi else key

    def on_change() -> None:
        if multi:
            value = [o for o in options if st.session_state.get(widget_key(o))]
        else:
            picked = st.session_state.get(key)
            value = [picked] if picked in options else []
        try:
            save(value)
            st.session_state.pop(err_key, None)
        except OSError as error:
            st.session_state[err_key] = failed_words(error)
        # the widgets show what is stored after a failure: follow the store on the next run
        st.session_state[f"{key}::follow"] = True

    @st.fragment
    def card() -> None:
        stored = load()
        if st.session_state.pop(f"{key}::follow", False) or f"{key}::seen" not in st.session_state:
            st.session_state[f"{key}::seen"] = True
            if multi:
                for o in options:
                    st.session_state[widget_key(o)] = o in stored
            else:
                st.session_state[key] = stored[0] if stored else None
        with st.container(border=True, key=f"fcard-{key}"):  # the class st-key-fcard-… finds the card
            st.text(visible(title))
            if multi:
                cols = st.columns(len(options))
                for col, o in zip(cols, options):
                    col.checkbox(md((labels or {}).get(o, o)), key=widget_key(o), on_change=on_change)
            else:
                st.radio(title, options, key=key, on_change=on_change, horizontal=True,
                         format_func=lambda o: md((labels or {}).get(o, o)), label_visibility="collapsed")
            error = st.session_state.get(err_key)
            st.text(error if error else (SAVED if stored else NOTHING))

    card()
