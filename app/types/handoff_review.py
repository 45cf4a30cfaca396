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

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import pandas as pd

from app.paging import page_count
from app.project import validators as v
from app.stats.agreement import Disagreements, judgements as judgements_of, nominal, ordinal, show_number, show_set
from app.stats.counting import in_order, sorted_keys
from app.traces.derive import Derivation, Handoff
from app.traces.trace import Step
from app.types import checks as c
from app.types.base import AnnotationType, Key, Scheme
from app.types.panel import SchemeRows

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


# --- the summary -------------------------------------------------------------------------------

SCORE_GAP = 2  # qualities this far apart are listed as a disagreement
MATCHED_ON = ["item_id", "annotator", "index", "step", "src", "dst"]  # an entry names its handoff by these


def looks_like(value: Any) -> bool:
    return isinstance(value, list)


def rows(value: Any, scheme: Scheme) -> list[dict]:
    """A row per well-formed entry (table_rows): index, step, src, dst, flags (a tuple), quality."""
    return [{"index": index, "step": step, "src": src, "dst": dst, "flags": flags, "quality": quality}
            for index, step, src, dst, flags, quality in table_rows(value)]


def judgements(scheme_rows: SchemeRows) -> tuple[pd.DataFrame, int]:
    """One row per (item, annotator, handoff of the item's trace now) the annotator reviewed:
    item_id, annotator, index, step, src, dst, flags (a tuple, empty where the entry is missing
    or flags nothing), quality (NaN: not rated) and flagged; and how many stored entries match
    no handoff of the trace (stale: made on other data, or in a review without its item or
    annotator).

    A review is a judgement row: one with no entry (reviewed clean, or every handoff left
    alone) judged each handoff of its item unflagged and unrated. An entry counts on the
    handoff at its index only while the step and both agents are the same."""
    if "handoff_judgements" not in scheme_rows.extra:  # (the rollup, agreement and interaction read it)
        scheme_rows.extra["handoff_judgements"] = _judgements(scheme_rows)
    return scheme_rows.extra["handoff_judgements"]


def _judgements(scheme_rows: SchemeRows) -> tuple[pd.DataFrame, int]:
    judged = scheme_rows.judged
    table = scheme_rows.table
    # each entry under the handoff it names (a value naming one handoff twice: both count)
    named: dict[tuple, list[tuple]] = {}
    if len(table) and "flags" in table:
        for key, flags, quality in zip(zip(*(table[c].tolist() for c in MATCHED_ON)), table["flags"].tolist(),
                                       table["quality"].tolist()):
            named.setdefault(key, []).append((flags, quality))
    unjudged = [((), None)]
    spread: list[tuple] = []  # (item, annotator, index, step, src, dst, flags, quality) per judgement
    matched = 0
    for item, annotator in zip(judged["item_id"].tolist(), judged["annotator"].tolist()):
        # (a row without its item or annotator is nobody's review: its entries count as stale)
        if item is None or annotator is None or item != item or annotator != annotator:
            continue
        d = scheme_rows.derive(item)
        for handoff in (zip(*d.handoff_columns) if d is not None else ()):  # (index, step, src, dst)
            key = (item, annotator, *handoff)
            entries = named.get(key)
            matched += len(entries) if entries else 0
            spread += [key + entry for entry in (entries or unjudged)]
    columns = list(zip(*spread)) if spread else [()] * (len(MATCHED_ON) + 2)
    found = pd.DataFrame({name: pd.Series(values, dtype=np.int64 if name in ("index", "step") else object)
                          for name, values in zip(MATCHED_ON + ["flags"], columns)})
    found["quality"] = pd.to_numeric(pd.Series(columns[-1], dtype=object), errors="coerce").astype(np.float64)
    found["flagged"] = np.asarray([bool(f) for f in found["flags"]], dtype=bool)
    return found, len(table) - matched


def rollup(scheme_rows: SchemeRows) -> dict:
    """Per ordered pair of agents its handoffs reviewed, flagged and rated, the mean quality;
    per pair and flag how often it was raised; the stale entries."""
    found, stale = judgements(scheme_rows)
    pairs = list(zip(found["src"].tolist(), found["dst"].tolist()))
    flags, quality = found["flags"].tolist(), found["quality"].tolist()
    reviewed = Counter(pairs)
    flagged = Counter(pair for pair, raised in zip(pairs, flags) if raised)
    rated = Counter(pair for pair, q in zip(pairs, quality) if q == q)
    quality_sum: Counter = Counter()
    for pair, q in zip(pairs, quality):
        if q == q:  # (NaN: not rated)
            quality_sum[pair] += q
    raised = Counter((a, b, flag) for (a, b), each in zip(pairs, flags) for flag in each)
    in_pair_order = sorted_keys(reviewed)
    out = [{"src": a, "dst": b, "handoffs_reviewed": reviewed[(a, b)], "flagged": flagged[(a, b)],
            "rated": rated[(a, b)], "mean_quality": quality_sum[(a, b)] / rated[(a, b)] if rated[(a, b)] else None,
            "flag_rate": flagged[(a, b)] / reviewed[(a, b)]} for a, b in in_pair_order]
    seen = in_order(scheme_rows.scheme.get("flags"), {flag for _a, _b, flag in raised})
    per_flag = [{"src": a, "dst": b, "flag": flag, "count": raised[(a, b, flag)],
                 "rate": raised[(a, b, flag)] / reviewed[(a, b)]} for a, b in in_pair_order for flag in seen]
    return {"pairs": out, "flags": per_flag, "stale": stale}


def agreement(scheme_rows: SchemeRows, disagreements: Disagreements) -> dict:
    """Per flag, whether each annotator raised it on each handoff (nominal); the set of flags
    (disagreements only) and the quality (ordinal alpha) of each handoff."""
    panel = scheme_rows.panel
    found, _stale = judgements(scheme_rows)
    given = panel.members(found)
    # units: the handoffs, in item then index order, each named by its first judgement
    handoffs = list(zip(given["item"].tolist(), given["index"].tolist()))
    agents = dict(zip(handoffs, zip(given["src"].tolist(), given["dst"].tolist())))  # (one per handoff)
    code = {handoff: at for at, handoff in enumerate(sorted(agents))}
    unit = np.asarray([code[handoff] for handoff in handoffs], dtype=np.int64)
    named = [(panel.items[item], "handoff {} ({} → {})".format(index, *agents[(item, index)]))
             for item, index in sorted(agents)]

    raters = given["rater"].to_numpy(dtype=object)
    seen = {flag for flags in given["flags"] for flag in flags}
    per_flag = {flag: nominal(judgements_of(unit, raters, [flag in flags for flags in given["flags"]]))
                for flag in in_order(scheme_rows.scheme.get("flags"), seen)}
    sets = judgements_of(unit, raters, [tuple(sorted(flags)) for flags in given["flags"]])
    rated = given["quality"].notna().to_numpy(dtype=bool)
    quality = judgements_of(unit[rated], raters[rated], given["quality"].to_numpy()[rated])
    disagreements.add(sets, named.__getitem__, "handoff flags", show_set)
    disagreements.add(quality, lambda at: (named[at][0], named[at][1] + " quality"), "handoff quality",
                      show_number, gap=SCORE_GAP)
    return {"flags": per_flag, "quality": ordinal(quality)}


def objects(value: Any, derivation: Derivation | None) -> Any:
    """The handoff at each entry's index as the trace is now, and whether the entry still names it."""
    if derivation is None or not isinstance(value, list):
        return None
    handoffs = {h.index: h for h in derivation.handoffs}
    out = {}
    for e in value:
        if isinstance(e, dict) and isinstance(e.get("index"), int):
            h = handoffs.get(e["index"])
            out[str(e["index"])] = None if h is None else {
                "step": h.step, "from": h.src, "to": h.dst,
                "matches": (e.get("step"), e.get("from"), e.get("to")) == (h.step, h.src, h.dst)}
    return {"handoffs": out}


ENTRY_KEYS = ["index", "step", "from", "to", "flags", "quality"]


def validate(value: Any, scheme: Scheme, derivation: Derivation | None) -> list[str]:
    """Each entry names a handoff of the run (its index, step and agents as the run has them),
    once; flags among the scheme's, quality within 1..quality_scale (or not rated)."""
    if not isinstance(value, list):
        return [c.shape(value, list)]
    handoffs = None if derivation is None else derivation.handoffs
    flags, scale = list(scheme.get("flags") or []), int(scheme.get("quality_scale") or 5)
    out: list[str] = []
    for what, e, i in c.entries(value, None if handoffs is None else len(handoffs), ENTRY_KEYS, "handoff",
                                "handoffs", out):
        if i is not None:
            out += c.gather(c.integer(e.get("step"), f"{what}: step", 0))
            if handoffs is not None:
                h = handoffs[i]
                if (e.get("step"), e.get("from"), e.get("to")) != (h.step, h.src, h.dst):
                    out.append(f"{what}: handoff {i} of this run is {c.show(h.src)} → {c.show(h.dst)} at step "
                               f"{h.step}, not {c.show(e.get('from'))} → {c.show(e.get('to'))} at step "
                               f"{c.show(e.get('step'))}")
        given = e.get("flags", [])
        if not isinstance(given, list):
            out.append(c.shape(given, list, f"{what}: flags"))
        else:
            out += c.gather(*(c.one_of(f, flags, f"{what}: flag") for f in given))
        if e.get("quality") is not None:
            out += c.gather(c.integer(e["quality"], f"{what}: quality", 1, scale))
    return out


def parts(value: Any, scheme: Scheme) -> dict:
    """Per handoff: which handoff it is (step and agents), each flag raised, the quality."""
    found: dict = {}
    for index, step, src, dst, flags, quality in table_rows(value):
        found[("handoff", index, "at")] = (step, src, dst)
        found.update({("handoff", index, "flag", f): True for f in flags})
        if quality is not None:
            found[("handoff", index, "quality")] = quality
    return found


def join(fields: dict, scheme: Scheme) -> list[dict]:
    known = list(scheme.get("flags") or [])
    entries = []
    for field, at in fields.items():
        if field[2] != "at":
            continue
        index = field[1]
        raised = {f[3] for f in fields if f[:3] == ("handoff", index, "flag")}
        entry = {"index": index, "step": at[0], "from": at[1], "to": at[2],
                 "flags": [f for f in in_order(known, raised) if f in raised],
                 "quality": fields.get(("handoff", index, "quality"))}
        if is_touched(entry):
            entries.append(entry)
    return sorted(entries, key=lambda e: (e["index"], e["step"]))


TYPE = AnnotationType(
    name="handoff_review", title="Handoff review", page="pages/handoff_review.py", trace=True,
    keys={"flags": Key(v.string_list(1), default=["info_loss", "dropped_constraint", "garbling", "goal_drift"]),
          "quality_scale": Key(v.integer(2, 10), default=5)},
    section="handoffs", rows=rows, rollup=rollup, agreement=agreement, looks_like=looks_like, validate=validate, parts=parts, join=join,
    objects=objects, headline=lambda measures: measures.get("quality"))
