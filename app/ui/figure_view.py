"""The summary's Plotly figures, drawn by the page's own plotly.js (issue 31: no long task).

`st.plotly_chart` (Streamlit 1.67) loads Streamlit's bundled plotly.js, the full 4.7 MB build,
and evaluates it in one main-thread task of over a second on the summary's first load. This
small v2 component (in the page's DOM, keyed by its place) draws the same figure with the
vendored plotly.js of bars, scatter and heatmaps only (app/ui/vendor/README.md: a quarter of
the full build), loaded once per tab (app/ui/timeline_chart.PLOTLY_LOADER_JS).

A figure is drawn only once its box has a width: one in a tab not shown (st.tabs draws every
tab's content, hidden) is drawn when the tab is first opened, and redrawn to its width when the
page's width changes. An unchanged figure is not drawn again. The figure reaches the page as
JSON text (hidden characters shown, text.visible_json); its texts were escaped for Plotly when
it was built (app/summary/charts.e).
"""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app.ui.launch import PLOTLY_BUNDLE
from app.ui.state import element_key
from app.ui.timeline_chart import PLOTLY_LOADER_JS, figure_json

_JS = PLOTLY_LOADER_JS + """
const BUNDLE = '%s';
function draw(div) {
  const want = div.__want;
  if (!want || div.__drawn === want || div.clientWidth === 0) return;
  div.__drawn = want;
  plotly(BUNDLE).then((Plotly) => {
    div.__plotly = Plotly;
    if (div.__want !== want) return;  // a newer figure came while plotly.js loaded
    const fig = JSON.parse(want);
    const layout = Object.assign({}, fig.layout || {}, { autosize: true });
    layout.font = Object.assign({ family: getComputedStyle(div).fontFamily }, layout.font || {});
    return Plotly.react(div, fig.data || [], layout, { displaylogo: false, responsive: false });
  }).catch((e) => { div.textContent = 'This chart could not be drawn: ' + e.message; });
}
export default function(component) {
  const { data, parentElement } = component;
  let div = parentElement.querySelector(':scope > .baton-figure');
  if (!div) {
    div = document.createElement('div');
    div.className = 'baton-figure';
    div.setAttribute('role', 'img');
    parentElement.appendChild(div);
    let width = 0;
    // drawn when first shown (a tab opened), resized with the page
    new ResizeObserver(() => {
      if (div.clientWidth === width) return;
      width = div.clientWidth;
      if (div.__drawn !== div.__want) draw(div);
      else if (width && div.__plotly && div.classList.contains('js-plotly-plot')) div.__plotly.Plots.resize(div);
    }).observe(div);
  }
  div.setAttribute('aria-label', data.alt || '');
  div.style.minHeight = (data.height || 0) + 'px';  // its place kept while plotly.js loads
  div.__want = data.fig;
  draw(div);
}
""" % PLOTLY_BUNDLE

_component = st.components.v2.component("baton_figure", js=_JS, isolate_styles=False)


def figure(fig: go.Figure, key: str) -> None:
    """Draw `fig` in the place `key`, the width of its column."""
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else "chart"
    _component(key=element_key(key), data={"fig": figure_json(fig), "alt": title,
                                           "height": fig.layout.height or 450}, height="content")
