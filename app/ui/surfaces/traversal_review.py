"""Traversal review: forward with only the past, then backward with hindsight (value: app/types/traversal_review.py).

Forward, the page is sent the current step and the steps before it, nothing of a later one (the
trace column is not drawn, the step picker lists no later step, the suggestion waits): flag it
(error / fine, MAST modes), add a note, "Next step" (Alt+S). Every change is saved at once, so a
refresh resumes at the first step not yet judged. Backward (once every step was seen), the trace
is beside and the flagged steps come from the last: root cause (Alt+1), consequence of an earlier
step (Alt+2), redundant (Alt+3); a root cause the forward pass missed may be added, and the
suggested one (from the run's own signals) accepted with Alt+A.
"""
from __future__ import annotations

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces import conversation, step_cards
from app.traces import suggestions as hints
from app.traces.trace import Item
from app.types import traversal_review as tr
from app.types.trajectory_eval import Mode, modes as scheme_modes
from app.ui import page, shell, state, step_card_view
from app.ui.state import follow, widget_key
from app.ui.text import md, visible

CONTEXT = 2  # earlier steps shown in full above the current one (all of them stay one picker away)
KEYS = {"next": "Alt+S", "back": "Alt+B", "error": "Alt+E", tr.ROOT_CAUSE: "Alt+1", tr.CONSEQUENCE: "Alt+2",
        tr.REDUNDANT: "Alt+3", "accept": "Alt+A"}
VERDICT_WORDS = {tr.ROOT_CAUSE: "Root cause", tr.CONSEQUENCE: "Consequence", tr.REDUNDANT: "Redundant"}


def walk_of(item: Item, scheme: Scheme) -> list[int]:
    d = shell.derivation(item, scheme)
    return shell.per_derivation(d, f"traversal.order:{scheme.index}", lambda: tr.order(item.data, len(d.steps)))


def in_forward(ws: Workspace, item: Item, scheme: Scheme) -> bool:
    return tr.phase(shell.stored_value(ws, item, scheme.name, {}), walk_of(item, scheme)) == tr.FORWARD


def page_frame() -> None:
    """The page: as every annotation page, but without the trace while a traversal scheme on it
    is in its forward pass (the page then holds nothing of later steps)."""
    page.annotation_page(tr.TYPE.name, render, trace_hidden=_forward_pass)


def _forward_pass(ws: Workspace, item: Item, schemes: list[Scheme]) -> str | None:
    if any(in_forward(ws, item, s) for s in schemes):
        return "Forward pass: the trace is hidden, each step comes with only what came before it."
    return None


class _Bound:
    """One scheme on one item: its walk, stored value, keys and saving."""

    def __init__(self, ws: Workspace, item: Item, scheme: Scheme):
        self.ws, self.item, self.scheme = ws, item, scheme
        self.d = shell.derivation(item, scheme)
        self.walk = walk_of(item, scheme)
        self.value = tr.parse(shell.stored_value(ws, item, scheme.name, {}))  # (parsed once a run)
        self.modes = scheme_modes(scheme["error_types"])

    def key(self, *parts) -> str:
        return widget_key("trav", self.scheme.name, self.item.id, *parts)

    def slot(self, *parts) -> str:  # keyed by place: the browser updates them from step to step
        return widget_key("trav", self.scheme.name, "slot", *parts)

    def current(self):
        return shell.stored_value(self.ws, self.item, self.scheme.name, {})

    def save(self, value) -> bool:
        problems = tr.validate(value, self.scheme, self.d)
        if problems:
            st.session_state[self.key("refused")] = "Not saved: " + "; ".join(problems[:3])
            return False
        st.session_state.pop(self.key("refused"), None)
        return shell.commit(self.ws, self.item, self.scheme, value, empty=tr.is_empty(value))


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    b = _Bound(ws, item, scheme)
    if not b.d.steps:
        st.info("This trace has no steps.")
        return
    if b.key("refused") in st.session_state:
        st.error(st.session_state[b.key("refused")])
    phase = tr.phase(b.value, b.walk)
    at_key = b.key("at")
    resume = tr.forward_at(b.value, b.walk)
    at = st.session_state.get(at_key)
    if at is None or at > resume:
        at = resume
    st.session_state[at_key] = at
    if at < len(b.walk):
        _forward(b, at)
        return
    waiting = [s.name for s in ws.project.schemes_of(tr.TYPE.name) if s.name != scheme.name and in_forward(ws, item, s)]
    if waiting:  # (its cards and pickers show any step: not while another scheme here walks forward)
        st.info("Forward pass finished. The backward pass shows the whole trace: it opens once the forward pass of "
                + ", ".join(md(n) for n in waiting) + " on this page is finished too.")
        return
    _backward(b, phase)


# --- forward -------------------------------------------------------------------------------------

def _conversation(b: _Bound):
    return shell.per_derivation(b.d, "traversal.conversation", lambda: conversation.build(b.d.steps))


def _forward(b: _Bound, at: int) -> None:
    n, step = len(b.walk), b.walk[at]
    st.progress(at / n, text=f"Forward pass: step {at + 1} of {n}")
    fwd = b.value["forward"]
    _notes(b, [s for s in b.walk[:at]], fwd)
    view = _conversation(b)
    shown = b.walk[max(0, at - CONTEXT):at + 1]
    cards = [c for s in shown for c in step_cards.cards(b.d, view, s, s + 1)]
    for c in cards[:-1]:
        c["title"] = ["(earlier) "] + c["title"]
    step_card_view.draw(cards, key=b.slot("cards"))
    e = fwd.get(step, {"flag": tr.FINE, "modes": [], "note": ""})
    labels = [m.label for m in b.modes]
    k_flag, k_modes, k_note = b.slot("flag"), b.slot("modes"), b.slot("note")
    follow(b.slot("holds"), (b.item.id, step), {
        k_flag: e["flag"], k_modes: [labels.index(Mode(m["type"], m["subtype"]).label) for m in e["modes"]
                                     if Mode(m["type"], m["subtype"]).label in labels],
        k_note: e["note"]}, typed=(k_note,))

    def entry():
        chosen = [b.modes[j] for j in st.session_state.get(k_modes) or [] if 0 <= j < len(labels)]
        return tr.flag(b.current(), step, st.session_state[k_flag], chosen, st.session_state.get(k_note, ""))

    def changed():
        b.save(entry())

    def toggle():
        st.session_state[k_flag] = tr.FINE if st.session_state[k_flag] == tr.ERROR else tr.ERROR
        changed()

    def move(delta: int):
        def cb():
            if delta > 0 and not b.save(entry()):
                return
            st.session_state[b.key("at")] = max(0, at + delta)
            if at + delta >= n:  # the forward pass is over: the page draws the trace beside now
                st.session_state[state.FULL_RERUN] = True
        return cb

    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.radio(f"Step {step} is", list(tr.FLAGS), key=k_flag, horizontal=True, on_change=changed,
              format_func={tr.FINE: "fine", tr.ERROR: "⚠ an error"}.__getitem__)
    row.button("Flag / unflag", key=b.slot("toggle"), on_click=toggle, shortcut=KEYS["error"],
               help=f"Flag this step as an error, or take the flag back ({KEYS['error']})")
    if st.session_state[k_flag] == tr.ERROR:
        st.multiselect(f"Failure modes of step {step} (optional)", list(range(len(labels))), key=k_modes,
                       on_change=changed, format_func=lambda j: md(labels[j]), placeholder="Choose modes, if any")
    st.text_input(f"Note on step {step} (optional)", key=k_note, on_change=changed,
                  placeholder="What looks wrong, or worth remembering?")
    nav_row = st.container(horizontal=True)
    nav_row.button("◀ Previous step", key=b.slot("back"), on_click=move(-1), disabled=at == 0,
                   shortcut=KEYS["back"], help=f"Back to the step before ({KEYS['back']})")
    nav_row.button("Next step ▶" if at + 1 < n else "Finish the forward pass ▶", key=b.slot("next"),
                   type="primary", on_click=move(1), shortcut=KEYS["next"],
                   help=f"Save this step and show the next ({KEYS['next']})")


def _notes(b: _Bound, seen: list[int], fwd: dict) -> None:
    """The flags and notes of the steps seen so far (they stay in view for the whole pass)."""
    lines = []
    for s in seen:
        e = fwd.get(s)
        if e and (e["flag"] == tr.ERROR or e["note"].strip()):
            modes = ", ".join(Mode(m["type"], m["subtype"]).label for m in e["modes"])
            lines.append(f"step {s} · {b.d.steps[s].agent}: {'⚠ error' if e['flag'] == tr.ERROR else 'fine'}"
                         + (f" ({modes})" if modes else "") + (f" — {e['note']}" if e["note"].strip() else ""))
    if lines:
        st.markdown("**Your flags and notes so far**")
        st.text("\n".join(lines))


# --- backward ------------------------------------------------------------------------------------

def _backward(b: _Bound, phase: str) -> None:
    todo = tr.flagged(b.value, b.walk)
    p = b.value
    k_at = b.key("back-at")
    resume = tr.backward_at(b.value, b.walk)
    j = st.session_state.get(k_at)
    j = resume if j is None or j > len(todo) else j
    st.session_state[k_at] = j

    def go(delta: int):
        def cb():
            st.session_state[k_at] = min(max(0, st.session_state[k_at] + delta), len(todo))
        return cb

    if not todo:
        st.info("The forward pass flagged no step. Add a root cause below if the run failed anyway.")
    elif j < len(todo):
        step = todo[j]
        e, v = p["forward"][step], p["backward"].get(step)
        st.progress(j / len(todo), text=f"Backward pass: flagged step {j + 1} of {len(todo)}, from the last")
        left, right = st.columns([3, 2])
        with left:
            step_card_view.draw(step_cards.cards(b.d, _conversation(b), step, step + 1), key=b.slot("back-card"))
        with right:
            modes = ", ".join(Mode(m["type"], m["subtype"]).label for m in e["modes"]) or "no mode"
            st.markdown("**Forward pass**")
            st.text(f"⚠ flagged ({modes})" + (f"\nNote: {e['note']}" if e["note"].strip() else "\nNo note"))
            if v:
                st.caption(f"Now: {VERDICT_WORDS[v['verdict']]}"
                           + (f" of step {v['caused_by']}" if v["caused_by"] is not None else ""))
        causes = tr.causes(b.value, b.walk, step)
        k_cause = b.slot("cause")
        follow(b.slot("cause-holds"), (b.item.id, step),
               {k_cause: v["caused_by"] if v and v["caused_by"] in causes else (causes[0] if causes else None)})

        def verdict(what: str):
            def cb():
                cause = st.session_state.get(k_cause) if what == tr.CONSEQUENCE else None
                if b.save(tr.judge(b.current(), step, what, cause)):
                    st.session_state[k_at] = j + 1
            return cb

        st.selectbox("Consequence of", causes, key=k_cause, disabled=not causes,
                     format_func=lambda s: visible(b.d.step_labels[s]),
                     placeholder="no earlier flagged step or root cause" if not causes else None)
        row = st.container(horizontal=True)
        for what in tr.VERDICTS:
            row.button(VERDICT_WORDS[what], key=b.slot("verdict", what), on_click=verdict(what),
                       shortcut=KEYS[what], disabled=what == tr.CONSEQUENCE and not causes,
                       help=f"{VERDICT_WORDS[what]} ({KEYS[what]}), then the next flagged step")
    else:
        st.success(f"Backward pass complete: {len(todo)} flagged step(s) judged.")
    if todo:
        st.button("◀ Back to the flagged step before", key=b.slot("back-prev"), on_click=go(-1), disabled=j == 0,
                  shortcut=KEYS["back"], help=f"Revise the verdict just given ({KEYS['back']})")
    _root_causes(b, p)


def _root_causes(b: _Bound, p: dict) -> None:
    roots = p["root_causes"]
    st.markdown("**Root causes:** " + (", ".join(f"step {r}" for r in roots) if roots else "none yet"))
    for r in roots:
        st.button(f"Not a root cause: {visible(b.d.step_labels[r])}" if 0 <= r < len(b.d.steps) else f"Remove step {r}",
                  key=b.key("unroot", r), on_click=lambda r=r: b.save(tr.remove_root_cause(b.current(), r)))
    found = hints.decisive_step(b.item.data, b.d)
    if found is not None and found.step not in roots:
        st.info(f"Suggested root cause (from the run's own signals, not saved until accepted): "
                f"step {found.step} · {md(found.agent)} — {md(found.reason)}")
        st.button("Accept the suggestion", key=b.slot("accept"), shortcut=KEYS["accept"],
                  on_click=lambda: b.save(tr.add_root_cause(b.current(), found.step)),
                  help=f"Add step {found.step} to the root causes ({KEYS['accept']})")
    k_add = b.slot("add")
    flagged_steps = {s for s, e in p["forward"].items() if e["flag"] == tr.ERROR}
    missed = [s.index for s in b.d.steps if s.index not in flagged_steps and s.index not in roots]
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.selectbox("A root cause the forward pass missed", missed, index=None, key=k_add,
                  format_func=lambda s: visible(b.d.step_labels[s]), placeholder="Choose a step")

    def add():
        if st.session_state.get(k_add) is not None:
            b.save(tr.add_root_cause(b.current(), st.session_state[k_add]))
            st.session_state[k_add] = None

    row.button("Add root cause", key=b.slot("add-button"), on_click=add)
