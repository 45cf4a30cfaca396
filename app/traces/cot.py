"""A long chain of thought split into steps, as Potato's `cot_segmentation` asks.

Strategies (Potato's names): `blank_line` (paragraphs), `numbered` ("Step N:", "N." or "N)"
at a line's start), `markers` (literal markers, `<step>`, `<think>`, `---` by default),
`sentence` (`sentences_per_step` sentences a step) and `auto` (markers, then numbered, then
blank lines, then sentences: the first giving two steps or more). `llm` asks a model for the
boundaries: Baton calls no model, and uses `auto`. A step shorter than `min_step_chars` joins
the one before it; past `max_steps`, the rest joins the last step (no text is dropped).

No Streamlit here.
"""
from __future__ import annotations

import re

STRATEGIES = ("auto", "blank_line", "numbered", "markers", "sentence", "llm")
MARKERS = ["<step>", "</step>", "<think>", "</think>", "---"]
_NUMBERED = re.compile(r"(?im)^[ \t]*(?=(?:step[ \t]*\d+[ \t]*[:.)]|\d+[ \t]*[.)])[ \t]+)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _clean(parts: list[str]) -> list[str]:
    return [p.strip() for p in parts if p and p.strip()]


def split(text: str, strategy: str = "auto", markers: list[str] | None = None, sentences_per_step: int = 1) -> list[str]:
    """The steps of `text` by one strategy (before merging short steps)."""
    if strategy == "blank_line":
        return _clean(re.split(r"\n[ \t]*\n", text))
    if strategy == "numbered":
        return _clean(_NUMBERED.split(text))
    if strategy == "markers":
        found = [m for m in (markers or MARKERS) if m]
        if not found:
            return _clean([text])
        return _clean(re.split("|".join(map(re.escape, found)), text))
    if strategy == "sentence":
        sentences = _clean(_SENTENCE_END.split(text))
        n = max(int(sentences_per_step or 1), 1)
        return [" ".join(sentences[i:i + n]) for i in range(0, len(sentences), n)]
    for tried in ("markers", "numbered", "blank_line", "sentence"):  # auto (and llm: no model here)
        steps = split(text, tried, markers, sentences_per_step)
        if len(steps) >= 2:
            return steps
    return _clean([text])


def segment(text: str, options: dict) -> list[str]:
    """The steps of `text` under a `cot_segmentation` mapping (strategy, markers,
    sentences_per_step, min_step_chars, max_steps)."""
    steps = split(text, options.get("strategy") or "auto", options.get("markers"), options.get("sentences_per_step") or 1)
    shortest = int(options.get("min_step_chars") or 0)
    merged: list[str] = []
    for s in steps:
        if merged and len(s) < shortest:
            merged[-1] = f"{merged[-1]}\n{s}"
        else:
            merged.append(s)
    cap = int(options.get("max_steps") or 200)
    if len(merged) > cap:
        merged = merged[:cap - 1] + ["\n".join(merged[cap - 1:])]
    return merged
