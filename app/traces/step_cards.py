"""Cards of what a trace says (its steps, tool calls and handoffs): plain data the browser draws.

Each card is a ``title`` (a list of plain strings and ``{"agent": name}`` parts, shown in the
agent's colour) and a list of blocks:

- ``{"k": "note", "t": ...}``: a small grey line (a message's role, "Output", a tool call);
- ``{"k": "text", "t": ...}``: the trace's text as written (whitespace kept);
- ``{"k": "code", "t": ...}``: a tool call's arguments, a fenced code block of a text;
- ``{"k": "more", "t": label, "b": [blocks]}``: blocks folded under a label (a long text in
  full, the whole input of an LLM call), opened in the browser without a rerun;
- ``{"k": "cols", "b": [[blocks], [blocks]]}``: side by side (a handoff's two steps).

All of it is untrusted text: the browser puts it in the page as text, never as HTML. Long
texts start folded (an excerpt shows), and no text sends more than SHOW_AT_MOST characters.

Pure: no Streamlit; app/ui/step_card_view.py draws the cards (the trace view, step review,
tool-call review and handoff review use them).
"""
from __future__ import annotations

import re
from typing import Any

from app.traces import conversation
from app.traces.derive import Derivation
from app.types.handoff_review import excerpt
from app.types.tool_call_review import pretty

COLLAPSE_AT = 600  # characters: longer texts start folded, an excerpt shown
EXCERPT = 240  # characters of a folded text shown
SHOW_AT_MOST = 200_000  # characters sent to the browser for one text; a 50 MB field would stall the tab


def note(t: str) -> dict:
    return {"k": "note", "t": t}


def code(t: str) -> dict:
    if len(t) > SHOW_AT_MOST:  # said, not dropped silently
        t = t[:SHOW_AT_MOST] + f"\n… (the first {SHOW_AT_MOST:,} of {len(t):,} characters)"
    return {"k": "code", "t": t}


def more(label: str, blocks: list[dict]) -> dict:
    return {"k": "more", "t": label, "b": blocks}


def card(head: str, agent: str, blocks: list[dict], tail: str = "", **extra) -> dict:
    """A card titled `head`, the agent, `tail`."""
    return titled([head, {"agent": agent}, tail], blocks, **extra)


def titled(title: list, blocks: list[dict], **extra) -> dict:
    """A card with any title (strings and {"agent": name} parts)."""
    return {"title": [t for t in title if t], "blocks": blocks, **extra}


def _short(name: str, limit: int) -> str:
    return name if len(name) <= limit else name[:limit - 1] + "…"


FOLD_LINES = 8  # lines: a text of more lines starts folded too, its first lines shown
# A fenced code block. Its closing fence may carry smolagents' "<end_code>" marker (every code
# step of a TRAIL/GAIA run ends "```<end_code>"): closed there, the marker kept as text after it.
# As in CommonMark, a backtick fence's line has no other backtick ("```py' ... '```" is prose).
FENCE = re.compile(r"^[ \t]*(```+(?![^\n]*`)|~~~+)[^\n]*\n(.*?)^[ \t]*\1(<end_code>)?[ \t]*$\n?", re.S | re.M)


def markdown_blocks(text: str) -> list[dict]:
    """A text's Markdown structure as blocks, never as markup: fenced code as code blocks, the
    rest as text with its line breaks and indentation (lists stay lists line by line). Nothing
    of it is rendered as HTML or Markdown; links and images stay text."""
    if "```" not in text and "~~~" not in text:
        return [{"k": "text", "t": text}]  # (as written, to the last character)
    out, at = [], 0
    for m in FENCE.finditer(text):
        before = text[at:m.start()].strip("\n")
        if before:
            out.append({"k": "text", "t": before})
        out.append(code(m.group(2).rstrip("\n")))
        if m.group(3):
            out.append({"k": "text", "t": m.group(3)})
        at = m.end()
    rest = text[at:].strip("\n")
    if rest or not out:
        out.append({"k": "text", "t": rest})
    return out


def _head(text: str, lines: int = FOLD_LINES // 2, limit: int = EXCERPT) -> str:
    """A folded text's first few lines (at most `limit` characters)."""
    return "\n".join(text.split("\n")[:lines])[:limit].rstrip() + " …"


def text_blocks(text: str, label: str, at: int = COLLAPSE_AT, lines: int = FOLD_LINES,
                excerpt: int = EXCERPT) -> list[dict]:
    """A text with its structure (markdown_blocks); a long one (`at` characters or `lines` lines
    or more) as its first lines (`excerpt` characters at most) with the whole folded under `label`."""
    if len(text) <= at and text.count("\n") < lines:
        return markdown_blocks(text)
    full = markdown_blocks(text[:SHOW_AT_MOST])
    if len(text) > SHOW_AT_MOST:
        full.append(note(f"First {SHOW_AT_MOST:,} of {len(text):,} characters shown; "
                         "`python -m app derive` or the data file has the rest."))
    return [{"k": "text", "t": _head(text, lines // 2, excerpt)}, more(f"{label} ({len(text):,} characters)", full)]


def step_text_blocks(text: str) -> list[dict]:
    """A step's text (folded when long), or a note that it has none."""
    return text_blocks(text, "Full text") if text else [note("(no text)")]


def _input_label(sv: conversation.StepView, msgs: list, new_chars: int) -> str:
    """The one line a step's folded input shows (short: it fits the trace column's width)."""
    if sv.new_thread:
        return "Input · new thread" + (f" · {len(msgs)} message(s), {sv.input_chars:,} characters" if msgs else "")
    return f"Input · {len(msgs) - sv.known} new of {len(msgs)} messages, {new_chars:,} characters"


def _input_blocks(s, sv: conversation.StepView) -> list[dict]:
    """A step's input as one fold (a 10-step TRAIL page was ~10,000 px tall with every input's
    messages drawn): the line says where the input comes from; opened, it shows each new message
    in full, messages that repeat earlier steps only referred to, and the whole input as sent
    folded below them."""
    msgs = conversation.messages_of(s.raw) or []
    if sv.new_thread:
        inner = [note(f"New conversation thread of {_short(sv.agent, 60)}" + (f" · {len(msgs)} input messages" if msgs else ""))]
    else:
        line = f"Input: {sv.known} earlier message(s) of this conversation not repeated"
        if sv.branch_of is not None:
            line += f" · branches from step {sv.branch_of} (its later messages are not in this input)"
        inner = [note(line)]
    budget, new_chars = SHOW_AT_MOST, 0
    for p in range(sv.known, len(msgs)):
        role, text = msgs[p]
        echo = sv.echoes.get(p)
        who = f"{_short(role or 'message', 30)} · message {p}"
        if echo is not None and not echo.partial:
            what = "its output" if echo.pos is None else f"its input message {echo.pos}"
            inner.append(note(f"{who}: repeats step {echo.step} ({what}), {len(text):,} characters"))
            continue
        if echo is not None:
            text = (text[:echo.start] + f"[… output of step {echo.step}, {echo.end - echo.start:,} characters …]"
                    + text[echo.end:])
        new_chars += len(text)
        inner.append(note(who))
        if budget <= 0:
            inner.append(note(f"Not shown (more than {SHOW_AT_MOST:,} characters of input above); "
                              "`python -m app derive` has it."))
            continue
        inner += markdown_blocks(text[:budget])
        if len(text) > budget:
            inner.append(note(f"First {budget:,} of {len(text):,} characters of message {p} shown."))
        budget -= len(text)
    if msgs and (sv.known or sv.echoes):
        full, budget = [], SHOW_AT_MOST
        for p, (role, text) in enumerate(msgs):
            if budget <= 0:
                full.append(note(f"Messages {p}–{len(msgs) - 1} not shown (more than {SHOW_AT_MOST:,} "
                                 "characters in all); `python -m app derive` has them."))
                break
            full += [note(f"{_short(role or 'message', 30)} · message {p}")] + markdown_blocks(text[:budget])
            if len(text) > budget:
                full.append(note(f"First {budget:,} of {len(text):,} characters of message {p} shown."))
            budget -= len(text)
        inner.append(more(f"Full input ({len(msgs)} messages, {sv.input_chars:,} characters)", full))
    # (no "Output" line after it: the one folded line is plainly the input, what follows the output)
    return [more(_input_label(sv, msgs, new_chars), inner)]


def call_error(d: Derivation, tc) -> str | None:
    """The error a tool call ended with, as its step records it (a span's status, e.g. TRAIL's
    FileConversionException), or None."""
    if not 0 <= tc.step < len(d.steps):
        return None
    raw = d.steps[tc.step].raw
    entries = raw.get("tool_calls") if isinstance(raw, dict) else None
    for x in entries if isinstance(entries, list) else ():
        if isinstance(x, dict) and str(x.get("id")) == str(tc.call_id) and x.get("status") == "error":
            return str(x.get("error") or "error")
    return None


def _call_blocks(tc, raw_calls: dict) -> list[dict]:
    """A tool call under its step: name, failure, arguments pretty-printed as in the reviewer
    (a few short lines shown, longer ones folded; the whole error in the fold too)."""
    raw = raw_calls.get(str(tc.call_id), {})
    line = f"Tool call {tc.index}: {_short(str(tc.tool), 80)}"
    error = str(raw.get("error") or "error") if raw.get("status") == "error" else None
    if error is not None:
        line += f" · failed: {_short(error, CALL_ERROR_SHOWN)}"
    args = pretty(tc.arguments)[0]
    if len(args) <= ARGS_SHOWN and args.count("\n") < ARGS_LINES and (error is None or len(error) <= CALL_ERROR_SHOWN):
        return [note(line), code(args)]
    inner = [note("Error"), code(error)] if error is not None and len(error) > CALL_ERROR_SHOWN else []
    inner += [note("Arguments"), code(args)]
    return [note(line), more(f"Arguments ({len(args):,} characters)" + (" and the whole error" if len(inner) > 2 else ""),
                             inner)]


def tool_result_blocks(s) -> list[dict]:
    """A role="tool" message as a step: marked as a tool result (for which call), its content
    pretty-printed as data, not shown as the agent speaking."""
    raw = s.raw if isinstance(s.raw, dict) else {}
    about = raw.get("tool_call_id") or raw.get("name")
    head = note("Tool result" + (f" · for call {_short(str(about), 80)}" if about else ""))
    return [head] + (_data_blocks("Content", s.text, True) if s.text else [note("(empty result)")])


def is_tool_result(s) -> bool:
    return isinstance(s.raw, dict) and s.raw.get("role") == "tool"


# In the trace column a step's text folds sooner than elsewhere: ten steps of a TRAIL run, each
# with its input, output and calls, made a page ~10,000 px tall.
OUTPUT_AT, OUTPUT_LINES, OUTPUT_EXCERPT = 240, 6, 120  # characters, lines (3 shown), characters shown
ARGS_SHOWN, ARGS_LINES = 120, 4  # a call's pretty-printed arguments shown open up to this size
CALL_ERROR_SHOWN = 80  # characters of a failed call's error on its line (the whole error folded)


def cards(d: Derivation, view: conversation.ConversationView, start: int, stop: int) -> list[dict[str, Any]]:
    """The cards of steps start..stop-1: header fields and blocks (see the module's docstring)."""
    calls_by_step: dict[int, list] = {}
    for tc in d.tool_calls:
        if start <= tc.step < stop:
            calls_by_step.setdefault(tc.step, []).append(tc)
    out = []
    for s in d.steps[start:stop]:
        blocks: list[dict] = []
        sv = view.steps[s.index] if s.index < len(view.steps) else None
        if sv is not None and sv.has_input:
            blocks += _input_blocks(s, sv)
        tool_result = is_tool_result(s)
        if tool_result:
            blocks += tool_result_blocks(s)
        else:  # what the step said, folded to a few lines (the trace column is narrow)
            blocks += text_blocks(s.text, "Full text", OUTPUT_AT, OUTPUT_LINES, OUTPUT_EXCERPT) if s.text \
                else [note("(no text)")]
        raw_calls = {str(x.get("id")): x for x in (s.raw.get("tool_calls") or [])
                     if isinstance(x, dict)} if isinstance(s.raw, dict) else {}
        for tc in calls_by_step.get(s.index, []):
            blocks += _call_blocks(tc, raw_calls)
        out.append(card(f"Step {s.index} · tool result to " if tool_result else f"Step {s.index} · ", s.agent,
                        blocks, step=s.index))
    return out


CALL_LONG = 1500  # characters: a tool call's longer arguments or result start folded
CALL_SHORT = 400  # characters: a result this short is shown open


def _data_blocks(label: str, data, shown: bool) -> list[dict]:
    """A call's arguments or result, pretty-printed: shown under a note, or folded."""
    text, _ = pretty(data)  # JSON, and JSON held in a string, indented
    if len(text) > CALL_LONG:
        return [more(f"{label} ({len(text):,} characters)", [code(text)])]
    return [note(label), code(text)] if shown else [more(label, [code(text)])]


def call_card(call, error: str | None = None) -> dict:
    """A tool call to review: who called what at which step, its arguments and result, or the
    error it failed with (`error`, see call_error)."""
    blocks = [note("No arguments")] if call.arguments is None else _data_blocks("Arguments", call.arguments, True)
    if error is not None:
        first = error.strip().split("\n", 1)[0]
        blocks += ([note("Failed with an error"), code(error)] if len(error) <= CALL_SHORT else
                   [note("Failed with an error"), code(first[:CALL_SHORT]),
                    more(f"Whole error ({len(error):,} characters)", [code(error)])])
    if call.result is not None:
        blocks += _data_blocks("Result", call.result, len(pretty(call.result)[0]) <= CALL_SHORT)
    return card(f"Call {call.index} · step {call.step} · ", call.agent, blocks,
                tail=f" · tool {_short(str(call.tool), 120)}" + (" · failed" if error is not None else ""),
                call=call.index)


def handoff_card(card) -> dict:
    """A handoff (app/handoff.Card): who handed over to whom, the giver's last step and the
    taker's first side by side (excerpts; the full texts folded)."""
    h = card.handoff

    def side(label: str, step) -> list[dict]:
        text, cut = excerpt(step.text)
        out = [note(label), {"k": "text", "t": text if text else "(no text)"}]
        if cut:
            out.append(more(f"Full text of step {step.index} ({len(step.text):,} characters)",
                            [{"k": "text", "t": step.text[:SHOW_AT_MOST]}]))
        return out

    a, b = card.last_of_src, card.first_of_dst
    return titled([f"Handoff {h.index} · ", {"agent": h.src}, " → ", {"agent": h.dst},
                   f" · step {a.index} → step {b.index}"],
                  [{"k": "cols", "b": [side(f"Last step of {_short(h.src, 60)} (step {a.index})", a),
                                       side(f"First step of {_short(h.dst, 60)} (step {b.index})", b)]}],
                  handoff=h.index)


def plain(c: dict) -> list[str]:
    """A card's texts in order, folded ones included (what a reader could see): for tests and
    for anything that needs the card as lines of text."""
    out = ["".join(t if isinstance(t, str) else t["agent"] for t in c["title"])]

    def walk(blocks):
        for b in blocks:
            if b["k"] == "cols":
                for col in b["b"]:
                    walk(col)
                continue
            out.append(b["t"])
            if b["k"] == "more":
                walk(b["b"])
    walk(c["blocks"])
    return out
