"""Showing untrusted trace text safely.

Streamlit never renders raw HTML unless asked, but labels, captions and markdown do
render Markdown: a trace could inject links, images or formatting. `md()` escapes
every Markdown-significant character so text stays text.
"""
from __future__ import annotations

import hashlib
import re

from app.traces.trace import one_line

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&=\"'/^])")
# Streamlit's Markdown colours; every agent gets one, always the same.
PALETTE = ["blue", "green", "orange", "violet", "red", "gray"]


def md(text: object, limit: int | None = None) -> str:
    """Escape text for use inside st.markdown / labels; newlines folded to spaces."""
    s = "" if text is None else str(text)
    s = s.replace("\x00", "").replace("\r", " ").replace("\n", " ")
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    return _MD_SPECIAL.sub(r"\\\1", s)


def excerpt(text: object, limit: int = 80) -> str:
    """A one-line plain-text excerpt (for selectbox options, which show plain text)."""
    return one_line(text, limit)


def agent_color(agent: str) -> str:
    h = int(hashlib.sha1(agent.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16)
    return PALETTE[h % len(PALETTE)]


def agent_badge(agent: str) -> str:
    """Agent name as escaped Markdown in its stable colour (the name carries the meaning)."""
    return f":{agent_color(agent)}[**{md(agent)}**]"


# For the v2 components' scripts: an element with a class and its text, put in as text (never
# HTML: everything a trace holds is untrusted).
EL_JS = """
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
"""
