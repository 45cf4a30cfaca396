"""Free-text cards whose typing paints natively and is saved behind (issue 31).

One card is a text box (a textarea, or one line), its stored text and a status line with the
words of the choice cards (app/ui/instant.py): "Saved · HH:MM:SS" when the store holds what is
shown, "Saving…" while typed text is on its way, "Not annotated yet", or, when a save failed, why
in words. Typing is the browser's own; the box's text goes to the server after a pause in typing,
when the box loses focus, and on Ctrl+Enter (Enter in a one-line box), as a trigger value
numbered in order inside a fragment, so only the card reruns. The server saves it only if it is
newer than the last text it saved from that mount for the object it was typed on (`holds`), and
saves it on that object: a burst of edits lands as its last text, and a late one for the
previous item is saved on that item, never on the next item the card's place holds (`handle`).

A failed save never takes typed words away: the box keeps them, the status line says in words
that they were not saved, and a fold "What is stored" shows the stored text. The stored text
reaches the box through `.value` and the fold through `textContent`, never as markup; keys
typed in the box do not reach the page's shortcuts (app/ui/keyboard.py), and Escape leaves it.
"""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from app.ui.instant import Ack, failed_words, settle
from app.ui.state import element_key
from app.ui.text import visible

LoadText = Callable[[], str]
SaveText = Callable[[str], None]  # raises OSError or instant.NotSaved when the text was not stored

PAUSE_MS = 500  # a pause in typing this long sends the box's text

_CSS = """
.bt-card { font-family: inherit; display: flex; flex-direction: column; gap: .3rem; }
.bt-title { font-size: .875rem; }
.bt-title[data-hidden="true"] { display: none; }
.bt-box { font: inherit; width: 100%; box-sizing: border-box; padding: .5rem .75rem; border-radius: .5rem;
  border: 1px solid var(--st-border-color, #ccc); background: var(--st-secondary-background-color, #f0f2f6);
  color: inherit; }
textarea.bt-box { min-height: 5.5rem; resize: vertical; }
.bt-box:focus { outline: 2px solid var(--st-primary-color, #f63); outline-offset: 0; }
.bt-status { font-size: .85em; opacity: .8; }
.bt-status[data-state="failed"] { color: #b00020; opacity: 1; }
.bt-stored { font-size: .85em; }
.bt-stored-text { white-space: pre-wrap; overflow-wrap: anywhere; opacity: .85; margin: .2rem 0 0 1rem; }
"""

_HTML = '<div class="bt-card"><label class="bt-title"></label><div class="bt-place"></div>' \
        '<div class="bt-status" role="status" aria-live="polite"></div>' \
        '<details class="bt-stored" hidden><summary>What is stored</summary><div class="bt-stored-text"></div>' \
        '</details></div>'

# Built once per mounted element (its DOM and counters live on parentElement across reruns);
# every rerun calls the function again with new `data`, which only updates the state.
_JS = r"""
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let s = parentElement.__batonText;
  const blank = (t) => !String(t || '').trim();
  const same = (a, b) => a === b || (blank(a) && blank(b));
  const status = (text, state) => { s.status.textContent = text; s.status.dataset.state = state; };
  const fold = (stored) => {  // what is stored, as text, beside words the store does not hold
    s.fold.hidden = stored === null;
    s.foldText.textContent = stored === null ? '' : (blank(stored) ? '(nothing stored)' : stored);
  };
  const send = () => {
    s.sentAt = performance.now();
    setTriggerValue('change', {mount: s.mount, seq: s.seq, value: s.sent, holds: s.holds});
  };
  if (!s) {
    s = parentElement.__batonText = {
      mount: Math.random().toString(36).slice(2) + Date.now().toString(36), seq: 0, mark: 0, sent: null, acked: 0,
      holds: data.holds || '', dirty: false, failed: false, pause: null, timer: null, sentAt: 0, box: null,
      status: parentElement.querySelector('.bt-status'), fold: parentElement.querySelector('.bt-stored'),
      foldText: parentElement.querySelector('.bt-stored-text'), data: data,
    };
    // the box's text to the server: after a pause in typing, on leaving the box, on Ctrl+Enter
    s.commit = (force) => {
      clearTimeout(s.pause);
      if (!s.dirty && !(force && s.failed)) return;
      s.dirty = false;
      if (s.seq === s.mark && same(s.box.value, s.data.stored)) { s.show(); return; }  // typed back
      s.seq += 1;
      s.sent = s.box.value;
      s.failed = false;
      status('Saving…', 'saving');
      send();
      // a trigger overtaken by a rerun, or lost, is sent again until the newest is acknowledged
      clearInterval(s.timer);
      s.timer = setInterval(() => { if (performance.now() - s.sentAt > 1500) send(); }, 500);
    };
    s.replayKey = () => {  // the shortcut held back while the typed text was sent
      const r = s.replay;
      if (!r) return;
      s.replay = null;
      const ev = new KeyboardEvent('keydown', {...r, bubbles: true, cancelable: true});
      for (const k of ['keyCode', 'which']) Object.defineProperty(ev, k, {get: () => r.keyCode});  // (read by Streamlit's keys)
      ev.batonReplay = true;
      s.box.dispatchEvent(ev);
    };
    s.show = () => {  // the status line (and the box, when nothing typed is waiting) from `data`
      const d = s.data, ack = d.ack || {};
      const current = s.seq > s.mark && ack.mount === s.mount && ack.seq >= s.seq && (ack.holds || '') === s.holds;
      if (current) {
        clearInterval(s.timer);
        s.acked = ack.seq;
        // the shortcut held back goes on once the text is stored; not after a failed save (the
        // typed words would leave with the box: pressed again, it goes)
        if (s.replay && d.error) s.replay = null;
        if (s.replay) setTimeout(s.replayKey, 0);
      }
      if (s.dirty || (s.seq > s.mark && !current)) { status('Saving…', 'saving'); return; }
      if (current && d.error) {  // not saved: the typed words stay in the box
        s.failed = true;
        status(d.error, 'failed');
        fold(d.stored);
        return;
      }
      s.failed = false;
      if (s.box.value !== d.stored) s.box.value = d.stored;  // (.value: text, never markup)
      fold(null);
      if (d.error) status(d.error, 'failed');
      else if (!blank(d.stored) || (current && d.saved_text)) status(d.saved_text || 'Saved', 'saved');
      else status('Not annotated yet', 'empty');
    };
  }
  if ((data.holds || '') !== s.holds) {  // the card's place holds another object now (next item)
    // what was typed on the object it held goes there (the server saves it on that object)
    if (s.dirty) s.commit(false);
    else if (s.seq > s.mark && s.seq > s.acked) send();  // sent, not yet acknowledged: once more
    s.holds = data.holds || '';
    s.mark = s.seq;
    s.dirty = false;
    s.failed = false;
    clearTimeout(s.pause);
    clearInterval(s.timer);
  }
  s.data = data;
  // the title and the box, made again when they change (a one-line box or a textarea)
  const sig = JSON.stringify([data.title, !!data.multiline, data.placeholder, !!data.hide_title]);
  if (sig !== s.sig) {
    s.sig = sig;
    const title = parentElement.querySelector('.bt-title');
    title.textContent = data.title;
    title.dataset.hidden = data.hide_title ? 'true' : 'false';
    const old = s.box;
    const box = document.createElement(data.multiline ? 'textarea' : 'input');
    if (!data.multiline) box.type = 'text';
    box.className = 'bt-box';
    box.id = 'bt-' + s.mount;
    title.htmlFor = box.id;
    box.setAttribute('aria-label', data.title);
    box.placeholder = data.placeholder || '';
    box.setAttribute('aria-keyshortcuts', data.multiline ? 'Control+Enter Escape' : 'Enter Escape');
    box.value = old ? old.value : data.stored;
    box.addEventListener('input', () => {
      s.dirty = true;
      status('Saving…', 'saving');
      clearTimeout(s.pause);
      s.pause = setTimeout(() => s.commit(false), data.pause_ms || 500);
    });
    box.addEventListener('blur', () => s.commit(false));
    box.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); box.blur(); return; }  // j/k again
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey || !data.multiline)) {
        e.preventDefault(); e.stopPropagation(); s.commit(true); return;
      }
      // an Alt shortcut (next item, next page…) may leave the box's object: what was typed is
      // sent first and the shortcut pressed again once the server has it (sent at once, Streamlit
      // sends both in one rerun of this card's fragment only, and the shortcut's page is never
      // drawn; after it, the card may be gone). Ctrl, Cmd and AltGr keys are the box's own.
      if (e.ctrlKey || e.metaKey || e.altKey) {
        if (s.dirty && !e.batonReplay && e.altKey && !e.ctrlKey && !e.metaKey && /^(Key[A-Z]|Digit\d)$/.test(e.code)) {
          e.preventDefault(); e.stopPropagation();
          s.replay = {key: e.key, code: e.code, keyCode: e.keyCode, altKey: e.altKey, ctrlKey: e.ctrlKey,
                      metaKey: e.metaKey, shiftKey: e.shiftKey};
          s.commit(false);
          setTimeout(s.replayKey, 1500);  // (no answer by then: pressed again all the same)
        }
        return;
      }
      e.stopPropagation();  // typed text: never the page's j/k/1–9/n/p/d
    });
    parentElement.querySelector('.bt-place').replaceChildren(box);
    s.box = box;
  }
  s.show();
  return () => { clearInterval(s && s.timer); clearTimeout(s && s.pause); };
}
"""

_component = st.components.v2.component("baton_instant_text", html=_HTML, css=_CSS, js=_JS,
                                        isolate_styles=False)


def checked_text(event: Any) -> str | None:
    """The text an event from the browser carries, or None when it is not one the card could
    have sent."""
    if not isinstance(event, dict) or not isinstance(event.get("value"), str):
        return None
    return event["value"]


def kept_words(multiline: bool) -> str:
    """What a failed save's words end with: the typed text is still there, and how to retry."""
    return f"Your text is kept in the box: press {'Ctrl+Enter' if multiline else 'Enter'} to try again."


def apply_text(event: Any, last: Ack, save: SaveText, holds: str = "", multiline: bool = True) -> Ack:
    """Save the text an event carries if it is valid, newer than `last` and typed on the object
    the card holds now (see instant.settle); the new Ack."""
    return settle(event, checked_text(event), last, save, holds, kept_words(multiline))


KEEP = 8  # the objects a card's place held lately whose late texts are still saved on them


def _ack_key(key: str) -> str:
    return f"instant_text_ack::{key}"  # {holds: Ack}


def _saves_key(key: str) -> str:
    return f"instant_text_saves::{key}"  # {holds: the save of the text typed on that object}


def handle(event: Any, acks: dict[str, Ack], saves: dict[str, SaveText], multiline: bool = True) -> None:
    """Save the text an event carries onto the object it was typed on (its `holds`), if the card's
    place held that object lately (`saves`), in order (`acks`, by object: see apply_text). A late
    text for the previous item is saved there, never on the item the card holds now."""
    holds = str(event.get("holds", "")) if isinstance(event, dict) else ""
    save = saves.get(holds)
    if save is not None:
        acks[holds] = apply_text(event, acks.get(holds, Ack(holds=holds)), save, holds, multiline)


def instant_text(key: str, *, title: str, load: LoadText, save: SaveText, multiline: bool = True,
                 holds: str = "", placeholder: str = "", hide_title: bool = False,
                 saved_text: Callable[[], str | None] | None = None,
                 after: Callable[[], None] | None = None, own_fragment: bool = True) -> None:
    """A Components v2 text card (see the module docstring), in a fragment of its own.

    A card keyed by its place on the page names the object it shows in `holds`: text is saved
    only onto the object it was typed on (see `handle`). `saved_text()` says "Saved" in more words (when); `after()` runs once
    the card is drawn (a surface asking for a whole-page rerun). Without `own_fragment`, a save
    reruns the fragment the card is drawn in."""

    def on_change() -> None:
        result = st.session_state.get(element_key(key))
        event = result.get("change") if hasattr(result, "get") else None
        handle(event, st.session_state.setdefault(_ack_key(key), {}),
               st.session_state.get(_saves_key(key), {}), multiline)

    def card() -> None:
        saves = st.session_state.setdefault(_saves_key(key), {})
        saves.pop(holds, None)
        saves[holds] = save  # (the newest last)
        for old in list(saves)[:-KEEP]:
            del saves[old]
            st.session_state.get(_ack_key(key), {}).pop(old, None)
        ack = st.session_state.get(_ack_key(key), {}).get(holds, Ack(holds=holds))
        try:
            stored, error = load(), ack.error
        except OSError as err:
            stored, error = "", failed_words(err, kept_words(multiline))
        data = {"title": visible(title), "multiline": multiline, "placeholder": visible(placeholder),
                "stored": stored, "error": error, "hide_title": hide_title, "holds": holds, "card": key,
                "ack": {"mount": ack.mount, "seq": ack.seq, "holds": ack.holds},
                "pause_ms": PAUSE_MS, "saved_text": saved_text() if saved_text else None}
        _component(key=element_key(key), data=data, on_change_change=on_change)
        if after is not None:
            after()

    (st.fragment(card) if own_fragment else card)()

