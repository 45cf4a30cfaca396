"""Rollout evaluation: per rollout (stream), its breaks (time in seconds, violation type,
severity, note) or "no breaks"; the preferred rollout with its rubric; the counterfactual
verdict when the item has an intervention. Videos are not played: each stream's field is shown
as text. Streams are named A, B, C in a per-annotator order when `blind` / `shuffle` (as in
Potato); stored values name stream ids. Each change saves at once."""
from __future__ import annotations

import hashlib

import streamlit as st

from app.project.config import Scheme
from app.project.workspace import Workspace
from app.traces.trace import Item
from app.types import rollout_evaluation as rollout
from app.ui import shell
from app.ui.state import widget_key
from app.ui.text import excerpt, md, visible


def panel_order(scheme: Scheme, who: str, item_id: str) -> list[dict]:
    """The streams in this annotator's order for this item (the same every time they return)."""
    streams = list(scheme["streams"])
    if scheme.get("shuffle", True):
        streams.sort(key=lambda s: hashlib.sha256(f"{who}\x1f{item_id}\x1f{s['id']}".encode()).hexdigest())
    return streams


def render(ws: Workspace, item: Item, scheme: Scheme) -> None:
    who = shell.annotator() or ""
    streams = panel_order(scheme, who, item.id)
    shown = {s["id"]: (chr(ord("A") + i) if scheme.get("blind", True) else s["name"]) for i, s in enumerate(streams)}
    on = scheme.get("layers") or rollout.LAYERS
    value = rollout.parse(shell.stored_value(ws, item, scheme.name))
    base = ("ro", scheme.name, item.id)

    def current() -> dict:
        return rollout.parse(shell.stored_value(ws, item, scheme.name))

    def save(**parts) -> None:
        shell.commit(ws, item, scheme, rollout.changed(current(), **parts))

    prompt = item.data.get(scheme.get("prompt_field", "prompt"))
    if isinstance(prompt, str) and prompt:
        st.text(visible(prompt))
    st.caption("Videos are not played here: each rollout's file is named below; times are in seconds.")
    if "violations" in on:
        answered = {m["stream"] for m in value["violations"]} | set(value["clean"])
        st.caption(f"{len(answered & set(shown))} of {len(streams)} rollouts answered")
        for s in streams:
            _stream(s, shown[s["id"]], scheme, value, base, current, save, item)
    if "preference" in on:
        _preference(streams, shown, scheme, value, base, current, save)
    intervention = item.data.get(scheme.get("intervention_field", "intervention"))
    if "counterfactual" in on and intervention:
        st.markdown("**Counterfactual**")
        st.text(visible(f"Intervention: {intervention}"
                        + (f" at {item.data.get(scheme.get('intervention_time_field'))} s"
                           if item.data.get(scheme.get("intervention_time_field")) is not None else "")))
        k = widget_key(*base, "cf")
        st.session_state.setdefault(k, value["counterfactual"].get("verdict"))
        st.radio("Does the divergence follow from the intervention?", scheme["cf_verdicts"], index=None, key=k,
                 horizontal=True, format_func=md,
                 on_change=lambda: save(counterfactual={**current()["counterfactual"], "verdict": st.session_state[k]}))


def _stream(s, name, scheme, value, base, current, save, item) -> None:
    sid = s["id"]
    marks = [m for m in value["violations"] if m["stream"] == sid]
    clean = sid in value["clean"]
    with st.container(border=True):
        st.markdown(f"**Rollout {md(name)}**" + (" · no breaks" if clean else f" · {len(marks)} break(s)"))
        st.text(excerpt(item.data.get(s["field"], "(no such field in this item)"), 200))
        for i, m in enumerate(marks):
            row = st.container(horizontal=True, vertical_alignment="center")
            sev = {x["value"]: x["name"] for x in scheme["severities"]}.get(m["severity"], "")
            row.text(f"{m['t']:g} s · {m['type']}" + (f" · {sev}" if sev else "") + (f" · {m['note']}" if m["note"] else ""))
            row.button("Remove", key=widget_key(*base, sid, "remove", i),
                       on_click=lambda m=m: save(violations=[x for x in current()["violations"] if x != m]))
        k = {f: widget_key(*base, sid, f) for f in ("t", "type", "sev", "note")}
        row = st.container(horizontal=True, vertical_alignment="bottom")
        row.number_input(f"Break of {md(name)} at (s)", min_value=0.0, step=0.1, value=None, key=k["t"], width=160)
        row.selectbox(f"Violation of {md(name)}", scheme["violation_types"], index=None, key=k["type"], width=220,
                      format_func=md)
        row.selectbox(f"Severity of {md(name)}", [x["value"] for x in scheme["severities"]], index=None, key=k["sev"],
                      width=180, format_func=lambda x: md({y["value"]: y["name"] for y in scheme["severities"]}[x]))
        st.text_input(f"Note on this break of {md(name)}", key=k["note"])

        def mark():
            t, kind = st.session_state.get(k["t"]), st.session_state.get(k["type"])
            if t is None or kind is None:
                st.session_state[widget_key(*base, sid, "why")] = "Give the break's time and violation type first."
                return
            st.session_state.pop(widget_key(*base, sid, "why"), None)
            now = current()
            new = {"stream": sid, "t": float(t), "type": kind, "severity": st.session_state.get(k["sev"]),
                   "note": st.session_state.get(k["note"], "")}
            save(violations=now["violations"] + [new], clean=[c for c in now["clean"] if c != sid])
            for f in k.values():
                st.session_state.pop(f, None)

        def no_breaks():
            now = current()
            save(violations=[m for m in now["violations"] if m["stream"] != sid], clean=now["clean"] + [sid])

        row = st.container(horizontal=True)
        row.button("Mark this break", key=widget_key(*base, sid, "mark"), on_click=mark)
        row.button("No breaks", key=widget_key(*base, sid, "clean"), on_click=no_breaks, disabled=clean,
                   help="Record that you watched this rollout and found nothing wrong (this removes its breaks)")
        if st.session_state.get(widget_key(*base, sid, "why")):
            st.warning(st.session_state[widget_key(*base, sid, "why")])


def _preference(streams, shown, scheme, value, base, current, save) -> None:
    st.markdown("**Preference**")
    k = widget_key(*base, "winner")
    st.session_state.setdefault(k, value["preference"].get("winner"))
    st.radio("Which rollout is best?", [s["id"] for s in streams], index=None, key=k, horizontal=True,
             format_func=lambda sid: md(shown[sid]),
             on_change=lambda: save(preference={**current()["preference"], "winner": st.session_state[k]}))
    for d, about in (scheme.get("rubric") or {}).items():
        kd = widget_key(*base, "rubric", d)
        st.session_state.setdefault(kd, (value["preference"].get("rubric") or {}).get(d))

        def scored(d=d, kd=kd):
            pref = current()["preference"]
            rubric = {**(pref.get("rubric") or {}), d: st.session_state[kd]}
            save(preference={**pref, "rubric": {x: y for x, y in rubric.items() if y is not None}})

        st.radio(md(f"{d}: {about}" if about else d), [1, 2, 3, 4, 5], index=None, key=kd, horizontal=True,
                 on_change=scored)
