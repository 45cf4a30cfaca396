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
- `fragment_choice` (app/ui/instant_fragment.py): Streamlit's own checkbox / radio in an
  `st.fragment`; the widget paints its own tick, the save runs in its on_change callback and the
  fragment reruns to say "Saved".

A card of `rows` (`Row`: several radio rows, e.g. a dimension each for one agent) sends the
chosen option of each row, one at most per row; its number keys pick in the current row (↑/↓,
Tab or a click moves it) and move on to the next row, so a row takes one key.

Everything shown is untrusted text: it reaches the page as JSON and is written with
`textContent` (never `innerHTML`); the browser sends back only option values, which are checked
against the card's options before anything is saved.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import streamlit as st

from app.ui.state import element_key
from app.ui.text import visible
from app.ui.saving import why_not_saved  # (the store's failure in words, without paths)

_log = logging.getLogger(__name__)
_HEX = re.compile(r"#[0-9a-fA-F]{6}")  # the only colours a card draws (a CSS value, never markup)

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
.bi-opt[aria-checked="true"]::before { content: "✓ " / ""; }  /* (not part of its accessible name) */
.bi-opt:disabled { opacity: .45; cursor: not-allowed; }
.bi-opt[data-colour]::after { content: ""; display: inline-block; width: .7em; height: .7em;
  border-radius: 50%; margin-left: .35rem; background: var(--bi-colour); }
.bi-opts[data-rows="true"] { flex-direction: column; gap: .25rem; }
.bi-row { display: flex; flex-wrap: wrap; align-items: center; gap: .35rem; padding-left: .3rem;
  border-left: 3px solid transparent; }
.bi-row-name { min-width: 8rem; font-size: .9em; }
.bi-card:focus-within .bi-row[data-current="true"], .baton-kb-current .bi-row[data-current="true"] {
  border-left-color: var(--st-primary-color, #f63); }
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
      buttons: [], rowButtons: [], rowLines: [], rowOf: null, row: 0, timer: null, sentAt: 0,
      status: parentElement.querySelector('.bi-status'),
      holds: data.holds || '', mark: 0,
    };
    s.choose = (value) => {
      const on = s.shown.includes(value);
      if (s.rowOf) {  // a card of rows: one pick per row, the other rows as they are
        const rest = s.shown.filter((v) => s.rowOf[v] !== s.rowOf[value]);
        s.shown = on ? rest : [...rest, value];
      } else s.shown = s.multi ? (on ? s.shown.filter((v) => v !== value) : [...s.shown, value]) : (on ? [] : [value]);
      s.seq += 1;
      paint();  // the click is on screen now; the save goes behind
      status('Saving…', 'saving');
      send();
      // a trigger overtaken by a rerun, or lost, is sent again until the newest is acknowledged
      clearInterval(s.timer);
      s.timer = setInterval(() => { if (performance.now() - s.sentAt > 1500) send(); }, 500);
    };
    s.toRow = (r) => {  // the current row of a card of rows (outlined while the card is current)
      s.row = Math.max(0, Math.min(s.rowButtons.length - 1, r));
      s.rowLines.forEach((line, i) => { line.dataset.current = i === s.row ? 'true' : 'false'; });
      const f = document.activeElement;
      if (f && f.dataset && f.dataset.row !== undefined && root.contains(f) && Number(f.dataset.row) !== s.row) {
        const bs = s.rowButtons[s.row] || [];
        (bs.find((b) => b.getAttribute('aria-checked') === 'true') || bs[0] || root).focus();
      }
    };
    // a key for this card, from its own listener or the page's (app/ui/keyboard.py); true if taken
    s.key = (key) => {
      if (s.rowButtons.length && (key === 'ArrowDown' || key === 'ArrowUp')) {
        s.toRow(s.row + (key === 'ArrowDown' ? 1 : -1));
        return true;
      }
      if (!/^[1-9]$/.test(key)) return false;
      const b = (s.rowButtons.length ? s.rowButtons[s.row] || [] : s.buttons)[Number(key) - 1];
      if (!b || b.disabled) return false;
      s.choose(b.dataset.value);
      if (s.rowButtons.length) s.toRow(s.row + 1);  // the next row: one key per row
      return true;
    };
    root.__batonKey = s.key;
    root.__batonRow = (r) => s.toRow(r);
    root.addEventListener('keydown', (e) => {
      // handled here: the page's own key listener (app/ui/keyboard.py) must not click it again
      if (!(e.ctrlKey || e.metaKey || e.altKey) && s.key(e.key)) { e.preventDefault(); e.stopPropagation(); }
    });
    root.addEventListener('focusin', (e) => {  // Tab or a click onto a row makes it the current one
      const b = e.target.closest && e.target.closest('.bi-opt');
      if (b && b.dataset.row !== undefined && Number(b.dataset.row) !== s.row) s.toRow(Number(b.dataset.row));
    });
    s.shown = [...data.stored];
  }
  // the title and options, drawn again when they change (a card keyed by its place on the page
  // holds another handoff, call or step after a page turn or on the next item)
  const sig = JSON.stringify([data.title, data.options, !!data.multi, !!data.hide_title, data.rows || null]);
  if (sig !== s.sig) {
    s.sig = sig;
    s.multi = !!data.multi;
    const title = parentElement.querySelector('.bi-title');
    title.textContent = data.title;
    title.dataset.hidden = data.hide_title ? 'true' : 'false';
    const group = parentElement.querySelector('.bi-opts');
    group.setAttribute('aria-label', data.title);
    group.setAttribute('role', data.multi || data.rows ? 'group' : 'radiogroup');
    group.dataset.rows = root.dataset.rows = data.rows ? 'true' : 'false';
    group.replaceChildren();
    s.buttons = []; s.rowButtons = []; s.rowLines = []; s.rowOf = null;
    const add = (parent, o, i, row) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'bi-opt';
      b.setAttribute('role', data.multi ? 'checkbox' : 'radio');
      if (row !== undefined) b.dataset.row = String(row);
      b.dataset.value = o.value;
      b.textContent = o.label;  // text, never markup
      if (o.tip) b.title = o.tip;  // (an attribute: text)
      // an agent's colour, as elsewhere on the page (checked as #rrggbb on the server)
      if (o.colour) { b.dataset.colour = 'true'; b.style.setProperty('--bi-colour', o.colour); }
      if (i < 9) {  // (a key the label already says, as a score "4" on key 4, is not written twice)
        if (o.label !== String(i + 1)) { const k = document.createElement('span'); k.className = 'bi-key';
          k.textContent = String(i + 1); k.setAttribute('aria-hidden', 'true'); b.appendChild(k); }
        b.setAttribute('aria-keyshortcuts', String(i + 1));
      }
      b.addEventListener('click', () => { if (!b.disabled) s.choose(o.value); });
      parent.appendChild(b);
      s.buttons.push(b);
      return b;
    };
    if (data.rows) {  // a radio row per part (a name, then its options), each its own group
      const byValue = Object.fromEntries(data.options.map((o) => [o.value, o]));
      s.rowOf = {};
      data.rows.forEach((r, ri) => {
        const line = document.createElement('div');
        line.className = 'bi-row';
        line.setAttribute('role', 'radiogroup');
        line.setAttribute('aria-label', r.label);
        const name = document.createElement('span');
        name.className = 'bi-row-name';
        name.textContent = r.name;  // text, never markup
        name.setAttribute('aria-hidden', 'true');  // (the group's name says it)
        line.appendChild(name);
        r.options.forEach((v) => { s.rowOf[v] = ri; });
        s.rowButtons.push(r.options.map((v, i) => add(line, byValue[v], i, ri)));
        s.rowLines.push(line);
        group.appendChild(line);
      });
      s.toRow(Math.min(s.row, data.rows.length - 1));
    } else data.options.forEach((o, i) => add(group, o, i));
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
    else status(data.stored.length ? savedWords() : (data.empty_text ?? 'Not annotated yet'), data.stored.length ? 'saved' : 'empty');
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


@dataclass(frozen=True)
class Row:
    """One radio row of a card of several (a dimension of an agent's scores): its name, shown
    at its start, its options (values distinct across the card) and its accessible name."""

    name: str
    options: tuple[str, ...]
    label: str = ""  # (empty: the name)


class NotSaved(Exception):
    """Raised by a card's `save` when the value was not stored (refused by the type's check,
    the annotator signed out, …); its text says why in words, without server paths."""


def checked_value(event: Any, options: list[str], multi: bool,
                  rows: Sequence[Row] | None = None) -> list[str] | None:
    """The chosen options an event from the browser carries, in the card's order, or None when
    the event is not one the card could have sent (unknown option, two picks in a radio, two
    picks in one of its `rows` or an option of none of them)."""
    if not isinstance(event, dict) or not isinstance(event.get("value"), list):
        return None
    value = event["value"]
    if not all(isinstance(v, str) and v in options for v in value) or len(set(value)) != len(value):
        return None
    if rows:
        row_of = {o: i for i, row in enumerate(rows) for o in row.options}
        picked = [row_of.get(v) for v in value]
        if None in picked or len(set(picked)) != len(picked):
            return None
    elif not multi and len(value) > 1:
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
    return f"{NOT_SAVED}: {why_not_saved(error)}. {after}"


def apply(event: Any, options: list[str], multi: bool, last: Ack, save: Save, holds: str = "",
          rows: Sequence[Row] | None = None) -> Ack:
    """Save the click an event carries if it is valid, newer than `last` and made on the object
    the card holds now (`holds`: a late click on the previous item's card is not saved on the
    next item's); the new Ack."""
    return settle(event, checked_value(event, options, multi, rows), last, save, holds)


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
                   disabled: bool = False, colours: dict[str, str] | None = None,
                   rows: Sequence[Row] | None = None, empty_text: str = NOTHING) -> None:
    """A Components v2 card (see the module docstring), in a fragment of its own.

    A card keyed by its place on the page names the object it shows in `holds` (item, handoff…):
    clicks are saved only onto that object. `saved_text()` says "Saved" in more words (when);
    `after()` runs once the card is drawn (a surface asking for a whole-page rerun). Without
    `own_fragment`, a click reruns the fragment the card is drawn in (a card of several controls
    and a line saying what they hold). `colours`: an option's colour (an agent's, `#rrggbb`),
    drawn as a dot beside its label; any other value is left out. `rows`: radio rows that
    split `options` (in their order), one pick in each (multi=False). `empty_text`: the status
    line while nothing is chosen and nothing was clicked."""
    if rows is not None and (multi or [o for row in rows for o in row.options] != list(options)):
        raise ValueError("a card's rows are radio rows (multi=False) that split its options, in order")

    def on_change() -> None:
        if disabled:  # (the page cannot send it: its buttons are disabled)
            return
        result = st.session_state.get(element_key(key))
        event = result.get("change") if hasattr(result, "get") else None
        last = st.session_state.get(_ack_key(key), Ack())
        st.session_state[_ack_key(key)] = apply(event, options, multi, last, save, holds, rows)

    def card() -> None:
        ack = st.session_state.get(_ack_key(key), Ack())
        if ack.holds != holds:
            ack = Ack(holds=holds)
        try:
            held = set(load())  # (read once: each read checks the sign-in and the file's stat)
            stored = [o for o in options if o in held]  # (what the card can show of it)
            error = ack.error
        except OSError as err:
            stored, error = [], failed_words(err)
        data = {"title": visible(title), "multi": multi, "stored": stored, "error": error,
                "options": [{"value": o, "label": visible((labels or {}).get(o, o)),
                             **({"tip": visible(tips[o])} if tips and tips.get(o) else {}),
                             **({"colour": colours[o]} if colours and _HEX.fullmatch(str(colours.get(o, ""))) else {})}
                            for o in options],
                "ack": {"mount": ack.mount, "seq": ack.seq, "value": list(ack.value), "holds": ack.holds},
                "holds": holds, "hide_title": hide_title, "card": key, "disabled": disabled,
                "saved_text": saved_text() if saved_text else None, "empty_text": visible(empty_text),
                "rows": [{"name": visible(row.name), "label": visible(row.label or row.name),
                          "options": list(row.options)} for row in rows] if rows else None}
        _component(key=element_key(key), data=data, on_change_change=on_change)
        if after is not None:
            after()

    (st.fragment(card) if own_fragment else card)()
