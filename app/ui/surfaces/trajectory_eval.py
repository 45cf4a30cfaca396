"""Step review (MAST at step granularity): a card per step with correctness, failure
modes (several per step), severity and rationale, and a live score.

Paged with a step jump; the scheme is a fragment (app/ui/page.scheme_block), so a click re-runs only it. Each
change saves at once (value format in app/stepreview.py). Marking a step correct clears
its modes and severity, in the stored value and in the widgets.
"""
from __future__ import annotations

import streamlit as st

from ... import stepreview
from ...config import Scheme
from ...trace import Item, step_text
from ...workspace import Workspace
from .. import shell
from ..pager import pager
from ..state import widget_key
from ..text import agent_badge, md

PAGE_SIZE = 10
COLLAPSE_AT = 500  # characters: longer step texts show an excerpt and a "Full text" expander



def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    modes = stepreview.modes(scheme["error_types"])
    with st.expander(f"Failure modes: {len(modes)} in {len(scheme['error_types'])} categories"):
        for et in scheme["error_types"]:
            st.markdown(f"**{md(et['name'])}**")
            for sub in et.get("subtypes") or []:
                st.markdown(f"- {md(sub)}")
    _steps(ws, item, scheme)


def _steps(ws: Workspace, item: Item, scheme: Scheme) -> None:
    d = shell.derivation(item, scheme)
    options: list[str] = scheme["correctness_options"]
    severities: list[dict] = scheme["severities"]
    sev_names = [s["name"] for s in severities]
    weight = {s["name"]: s["weight"] for s in severities}
    modes = stepreview.modes(scheme["error_types"])
    show_score = bool(scheme.get("show_score"))
    max_score = scheme.get("max_score", 100)
    text_key = scheme.get("step_text_key")
    kw = dict(show_score=show_score, severities=severities, max_score=max_score, options=options)

    prefix = ("traj", scheme.name, item.id)
    ann = shell.load(ws, item, scheme.name)
    stored = ann.value if ann else None
    agent_of = {s.index: s.agent for s in d.steps}
    matched, orphans = stepreview.reconcile(stored, agent_of, options)
    n_configured = len(modes)
    # A mode a saved label uses that the config no longer has stays choosable (never dropped silently).
    for e in matched.values():
        for x in e["errors"]:
            m = stepreview.Mode(x["type"], x["subtype"])
            if m not in modes:
                modes.append(m)
    mode_index = {m: i for i, m in enumerate(modes)}

    def current():
        return shell.stored_value(ws, item, scheme.name)

    def commit(value) -> None:
        shell.commit(ws, item, scheme, value, empty=stepreview.is_empty(value))

    def keys(i: int) -> dict[str, str]:
        return {f: widget_key(*prefix, i, f) for f in ("corr", "modes", "sev", "why")}

    def on_change(step, field: str):
        k = keys(step.index)

        def cb():
            corr = st.session_state.get(k["corr"])
            if field == "corr" and stepreview.is_correct(corr, options):
                st.session_state[k["modes"]] = []  # correct again: no modes, no severity
                st.session_state[k["sev"]] = None
            e = stepreview.entry(step.index, step.agent, corr,
                                 [modes[j] for j in st.session_state.get(k["modes"]) or []],
                                 st.session_state.get(k["sev"]), st.session_state.get(k["why"], ""), options)
            commit(stepreview.put(current(), e, **kw))
        return cb

    def reset(step):
        def cb():
            for key in keys(step.index).values():
                st.session_state.pop(key, None)
            commit(stepreview.drop(current(), step.index, **kw))
        return cb

    # --- score and summary ------------------------------------------------------------------------
    line = stepreview.summary(stored, len(d.steps), options)
    if show_score:
        sc = stepreview.score(stepreview.parse(stored, options), severities, max_score)
        st.markdown(f"**Score: {sc} / {max_score}** · {md(line)}")
        st.caption("The score starts at the maximum and adds each flagged step's severity weight "
                   "(" + md(", ".join(f"{n} {w:+g}" for n, w in weight.items())) + "), within 0 and the maximum.")
    else:
        st.caption(md(line))

    if not d.steps:
        st.info("This trace has no steps.")
    else:
        n = len(d.steps)
        k_page, k_jump = widget_key(*prefix, "page"), widget_key(*prefix, "jump")

        def jump():
            target = st.session_state.get(k_jump)
            if target is not None:
                st.session_state[k_page] = min(int(target), n - 1) // PAGE_SIZE

        page = pager(prefix, n, PAGE_SIZE, "Steps")
        if n > PAGE_SIZE:
            c1, _ = st.columns([2, 5])
            c1.number_input("Go to step", min_value=0, max_value=n - 1, value=None, step=1, key=k_jump,
                            on_change=jump, placeholder=f"0–{n - 1}")
        for step in d.steps[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]:
            _card(step, matched.get(step.index), keys(step.index), text_key, options, sev_names, weight,
                  modes, mode_index, on_change, reset, n_configured)

    if orphans:
        with st.expander(f":material/warning: {len(orphans)} saved step label(s) no longer match this trace "
                         "(the step is gone or another agent now takes it)", expanded=True):
            for o in orphans:
                c1, c2 = st.columns([4, 1], vertical_alignment="center")
                errs = "; ".join(stepreview.Mode(x["type"], x["subtype"]).label for x in o["errors"])
                c1.text(f"step {o['step_index']} · {o['agent']}: {o['correctness'] or 'not judged'}"
                        f"{' · ' + errs if errs else ''}{' · ' + o['severity'] if o['severity'] else ''}"
                        f"{' · ' + o['rationale'] if o['rationale'] else ''}")
                c2.button("Discard", key=widget_key(*prefix, "orphan", o["step_index"]),
                          on_click=lambda i=o["step_index"]: commit(stepreview.drop(current(), i, **kw)))

    def clean():
        shell.reviewed_clean(ws, item, scheme, stepreview.build([], **kw), forget=prefix)

    st.button("Reviewed, nothing to flag", key=widget_key(*prefix, "clean"), on_click=clean,
              help="Record that you went through the steps and found no failure "
                   "(removes any step labels given here)")


def _card(step, e, k, text_key, options, sev_names, weight, modes, mode_index, on_change, reset,
          n_configured) -> None:
    # a saved choice the config no longer offers stays visible and kept
    if e and e["correctness"] and e["correctness"] not in options:
        options = options + [e["correctness"]]
    if e and e["severity"] and e["severity"] not in sev_names:
        sev_names = sev_names + [e["severity"]]
    if k["corr"] not in st.session_state:
        st.session_state[k["corr"]] = e["correctness"] if e and e["correctness"] in options else None
    if k["modes"] not in st.session_state:
        chosen = [stepreview.Mode(x["type"], x["subtype"]) for x in (e["errors"] if e else [])]
        st.session_state[k["modes"]] = [mode_index[m] for m in chosen if m in mode_index]
    if k["sev"] not in st.session_state:
        st.session_state[k["sev"]] = e["severity"] if e and e["severity"] in sev_names else None
    if k["why"] not in st.session_state:
        st.session_state[k["why"]] = e["rationale"] if e else ""
    correct = stepreview.is_correct(st.session_state[k["corr"]], options)

    def mode_label(j: int) -> str:
        return modes[j].label if j < n_configured else f"{modes[j].label} (not configured)"

    def severity_label(s) -> str:
        if s is None:
            return "– no severity"
        return f"{s} ({weight[s]:+g})" if s in weight else f"{s} (not configured)"

    with st.container(border=True):
        state = "not judged yet" if not e else (e["correctness"] or "labelled")
        if e and e["errors"]:
            state += f", {len(e['errors'])} failure mode{'s' if len(e['errors']) != 1 else ''}"
        if e and e["severity"]:
            state += f", {e['severity']}"
        st.markdown(f"**Step {step.index}** · {agent_badge(step.agent)} · *{md(state)}*")
        text = step_text(step.raw, text_key)
        if not text:
            st.caption("(no text)")
        elif len(text) > COLLAPSE_AT:
            st.text(text[:300].rstrip() + " …")
            with st.expander(f"Full text ({len(text):,} characters)"):
                st.text(text)
        else:
            st.text(text)
        st.radio(f"Correctness of step {step.index}", options, key=k["corr"], horizontal=True,
                 on_change=on_change(step, "corr"), format_func=md)
        st.multiselect(f"Failure modes of step {step.index}", list(range(len(modes))), key=k["modes"],
                       format_func=mode_label, on_change=on_change(step, "modes"),
                       disabled=correct, placeholder="None" if correct else "Choose one or more modes",
                       help="A step marked correct has no failure modes" if correct else None)
        c1, c2 = st.columns([1, 2])
        c1.selectbox(f"Severity of step {step.index}", [None] + sev_names, key=k["sev"],
                     format_func=severity_label,
                     on_change=on_change(step, "sev"), disabled=correct, placeholder="– no severity")
        c2.text_input(f"Rationale for step {step.index}", key=k["why"], on_change=on_change(step, "why"),
                      placeholder="Why this judgement?")
        if e:
            st.button("Clear this step", key=k["corr"] + "\u241freset", on_click=reset(step),
                      help="Remove every label of this step")
