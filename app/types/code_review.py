"""code_review: a pull-request style review of a coding agent's changes (Potato's code review):
an overall verdict, comments (a category, optionally a file and line, a text) and 1-5 ratings of
each file on the configured dimensions.

Stored as Potato stores it: `{"verdict": "request_changes", "comments": [{"category": "bug",
"file": "src/auth.py", "line": 42, "text": "..."}], "file_ratings": {"src/auth.py":
{"correctness": 2, "quality": 4}}}`. Files are free text (Potato fills them in from the clicked
diff line); the surface offers the files the trace's tool calls name.

Summary: the verdicts' counts, comments per category, the mean rating per dimension. Agreement:
nominal on the verdict, ordinal alpha on each (file, dimension) rated by two or more annotators,
and per category whether each annotator commented with it (Jaccard of the category sets).

No Streamlit here.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from app.project.validators import show
from app.stats.agreement import judgements, ordinal, show_number
from app.stats.counting import count, distinct, in_order
from app.types.base import AnnotationType, Key, Scheme, as_int, hidden_input
from app.types.choices import choice_agreement, label_counts, set_agreement
from app.types.options import names
from app.types.panel import SchemeRows

CATEGORIES = ["bug", "style", "suggestion", "security", "question"]
VERDICTS = ["approve", "request_changes", "comment_only"]
DIMENSIONS = ["correctness", "quality"]
SCALE = range(1, 6)
FILE_KEYS = ("file_path", "path", "filename", "file")  # the tool-call arguments naming a file


def parse(value: Any) -> dict:
    """A stored value's parts, well-formed ones only: {verdict, comments, file_ratings}."""
    value = value if isinstance(value, dict) else {}
    verdict = value.get("verdict") if isinstance(value.get("verdict"), str) and value.get("verdict") else None
    comments = [{"category": c.get("category"), "file": c.get("file") or "", "line": as_int(c.get("line")),
                 "text": str(c.get("text") or "")}
                for c in value.get("comments") or [] if isinstance(c, dict)]
    ratings = {f: {d: as_int(x) for d, x in dims.items() if as_int(x) is not None}
               for f, dims in (value.get("file_ratings") or {}).items() if isinstance(dims, dict)}
    return {"verdict": verdict, "comments": comments, "file_ratings": {f: r for f, r in ratings.items() if r}}


def build(verdict: str | None, comments: list[dict], file_ratings: dict) -> dict:
    """The stored value (empty when nothing is said)."""
    ratings = {f: {d: x for d, x in r.items() if x is not None} for f, r in file_ratings.items()}
    ratings = {f: r for f, r in ratings.items() if r}
    if not verdict and not comments and not ratings:
        return {}
    return {"verdict": verdict or "", "comments": comments, "file_ratings": ratings}


def changed(value: Any, **parts) -> dict:
    """The stored value with some of its parts replaced."""
    now = {**parse(value), **parts}
    return build(now["verdict"], now["comments"], now["file_ratings"])


def comment(category: str, file: str = "", line: int | None = None, text: str = "") -> dict:
    return {"category": category, "file": file, "line": line, "text": text}


def _named_file(args: Any) -> str | None:
    """The file a tool call's arguments name (file_path, path, filename or file), if any."""
    if isinstance(args, str) and args.lstrip().startswith("{"):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if isinstance(args, dict):
        for k in FILE_KEYS:
            if isinstance(args.get(k), str) and args[k].strip():
                return args[k].strip()
    return None


def trace_files(tool_calls, data: Any = None, limit: int = 200_000) -> list[str]:
    """The files a trace's tool calls name, in order: the derived calls' arguments, then any
    call input in the item's data (Potato's `structured_turns` hold `{tool, input: {file_path}}`),
    reading at most `limit` values of the item."""
    out: dict[str, None] = {}
    for call in tool_calls:
        found = _named_file(call.arguments)
        if found:
            out[found] = None
    todo, seen = [data], 0
    while todo and seen < limit:
        x = todo.pop()
        seen += 1
        if isinstance(x, dict):
            for k in ("input", "arguments", "args", "tool_input"):
                found = _named_file(x.get(k))
                if found:
                    out[found] = None
            todo.extend(reversed(list(x.values())))
        elif isinstance(x, list):
            todo.extend(reversed(x))
    return list(out)


def coerce(value: Any, scheme: Scheme) -> Any:
    """Potato's value (its hidden-input wrapper taken off by the caller's default); a comment's
    `body` or `comment` read as its `text`."""
    value = hidden_input(value, looks_like)
    if isinstance(value, dict) and isinstance(value.get("comments"), list):
        value = {**value, "comments": [
            ({**{k: x for k, x in c.items() if k not in ("body", "comment")},
              "text": c.get("text", c.get("body", c.get("comment", "")))} if isinstance(c, dict) else c)
            for c in value["comments"]]}
    return value


def looks_like(value: Any) -> bool:
    return isinstance(value, dict) and bool(set(value) & {"verdict", "comments", "file_ratings"})


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or set(value) - {"verdict", "comments", "file_ratings"}:
        return [f"expected {{verdict, comments, file_ratings}}, got {show(value)}"]
    out = []
    verdicts, categories, dims = (scheme.get(k) for k in ("verdict_options", "comment_categories",
                                                           "file_rating_dimensions"))
    verdict = value.get("verdict")
    if verdict not in (None, "") and verdict not in verdicts:
        out.append(f"verdict {show(verdict)} is not one of {', '.join(verdicts)}")
    comments = value.get("comments", [])
    if not isinstance(comments, list):
        out.append(f"comments: expected a list, got {show(comments)}")
        comments = []
    for i, c in enumerate(comments):
        if not isinstance(c, dict) or set(c) - {"category", "file", "line", "text"}:
            out.append(f"comment {i}: expected {{category, file, line, text}}, got {show(c)}")
            continue
        if c.get("category") not in categories:
            out.append(f"comment {i}: category {show(c.get('category'))} is not one of {', '.join(categories)}")
        if c.get("file") is not None and not isinstance(c.get("file"), str):
            out.append(f"comment {i}: file {show(c.get('file'))} is not a path")
        line = c.get("line")
        if line is not None and (as_int(line) is None or as_int(line) < 1):
            out.append(f"comment {i}: line {show(line)} is not a line number (1 or more)")
        if not isinstance(c.get("text", ""), str):
            out.append(f"comment {i}: text {show(c.get('text'))} is not text")
    ratings = value.get("file_ratings", {})
    if not isinstance(ratings, dict):
        return out + [f"file_ratings: expected {{file: {{dimension: 1-5}}}}, got {show(ratings)}"]
    for f, r in ratings.items():
        if not isinstance(r, dict):
            out.append(f"file_ratings[{show(f)}]: expected {{dimension: 1-5}}, got {show(r)}")
            continue
        for d, x in r.items():
            if d not in dims:
                out.append(f"file_ratings[{show(f)}]: {show(d)} is not one of {', '.join(dims)}")
            elif as_int(x) not in SCALE:
                out.append(f"file_ratings[{show(f)}].{d}: {show(x)} is not a rating from 1 to 5")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    p = parse(value)
    out = [{"label": p["verdict"]}] if p["verdict"] else []
    out += [{"category": c["category"], "file": c["file"] or None, "line": c["line"]} for c in p["comments"]]
    out += [{"file": f, "dimension": d, "score": float(x)} for f, r in p["file_ratings"].items() for d, x in r.items()]
    return out


def rollup(scheme_rows: SchemeRows) -> dict:
    scheme, table = scheme_rows.scheme, scheme_rows.table
    out = label_counts(scheme_rows, "label", scheme.get("verdict_options"))
    cats = table[table["category"].notna()] if "category" in table else table.iloc[:0]
    counted, runs = count(cats, ["category"]), distinct(cats, ["category"], "item_id")
    out["comments"] = [{"category": c, "count": counted[c], "runs": runs.get(c, 0)}
                       for c in in_order(scheme.get("comment_categories"), counted) if c in counted]
    rated = table[table["score"].notna()] if "score" in table else table.iloc[:0]
    by = rated.groupby("dimension", sort=False)["score"] if len(rated) else None
    out["ratings"] = [] if by is None else [
        {"dimension": d, "ratings": int(by.size()[d]), "mean": float(by.mean()[d])}
        for d in in_order(scheme.get("file_rating_dimensions"), by.size().index) if d in by.size().index]
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    panel = scheme_rows.panel
    out = choice_agreement(scheme_rows, disagreements, column="label", kind="verdict")
    given = panel.members(scheme_rows.table)
    rated = given[given["score"].notna()] if "score" in given else given.iloc[:0]
    keys = list(zip(rated["item"].tolist(), rated.get("file", pd.Series([], dtype=object)).tolist(),
                    rated.get("dimension", pd.Series([], dtype=object)).tolist()))
    codes, uniques = pd.factorize(pd.Series(keys, dtype=object)) if keys else (np.zeros(0, dtype=np.int64), [])
    table = judgements(codes, rated["rater"], rated.get("score", []))
    disagreements.add(table, lambda u: (panel.items[uniques[u][0]], f"{uniques[u][1]} · {uniques[u][2]}"), "rating",
                      show_number, gap=2)
    out["ratings"] = ordinal(table)
    out["comment_categories"] = set_agreement(scheme_rows, disagreements, scheme_rows.scheme.get("comment_categories"),
                                              column="category")
    return out


TYPE = AnnotationType(
    name="code_review", title="Code review", page="pages/code_review.py",
    keys={"comment_categories": Key(names(1), default=list(CATEGORIES)),
          "verdict_options": Key(names(1), default=list(VERDICTS)),
          "file_rating_dimensions": Key(names(0), default=list(DIMENSIONS), doc="each rated 1-5 per file")},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce, validate=validate,
    looks_like=looks_like, headline=lambda measures: measures.get("verdict"))
