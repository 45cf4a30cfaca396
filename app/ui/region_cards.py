"""The contention regions' cards, each with its label control and "Select", drawn in the
browser as one element (a Streamlit v2 component in the page's DOM, no iframe).

As Streamlit elements a page of five regions was about thirty (a bordered container, a head, a
caption, a radio row and a button per region), each sent, reconciled and laid out again on
every "Done → next" and page turn: ~95 ms of a next item at 2,000 steps (measured by leaving
the list out). Here they are one element keyed by its place.

The controls are native: a radio group per region (a dropdown past a few labels), named "Label
for region #N" and operable by keyboard as any radio group, and a "Select" button. A choice is
sent as the trigger "label" ({"item", "region", "label"}), a selection as "select" ({"item",
"region"}); what the cards then show comes back from the server, so a choice the server did not
save does not stay shown, and the control that had the focus gets it back. Everything from the trace goes in with `textContent`: text, never HTML.
"""
from __future__ import annotations

import streamlit as st

from app.ui.text import EL_JS

_CSS = """
.baton-regions { display: flex; flex-direction: column; gap: 0.75rem; }
.baton-regions .card { border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  border-radius: 0.5rem; padding: 0.75rem 1rem; display: flex; flex-direction: column; gap: 0.45rem; }
.baton-regions .card.selected { border-color: var(--st-primary-color, #ff4b4b); border-width: 2px; }
.baton-regions .head { font-weight: 600; overflow-wrap: anywhere; }
.baton-regions .status { font-weight: 400; font-style: italic; }
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

# The cards are built again only when their data changed; the controls are set to the data's
# label on every run, so a choice the server did not keep is undone.
_JS = EL_JS + """
function control(c, key, send) {
  const name = `Label for region #${c.region}`;
  if (c.dropdown) {
    const wrap = el('label', 'legend', name);
    wrap.style.display = 'flex'; wrap.style.flexDirection = 'column'; wrap.style.gap = '0.25rem';
    const s = el('select');
    for (const o of c.options) { const opt = el('option', '', o); opt.value = o; s.appendChild(opt); }
    s.value = c.label;
    s.dataset.focus = `s:${c.region}`;
    s.addEventListener('change', () => send('label', { region: c.region, label: s.value }));
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
    input.addEventListener('change', () => { if (input.checked) send('label', { region: c.region, label: o }); });
    lab.appendChild(input);
    lab.appendChild(document.createTextNode(o));
    group.appendChild(lab);
  }
  return group;
}
function sync(root, cards) {
  // the controls say what the server holds
  root.querySelectorAll('section.card').forEach((sec, i) => {
    const c = cards[i];
    if (!c) return;
    for (const input of sec.querySelectorAll('input[type=radio]')) input.checked = input.value === c.label;
    const s = sec.querySelector('select');
    if (s) s.value = c.label;
  });
}
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(':scope > .baton-regions');
  if (!root) { root = el('div', 'baton-regions'); parentElement.appendChild(root); }
  root.__send = setTriggerValue;
  const cards = (data && data.cards) || [];
  const sig = JSON.stringify(data);
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
      const head = el('div', 'head', (c.selected ? 'Selected · ' : '') + c.head);
      if (c.status) head.appendChild(el('span', 'status', ' · ' + c.status));
      card.appendChild(head);
      for (const line of c.lines) card.appendChild(el('div', 'note', line));
      card.appendChild(control(c, data.key || 'r', send));
      const b = el('button', '', c.selected ? 'Selected' : 'Select');
      b.type = 'button';
      b.disabled = !!c.selected;
      b.dataset.focus = `b:${c.region}`;
      b.title = data.select_help || '';
      b.addEventListener('click', () => send('select', { region: c.region }));
      card.appendChild(b);
      out.appendChild(card);
    }
    root.replaceChildren(out);
    sync(root, cards);
    if (focus) {
      let e = Array.from(root.querySelectorAll('[data-focus]')).find((x) => x.dataset.focus === focus);
      if (e && e.disabled) e = e.closest('section').querySelector('input:checked, select');  // "Selected"
      if (e) e.focus({ preventScroll: true });
    }
  } else {
    sync(root, cards);
  }
}
"""

_component = st.components.v2.component("baton_region_cards", css=_CSS, js=_JS, isolate_styles=False)


def draw(cards: list[dict], key: str, item: str, on_label, on_select, select_help: str = "") -> None:
    """Draw region cards for `item` in the place `key`. Each card: {"region", "head", "status",
    "lines", "options", "label", "dropdown", "selected"}. `on_label()` / `on_select()` run on a
    choice / a "Select"; read it with `state.trigger(key, "label")` ({"item", "region", "label"})
    / `state.trigger(key, "select")` ({"item", "region"})."""
    _component(key=key, data={"cards": cards, "key": key, "item": item, "select_help": select_help},
               on_label_change=on_label, on_select_change=on_select, height="content")
