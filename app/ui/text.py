"""Showing untrusted trace and config text safely.

Streamlit never renders raw HTML unless asked, but labels, captions, radio options, help
tooltips and markdown do render Markdown: a trace or a project could inject links, images
(which the browser would fetch), colours or KaTeX. `md()` escapes every Markdown-significant
character so text stays text. `visible()` shows the invisible characters that reorder or hide
text (bidi overrides, zero-width characters) as escapes, so two different names never look
the same; md() and excerpt() apply it.
"""
from __future__ import annotations

import re

from app.traces.palette import agent_colour
from app.traces.trace import one_line

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&=\"'/^])")
# bidi embeddings and overrides (U+202A-U+202E), isolates (U+2066-U+2069), zero-width space,
# joiners and marks (U+200B-U+200F), word joiner (U+2060), byte-order mark (U+FEFF)
_HIDDEN = re.compile("[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]")
# where Streamlit's Markdown would make a link of plain text: a scheme's "://", "www.", "@"
_AUTOLINK = re.compile(r":(?=//)|\bwww(?=\.)|(?=@)", re.IGNORECASE)


def visible(text: object) -> str:
    """The text with every character that reorders or hides text shown as `\\uXXXX`."""
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", "" if text is None else str(text))


def visible_json(text: str) -> str:
    """JSON text whose strings show hidden characters as `\\uXXXX` (raw ones can only be inside
    strings: JSON allows no others outside them), for a chart's names and hover texts."""
    return _HIDDEN.sub(lambda m: f"\\\\u{ord(m.group()):04x}", text)


def md(text: object, limit: int | None = None) -> str:
    """Escape text for use inside st.markdown / labels; newlines folded to spaces, hidden
    characters shown (visible). A colon becomes `&#58;` (a backslash-escaped one still made
    `:material/x:` an icon), and a word joiner (U+2060, invisible) goes into `://`, `www.` and
    before `@`: Streamlit links bare URLs and e-mail addresses in text however escaped."""
    s = visible(text)
    s = s.replace("\x00", "").replace("\r", " ").replace("\n", " ")
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    s = _AUTOLINK.sub(lambda m: m.group() + "\u2060", s)
    return _MD_SPECIAL.sub(lambda m: "&#58;" if m.group(1) == ":" else "\\" + m.group(1), s)


def excerpt(text: object, limit: int = 80) -> str:
    """A one-line plain-text excerpt (for selectbox options, which show plain text), hidden
    characters shown (visible)."""
    return visible(one_line(text, limit))


def agent_color(agent: str) -> str:
    """The agent's colour name (app/traces/palette.py: the same on every page)."""
    return agent_colour(agent)


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
