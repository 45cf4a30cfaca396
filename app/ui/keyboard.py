"""Annotating with the keyboard alone: keys that move between cards and pick within them.

One small v2 component (no iframe, in the page's own DOM) listens to the document's keys on an
annotation page. A card is a bordered box of the main area holding controls (a scheme's box, a
handoff's, a call's); the current one is outlined and scrolled into view.

- j / k: next / previous card; on a page with a step picker (failure attribution's decisive
  step) the trace's steps (its step cards, or the steps of its lanes, tree or board) come after
  the page's own cards;
- 1–9: the n-th choice of the current card (a radio option, a pill or segment, a checkbox:
  a flag is toggled); the choice saves as a click would. On a card of rows (app/ui/instant.py:
  the agent scorecard's dimensions) the n-th choice of its current row, and the next row is
  current then; ↑ / ↓ move between its rows;
- s: the current step card's step is the one the page picks (the decisive step), saved through
  the surface (its on-change, the type's validate) as a choice in its own control would be;
- t: into the current card's first text box; Esc: out of a text box (which saves what was typed);
- [ / ]: previous / next page of the trace (its steps, or the rows of its lanes, tree or board);
- n / p: next / previous item; d: done with this item, go to the next (the sidebar's buttons).

Keys typed into a text box, or with Ctrl/Alt/Meta held, are left alone (but Esc). Nothing from a
trace reaches this script: it only clicks the page's own controls and hands a step number (the
card's own `data-step`) to the step picker's element.
"""
from __future__ import annotations

import streamlit as st

from app.ui.state import element_key

_CSS = ".baton-kb-current { outline: 3px solid #2e86de !important; outline-offset: 4px; border-radius: .5rem; }"

_JS = """
const CHOICE = 'input[type=radio], input[type=checkbox], [role=radio], [role=checkbox], ' +
  '[data-testid^="stBaseButton-pills"], [data-testid^="stBaseButton-segmented_control"]';
function bordered(e) { const s = getComputedStyle(e); return s.borderTopStyle !== 'none' && s.borderTopWidth !== '0px'; }
const TEXT = 'textarea, input[type=text]:not([role=combobox])';
function cards() {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return [];
  const boxes = Array.from(main.querySelectorAll('[data-testid="stVerticalBlock"]'))
    .filter(e => bordered(e) && (e.querySelector(CHOICE) || e.querySelector(TEXT)));
  const inner = boxes.filter(b => !boxes.some(o => o !== b && b.contains(o)));  // the innermost
  // the trace's step cards, after the page's own, where the page picks a step
  const steps = main.querySelector('.baton-step-target') ?
    Array.from(main.querySelectorAll('.baton-steps .card[data-step], .baton-layout [data-step]')) : [];
  return inner.concat(steps);
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
function title(card) {  // what names a card to the annotator: its first line of text
  return ((card.innerText || '').split('\\n').find(l => l.trim()) || '').trim();
}
function current(list) {
  const i = list.findIndex(c => c.classList.contains('baton-kb-current'));
  if (i >= 0) return i;
  let j = -1;
  if (window.__batonStep !== undefined) {
    // a step card drawn anew (the trace marked the chosen step): the same step is still current
    j = list.findIndex(c => c.dataset.step === window.__batonStep);
  } else if (window.__batonCard && window.__batonCard.where === location.pathname + location.search) {
    // a card drawn anew, or its class reset by a rerun: the card of the same title, nearest
    // to where the current one was, is still current (a key never lands on another card)
    const was = window.__batonCard;
    list.forEach((c, k) => {
      if (title(c) === was.title && (j < 0 || Math.abs(k - was.at) < Math.abs(j - was.at))) j = k;
    });
  }
  if (j >= 0) list[j].classList.add('baton-kb-current');
  return j;
}
function rows(card) { return card && card.querySelector('.bi-card[data-rows="true"]'); }  // (its rows' card)
function mark(list, i) {
  list.forEach(c => c.classList.remove('baton-kb-current'));
  const c = list[i]; window.__batonStep = undefined; window.__batonCard = undefined; if (!c) return;
  // a button of the card left keeps no focus (an instant card takes the number keys it has focus for)
  const f = document.activeElement;
  if (f && f !== document.body && !c.contains(f) && f.closest('.bi-card')) f.blur();
  const g = rows(c);
  if (g && g.__batonRow) g.__batonRow(0);  // a card of rows starts at its first
  c.classList.add('baton-kb-current');
  if (c.dataset.step !== undefined) window.__batonStep = c.dataset.step;
  else window.__batonCard = {title: title(c), at: i, where: location.pathname + location.search};  // (this page, this item)
  c.scrollIntoView({block: 'center'});
}
function turnTrace(next) {  // the trace pager's first button turns back, its last one on
  const bs = Array.from(document.querySelectorAll('.st-key-baton-trace-pager button'));
  const b = next ? bs[bs.length - 1] : bs[0];
  if (b && !b.disabled) b.click();
}
function press(label) {
  const b = Array.from(document.querySelectorAll('button')).find(x => !x.disabled && x.innerText.trim().startsWith(label));
  if (b) b.click();
}
function onKey(ev) {
  if (ev.ctrlKey || ev.altKey || ev.metaKey) return;
  const t = ev.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) &&
      !(t.type === 'radio' || t.type === 'checkbox')) {
    if (ev.key === 'Escape' && t.matches(TEXT)) { t.blur(); ev.preventDefault(); }  // (Streamlit saves it on leaving)
    return;
  }
  const list = cards();
  let i = current(list);
  if (ev.key === 'j' || ev.key === 'k') {
    i = i < 0 ? 0 : Math.max(0, Math.min(list.length - 1, i + (ev.key === 'j' ? 1 : -1)));
    mark(list, i); ev.preventDefault();
  } else if (/^[1-9]$/.test(ev.key) || ((ev.key === 'ArrowDown' || ev.key === 'ArrowUp') && rows(list[i]))) {
    if (i < 0) { i = 0; mark(list, 0); }
    const g = rows(list[i]);
    if (g && g.__batonKey) { if (g.__batonKey(ev.key)) ev.preventDefault(); return; }  // (its current row)
    const c = list[i] && choices(list[i])[Number(ev.key) - 1];
    if (c) { c.click(); ev.preventDefault(); }
  } else if (ev.key === 's') {
    const card = list[i], target = document.querySelector('.baton-step-target');
    if (card && card.dataset.step !== undefined && target && target.__pick) {
      target.__pick(Number(card.dataset.step)); ev.preventDefault();
    }
  } else if (ev.key === 't') {
    const box = list[i] && list[i].querySelector(TEXT);
    if (box) { box.focus(); ev.preventDefault(); }  // (prevented: the "t" is not typed into it)
  } else if (ev.key === '[' || ev.key === ']') { turnTrace(ev.key === ']'); ev.preventDefault(); }
  else if (ev.key === 'n') { press('Item ▶'); }
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


_TARGET_JS = """
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  let box = parentElement.querySelector(':scope > .baton-step-target');
  if (!box) { box = document.createElement('span'); box.className = 'baton-step-target'; parentElement.appendChild(box); }
  // the keys' "s" calls this with the current step card's number; the item is named, so a late
  // key never lands on the next item
  const item = data && data.item;
  box.__pick = (step) => setTriggerValue('step', { item: item, step: step });
}
"""

_target = st.components.v2.component("baton_step_target", js=_TARGET_JS, isolate_styles=False)


def step_target(key: str, item_id: str, on_pick) -> None:
    """Make this page's step picker the receiver of the key `s` (the current step card's step):
    `on_pick()` runs then; read the pick with `picked(key, item_id)`."""
    _target(key=element_key(key), data={"item": item_id}, on_step_change=on_pick)


def picked(key: str, item_id: str) -> int | None:
    """The step the key `s` picked for this item in this run, or None."""
    got = st.session_state.get(element_key(key))
    got = got.get("step") if isinstance(got, dict) else None
    if not isinstance(got, dict) or got.get("item") != item_id:
        return None
    step = got.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None

