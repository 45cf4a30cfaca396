"""The trace laid out by the run's orchestration pattern: steps, lanes, tree or board.

The layout follows the annotator's answer to the orchestration question on this item, or the
pattern suggested from the trace until there is one (app/traces/orchestration.py); the Layout
control switches at any time (remembered per item and pattern: a new answer lays the run out
anew). Lanes, tree and board are drawn in the browser as one element (a v2 component, like the
step cards), a page at a time; every text from the trace goes in with `textContent`.
"""
from __future__ import annotations

import streamlit as st

from app.project import orchestration as project_orchestration
from app.project.workspace import Workspace
from app.traces import layouts, orchestration
from app.traces.derive import Derivation
from app.traces.trace import Item
from app.types.radio import choice as radio_choice
from app.types.registry import TYPES
from app.ui import shell, state
from app.ui.pager import TRACE, pager
from app.ui.text import EL_JS, agent_color, md, visible

PAGE = {orchestration.LANES: 25, orchestration.TREE: 40, orchestration.BOARD: 25}  # rows a page
TITLES = {orchestration.STEPS: "Steps", orchestration.LANES: "Lanes", orchestration.TREE: "Tree",
          orchestration.BOARD: "Board"}


def suggestion(item: Item, d: Derivation) -> orchestration.Suggestion:
    """The suggested pattern, worked out once per derivation (not on every rerun)."""
    return shell.per_derivation(d, "orchestration.suggest", lambda: orchestration.suggest(item.data, d))


def pattern_for(ws: Workspace, item: Item, d: Derivation) -> tuple[str | None, str, str]:
    """(pattern, where it comes from: "answer" / "suggested" / "", the suggestion's reason)."""
    sug = suggestion(item, d)
    name = ws.project.orchestration_scheme
    if name:
        ann = shell.load(ws, item, name)
        chosen = radio_choice(ann.value) if ann else None
        if chosen:
            return chosen, "answer", sug.reason
    return sug.pattern, "suggested", sug.reason


ANY = "*"  # an override kept whatever the pattern (a surface asked for a step: show_step_page)


def control(ws: Workspace, item: Item, d: Derivation) -> str:
    """The Layout control, its note, the lens; returns the layout to draw."""
    pattern, source, reason = pattern_for(ws, item, d)
    chosen = st.session_state.setdefault(state.LAYOUT, {})  # {item id: (the pattern it was chosen for, layout)}
    kept = chosen.get(item.id)
    # a project that asks no orchestration question keeps the step list (the control still switches)
    asked = ws.project.orchestration_scheme is not None
    default = orchestration.layout_of(pattern) if asked else orchestration.STEPS
    if kept is not None and kept[0] == ANY:
        kept = chosen[item.id] = (pattern, kept[1])
    want = kept[1] if kept is not None and kept[0] == pattern else default
    k = state.widget_key("trace", "place", "layout")
    # keyed by place (the next item updates it); it shows this item's layout whenever the item,
    # its pattern (a new answer) or the override changes
    state.follow(state.widget_key("trace", "layout-holds"), (item.id, pattern, want), {k: want})

    def changed():
        if st.session_state[k] is None:  # the selected button clicked again: it stays selected
            st.session_state[k] = want
        chosen[item.id] = (pattern, st.session_state[k])

    # a segmented control, not a radio: one row of buttons (Tab, then Space/Enter)
    st.segmented_control("Layout", orchestration.LAYOUTS, key=k, on_change=changed,
                         format_func=TITLES.__getitem__, help="How the trace is drawn; it follows the run's "
                         "orchestration pattern (your answer, or the suggestion until then)")
    if source == "answer":
        st.caption(f"Your answer: {md(pattern)} → {TITLES[default].lower()} · suggested was: {md(reason)}")
    elif not asked:
        its = TITLES[orchestration.layout_of(pattern)].lower()
        st.caption(f"Pattern suggested by the trace: {md(reason)} (its layout: {its})")
    else:
        st.caption(f"Suggested: {md(reason)} → {TITLES[default].lower()} (not an answer until you confirm it)")
    first = project_orchestration.lens_for(pattern, ws.project.orchestration_lens, ws.project.schemes)
    if first:
        params = shell.url_params(item=item.id)
        row = st.container(horizontal=True, vertical_alignment="center")
        row.caption(f"Look first at ({md(pattern)}):")
        for s in first:
            page = TYPES[s.type].page
            if page and (shell.ROOT / page).exists():
                row.page_link(str(shell.ROOT / page), label=md(s.name), query_params=params)
    shown = st.session_state[k] or want
    st.session_state.setdefault(state.LAYOUT_SHOWN, {})[item.id] = shown
    return shown


def current(item_id: str) -> str | None:
    """The layout the item was last drawn in (None: not drawn yet in this session)."""
    return st.session_state.setdefault(state.LAYOUT_SHOWN, {}).get(item_id)


def show_steps(item_id: str) -> None:
    """Lay this item out as its steps (a surface turned the trace view to one of them)."""
    st.session_state.setdefault(state.LAYOUT, {})[item_id] = (ANY, orchestration.STEPS)


def _built(item: Item, d: Derivation, layout: str, view):
    """The whole run in a layout, built once per derivation."""
    if layout == orchestration.LANES:
        return shell.per_derivation(d, "layout.lanes", lambda: layouts.lanes(d))
    if layout == orchestration.TREE:
        return shell.per_derivation(d, "layout.tree", lambda: layouts.rows(layouts.tree(item.data, d, view)))
    return shell.per_derivation(d, "layout.board", lambda: layouts.board(item.data, d))


def warm(item: Item, d: Derivation, view) -> None:
    """The suggestion and the layout it opens in, built ahead (see shell.prefetch): an item opened
    with "Done → next" is then drawn without building them (~50-150 ms at 2,000 steps)."""
    layout = orchestration.layout_of(suggestion(item, d).pattern)
    if layout != orchestration.STEPS:
        _built(item, d, layout, view)


def draw(item: Item, d: Derivation, layout: str, view) -> None:
    """One page of the layout (lanes, tree or board)."""
    built = _built(item, d, layout, view)
    n = len(built.rows) if layout == orchestration.LANES else len(built) if layout == orchestration.TREE \
        else len(built.messages)
    noun = {orchestration.LANES: "Lane rows", orchestration.TREE: "Tree nodes", orchestration.BOARD: "Messages"}
    page = pager(("layout", layout, item.id), n, PAGE[layout], noun[layout], ("layout", layout), row_key=TRACE)
    data = {orchestration.LANES: lanes_data, orchestration.TREE: tree_data,
            orchestration.BOARD: board_data}[layout](built, page, PAGE[layout])
    _component(key=state.element_key(state.widget_key("trace", "place", "layout-drawing")), data=data)


def _agent(name: str) -> dict:
    return {"name": visible(name), "color": agent_color(name)}


def lanes_data(built: layouts.Lanes, page: int, size: int) -> dict:
    """What the browser draws of one page of lanes (plain data; all text as text)."""
    rows = built.rows[page * size:(page + 1) * size]
    return {"kind": "lanes",
            "agents": [dict(_agent(a), n=n) for a, n in zip(built.agents, built.steps_per_lane)],
            "rows": [{"step": r.step, "lane": r.lane, "text": visible(r.excerpt), "from": r.handoff_from,
                      "calls": r.tool_calls} for r in rows]}


def _seconds(x: float | None) -> str:
    if x is None:
        return ""
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.1f} s" if x < 120 else f"{x / 60:.1f} min"


def tree_data(built: list[layouts.Row], page: int, size: int) -> dict:
    rows = built[page * size:(page + 1) * size]
    top = min((r.depth for r in rows), default=0)
    return {"kind": "tree",
            "context": " › ".join(visible(p) for p in rows[0].path) if rows and rows[0].path else "",
            "rows": [{"d": r.depth - top, **_agent(r.node.agent), "kind": r.node.kind, "label": visible(r.node.name),
                      "step": r.node.step, "dur": _seconds(r.node.duration), "text": visible(r.node.excerpt),
                      "status": r.node.status or "", "conv": [visible(c) for c in r.node.conversation],
                      "leaf": not r.node.children}
                     for r in rows]}


def board_data(built: layouts.Board, page: int, size: int) -> dict:
    msgs = built.messages[page * size:(page + 1) * size]
    return {"kind": "board",
            "spoke": [dict(_agent(a), n=n) for a, n in built.spoke],
            "messages": [{"step": m.step, **_agent(m.speaker), "text": visible(m.excerpt), "reply": m.reply_to}
                         for m in msgs],
            "entries": [{"i": e.index, "writer": visible(e.writer), "text": visible(e.excerpt),
                         "readers": [visible(r) for r in e.readers], "res": visible(e.resource)}
                        for e in built.entries] if page == 0 else []}


_CSS = """
.baton-layout { display: flex; flex-direction: column; gap: 0.5rem; font-size: 0.9rem; }
.baton-layout .lanes { display: grid; gap: 0.25rem 0.5rem; overflow-x: auto; }
.baton-layout .lane-head { font-weight: 700; position: sticky; top: 0; padding-bottom: 0.25rem;
  border-bottom: 2px solid currentColor; overflow-wrap: anywhere; }
.baton-layout .cell { border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.4rem;
  padding: 0.3rem 0.5rem; overflow-wrap: anywhere; white-space: pre-wrap; }
.baton-layout .hand { text-align: center; font-size: 0.8rem; opacity: 0.8;
  background: linear-gradient(currentColor, currentColor) center / 100% 1px no-repeat; }
.baton-layout .hand span { background: var(--st-background-color, #fff); padding: 0 0.4rem; }
.baton-layout .note { font-size: 0.8rem; opacity: 0.65; overflow-wrap: anywhere; }
.baton-layout details, .baton-layout .leaf { margin-left: 0.9rem; border-left: 1px solid
  var(--st-border-color, rgba(49, 51, 63, 0.2)); padding-left: 0.5rem; margin-top: 0.2rem; }
.baton-layout summary { cursor: pointer; overflow-wrap: anywhere; }
.baton-layout details.conv { border-left: none; margin-top: 0; }
.baton-layout .err { color: #e02b2b; font-weight: 600; }
.baton-layout .chips { display: flex; flex-wrap: wrap; gap: 0.4rem; }
.baton-layout .chip { border: 1px solid currentColor; border-radius: 1rem; padding: 0 0.5rem; }
.baton-layout .msg { border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.4rem;
  padding: 0.3rem 0.5rem; }
.baton-layout .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.baton-layout .c-blue { color: #1c83e1; } .baton-layout .c-green { color: #21a354; }
.baton-layout .c-orange { color: #e07000; } .baton-layout .c-violet { color: #803df5; }
.baton-layout .c-red { color: #e02b2b; } .baton-layout .c-gray { color: #808495; }
"""

_JS = EL_JS + """
function who(a) { return el('b', `c-${a.color}`, a.name); }
function lanes(root, data) {
  const g = el('div', 'lanes');
  const n = data.agents.length;
  g.style.gridTemplateColumns = `repeat(${n}, minmax(9rem, 1fr))`;
  g.setAttribute('role', 'table');
  g.setAttribute('aria-label', `${n} lanes, one per agent`);
  data.agents.forEach((a, i) => {
    const h = el('div', `lane-head c-${a.color}`, `${a.name} (${a.n} steps)`);
    h.style.gridColumn = `${i + 1}`; h.style.gridRow = '1'; g.appendChild(h);
  });
  let row = 2;
  for (const r of data.rows) {
    if (r.from !== null && r.from !== undefined) {
      const lo = Math.min(r.from, r.lane), hi = Math.max(r.from, r.lane);
      const src = data.agents[r.from].name, dst = data.agents[r.lane].name;
      const h = el('div', 'hand');
      h.appendChild(el('span', '', r.from < r.lane ? `${src} ──▶ ${dst}` : `${dst} ◀── ${src}`));
      h.setAttribute('aria-label', `handoff ${src} to ${dst}`);
      h.style.gridColumn = `${lo + 1} / ${hi + 2}`; h.style.gridRow = `${row++}`; g.appendChild(h);
    }
    const a = data.agents[r.lane];
    const c = el('div', 'cell');
    c.appendChild(el('div', 'note', `Step ${r.step} · ${a.name}` + (r.calls ? ` · ${r.calls} tool call(s)` : '')));
    c.appendChild(el('div', 'text', r.text || '(no text)'));
    c.dataset.step = String(r.step);  // (the keys' s: app/ui/keyboard.py)
    c.style.gridColumn = `${r.lane + 1}`; c.style.gridRow = `${row++}`; g.appendChild(c);
  }
  root.appendChild(g);
}
function tree(root, data) {
  if (data.context) root.appendChild(el('div', 'note', `Inside: ${data.context}`));
  const stack = [root];
  for (const r of data.rows) {
    const parent = stack[Math.min(r.d, stack.length - 1)];
    const head = [r.kind, r.label, r.step !== null && r.step !== undefined ? `step ${r.step}` : '', r.dur]
      .filter(Boolean).join(' · ');
    let node, body;
    const line = el('span');
    line.appendChild(who(r)); line.appendChild(document.createTextNode(` · ${head}`));
    if (r.status) line.appendChild(el('span', 'err', ` · ${r.status}`));
    if (r.text) line.appendChild(document.createTextNode(` · ${r.text}`));
    if (r.leaf && !r.conv.length) { node = el('div', 'leaf'); node.appendChild(line); body = node; }
    else {
      node = el('details'); node.open = true;
      const s = el('summary'); s.appendChild(line); node.appendChild(s);
      body = el('div'); node.appendChild(body);
      if (r.conv.length) {  // the new input messages: one folded line (they made a TRAIL tree ~4,000 px tall)
        const inp = el('details', 'conv');
        inp.appendChild(el('summary', 'note', `Input · ${r.conv.length} new message(s)`));
        for (const c of r.conv) inp.appendChild(el('div', 'note', c));
        body.appendChild(inp);
      }
    }
    if (r.step !== null && r.step !== undefined) node.dataset.step = String(r.step);
    parent.appendChild(node);
    stack.length = r.d + 1; stack.push(body);
  }
}
function board(root, data) {
  const chips = el('div', 'chips');
  chips.appendChild(el('span', 'note', 'Who spoke how often:'));
  for (const a of data.spoke) { const c = el('span', `chip c-${a.color}`, `${a.name} ${a.n}`); chips.appendChild(c); }
  root.appendChild(chips);
  for (const m of data.messages) {
    const box = el('div', 'msg');
    box.dataset.step = String(m.step);
    const h = el('div', 'note');
    h.appendChild(document.createTextNode(`Step ${m.step} · `)); h.appendChild(who(m));
    if (m.reply !== null && m.reply !== undefined) h.appendChild(document.createTextNode(` · replies to step ${m.reply}`));
    box.appendChild(h); box.appendChild(el('div', 'text', m.text || '(no text)'));
    root.appendChild(box);
  }
  if (data.entries.length) root.appendChild(el('div', 'note', 'Shared entries (blackboard):'));
  for (const e of data.entries) {
    const box = el('div', 'msg');
    box.appendChild(el('div', 'note', `Entry ${e.i}` + (e.res ? ` · ${e.res}` : '') + ` · written by ${e.writer}`
      + ` · read by ${e.readers.length ? e.readers.join(', ') : 'nobody seen'}`));
    box.appendChild(el('div', 'text', e.text));
    root.appendChild(box);
  }
}
export default function(component) {
  const { data, parentElement } = component;
  let root = parentElement.querySelector(':scope > .baton-layout');
  if (!root) { root = el('div', 'baton-layout'); parentElement.appendChild(root); }
  const sig = JSON.stringify(data);
  if (root.dataset.sig === sig) return;
  root.dataset.sig = sig;
  root.replaceChildren();
  root.dataset.kind = (data && data.kind) || '';
  if (!data) return;
  if (data.kind === 'lanes') lanes(root, data);
  else if (data.kind === 'tree') tree(root, data);
  else if (data.kind === 'board') board(root, data);
}
"""

_component = st.components.v2.component("baton_layout", css=_CSS, js=_JS, isolate_styles=False)
