"""What rubric_eval and multirate share: a grid of rows (criteria, options), each rated on
one scale of points 1..n, stored as Potato stores it, `{row: "<cell>"}` (rubric_eval: the
point as text; multirate: the scale label chosen).

Summary: a row per rated grid row (its point, 1 up, and its label); per grid row the count,
mean and median point; the count of each (row, label) cell. Agreement: ordinal alpha on the
point given to each (item, grid row), over every grid row and per grid row.

No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from app.project import validators as v
from app.stats.agreement import judgements, ordinal, show_number
from app.stats.counting import in_order
from app.types.base import AnnotationType, Key, Scheme, hidden_input
from app.types.choices import label_counts
from app.types.numeric import stats
from app.types.panel import SchemeRows

SCORE_GAP = 2  # points this far apart are listed as a disagreement


@dataclass(frozen=True)
class Grid:
    """How a type reads its scheme: the grid's rows, the scale's labels (point i is labels[i-1]),
    and how a point is written in the stored value."""

    rows: Callable[[Scheme | dict], list[str]]
    labels: Callable[[Scheme | dict], list[str]]
    cell: Callable[[Scheme | dict, int], str]  # the stored text of point p

    def point(self, scheme: Scheme | dict, text: Any) -> int | None:
        """The point (1 up) a stored cell holds: its label, or the point's own text."""
        names = self.labels(scheme)
        for p in range(1, len(names) + 1):
            if text == self.cell(scheme, p) or text == names[p - 1]:
                return p
        return None

    def build(self, scheme: Scheme | dict, points: dict[str, int | None]) -> dict:
        return {r: self.cell(scheme, p) for r, p in points.items() if p is not None}


def make(name: str, title: str, keys: dict[str, Key], grid: Grid,
         problems: Callable[[dict], list[tuple[str, str]]] = lambda o: []) -> AnnotationType:
    """A grid type (see the module's docstring)."""

    def coerce(value: Any, scheme: Scheme) -> Any:
        value = hidden_input(value, lambda x: isinstance(x, dict) and set(x) <= set(grid.rows(scheme)))
        if not isinstance(value, dict) or scheme is None:
            return value
        out = {}
        n = len(grid.labels(scheme))
        for r, x in value.items():  # (a point as a number, its label or its text)
            if isinstance(x, (int, float)) and not isinstance(x, bool) and float(x).is_integer():
                p = int(x) if 1 <= int(x) <= n else None
            else:
                p = grid.point(scheme, x)
            out[str(r)] = grid.cell(scheme, p) if p is not None else x
        return out

    def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
        if not isinstance(value, dict):
            return [f"expected {{row: cell}}, got {v.show(value)}"]
        names, wanted = grid.labels(scheme), grid.rows(scheme)
        out = [f"{v.show(r)} is not a row of the scheme ({', '.join(wanted)})" for r in value if r not in wanted]
        out += [f"{r}: {v.show(x)} is not a point of the scale ({', '.join(grid.cell(scheme, p) for p in range(1, len(names) + 1))})"
                for r, x in value.items() if r in wanted and grid.point(scheme, x) is None]
        return out

    def rows(value: Any, scheme: Scheme) -> list[dict]:
        if not isinstance(value, dict):
            return []
        names = grid.labels(scheme)
        out = []
        for r in in_order(grid.rows(scheme), list(value)):
            p = grid.point(scheme, value.get(r))
            if p is not None:
                out.append({"row": r, "score": float(p), "cell": f"{r}: {names[p - 1]}"})
        return out

    def rollup(scheme_rows: SchemeRows) -> dict:
        out = label_counts(scheme_rows, "cell", None)
        t = scheme_rows.table
        seen = t["row"].dropna().unique().tolist() if "row" in t else []
        out["rows"] = [{"row": r, **stats(t.loc[t["row"] == r, "score"].tolist())}
                       for r in in_order(grid.rows(scheme_rows.scheme), seen) if r in seen]
        return out

    def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
        panel = scheme_rows.panel
        given = panel.members(scheme_rows.table)
        names = in_order(grid.rows(scheme_rows.scheme), given["row"].dropna().unique() if "row" in given else [])
        code = {r: i for i, r in enumerate(names)}
        width = max(len(names), 1)
        rows_of = given["row"].map(code).to_numpy(dtype=np.int64) if len(given) else np.zeros(0, dtype=np.int64)
        units = given["item"].to_numpy(dtype=np.int64) * width + rows_of
        table = judgements(units, given["rater"], given.get("score", []))
        disagreements.add(table, lambda unit: (panel.items[unit // width], names[unit % width]), "rating",
                          show_number, gap=SCORE_GAP)
        by_row = {r: ordinal(table[table["unit"] % width == i]) for r, i in code.items()}
        return {"rating": ordinal(table), "by_row": by_row}

    return AnnotationType(
        name=name, title=title, page=f"pages/{name}.py", keys=keys, section="choices", rows=rows, rollup=rollup,
        agreement=agreement, coerce=coerce, looks_like=lambda value: isinstance(value, dict), validate=validate,
        headline=lambda measures: measures.get("rating"), scheme_problems=problems)
