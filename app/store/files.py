"""The store's names and files: stored values as JSON text, item, annotator and scheme names
as path components, and durable filesystem steps (fsync, folder listings).

No Streamlit here.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator



# Annotation values nest a few levels; a value nested thousands deep would be written but
# could not be read back where the stack is already deep (json's recursion limit).
MAX_VALUE_DEPTH = 64
SUFFIX = ".parquet"
TEMP_PREFIX = ".tmp-"
HASH_LEN = 20
_SLUG_MAX = 40

_PLAIN_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_SLUG_BAD_RE = re.compile(r"[^A-Za-z0-9._-]+")
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)

# --------------------------------------------------------------------------- #
# JSON values
# --------------------------------------------------------------------------- #
def value_to_json(value: Any) -> str:
    """Serialise an annotation value to JSON text (UTF-8, keys in given order).

    NaN/Infinity are rejected (ValueError) because they are not valid JSON and
    would break DuckDB/pandas JSON readers; non-serialisable objects raise
    TypeError.
    """
    if _too_deep(value, MAX_VALUE_DEPTH):
        raise ValueError(f"value nests lists/objects more than {MAX_VALUE_DEPTH} levels deep")
    text = json.dumps(value, ensure_ascii=False, sort_keys=False, allow_nan=False)
    _check_utf8(text, "value")
    return text


def _too_deep(value: Any, limit: int) -> bool:
    """Iteratively (a recursive check would itself overflow on hostile input)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, (list, tuple)):
            continue
        if d > limit:
            return True
        stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list, tuple)))
    return False


def value_from_json(text: str) -> Any:
    """Inverse of :func:`value_to_json`."""
    return json.loads(text)


# --------------------------------------------------------------------------- #
# Path components
# --------------------------------------------------------------------------- #
def _check_utf8(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates cannot go into Parquet strings
        raise ValueError(f"{what} is not encodable as UTF-8: {exc}") from None


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str):
        raise ValueError(f"{what} must be a str, got {type(name).__name__}")
    if name == "":
        raise ValueError(f"{what} must not be empty")
    _check_utf8(name, what)
    return name


def _is_plain(name: str) -> bool:
    return (
        _PLAIN_RE.fullmatch(name) is not None
        and not name.endswith(".")
        and name.split(".", 1)[0] not in _WINDOWS_RESERVED
    )


def encode_component(name: str) -> str:
    """Map an arbitrary non-empty string to a safe, collision-free path component.

    Verbatim for simple lower-case names, else ``<slug>~<sha256 hex[:20]>``.
    The result never contains a path separator, NUL, ``~`` at the start, or a
    leading ``.``/``_``, is at most 64 characters, and is injective (up to
    sha256 prefix collisions, i.e. 80 bits).
    """
    _check_name(name, "name")
    if _is_plain(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:HASH_LEN]
    slug = _SLUG_BAD_RE.sub("_", name).lstrip("._-")[:_SLUG_MAX].rstrip(".")
    return f"{slug or 'x'}~{digest}"


# --------------------------------------------------------------------------- #
# Filesystem helpers
# --------------------------------------------------------------------------- #
def _fsync_dir(path: Path) -> None:
    if os.name == "nt":  # directories cannot be opened/fsynced on Windows
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _makedirs_durable(path: Path) -> None:
    """``mkdir -p`` that fsyncs the parent of every directory it creates."""
    missing: list[Path] = []
    p = path
    while not p.is_dir():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d)
        except FileExistsError:
            if not d.is_dir():
                raise
        _fsync_dir(d.parent)


def _list_dir(path: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _subdirs(path: Path) -> list[Path]:
    out = []
    for e in _list_dir(path):
        if e.name.startswith((".", "_")):
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                out.append(Path(e.path))
        except OSError:
            continue
    return out


def _key_file_entries(path: Path) -> Iterator[os.DirEntry]:
    """The key files of an item folder: regular files named *.parquet, not hidden (temp files,
    the row index) and not symlinks."""
    for e in _list_dir(path):
        if e.name.startswith((".", "_")) or not e.name.endswith(SUFFIX):
            continue
        try:
            if e.is_file(follow_symlinks=False):
                yield e
        except OSError:
            continue


def _data_files(path: Path) -> list[Path]:
    return [Path(e.path) for e in _key_file_entries(path)]


def _components(item_id: str, annotator: str, scheme: str) -> tuple[str, str, str]:
    """The key's folder and file names under the store's root."""
    return (encode_component(_check_name(annotator, "annotator")), encode_component(_check_name(item_id, "item_id")),
            encode_component(_check_name(scheme, "scheme")) + SUFFIX)


