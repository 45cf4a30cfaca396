"""The contention regions' cards, each with its label control and "Select", drawn in the
browser as one element (a Streamlit v2 component in the page's DOM, no iframe).

As Streamlit elements a page of five regions was about thirty (a bordered container, a head, a
caption, a radio row and a button per region), each sent, reconciled and laid out again on
every "Done → next" and page turn: ~95 ms of a next item at 2,000 steps (measured by leaving
the list out). Here they are one element keyed by its place.

The controls are native: a radio group per region (a dropdown past a few labels), named "Label
for region #N" and operable by keyboard as any radio group, and a "Select" button. A label
click is instant in the sense of app/ui/instant.py: the radio shows it at once, the card's
status line says "Saving…", and the change goes to the server behind, as the trigger "label"
({"item", "mount", "changes": [{"region", "seq", "value": [label], "holds"}]}): every change of
this mount not yet acknowledged, numbered in click order. The server saves, per region, only a
change newer than the last it saved (`apply_labels`, with instant.apply), and sends back what is
stored and the number it has: the page sends again until each region's newest click is
acknowledged, then shows what is stored ("Saved", or why not in words with the radio back at the
stored label). A selection goes as "select" ({"item", "region"}) and is painted at once too.
The control that had the focus gets it back when the cards are built again. Everything from
the trace goes in with `textContent`: text, never HTML.
"""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from app.ui.instant import Ack, apply
from app.ui.state import element_key
from app.ui.text import EL_JS

_CSS = """
.baton-regions { display: flex; flex-direction: column; gap: 0.75rem; }
.baton-regions .card { border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  border-radius: 0.5rem; padding: 0.75rem 1rem; display: flex; flex-direction: column; gap: 0.45rem; }
.baton-regions .card.selected { border-color: var(--st-primary-color, #ff4b4b); border-width: 2px; }
.baton-regions .head { font-weight: 600; overflow-wrap: anywhere; }
.baton-regions .state { font-size: 0.85rem; opacity: 0.8; overflow-wrap: anywhere; }
.baton-regions .state:empty { display: none; }
.baton-regions .state[data-state="failed"] { color: #b00020; opacity: 1; }
.baton-regions .note { font-size: 0.875rem; opacity: 0.7; overflow-wrap: anywhere; white-space: pre-line; }
.baton-regions .choices { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; border: 0; margin: 0; padding: 0; }
.baton-regions .choices label { display: inline-flex; align-items: center; gap: 0.35rem; cursor: pointer;
  font-size: 0.95rem; }
.baton-regions .choices input { accent-color: var(--st-primary-color, #ff4b4b); width: 1rem; height: 1rem;
  margin: 0; cursor: pointer; }
.baton-regions .legend { font-size: 0.875rem; }
.baton-regions select { font: inherit; padding: 0.35rem 0.5rem; border-radius: 0.5rem; max-width: 100%;
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); background: transparent; color: inherit; }
.baton-regions button { align-self: flex-start; font: inherit; font-size: 0.95rem; padding: 0.3rem 0.75rem;
  border-radius: 0.5rem; cursor: pointer; color: inherit; background: transparent;
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); }
.baton-regions button:hover:enabled { border-color: var(--st-primary-color, #ff4b4b);
  color: var(--st-primary-color, #ff4b4b); }
.baton-regions button:disabled { cursor: default; opacity: 0.6; }
.baton-regions :focus-visible { outline: 2px solid var(--st-primary-color, #ff4b4b); outline-offset: 2px; }
"""

# The cards are built again only when what they hold changed (a region, its lines, options, the
# selection); the controls and status lines are set on every run from the data and the clicks
# still on their way, so a choice the server did not keep is undone once it answered.
_JS = EL_JS + """
function control(c, key, choose) {
  const name = `Label for region #${c.region}`;
  if (c.dropdown) {
    const wrap = el('label', 'legend', name);
    wrap.style.display = 'flex'; wrap.style.flexDirection = 'column'; wrap.style.gap = '0.25rem';
    const s = el('select');
    for (const o of c.options) { const opt = el('option', '', o); opt.value = o; s.appendChild(opt); }
    s.value = c.label;
    s.dataset.focus = `s:${c.region}`;
    s.addEventListener('change', () => choose(c, s.value));
    wrap.appendChild(s);
    return wrap;
  }
  const group = el('div', 'choices');
  group.setAttribute('role', 'radiogroup');
  group.setAttribute('aria-label', name);
  for (const o of c.options) {
    const lab = el('label');
    const input = el('input');
    input.type = 'radio';
    input.name = `${key}-${c.region}`;
    input.value = o;
    input.checked = o === c.label;
    input.dataset.focus = `r:${c.region}:${o}`;
    input.addEventListener('change', () => { if (input.checked) choose(c, o); });
    lab.appendChild(input);
    lab.appendChild(document.createTextNode(o));
    group.appendChild(lab);
  }
  return group;
}
function status(sec, text, state) {
  const line = sec.querySelector('.state');
  line.textContent = text || '';
  line.dataset.state = state || 'empty';
}
function sync(root, cards, s) {
  // the controls say what the server holds, or the click still on its way ("Saving…")
  root.querySelectorAll('section.card').forEach((sec, i) => {
    const c = cards[i];
    if (!c) return;
    const p = s.pending[c.region];
    const label = p ? p.value[0] : c.label;
    for (const input of sec.querySelectorAll('input[type=radio]')) input.checked = input.value === label;
    const sel = sec.querySelector('select');
    if (sel) sel.value = label;
    if (p) status(sec, 'Saving…', 'saving');
    else status(sec, c.status, c.state);
  });
}
function paintSelected(root, region) {  // "Select" shows at once; the server's answer follows
  root.querySelectorAll('section.card').forEach((sec) => {
    const on = sec.dataset.region === String(region);
    sec.classList.toggle('selected', on);
    sec.querySelector('.head').textContent = (on ? 'Selected · ' : '') + sec.__head;
    const b = sec.querySelector('button');
    b.textContent = on ? 'Selected' : 'Select';
    b.disabled = on;
  });
}
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(':scope > .baton-regions');
  if (!root) { root = el('div', 'baton-regions'); parentElement.appendChild(root); }
  root.__send = setTriggerValue;
  // a label click paints at once (the native radio) and is sent behind, numbered in this mount;
  // every change not yet acknowledged goes with each send, again until the server has it
  let s = root.__state;
  if (!s) {
    s = root.__state = { mount: Math.random().toString(36).slice(2) + Date.now().toString(36), seq: 0,
                         pending: {}, timer: null, sentAt: 0, item: null };
    s.send = () => {
      s.sentAt = performance.now();
      root.__send('label', { item: s.item, mount: s.mount, changes: Object.values(s.pending) });
    };
    s.stop = () => { clearInterval(s.timer); s.timer = null; };
  }
  const cards = (data && data.cards) || [];
  if (data.item !== s.item) { s.item = data.item; s.pending = {}; s.stop(); }  // another item: its own clicks
  const acks = data.acks || {};
  for (const r of Object.keys(s.pending)) {
    const a = acks[r];
    if (a && a.mount === s.mount && a.seq >= s.pending[r].seq) delete s.pending[r];
  }
  if (!Object.keys(s.pending).length) s.stop();
  const choose = (c, label) => {
    s.seq += 1;
    s.pending[c.region] = { region: c.region, seq: s.seq, value: [label], holds: c.holds };
    const sec = Array.from(root.querySelectorAll('section.card')).find((x) => x.dataset.region === String(c.region));
    if (sec) status(sec, 'Saving…', 'saving');
    s.send();
    if (!s.timer) s.timer = setInterval(() => {
      if (!root.isConnected) { s.stop(); return; }
      if (Object.keys(s.pending).length && performance.now() - s.sentAt > 1500) s.send();
    }, 500);
  };
  const sig = JSON.stringify([data.item, data.key, data.select_help,
    cards.map((c) => [c.region, c.head, c.lines, c.options, c.dropdown, c.selected, c.holds])]);
  if (root.dataset.sig !== sig) {
    root.dataset.sig = sig;
    // the control in focus (a radio moved by the arrow keys, a "Select") gets it back once the
    // cards are built again with what the server saved
    const had = document.activeElement;
    const focus = had && root.contains(had) ? had.dataset.focus : null;
    // each choice names the item it was made on: a late one never lands on the next item
    const send = (name, value) => root.__send(name, Object.assign({ item: data.item }, value));
    const out = document.createDocumentFragment();
    for (const c of cards) {
      const card = el('section', c.selected ? 'card selected' : 'card');
      card.setAttribute('aria-label', `Region #${c.region}`);
      card.dataset.region = String(c.region);
      card.__head = c.head;
      card.appendChild(el('div', 'head', (c.selected ? 'Selected · ' : '') + c.head));
      for (const line of c.lines) card.appendChild(el('div', 'note', line));
      card.appendChild(control(c, data.key || 'r', choose));
      const b = el('button', '', c.selected ? 'Selected' : 'Select');
      b.type = 'button';
      b.disabled = !!c.selected;
      b.dataset.focus = `b:${c.region}`;
      b.title = data.select_help || '';
      b.addEventListener('click', () => { paintSelected(root, c.region); send('select', { region: c.region }); });
      card.appendChild(b);
      const line = el('div', 'state');
      line.setAttribute('role', 'status');
      line.setAttribute('aria-live', 'polite');
      card.appendChild(line);
      out.appendChild(card);
    }
    root.replaceChildren(out);
    sync(root, cards, s);
    if (focus) {
      let e = Array.from(root.querySelectorAll('[data-focus]')).find((x) => x.dataset.focus === focus);
      if (e && e.disabled) e = e.closest('section').querySelector('input:checked, select');  // "Selected"
      if (e) e.focus({ preventScroll: true });
    }
  } else {
    sync(root, cards, s);
  }
}
"""

_component = st.components.v2.component("baton_region_cards", css=_CSS, js=_JS, isolate_styles=False)


def holds_of(item_id: str, region: int) -> str:
    """The object a region card's label click is made on (its item and region)."""
    return f"{item_id}\u241f{region}"


def acks(key: str, item_id: str) -> dict[int, Ack]:
    """The label clicks of the cards in `key` the server handled, by region, for this item (kept
    in the session: a rerun of the list shows the page what it has)."""
    kept_key = f"region_acks::{key}"
    kept = st.session_state.get(kept_key)
    if not kept or kept[0] != item_id:
        kept = st.session_state[kept_key] = (item_id, {})
    return kept[1]


def apply_labels(event: Any, item_id: str, choices: dict[int, list[str]], handled: dict[int, Ack],
                 save: Callable[[int, list[str]], None]) -> None:
    """Save the label changes a "label" event carries, in click order: for each region of this
    item (`choices`: its labels), only a change newer than the last handled (`handled`, updated;
    instant.apply checks the label and the number). `save(region, [label])` raises OSError or
    instant.NotSaved when the label was not stored: the region's Ack then says why."""
    if not isinstance(event, dict) or event.get("item") != item_id or not isinstance(event.get("changes"), list):
        return
    changes = [c for c in event["changes"][:max(1, len(choices))] if isinstance(c, dict)
               and isinstance(c.get("region"), int) and not isinstance(c.get("region"), bool)
               and c["region"] in choices and isinstance(c.get("seq"), int)]
    for change in sorted(changes, key=lambda c: c["seq"]):
        region = change["region"]
        holds = holds_of(item_id, region)
        one = {"mount": event.get("mount"), "seq": change["seq"], "value": change.get("value"),
               "holds": change.get("holds")}
        handled[region] = apply(one, choices[region], False, handled.get(region, Ack(holds=holds)),
                                lambda picked, region=region: save(region, picked), holds)


def draw(cards: list[dict], key: str, item: str, on_label, on_select, select_help: str = "",
         handled: dict[int, Ack] | None = None) -> None:
    """Draw region cards for `item` in the place `key`. Each card: {"region", "head", "status",
    "state", "holds", "lines", "options", "label", "dropdown", "selected"} ("status": what the
    store holds in words, "state": saved / failed / empty). `on_label()` / `on_select()` run on
    a label click / a "Select"; read them with `state.trigger(key, "label")` (see the module
    docstring; `apply_labels` saves it) / `state.trigger(key, "select")` ({"item", "region"}).
    `handled`: the clicks acknowledged so far, by region (`acks`)."""
    sent = {str(r): {"mount": a.mount, "seq": a.seq} for r, a in (handled or {}).items()}
    _component(key=element_key(key), data={"cards": cards, "key": key, "item": item, "select_help": select_help, "acks": sent},
               on_label_change=on_label, on_select_change=on_select, height="content")
