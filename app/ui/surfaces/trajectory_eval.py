"""Step review (MAST at step granularity): a card per step with correctness, failure
modes (several per step), severity and rationale, and a live score.

Paged with a step jump. A click re-runs the scheme's fragment (app/ui/page.scheme_block), so the
score and the count at the top are read after the save, from the stored value, and agree with
the cards. A step's correctness is an instant card (app/ui/instant_scheme.py): the click shows in
the browser at once and is saved behind. Failure modes are pills grouped by their category, every
mode visible, each toggled with one click (or Tab, then Space): an instant card per category. Each change saves at once (value
format in app/types/trajectory_eval.py). Marking a step correct clears its modes and severity, in
the stored value and in the widgets.
"""
from __future__ import annotations

from datetime import datetime

import streamlit as st

from app.traces import step_cards
from app.types import trajectory_eval as stepreview
from app.project.config import Scheme
from app.traces.trace import Item, step_text
from app.project.workspace import Workspace
from app.ui import shell, step_card_view
from app.ui.instant_scheme import clean_card, scheme_card
from app.ui.pager import pager
from app.ui.state import follow, widget_key
from app.ui.text import md

PAGE_SIZE = 5



def render(ws: Workspace, item: Item, scheme: Scheme) -> str:
    modes = stepreview.modes(scheme["error_types"])
    with st.expander(f"Failure modes: {len(modes)} in {len(scheme['error_types'])} categories"):
        # one element, not one per line: the legend is sent and drawn again on every run
        st.markdown("\n\n".join(f"**{md(et['name'])}**" + "".join(f"\n- {md(sub)}" for sub in et.get("subtypes") or [])
                                  for et in scheme["error_types"]))
    return _steps(ws, item, scheme)


class _Ctx:
    """What the list and each card need from the scheme and the stored value."""

    def __init__(self, ws: Workspace, item: Item, scheme: Scheme, agent_of: dict[int, str]):
        self.ws, self.item, self.scheme = ws, item, scheme
        self.options: list[str] = scheme["correctness_options"]
        self.severities: list[dict] = scheme["severities"]
        self.sev_names = [s["name"] for s in self.severities]
        self.weight = {s["name"]: s["weight"] for s in self.severities}
        self.show_score = bool(scheme.get("show_score"))
        self.max_score = scheme.get("max_score", 100)
        self.text_key = scheme.get("step_text_key")
        self.kw = dict(show_score=self.show_score, severities=self.severities, max_score=self.max_score,
                       options=self.options)
        self.prefix = ("traj", scheme.name, item.id)
        # the cards' controls are keyed by their place on the page, not by item and step: on the
        # next item (or page) the browser updates the same controls instead of mounting new ones
        # (~150 ms of "Done → next" at five cards); each place remembers which step it holds and
        # takes that step's stored judgement when it changes (see _card)
        self.slots = ("traj", scheme.name, "slot")
        self.place = ("traj", scheme.name, "place")  # the list's own controls (pager, jump), likewise
        self.stored = shell.stored_value(ws, item, scheme.name)
        self.matched, self.orphans = stepreview.reconcile(self.stored, agent_of, self.options)
        self.modes = stepreview.modes(scheme["error_types"])
        self.n_configured = len(self.modes)
        # A mode a saved label uses that the config no longer has stays choosable (never dropped silently).
        for e in self.matched.values():
            for x in e["errors"]:
                m = stepreview.Mode(x["type"], x["subtype"])
                if m not in self.modes:
                    self.modes.append(m)
        self.mode_index = {m: i for i, m in enumerate(self.modes)}
        # the modes by category, in config order; modes of saved labels no longer configured last
        groups: dict[str, list[int]] = {}
        for i, m in enumerate(self.modes[:self.n_configured]):
            groups.setdefault(m.type, []).append(i)
        self.groups = list(groups.items())
        if len(self.modes) > self.n_configured:
            self.groups.append(("Not configured", list(range(self.n_configured, len(self.modes)))))

    def current(self):
        return shell.stored_value(self.ws, self.item, self.scheme.name)

    def keys(self, slot: int) -> dict[str, str]:
        return {f: widget_key(*self.slots, slot, f)
                for f in ("corr", "modes", "sev", "why", "saved", "holds", "open")}

    def mode_keys(self, slot: int) -> list[str]:
        """A card's failure modes, one instant card per category of modes."""
        return [widget_key(*self.slots, slot, "modes", g) for g in range(len(self.groups))]

    def chosen_modes(self, e: dict | None) -> list[int]:
        """The modes of a stored entry, as positions in the list of modes (config order)."""
        found = (self.mode_index.get(stepreview.Mode(x["type"], x["subtype"])) for x in (e["errors"] if e else []))
        return sorted(j for j in found if j is not None)

    def score_line(self, value) -> str:
        sc = stepreview.score(stepreview.parse(value, self.options), self.severities, self.max_score)
        return f"{sc} / {self.max_score}"


def _steps(ws: Workspace, item: Item, scheme: Scheme) -> str:
    d = shell.derivation(item, scheme)
    c = _Ctx(ws, item, scheme, {s.index: s.agent for s in d.steps})

    def commit(value) -> None:
        shell.commit(ws, item, scheme, value, empty=stepreview.is_empty(value))

    # --- score and summary: read after this run's saves (callbacks run first), as the cards are ----
    line = stepreview.summary(c.stored, len(d.steps), c.options)
    if c.show_score:
        st.markdown(f"**Score: {c.score_line(c.stored)}** · {md(line)}")
        st.caption("The score starts at the maximum and adds each flagged step's severity weight "
                   "(" + md(", ".join(f"{n} {w:+g}" for n, w in c.weight.items())) + "), within 0 and the maximum.")
    else:
        st.caption(md(line))

    if not d.steps:
        st.info("This trace has no steps.")
    else:
        n = len(d.steps)
        k_page, k_jump = widget_key(*c.prefix, "page"), widget_key(*c.place, "jump")
        follow(widget_key(*c.place, "jump-holds"), item.id, {k_jump: None})  # a new item: no step typed

        def jump():
            target = st.session_state.get(k_jump)
            if target is not None:
                st.session_state[k_page] = min(int(target), n - 1) // PAGE_SIZE

        page = pager(c.prefix, n, PAGE_SIZE, "Steps", place=c.place)
        if n > PAGE_SIZE:
            st.number_input("Go to step", width=220, min_value=0, max_value=n - 1, value=None, step=1, key=k_jump,
                            on_change=jump, placeholder=f"0–{n - 1}")
        for slot, step in enumerate(d.steps[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]):
            with st.container(border=True):
                # header and text one element, its place's (two to four before: see step_card_view)
                text = step_cards.step_text_blocks(step_text(step.raw, c.text_key))
                step_card_view.draw([step_cards.card(f"Step {step.index} · ", step.agent, text, review=step.index)],
                                    key=widget_key(*c.slots, slot, "text"), bare=True)
                _card(ws, item, scheme, step, slot)

    if c.orphans:
        with st.expander(f":material/warning: {len(c.orphans)} saved step label(s) no longer match this trace "
                         "(the step is gone or another agent now takes it)", expanded=True):
            for o in c.orphans:
                c1, c2 = st.columns([4, 1], vertical_alignment="center")
                errs = "; ".join(stepreview.Mode(x["type"], x["subtype"]).label for x in o["errors"])
                c1.text(f"step {o['step_index']} · {o['agent']}: {o['correctness'] or 'not judged'}"
                        f"{' · ' + errs if errs else ''}{' · ' + o['severity'] if o['severity'] else ''}"
                        f"{' · ' + o['rationale'] if o['rationale'] else ''}")
                c2.button("Discard", key=widget_key(*c.prefix, "orphan", o["step_index"]),
                          on_click=lambda i=o["step_index"]: commit(stepreview.drop(c.current(), i, **c.kw)))

    clean_card(ws, item, scheme, empty=stepreview.build([], **c.kw), forget=c.slots,
               tip="Record that you went through the steps and found no failure (removes any step labels given here)")
    return shell.CARDS


def _card(ws: Workspace, item: Item, scheme: Scheme, step, slot: int) -> None:
    """A step's judgement, the `slot`-th card of the page."""
    c = _Ctx(ws, item, scheme, {step.index: step.agent})
    e = c.matched.get(step.index)
    k = c.keys(slot)
    options, sev_names, modes, weight = c.options, c.sev_names, c.modes, c.weight
    # a saved choice the config no longer offers stays visible and kept
    if e and e["correctness"] and e["correctness"] not in options:
        options = options + [e["correctness"]]
    if e and e["severity"] and e["severity"] not in sev_names:
        sev_names = sev_names + [e["severity"]]
    chosen = [stepreview.Mode(x["type"], x["subtype"]) for x in (e["errors"] if e else [])]
    chosen_ix = {c.mode_index[m] for m in chosen if m in c.mode_index}
    mode_keys = c.mode_keys(slot)
    # another step in this place now: its stored judgement, and no note about the previous one
    follow(k["holds"], (item.id, step.index), {
        k["sev"]: e["severity"] if e and e["severity"] in sev_names else None,
        k["why"]: e["rationale"] if e else ""}, forget=(k["saved"], k["open"]), typed=(k["why"],))
    judged = e["correctness"] if e and e["correctness"] in options else None  # (what the card shows)
    correct = stepreview.is_correct(judged, options)

    def entry_of(value) -> dict | None:
        return stepreview.reconcile(value, {step.index: step.agent}, c.options)[0].get(step.index)

    def changed(field: str):
        def cb():
            if field in ("modes", "sev"):  # the controls stay while the step is being edited, even if emptied
                st.session_state[k["open"]] = True
            now = entry_of(c.current())  # the correctness and modes: their cards save them on their own
            entry = stepreview.entry(step.index, step.agent, now["correctness"] if now else None,
                                     [modes[j] for j in c.chosen_modes(now)],
                                     st.session_state.get(k["sev"]), st.session_state.get(k["why"], ""), c.options)
            _save(c, stepreview.put(c.stored, entry, **c.kw), k["saved"], base=c.stored)
        return cb

    def with_correctness(picked: list[str], base) -> dict:
        corr = picked[0] if picked else None
        if stepreview.is_correct(corr, c.options):
            st.session_state[k["sev"]] = None  # correct again: no modes, no severity (in the widget too)
            chosen_modes, severity = [], None
        else:
            chosen_modes, severity = [modes[j] for j in c.chosen_modes(entry_of(base))], st.session_state.get(k["sev"])
        entry = stepreview.entry(step.index, step.agent, corr, chosen_modes, severity,
                                 st.session_state.get(k["why"], ""), c.options)
        return stepreview.put(base, entry, **c.kw)

    def with_modes(group: list[int], picked: list[str], base) -> dict:
        """The step's modes of one category as the card shows them, the others as stored."""
        st.session_state[k["open"]] = True  # the controls stay while the step is being edited, even if emptied
        was = entry_of(base)
        ix = sorted((set(c.chosen_modes(was)) - set(group)) | {int(p) for p in picked})
        entry = stepreview.entry(step.index, step.agent, was["correctness"] if was else None, [modes[j] for j in ix],
                                 st.session_state.get(k["sev"]), st.session_state.get(k["why"], ""), c.options)
        return stepreview.put(base, entry, **c.kw)

    def noted() -> None:  # the step's line below says when this session saved it
        st.session_state[k["saved"]] = datetime.now().strftime("%H:%M:%S")

    def reset():
        for f in ("sev", "why", "saved", "open"):  # (the correctness card shows what is stored)
            st.session_state.pop(k[f], None)
        _save(c, stepreview.drop(c.stored, step.index, **c.kw), k["saved"], base=c.stored)

    def mode_label(j: int) -> str:  # under its category's name: the subtype alone
        return modes[j].subtype or modes[j].type if j < c.n_configured else modes[j].label  # (shown as text)

    def severity_label(s) -> str:
        if s is None:
            return "– no severity"
        return f"{s} ({weight[s]:+g})" if s in weight else f"{s} (not configured)"

    # a click reruns the scheme's fragment: the score, the count and this card's modes follow it
    scheme_card(ws, item, scheme, k["corr"], title=f"Correctness of step {step.index}", options=options,
                chosen=lambda v: [x] if (x := (entry_of(v) or {}).get("correctness")) in options else [],
                build=with_correctness, multi=False, holds=str(step.index), on_saved=noted, own_fragment=False)
    # failure modes, severity and rationale once the step is judged, asked for, or saved with any of
    # them: a new item's five unjudged cards then draw a radio and a button each (step review's
    # "Done → next" at 2,000 steps: ~585 → ~400 ms without modes and severity, medians in the same
    # hour; the rationale's five text inputs up to ~40 ms more, alternated runs)
    light = judged is None and not chosen_ix \
        and st.session_state.get(k["sev"]) is None and not st.session_state.get(k["why"]) \
        and not st.session_state.get(k["open"])
    if not light:
        # every mode visible, grouped by category, one click (or Space) each: no dropdown to open
        st.caption(f"Failure modes of step {step.index}"
                   + (" (a step marked correct has none)" if correct else " (click each that applies)"))
        for key, (category, group) in zip(mode_keys, c.groups):
            scheme_card(ws, item, scheme, key, title=f"{category} (step {step.index})",
                        options=[str(j) for j in group], labels={str(j): mode_label(j) for j in group},
                        chosen=lambda v, group=group: [str(j) for j in c.chosen_modes(entry_of(v)) if j in group],
                        build=lambda picked, base, group=group: with_modes(group, picked, base), multi=True,
                        holds=str(step.index), on_saved=noted, own_fragment=False, disabled=correct)
    # a horizontal row, one element, not columns (three): see app/ui/pager.py
    row = st.container(horizontal=True, vertical_alignment="bottom")
    if not light:
        # a segmented control, not a dropdown: one click, even right after another card saved
        row.segmented_control(f"Severity of step {step.index}", sev_names, key=k["sev"],
                              format_func=severity_label, on_change=changed("sev"), disabled=correct,
                              selection_mode="single", help="Click the chosen severity again for none")
        row.text_input(f"Rationale for step {step.index}", key=k["why"], on_change=changed("why"),
                       placeholder="Why this judgement?")
    else:
        row.button("Modes, rationale…", key=k["open"] + "\u241fbutton",
                   on_click=lambda: st.session_state.__setitem__(k["open"], True),
                   help="Tag failure modes, a severity or a rationale before choosing a correctness "
                        "(they appear by themselves once the step is judged)")
    state = "not judged yet" if not e else (e["correctness"] or "labelled")
    if e and e["errors"]:
        state += f", {len(e['errors'])} failure mode{'s' if len(e['errors']) != 1 else ''}"
    if e and e["severity"]:
        state += f", {e['severity']}"
    score = f" · score now {c.score_line(c.stored)}" if c.show_score and k["saved"] in st.session_state else ""
    status = st.container(horizontal=True, vertical_alignment="center")
    status.markdown(f"Step {step.index}: *{md(state)}*{shell.card_note(k['saved'])}{score}")
    if e:
        status.button("Clear this step", key=k["corr"] + "\u241freset", on_click=reset,
                      help="Remove every label of this step")


def _save(c: _Ctx, value, saved_key: str, base=shell.NO_BASE) -> None:
    """A card's change: saved at once (an emptied value removes the row); with `base` (the value
    the card was drawn from), only the change from it is applied on top of the disk."""
    shell.card_saved(c.ws, c.item, c.scheme, value, saved_key, empty=stepreview.is_empty(value), base=base)
