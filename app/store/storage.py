"""Annotation store: one small Parquet file per (annotator, item, scheme) key.

Layout
------
::

    <root>/<annotator-component>/<item-component>/<scheme-component>.parquet

Each file holds exactly one row with the fixed schema :data:`SCHEMA`.  The whole
directory is a valid Parquet dataset: ``pandas.read_parquet(root)`` and DuckDB's
``read_parquet('<root>/**/*.parquet')`` both see one row per saved key.  No
directory is named ``key=value``, so nothing is mistaken for a hive partition.

Path components (see :func:`encode_component`)
----------------------------------------------
A name is used verbatim when it matches ``[a-z0-9][a-z0-9._-]{0,63}``, does not
end in ``.`` and is not a Windows device name (``con``, ``nul``, ``com1``...).
Every other name becomes ``<slug>~<sha256(name)[:20]>`` where the slug is a
readable ASCII approximation of the name.  Because verbatim names never contain
``~`` and hashed names always do, two different names never map to the same
component.  Deliberate deviations from a looser ``[A-Za-z0-9_-]...`` rule:

* upper case letters go through the hashed form, so ``Alice`` and ``alice``
  cannot collide on case-insensitive filesystems (macOS, Windows);
* a leading ``_`` or ``.`` is never produced, because pyarrow's dataset
  discovery (used by ``pandas.read_parquet(dir)``) silently skips files and
  directories starting with ``_`` or ``.``.  The same rule is what hides the
  ``.tmp-*`` files of in-flight saves from readers.

Status values
-------------
* ``"annotated"``: the annotator gave a value.
* ``"reviewed_clean"``: the annotator reviewed the item for this scheme and
  found nothing to flag (the value is typically ``None`` but may be anything).
* ``"cleared"``: the annotator removed a value they had saved before.  The row is
  kept (``value`` must be ``None``) so that the removal, its time and the time
  spent stay on record; it is *not* an annotation.  Consumers counting or
  exporting annotations should filter on ``status``.  :meth:`AnnotationStore.delete`
  instead removes the row altogether (admin / undo use).

Durability and concurrency
--------------------------
A save writes a temp file ``.tmp-...`` (never ending in ``.parquet``) in the
target folder, flushes and fsyncs it, ``os.replace``\\ s it over the key's file
and fsyncs the folder.  A crash therefore loses at most the save in flight and
never corrupts data saved before; readers see either the old or the new file.
Different annotators write different files, so concurrent processes never
overwrite each other. Every write takes its annotator's save lock
(:mod:`app.store.lock`, a ``flock`` on a hidden file of the annotator's folder);
a caller that reads a key, merges a change into it and writes it back holds
:meth:`AnnotationStore.locked` around the three, so two processes (two servers,
an import while the app saves) or two sessions never interleave them.

Cost: one save touches only its own file and at most three folders, so it is
O(1) in the number of stored annotations (it never lists or rewrites the store).
Whole-store and per-annotator reads (:meth:`AnnotationStore.all`,
:meth:`AnnotationStore.to_table`, :meth:`AnnotationStore.for_annotator`) go through
each annotator folder's row index (:mod:`app.store_index`, a hidden ``.row-index``
file): they list and stat every key file but open only those new or changed since
the last read (opening costs about 1-2 ms a file; 20,000 rows: 42 s on first read,
0.4 s after).

This module has no Streamlit dependency.
"""

from __future__ import annotations

import os
import secrets
import stat
import time
from pathlib import Path
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from app.store import index as store_index
from app.store import lock as save_lock
from app.store.files import (MAX_VALUE_DEPTH, SUFFIX, TEMP_PREFIX, _check_name, _components, _data_files, _fsync_dir, _key_file_entries, _list_dir,
                             _makedirs_durable, _subdirs, encode_component, value_from_json, value_to_json)
from app.store.rows import (DONE, SCHEMA, SCHEMA_VERSION, STATUS_ANNOTATED, STATUS_CLEARED,
                            STATUS_REVIEWED_CLEAN, STATUSES, Annotation, _normalise,
                            _row_to_annotation, _to_table, warm_writer)

__all__ = [
    "DONE",
    "MAX_VALUE_DEPTH",
    "SCHEMA_VERSION",
    "warm_writer",
    "Annotation",
    "AnnotationStore",
    "SCHEMA",
    "STATUSES",
    "STATUS_ANNOTATED",
    "STATUS_REVIEWED_CLEAN",
    "STATUS_CLEARED",
    "encode_component",
    "value_to_json",
    "value_from_json",
]

# --------------------------------------------------------------------------- #
# Store
# --------------------------------------------------------------------------- #
class AnnotationStore:
    """Parquet-backed annotation store rooted at ``root`` (created on first save).

    ``problems`` lists (without duplicates) every unreadable or inconsistent file
    met while reading, as ``"<path>: <error>"``; such files are skipped.
    """

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.problems: list[str] = []

    # ---- paths ---------------------------------------------------------- #
    def _resolved_root(self) -> Path:
        return self.root.resolve()

    def _checked(self, path: Path) -> Path:
        root = self._resolved_root()
        resolved = path.resolve()
        if resolved == root or not resolved.is_relative_to(root):
            raise ValueError(f"path {resolved} escapes the annotation dir {root}")
        return path

    def annotator_dir(self, annotator: str) -> Path:
        return self._checked(self.root / encode_component(_check_name(annotator, "annotator")))

    def item_dir(self, item_id: str, annotator: str) -> Path:
        return self._checked(
            self.annotator_dir(annotator) / encode_component(_check_name(item_id, "item_id"))
        )

    def key_file(self, item_id: str, annotator: str, scheme: str) -> str:
        """The key's file by name alone (names checked and encoded, nothing resolved): for a
        stat telling whether the file changed, on every rerun. Reading goes through load(),
        whose path_for also checks that the resolved path stays inside the store (a few
        dozen system calls: ~1.5 ms a key)."""
        return os.path.join(self.root, *_components(item_id, annotator, scheme))

    def path_for(self, item_id: str, annotator: str, scheme: str) -> Path:
        """File holding the key's row (whether or not it exists)."""
        name = encode_component(_check_name(scheme, "scheme")) + SUFFIX
        return self._checked(self.item_dir(item_id, annotator) / name)

    # ---- problems ------------------------------------------------------- #
    def _problem(self, path: Path, error: BaseException | str) -> None:
        if isinstance(error, BaseException):
            error = f"{type(error).__name__}: {error}"
        msg = f"{path}: {error}"
        if msg not in self.problems:
            self.problems.append(msg)

    # ---- write ---------------------------------------------------------- #
    def locked(self, annotator: str):
        """A context holding `annotator`'s save lock across processes and threads (re-entrant
        within a thread): a read, merge and write of their keys inside it are one step."""
        return save_lock.held(self.annotator_dir(annotator))

    def save(self, ann: Annotation) -> Annotation:
        """Atomically and durably write ``ann`` (replacing that key's previous row).

        Fills ``updated_at`` with the current UTC time when it is None and returns
        the annotation exactly as a later :meth:`load` will return it.
        ``seconds_spent`` is stored as given (callers pass the running total).
        """
        ann, value_json = _normalise(ann)
        table = _to_table(ann, value_json)
        target = self.path_for(ann.item_id, ann.annotator, ann.scheme)
        with self.locked(ann.annotator):
            return self._write(ann, table, target)

    def _write(self, ann: Annotation, table: pa.Table, target: Path) -> Annotation:
        folder = target.parent
        _makedirs_durable(folder)
        self._checked(target)  # re-check now that the folders exist (symlinks)

        tmp, fd = self._open_temp(folder, target.name)
        try:
            with os.fdopen(fd, "wb") as fh:
                pq.write_table(table, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        _fsync_dir(folder)
        return ann

    @staticmethod
    def _open_temp(folder: Path, final_name: str) -> tuple[Path, int]:
        # Opened with mode 0o666 so the process umask applies (mkstemp would force 0o600).
        stem = final_name[: -len(SUFFIX)]
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        while True:
            tmp = folder / f"{TEMP_PREFIX}{stem}.{os.getpid()}.{secrets.token_hex(6)}"
            try:
                return tmp, os.open(tmp, flags, 0o666)
            except FileExistsError:  # pragma: no cover - 48 random bits
                continue

    def delete(self, item_id: str, annotator: str, scheme: str) -> bool:
        """Remove the key's row.  Returns False if there was nothing to remove."""
        target = self.path_for(item_id, annotator, scheme)
        if not target.parent.is_dir():
            return False  # (nothing saved: no folder, no lock file made for it)
        try:
            with self.locked(annotator):
                os.unlink(target)
        except FileNotFoundError:
            return False
        _fsync_dir(target.parent)
        return True

    def remove_stale_temp_files(self, older_than_seconds: float = 3600.0) -> int:
        """Delete ``.tmp-*`` leftovers of crashed saves.  Walks the whole store:
        a maintenance call, never done implicitly.  Returns how many were removed."""
        cutoff = time.time() - older_than_seconds
        removed = 0
        for adir in _subdirs(self.root):
            for idir in [adir] + _subdirs(adir):  # the annotator folder holds its row index's
                for e in _list_dir(idir):
                    if not e.name.startswith(TEMP_PREFIX):
                        continue
                    try:
                        if e.stat(follow_symlinks=False).st_mtime < cutoff:
                            os.unlink(e.path)
                            removed += 1
                    except OSError:
                        continue
        return removed

    # ---- read ----------------------------------------------------------- #
    def _read_file(self, path: str | Path) -> pa.Table | None:
        """Read one key file; None (and a recorded problem) if it is unusable.

        A file that vanished in the meantime (concurrent delete) is not a problem.
        """
        try:
            with open(path, "rb") as fh:
                table = pq.ParquetFile(fh).read()
        except FileNotFoundError:
            return None
        except Exception as exc:  # corrupt/truncated/not parquet
            self._problem(path, exc)
            return None
        try:
            if table.num_rows != 1:
                raise ValueError(f"expected exactly 1 row, found {table.num_rows}")
            table = table.select(SCHEMA.names).cast(SCHEMA)
            row = table.to_pylist()[0]
            for col in ("item_id", "annotator", "scheme", "value", "status", "updated_at"):
                if row[col] is None:
                    raise ValueError(f"column {col!r} is null")
            if row["status"] not in STATUSES:
                raise ValueError(f"unknown status {row['status']!r}")
            value_from_json(row["value"])
            # the key's place, by name only: the file was found inside the store already, and
            # resolving every component (as path_for does before a write) tripled a cold read
            expected = self.root.joinpath(*_components(row["item_id"], row["annotator"], row["scheme"]))
            if os.path.normcase(os.path.abspath(expected)) != os.path.normcase(
                os.path.abspath(path)
            ):
                raise ValueError(f"row key belongs in {expected}, not here")
        except Exception as exc:
            self._problem(path, exc)
            return None
        return table

    def _read_files(self, paths: Iterable[Path]) -> Iterator[pa.Table]:
        for p in paths:
            t = self._read_file(p)
            if t is not None:
                yield t

    def _tables_to_annotations(self, tables: Iterable[pa.Table]) -> list[Annotation]:
        return [_row_to_annotation(row) for t in tables for row in t.to_pylist()]

    def load(self, item_id: str, annotator: str, scheme: str) -> Annotation | None:
        """The key's row, or None if absent (or unreadable: see ``problems``)."""
        table = self._read_file(self.path_for(item_id, annotator, scheme))
        return None if table is None else _row_to_annotation(table.to_pylist()[0])

    def for_item(self, item_id: str, annotator: str) -> dict[str, Annotation]:
        """scheme -> annotation for one item and annotator (reads only that folder)."""
        files = _data_files(self.item_dir(item_id, annotator))
        anns = self._tables_to_annotations(self._read_files(files))
        return {a.scheme: a for a in sorted(anns, key=lambda a: a.scheme)}

    def _annotator_files(self, adir: Path) -> Iterator[Path]:
        for idir in _subdirs(adir):
            yield from _data_files(idir)

    def _annotator_entries(self, adir: Path) -> Iterator[store_index.Entry]:
        """(path within adir, path, stat) of each key file of one annotator."""
        for idir in _subdirs(adir):
            for e in _key_file_entries(idir):
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:  # removed meanwhile
                    continue
                if stat.S_ISREG(st.st_mode):  # not replaced by something else since listed
                    yield f"{idir.name}/{e.name}", e.path, st  # a str: a Path per file cost more than its stat

    def _annotator_rows(self, adir: Path, dictionary: bool = False) -> pa.Table:
        """Every readable row of one annotator folder, through its row index (app/store_index):
        only files new or changed since the index was written are opened."""
        return store_index.rows(adir, self._annotator_entries(adir), self._read_file, SCHEMA, dictionary)

    def for_annotator(self, annotator: str) -> list[Annotation]:
        adir = self.annotator_dir(annotator)
        return _sorted(self._tables_to_annotations([self._annotator_rows(adir)]) if adir.is_dir() else [])

    def all(self) -> list[Annotation]:
        """Every readable row, sorted by (annotator, item_id, scheme)."""
        return _sorted(self._tables_to_annotations(self._annotator_rows(a) for a in _subdirs(self.root)))

    def to_table(self, dictionary: bool = False) -> pa.Table:
        """The whole dataset as one table with :data:`SCHEMA` (empty if no data), sorted by
        (annotator, item_id, scheme). With `dictionary`, the text columns are dictionary-encoded
        (the summary's read: see app/store_index.read_table)."""
        tables = [t for t in (self._annotator_rows(a, dictionary) for a in _subdirs(self.root)) if t.num_rows]
        if not tables:
            return store_index.dictionary_schema(SCHEMA).empty_table() if dictionary else SCHEMA.empty_table()
        return sort_rows(pa.concat_tables(tables))

    def annotators(self) -> list[str]:
        """Names of annotators with at least one readable row, sorted."""
        names = []
        for adir in _subdirs(self.root):
            for table in self._read_files(self._annotator_files(adir)):
                names.append(table.column("annotator")[0].as_py())
                break
        return sorted(names)


def sort_rows(table: pa.Table) -> pa.Table:
    """Rows sorted by (annotator, item_id, scheme), as one chunk. Dictionary-encoded columns
    are fine (Arrow cannot sort by them: the order is computed on the three keys as text,
    short, and every column is taken in that order)."""
    keys = ["annotator", "item_id", "scheme"]
    if any(pa.types.is_dictionary(table.schema.field(k).type) for k in table.schema.names):
        table = table.unify_dictionaries().combine_chunks()
        by = pa.table({k: table.column(k).cast(pa.string()) for k in keys})
        return table.take(pc.sort_indices(by, [(k, "ascending") for k in keys]))
    return table.sort_by([(k, "ascending") for k in keys]).combine_chunks()


def _sorted(anns: list[Annotation]) -> list[Annotation]:
    return sorted(anns, key=lambda a: (a.annotator, a.item_id, a.scheme))
