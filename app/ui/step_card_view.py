"""Cards of what a trace says (app/step_cards.py: steps, tool calls, handoffs) drawn in the
browser as one element (a Streamlit v2 component, no iframe).

Drawn as Streamlit elements, a page of ten steps was 40-60 elements (a bordered container,
a header, the text, a caption and a code block per tool call), each sent, reconciled and laid
out again on every "Done → next": ~50-75 ms of a next item at 2,000 steps (paired runs).
Here the page is one element keyed by its place; a new item hands it new data and the script
below rebuilds the cards in a few milliseconds. Folded texts open in the browser, without a
rerun. Everything from the trace goes in with `textContent`: text, never HTML. The component
is mounted in the page's own DOM (not a shadow root), its styles scoped to `.baton-steps`.
"""
from __future__ import annotations

import streamlit as st

from app.traces.palette import PALETTE  # the agents' colours, the graph's and the timeline's too
from app.ui.state import element_key
from app.ui.text import EL_JS, agent_color, visible

_CSS = """
.baton-steps { display: flex; flex-direction: column; gap: 1rem; }
.baton-steps .card { border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  border-radius: 0.5rem; padding: 0.75rem 1rem; display: flex; flex-direction: column; gap: 0.4rem; }
.baton-steps .head { font-weight: 600; }
.baton-steps.bare .card { border: none; padding: 0; }
.baton-steps .head .agent { font-weight: 700; }
.baton-steps .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.baton-steps .note { font-size: 0.875rem; opacity: 0.65; overflow-wrap: anywhere; }
.baton-steps pre { margin: 0; padding: 0.6rem 0.75rem; border-radius: 0.5rem; font-size: 0.85rem;
  background: var(--st-secondary-background-color, rgba(128, 128, 128, 0.1));
  white-space: pre-wrap; overflow-wrap: anywhere; }
.baton-steps details { border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2));
  border-radius: 0.5rem; padding: 0.25rem 0.75rem; }
.baton-steps details[open] > summary { margin-bottom: 0.4rem; }
.baton-steps summary { cursor: pointer; font-size: 0.875rem; }
.baton-steps details > div, .baton-steps .col { display: flex; flex-direction: column; gap: 0.4rem; min-width: 0; }
.baton-steps .cols { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.baton-steps .card.focus { outline: 3px solid #f0b400; outline-offset: 2px;
  background: rgba(240, 180, 0, 0.10); scroll-margin: 6rem; }
.baton-steps .mark { font-size: 0.8rem; font-weight: 700; color: #7a5a00; }
""" + "".join(f".baton-steps .c-{name} {{ color: {hexa}; }}\n" for name, hexa in PALETTE)

# Rebuilt only when the data changed: a rerun that leaves the page as it was keeps what the
# annotator opened and where they scrolled.
_JS = EL_JS + """
function blocks(parent, list) {
  for (const b of list) {
    if (b.k === 'text') parent.appendChild(el('div', 'text', b.t));
    else if (b.k === 'code') parent.appendChild(el('pre', '', b.t));
    else if (b.k === 'cols') {
      const row = el('div', 'cols');
      for (const col of b.b) { const c = el('div', 'col'); blocks(c, col); row.appendChild(c); }
      parent.appendChild(row);
    } else if (b.k === 'more') {
      const d = el('details'); d.appendChild(el('summary', '', b.t));
      const inner = el('div'); blocks(inner, b.b); d.appendChild(inner); parent.appendChild(d);
    } else parent.appendChild(el('div', 'note', b.t));
  }
}
export default function(component) {
  const { data, parentElement } = component;
  let root = parentElement.querySelector(':scope > .baton-steps');
  if (!root) { root = el('div', 'baton-steps'); parentElement.appendChild(root); }
  root.classList.toggle('bare', !!(data && data.bare));
  const sig = JSON.stringify(data);
  if (root.dataset.sig === sig) return;
  root.dataset.sig = sig;
  const out = document.createDocumentFragment();
  for (const c of (data && data.cards) || []) {
    const card = el('section', 'card');
    const head = el('div', 'head');
    for (const t of c.title) {
      if (typeof t === 'string') head.appendChild(document.createTextNode(t));
      else head.appendChild(el('span', `agent c-${t.color}`, t.agent));
    }
    card.setAttribute('aria-label', head.textContent);
    if (typeof c.step === 'number') card.dataset.step = String(c.step);  // (the keys' s: app/ui/keyboard.py)
    const focus = data.focus;
    if (focus && c.step === focus.step) {
      // the step a control asked to see: marked in words too, not by colour alone
      card.classList.add('focus');
      card.setAttribute('aria-current', 'step');
      card.appendChild(el('div', 'mark', '▶ ' + (focus.why || 'shown from the control you used')));
    }
    card.appendChild(head);
    blocks(card, c.blocks);
    out.appendChild(card);
  }
  root.replaceChildren(out);
  // brought into view once per request (a rerun with the same request leaves the scroll alone)
  const f = data && data.focus;
  const asked = f ? `${f.step}:${f.asked}` : '';
  if (f && root.dataset.scrolled !== asked) {
    root.dataset.scrolled = asked;
    const target = root.querySelector('.card.focus');
    if (target) requestAnimationFrame(() => target.scrollIntoView({ block: 'start' }));  // its head in view (scroll-margin: below the app's header)
  }
}
"""

_component = st.components.v2.component("baton_step_cards", css=_CSS, js=_JS, isolate_styles=False)


def draw(cards: list[dict], key: str, bare: bool = False, focus: tuple[int, int, str] | None = None) -> None:
    """Draw cards (app/step_cards.card) with each agent of their titles in its stable colour;
    `bare` cards have no border of their own (they sit in one with controls). `focus`, (step,
    times asked, why in words): that step's card is marked and, once per request, scrolled into view (the
    browser's scrollIntoView on the card: no markup from the trace is ever run)."""
    cards = [dict(c, title=[t if isinstance(t, str) else dict(t, agent=visible(t["agent"]), color=agent_color(t["agent"]))
                            for t in c["title"]]) for c in cards]
    data = {"cards": cards, "bare": bare}
    if focus is not None:
        data["focus"] = {"step": focus[0], "asked": focus[1], "why": visible(focus[2])}
    _component(key=element_key(key), data=data)
