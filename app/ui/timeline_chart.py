"""The contention timeline's chart: one Plotly instance kept across reruns and items.

`st.plotly_chart` in Streamlit 1.67 draws every new figure twice (its frontend applies the theme
again after mounting and hands Plotly a copy, which `Plotly.react` redraws in full: two
`plotly_afterplot` events 150-200 ms apart on each "Done → next" at 2,000 steps, whatever the
key). This small v2 component (in the page's DOM, keyed by its place) keeps one chart and hands
a new figure to `Plotly.react`: one drawing. An unchanged figure is not drawn again, so a click
leaves the chart as it is. A click on a bar or marker is reported as the point's `customdata`.

plotly.js itself (the copy the plotly package ships, loaded once per tab) is served by
Streamlit's static file serving from `static/` beside the entry script; `app.ui.launch` puts it
there and turns the serving on.
"""
from __future__ import annotations

import plotly.io as pio
import streamlit as st

from .launch import PLOTLY_JS  # in static/, served at app/static/

_JS = """
function plotly() {
  if (!window.__batonPlotly) {
    window.__batonPlotly = window.Plotly ? Promise.resolve(window.Plotly) : new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = new URL('app/static/%s', document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => { window.__batonPlotly = null; reject(new Error('plotly.js did not load')); };
      document.head.appendChild(s);
    });
  }
  return window.__batonPlotly;
}
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  let div = parentElement.querySelector(':scope > .baton-timeline');
  if (!div) {
    div = document.createElement('div');
    div.className = 'baton-timeline';
    div.setAttribute('role', 'img');
    parentElement.appendChild(div);
  }
  div.setAttribute('aria-label', data.alt || '');
  div.__baton = { setTriggerValue };
  if (div.__fig === data.fig) return;
  div.__fig = data.fig;
  plotly().then((Plotly) => {
    if (div.__fig !== data.fig) return;  // a newer figure came while plotly.js loaded
    const fig = JSON.parse(data.fig);
    const style = getComputedStyle(parentElement);
    const layout = Object.assign({ paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)',
      font: { family: style.fontFamily, color: style.color, size: 13 } }, fig.layout || {});
    for (const ax of ['xaxis', 'yaxis']) {
      layout[ax] = Object.assign({ gridcolor: 'rgba(128,128,128,0.2)', zerolinecolor: 'rgba(128,128,128,0.3)' },
                                 layout[ax] || {});
    }
    const config = Object.assign({ responsive: true }, data.config || {});
    const first = !div.classList.contains('js-plotly-plot');
    const drawn = Plotly.react(div, fig.data || [], layout, config);
    if (first) {
      Promise.resolve(drawn).then(() => div.on('plotly_click', (ev) => {
        const points = (ev.points || []).filter((p) => p.customdata !== undefined)
          .map((p) => ({ customdata: p.customdata }));
        if (points.length) div.__baton.setTriggerValue('click', points);
      }));
    }
  }).catch((e) => { div.textContent = 'The timeline could not be drawn: ' + e.message; });
}
""" % PLOTLY_JS

_component = st.components.v2.component("baton_timeline", js=_JS, isolate_styles=False)


def draw(fig, key: str, on_click, alt: str, config: dict | None = None) -> None:
    """Draw `fig` (a plotly Figure) in the place `key`; `on_click()` runs on a click on a point
    (read the points with `clicked(key)`)."""
    _component(key=key, data={"fig": pio.to_json(fig, validate=False), "alt": alt, "config": config or {}},
               on_click_change=on_click, height="content")


def clicked(key: str) -> list[dict]:
    """The points of the last click on the chart in `key` (each with its `customdata`): the
    component's state is a dict holding its "click" trigger."""
    value = st.session_state.get(key)
    points = value.get("click") if isinstance(value, dict) else None
    return [p for p in points if isinstance(p, dict)] if isinstance(points, list) else []
