"""Handoff review: one card per handoff, and the stored list of judged handoffs.

Stored value (the `value` of a `handoff_review` row): a list, sorted by index (then step), of

    {"index": i, "step": s, "from": A, "to": B, "flags": [flag, ...], "quality": q | None}

for the handoffs the annotator touched; `index` is the handoff's position among the trace's
handoffs, `step` the first step of the receiving agent (the trace view's step number), and
`quality` is 1..quality_scale or None when not rated. A handoff with no flag and no rating is
not listed. An entry is attached to a card only when index, step, from and to all agree, so
labels made on other data are never shown on a different handoff; they are kept (and
reported) until the annotator judges the handoff now at that index.

No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from app.traces.derive import Derivation, Handoff
from app.paging import page_count
from app.traces.trace import Step
from app.project import validators as v
from app.types.base import AnnotationType, Key

EXCERPT = 280


@dataclass(frozen=True)
class Card:
    handoff: Handoff
    last_of_src: Step  # the sending agent's last step before the handoff
    first_of_dst: Step  # the receiving agent's first step

    @property
    def index(self) -> int:
        return self.handoff.index


def cards(d: Derivation) -> list[Card]:
    by_index = {s.index: s for s in d.steps}
    out = []
    for h in d.handoffs:
        first = by_index[h.step]
        last = by_index[h.step - 1]
        out.append(Card(h, last, first))
    return out


def excerpt(text: str, limit: int = EXCERPT) -> tuple[str, bool]:
    """(shown text, whether it was cut) — whitespace kept, cut at a word if one is near.

    Reads only around the cut: a handoff card is built on every rerun, and stripping a 50 MB
    step copied it each time (~40 ms). The result is that of cutting the whole stripped text."""
    s = text or ""
    lead = _leading_space(s)
    if len(s) - lead <= limit or _only_space(s, lead + limit):
        # all of it fits once the white space around it is gone (after lead + limit there is none else)
        return s[lead:lead + limit].rstrip(), False
    cut = s[lead:lead + limit]  # (the stripped text is longer than limit: it starts the same)
    space = cut.rfind(" ")
    if space > limit * 0.7:
        cut = cut[:space]
    return cut.rstrip() + " …", True


def _leading_space(s: str) -> int:
    """How many white space characters `s` starts with, reading prefixes that grow as needed."""
    n = 256
    while True:
        head = s[:n]
        kept = len(head.lstrip())
        if kept or n >= len(s):
            return len(head) - kept
        n *= 4


def _only_space(s: str, start: int) -> bool:
    """Whether `s` holds only white space from `start` on, reading up to its first other character."""
    n = 256
    while start < len(s):
        if not s[start:start + n].isspace():
            return False
        start += n
        n *= 4
    return True


# --- the stored value ----------------------------------------------------------------------------

def _entry(h: Handoff, flags: list[str], quality: int | None) -> dict:
    return {"index": h.index, "step": h.step, "from": h.src, "to": h.dst, "flags": list(flags),
            "quality": quality}


def table_rows(value: Any) -> list[tuple]:
    """The well-formed entries of a stored value as (index, step, from, to, flags, quality)
    tuples (flags a tuple, each flag once), sorted by index and step; anything else is
    dropped. The one reading of a stored value (parse() builds on it): the summary spreads
    these rows straight into its tables."""
    if not isinstance(value, list):
        return []
    out = []
    for e in value:
        if not isinstance(e, dict):
            continue
        idx, step, src, dst = e.get("index"), e.get("step"), e.get("from"), e.get("to")
        if not _is_int(idx) or not _is_int(step) or not isinstance(src, str) or not isinstance(dst, str):
            continue
        flags = e.get("flags")
        flags = tuple(dict.fromkeys([str(f) for f in flags])) if isinstance(flags, list) else ()
        q = e.get("quality")
        out.append((int(idx), int(step), src, dst, flags, int(q) if _is_int(q) else None))
    out.sort(key=_by_index_and_step)
    return out


def _by_index_and_step(row: tuple) -> tuple:
    return row[0], row[1]


def parse(value: Any) -> list[dict]:
    """The well-formed entries of a stored value, sorted by index and step (anything else is dropped)."""
    return [{"index": i, "step": s, "from": a, "to": b, "flags": list(f), "quality": q}
            for i, s, a, b, f, q in table_rows(value)]


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def matches(entry: dict, h: Handoff) -> bool:
    return (entry.get("index"), entry.get("step"), entry.get("from"), entry.get("to")) == (
        h.index, h.step, h.src, h.dst)


def entry_for(value: Any, h: Handoff) -> dict | None:
    """The saved entry of this very handoff (same index, step and agents), if any."""
    return next((e for e in parse(value) if matches(e, h)), None)


def stale_entries(value: Any, handoffs: Iterable[Handoff]) -> list[dict]:
    """Saved entries that match no handoff of the current trace (made on other data)."""
    hs = list(handoffs)
    return [e for e in parse(value) if not any(matches(e, h) for h in hs)]


def is_touched(entry: dict) -> bool:
    return bool(entry.get("flags")) or entry.get("quality") is not None


def update(value: Any, h: Handoff, flags: Iterable[str], quality: int | None,
           known_flags: Iterable[str] = ()) -> list[dict]:
    """The value after judging handoff `h`: its entry replaced (or dropped when untouched).

    `flags` are the configured flags now ticked, kept in config order; flags of the old
    entry that the config no longer has are kept. Any other entry at the same index (made
    on other data) is replaced too.
    """
    known = list(dict.fromkeys(known_flags))
    ticked = set(flags)
    if not known:
        known = list(dict.fromkeys(flags))
    old = entry_for(value, h)
    kept = [f for f in (old["flags"] if old else []) if f not in known]
    new_flags = [f for f in known if f in ticked] + kept
    if quality is not None and not _is_int(quality):
        raise ValueError(f"quality must be an integer or None, got {quality!r}")
    entries = [e for e in parse(value) if e["index"] != h.index]
    entry = _entry(h, new_flags, quality)
    if is_touched(entry):
        entries.append(entry)
    entries.sort(key=lambda x: (x["index"], x["step"]))
    return entries


def counts(value: Any, handoffs: Iterable[Handoff]) -> tuple[int, int]:
    """(handoffs judged, handoffs flagged) among the current trace's handoffs."""
    judged = flagged = 0
    for h in handoffs:
        e = entry_for(value, h)
        if e:
            judged += 1
            flagged += bool(e["flags"])
    return judged, flagged




def page_slice(n: int, page: int, size: int) -> tuple[int, int]:
    """[start, end) of a page, the page clamped into range."""
    page = min(max(page, 0), page_count(n, size) - 1)
    return page * size, min(n, (page + 1) * size)


TYPE = AnnotationType(
    name="handoff_review", title="Handoff review", page="pages/handoff_review.py", trace=True,
    keys={"flags": Key(v.string_list(1), default=["info_loss", "dropped_constraint", "garbling", "goal_drift"]),
          "quality_scale": Key(v.integer(2, 10), default=5)})
