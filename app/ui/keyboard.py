"""Annotating with the keyboard alone: keys that move between cards and pick within them.

One small v2 component (no iframe, in the page's own DOM) listens to the document's keys on an
annotation page. A card is a bordered box of the main area holding controls (a scheme's box, a
handoff's, a call's); the current one is outlined and scrolled into view.

- j / k: next / previous card;
- 1–9: the n-th choice of the current card (a radio option, a pill or segment, a checkbox:
  a flag is toggled); the choice saves as a click would;
- n / p: next / previous item; d: done with this item, go to the next (the sidebar's buttons).

Keys typed into a text box, or with Ctrl/Alt/Meta held, are left alone. Nothing from a trace
reaches this script: it only clicks the page's own controls.
"""
from __future__ import annotations

import streamlit as st

KEYS = [("j / k", "next / previous card (outlined, scrolled into view)"),
        ("1 … 9", "pick the n-th label or rating of the card, or toggle its n-th flag"),
        ("n / p", "next / previous item"), ("d", "done with this item → next")]

_CSS = ".baton-kb-current { outline: 3px solid #2e86de !important; outline-offset: 4px; border-radius: .5rem; }"

_JS = """
const CHOICE = 'input[type=radio], input[type=checkbox], [role=radio], [role=checkbox], ' +
  '[data-testid^="stBaseButton-pills"], [data-testid^="stBaseButton-segmented_control"]';
function bordered(e) { const s = getComputedStyle(e); return s.borderTopStyle !== 'none' && s.borderTopWidth !== '0px'; }
function cards() {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return [];
  const boxes = Array.from(main.querySelectorAll('[data-testid="stVerticalBlock"]'))
    .filter(e => bordered(e) && e.querySelector(CHOICE));
  return boxes.filter(b => !boxes.some(o => o !== b && b.contains(o)));  // the innermost
}
function choices(card) {
  const seen = new Set(), out = [];
  for (const c of card.querySelectorAll(CHOICE)) {
    // a checkbox is clicked itself (a click on its label was not taken as a toggle), others by their label
    const target = c.type === 'checkbox' ? c : (c.closest('label') || c);
    if (c.type !== 'checkbox' && c.closest('label') && c.closest('label').querySelector('input[type=checkbox]')) continue;
    if (!seen.has(target)) { seen.add(target); out.push(target); }
  }
  return out;
}
function current(list) {
  const i = list.findIndex(c => c.classList.contains('baton-kb-current'));
  return i;
}
function mark(list, i) {
  list.forEach(c => c.classList.remove('baton-kb-current'));
  const c = list[i]; if (!c) return;
  c.classList.add('baton-kb-current');
  c.scrollIntoView({block: 'center'});
}
function press(label) {
  const b = Array.from(document.querySelectorAll('button')).find(x => !x.disabled && x.innerText.trim().startsWith(label));
  if (b) b.click();
}
function onKey(ev) {
  if (ev.ctrlKey || ev.altKey || ev.metaKey) return;
  const t = ev.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) &&
      !(t.type === 'radio' || t.type === 'checkbox')) return;
  const list = cards();
  let i = current(list);
  if (ev.key === 'j' || ev.key === 'k') {
    i = i < 0 ? 0 : Math.max(0, Math.min(list.length - 1, i + (ev.key === 'j' ? 1 : -1)));
    mark(list, i); ev.preventDefault();
  } else if (/^[1-9]$/.test(ev.key)) {
    if (i < 0) { i = 0; mark(list, 0); }
    const c = list[i] && choices(list[i])[Number(ev.key) - 1];
    if (c) { c.click(); ev.preventDefault(); }
  } else if (ev.key === 'n') { press('Item ▶'); }
  else if (ev.key === 'p') { press('◀ Item'); }
  else if (ev.key === 'd') { press('Done with this item'); }
}
export default function(component) {
  if (window.__batonKeys) return;  // one listener per page, whatever the reruns
  window.__batonKeys = true;
  document.addEventListener('keydown', onKey);
}
"""

_component = st.components.v2.component("baton_keyboard", css=_CSS, js=_JS, isolate_styles=False)


def listen() -> None:
    """Turn the keys on for this page (drawn once per run; an empty element)."""
    _component(key="baton-keyboard", data={})


def help_table() -> str:
    """The keys as a Markdown table (the sidebar's help and the README list the same)."""
    return "\n".join(f"| {k} | {what} |" for k, what in KEYS)
