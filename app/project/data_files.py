"""A project's `data_files` (paths, or `{path, data_format, type}` as Potato writes them) and the
project's other paths, resolved against its folder; every problem names its config path.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.project import validators as v
from app.project.problems import Problem
from app.traces.readers import FORMATS as READER_FORMATS

DATA_FORMATS = ("auto", *READER_FORMATS)  # every reader module can be named by data_files[].data_format


@dataclass(frozen=True)
class DataFile:
    path: Path
    data_format: str = "auto"
    where: str = ""  # its config path, for messages
    given: Path | None = None  # the path as the config names it (unresolved: a link may be retargeted)


def check_data_files(raw: Any, base: Path, out: list[Problem], file: str) -> list[DataFile]:
    """The `data_files` that exist, resolved against `base`; what is wrong with the others goes to `out`."""
    if isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        out.append(Problem(file, "data_files", f"expected a list of file or folder paths, got {v.show(raw)}"))
        return []
    files = []
    for i, entry in enumerate(raw):
        where = f"data_files[{i}]"
        fmt = "auto"
        if isinstance(entry, dict):
            extra = set(entry) - {"path", "data_format", "type"}
            if extra:
                out.append(Problem(file, where, f"unknown key(s) {v.keys(extra)}; expected path, data_format, type"))
            # Potato's {type: json, path: ...}: the type names the file's syntax; the content decides the format
            if entry.get("type") is not None and str(entry["type"]).lower() not in ("json", "jsonl", "parquet"):
                out.append(Problem(file, f"{where}.type", f"expected json or jsonl, got {v.show(entry['type'])} "
                                   "(Baton reads JSON, JSON Lines and Parquet files)"))
                continue
            fmt = entry.get("data_format", "auto")
            if fmt not in DATA_FORMATS:
                out.append(Problem(file, f"{where}.data_format",
                                   f"expected one of {', '.join(DATA_FORMATS)}, got {v.show(fmt)}"))
                continue
            entry = entry.get("path")
        if not isinstance(entry, str) or not entry.strip():
            out.append(Problem(file, where, f"expected a file or folder path, got {v.show(entry)}"))
            continue
        path = resolve(base, entry)
        if isinstance(path, str):
            out.append(Problem(file, where, path))
            continue
        try:
            found = path.exists()
        except (OSError, ValueError) as e:  # a name too long for the filesystem, ...
            out.append(Problem(file, where, f"data file cannot be opened: {v.show(entry)}: {e}"))
            continue
        if not found:
            out.append(Problem(file, where, f"data file not found: {path}"))
            continue
        files.append(DataFile(path, fmt, where, base / entry))
    return files


def resolve(base: Path, entry: str) -> Path | str:
    """`base / entry` resolved, or what is wrong with it (a NUL byte, a loop of links)."""
    if "\x00" in entry:
        return f"expected a folder or file path, got one with a NUL byte: {v.show(entry)}"
    try:
        return (base / entry).resolve()
    except (OSError, ValueError, RuntimeError) as e:
        return f"cannot resolve the path {v.show(entry)}: {e}"
