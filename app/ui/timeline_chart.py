"""The contention timeline's chart: one Plotly instance kept across reruns and items.

`st.plotly_chart` in Streamlit 1.67 draws every new figure twice (its frontend applies the theme
again after mounting and hands Plotly a copy, which `Plotly.react` redraws in full: two
`plotly_afterplot` events 150-200 ms apart on each "Done → next" at 2,000 steps, whatever the
key). This small v2 component (in the page's DOM, keyed by its place) keeps one chart and hands
a new figure to `Plotly.react`: one drawing. An unchanged figure is not drawn again, so a click
leaves the chart as it is. A click on a bar or marker is reported as the point's `customdata`.

Drawn ahead: the page also hands over the figure the next item opens on (built by the prefetch,
app/ui/surfaces/tool_contention.warm). Once the page has been quiet for AHEAD_AFTER_MS, and the
browser is idle, it is drawn into a second chart that is laid out but unseen (hidden, clipped,
inert, aria-hidden); when "Done → next" brings that figure, the two swap and nothing is drawn
on the click (a new item's chart at 2,000 steps cost ~110 ms of the browser's time to draw).

plotly.js itself (a build of bars, scatter and heatmaps only, vendored in app/ui/vendor/: a
quarter of the full bundle's size; loaded once per tab) is served by Streamlit's static file
serving from `static/` beside the entry script; `app.ui.launch` puts it there and turns the
serving on.
"""
from __future__ import annotations

import plotly.io as pio
import streamlit as st

from app.ui.launch import PLOTLY_BUNDLE  # in static/, served at app/static/
from app.ui.state import element_key, trigger
from app.ui.text import visible_json

AHEAD_AFTER_MS = 300  # quiet time after new data before the next item's chart is drawn unseen

# plotly(bundle): one of app.ui.launch.PLOTLY_FILES, loaded once per tab and kept as its own
# instance (window.Plotly is whichever loaded last), for this chart and the summary's
# (app/ui/figure_view.py)
PLOTLY_LOADER_JS = """
function plotly(bundle) {
  const loaded = window.__batonPlotly = window.__batonPlotly || {};
  if (!loaded[bundle]) {
    loaded[bundle] = new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = new URL('app/static/' + bundle, document.baseURI).href;
      // (handed over in a task of its own: evaluating plotly.js and the first drawing are two
      // tasks of the browser's main thread, not one long one)
      s.onload = () => { const Plotly = window.Plotly; setTimeout(() => resolve(Plotly), 0); };
      s.onerror = () => { loaded[bundle] = null; reject(new Error('plotly.js did not load')); };
      document.head.appendChild(s);
    });
  }
  return loaded[bundle];
}
"""

_JS = PLOTLY_LOADER_JS + """
const AHEAD_AFTER_MS = %d;
const BUNDLE = '%s';
function chart(box) {
  const div = document.createElement('div');
  div.className = 'baton-timeline';
  div.setAttribute('role', 'img');
  box.appendChild(div);
  return div;
}
function show(div, shown) {
  // the chart drawn ahead is laid out at full width (Plotly measures it) but unseen, out of the
  // flow, out of the tab order and of the accessibility tree; clipped away too, as Plotly's drag
  // layer takes pointer events even where it is hidden (SVG pointer-events: all)
  for (const [k, v] of Object.entries({position: 'absolute', top: '0', left: '0', right: '0',
                                       visibility: 'hidden', clipPath: 'inset(50%%)', pointerEvents: 'none'})) {
    div.style[k] = shown ? '' : v;
  }
  div.inert = !shown;
  if (shown) div.removeAttribute('aria-hidden'); else div.setAttribute('aria-hidden', 'true');
}
function draw(box, div, figText, config) {
  div.__fig = figText;
  div.__drawn = null;
  return plotly(BUNDLE).then((Plotly) => {
    if (div.__fig !== figText) return;  // a newer figure came while plotly.js loaded
    const fig = JSON.parse(figText);
    const style = getComputedStyle(box);
    const layout = Object.assign({ paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)',
      font: { family: style.fontFamily, color: style.color, size: 13 } }, fig.layout || {});
    for (const ax of ['xaxis', 'yaxis']) {
      layout[ax] = Object.assign({ gridcolor: 'rgba(128,128,128,0.2)', zerolinecolor: 'rgba(128,128,128,0.3)' },
                                 layout[ax] || {});
    }
    const first = !div.classList.contains('js-plotly-plot');
    return Promise.resolve(Plotly.react(div, fig.data || [], layout, Object.assign({ responsive: true }, config)))
      .then(() => {
        if (div.__fig === figText) div.__drawn = figText;
        if (first) div.on('plotly_click', (ev) => {
          const points = (ev.points || []).filter((p) => p.customdata !== undefined)
            .map((p) => ({ customdata: p.customdata }));
          if (points.length) box.__baton.setTriggerValue('click', points);
        });
      });
  }).catch((e) => { div.textContent = 'The timeline could not be drawn: ' + e.message; });
}
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  let box = parentElement.querySelector(':scope > .baton-timeline-box');
  if (!box) {
    box = document.createElement('div');
    box.className = 'baton-timeline-box';
    box.style.position = 'relative';
    box.style.overflow = 'clip';  // the unseen chart (maybe taller: more lanes) adds no scrolling
    parentElement.appendChild(box);
  }
  box.__baton = { setTriggerValue };
  const config = data.config || {};
  let front = box.querySelector(':scope > .baton-timeline:not([aria-hidden])') || chart(box);
  let back = box.querySelector(':scope > .baton-timeline[aria-hidden]');
  if (front.__fig !== data.fig && back && back.__drawn === data.fig) {
    // the next item's chart, drawn ahead: shown as it is, no drawing on the click
    show(back, true);
    show(front, false);
    [front, back] = [back, front];
  }
  front.setAttribute('aria-label', data.alt || '');
  if (front.__fig !== data.fig) draw(box, front, data.fig, config);
  clearTimeout(box.__ahead);
  const run = box.__run = (box.__run || 0) + 1;  // an older run's drawing ahead is dropped
  // (box.__pending: a drawing ahead is due; the browser benchmark waits for it before a click)
  box.__pending = !!data.ahead && data.ahead !== data.fig && !(back && back.__drawn === data.ahead);
  if (box.__pending) {
    // drawn once the page has been quiet a while and the browser is idle, never before what is
    // on screen
    box.__ahead = setTimeout(() => {
      const go = () => {
        if (box.__run !== run) return;
        if (!back) { back = chart(box); show(back, false); }
        const done = () => { if (box.__run === run) box.__pending = false; };
        if (back.__fig !== data.ahead) draw(box, back, data.ahead, config).then(done); else done();
      };
      if (window.requestIdleCallback) requestIdleCallback(go, { timeout: 1000 }); else go();
    }, AHEAD_AFTER_MS);
  }
}
""" % (AHEAD_AFTER_MS, PLOTLY_BUNDLE)

_component = st.components.v2.component("baton_timeline", js=_JS, isolate_styles=False)


def figure_json(fig) -> str:
    """A figure as the component takes it (JSON text: equal figures, equal texts), hidden
    characters in its names shown (text.visible_json)."""
    return visible_json(pio.to_json(fig, validate=False))


def draw(fig: str, key: str, on_click, alt: str, config: dict | None = None, ahead: str | None = None) -> None:
    """Draw `fig` (figure_json()) in the place `key`; `on_click()` runs on a click on a point
    (read the points with `clicked(key)`). `ahead`, the figure most likely drawn next (the next
    item's), is drawn unseen once the page is quiet, and shown without drawing when it comes."""
    _component(key=element_key(key), data={"fig": fig, "ahead": ahead, "alt": alt, "config": config or {}},
               on_click_change=on_click, height="content")


def clicked(key: str) -> list[dict]:
    """The points of the last click on the chart in `key` (each with its `customdata`)."""
    points = trigger(key, "click")
    return [p for p in points if isinstance(p, dict)] if isinstance(points, list) else []
