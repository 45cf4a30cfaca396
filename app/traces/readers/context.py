"""What every reader is given and hands back beside its items: the file's `Context` (where
problems are filed, and gold records kept in files of their own), a record's source text, and
the error for a record of the wrong shape.

A leaf module: the readers import it at their top, and the package (app/traces/readers/__init__.py),
which imports every reader, gives each Context the function that recognises a record's format.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from app.project.problems import Problem
from app.traces.trace import Item


@dataclass
class SidecarGold:
    """A gold record in a file of its own, attached to the run with the same id."""
    item_id: str
    raw: Any
    source: str
    attach: Callable[[Item, Any, str], list]  # (item, raw, source) -> [(where, message, level)]


@dataclass
class Context:
    path: Path
    id_key: str = "id"
    text_key: str = "text"
    salvaged: bool = False  # the file was cut short and read up to its last complete element
    golds: list[SidecarGold] = field(default_factory=list)
    # the format module a record looks like (None: none), for the hint in `wrong_shape`; the
    # package sets it (it knows every format; a reader importing the package would be a cycle)
    detect: Callable[[Any], Any] | None = None

    def problem(self, where: str, message: str, level: str = "error") -> Problem:
        return Problem(str(self.path), where, message, level)


def source_of(path: Path, where: str) -> str:
    """"path:line" for JSON Lines, "path item N" for a list entry (or "row N" of a Parquet
    table), "path" for a whole file."""
    if where.startswith("line"):
        return f"{path}:{where.split()[-1]}"
    return f"{path} {where}" if where else str(path)


def _shape(record) -> str:
    if isinstance(record, dict):
        keys = list(record)
        return "an object with keys " + ", ".join(map(str, keys[:8])) + (" …" if len(keys) > 8 else "")
    return f"a {type(record).__name__}"


def wrong_shape(ctx: Context, where: str, module, record) -> Problem:
    """The error for a record that is not the shape its format (named or detected) expects."""
    other = ctx.detect(record) if ctx.detect is not None else None
    hint = (f" (it looks like {other.NAME})" if other is not None and other.NAME not in ("potato", module.NAME)
            else "")
    return ctx.problem(where or "record", f"data_format is {module.NAME}: expected {module.SHAPE}, "
                       f"got {_shape(record)}{hint}; skipped")
