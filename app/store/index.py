"""Each annotator folder's row index: the rows of its key files, kept with each file's identity.

A store of one small Parquet file per key costs about a millisecond a file to read (open, the
Parquet footer, the checks): 20,000 annotations took half a minute, every time the summary was
opened. So each annotator folder keeps ``.row-index`` (a Parquet file), the rows of its readable key files
together with each file's size, modification and change times and inode as they were when the
file was read. A read lists the folder, stats every file and opens only the files that are new
or changed since; rows of files that are gone are dropped.

The index is derived data, never the record: an index that cannot be read, or holds another
schema, is ignored and rebuilt; a failed write of it is ignored (the files were read anyway);
an unreadable key file is never indexed, so it is read, and reported, every time. Its name
starts with "." and does not end in ".parquet", so dataset discovery (pandas, pyarrow), globs
(DuckDB's ``**/*.parquet``) and the store's own walks skip it, and it is written like a save (a ``.tmp-`` file renamed over it), so readers see an old or
a new index, never half of one.

Racy timestamps (as in git's index): a file changed twice within the file system's timestamp
granularity could keep its stat; files modified less than :data:`RACY_NS` before an index is
written are left out of it, and so are read again next time.

No Streamlit here.
"""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Callable, Iterable

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

NAME = ".row-index"  # not "*.parquet": globs such as DuckDB's **/*.parquet must not take it for a key file
RACY_NS = 2_000_000_000
FOLDER = b"baton.folder"  # the index's metadata: the name of the folder it describes
IDENTITY = [pa.field("file", pa.string()), pa.field("size", pa.int64()), pa.field("mtime_ns", pa.int64()),
            pa.field("ctime_ns", pa.int64()), pa.field("ino", pa.uint64())]

Entry = tuple[str, str, os.stat_result]  # (path within the annotator folder, path, its stat)

# Parquet's default limit on a column's dictionary page (1 MB) is passed by a few thousand
# stored values: the writer then falls back to plain pages, and a read wanting dictionaries (the
# summary's) hashes every row's text to code it again (a million rows: 0.18 s read against
# 0.06 s with every value coded once). Past this size a column falls back all the same.
DICTIONARY_PAGE = 1 << 28


def write_parquet(table: pa.Table, where) -> None:
    """Write `table` as the store writes the files it reads many rows from (the row index):
    text coded once in a dictionary page, whatever its size up to DICTIONARY_PAGE."""
    pq.write_table(table, where, dictionary_pagesize_limit=DICTIONARY_PAGE)


def identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def _index_schema(schema: pa.Schema) -> pa.Schema:
    return pa.schema(list(schema) + IDENTITY)


def dictionary_schema(schema: pa.Schema) -> pa.Schema:
    """`schema` with its text columns dictionary-encoded (each distinct text held once)."""
    return pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), f.type), f.nullable) if _is_text(f.type) else f
                      for f in schema], metadata=schema.metadata)


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def read_table(path, schema: pa.Schema, dictionary: bool = False) -> pa.Table:
    """A Parquet file; with `dictionary`, `schema`'s text columns read dictionary-encoded
    straight from Parquet's own dictionaries: a million rows of stored values are not turned
    into a million strings (read 0.3-1.0 s, as dictionaries 0.1-0.2 s), and the summary then
    groups on their codes."""
    text = [f.name for f in schema if _is_text(f.type)] if dictionary else None
    return pq.read_table(path, read_dictionary=text)


def _plain(t: pa.DataType) -> pa.DataType:
    return t.value_type if pa.types.is_dictionary(t) else t


def read(folder: Path, schema: pa.Schema, dictionary: bool = False) -> pa.Table | None:
    """The folder's index, or None when it is missing, unreadable or of another schema."""
    try:
        table = read_table(folder / NAME, schema, dictionary)
    except Exception:  # missing, torn by a crash, not Parquet: rebuilt from the files
        return None
    want = _index_schema(schema)
    if [(f.name, _plain(f.type)) for f in table.schema] != [(f.name, f.type) for f in want]:
        return None
    # an index describes the folder it was written for: a renamed annotator folder keeps its
    # files' stat (and their paths within it), but its rows belong to the old name
    if (table.schema.metadata or {}).get(FOLDER) != os.fsencode(folder.name):
        return None
    return table


def rows(folder: Path, entries: Iterable[Entry], read_file: Callable[[str], pa.Table | None],
         schema: pa.Schema, dictionary: bool = False) -> pa.Table:
    """The rows (`schema`) of the folder's key files: from the index where a file is unchanged,
    from `read_file` (one-row table or None) otherwise; the index is rewritten if anything
    changed. With `dictionary`, the text columns come dictionary-encoded
    (:func:`dictionary_schema`)."""
    index = read(folder, schema, dictionary)
    known: dict[str, tuple[int, tuple]] = {}
    if index is not None:
        cols = [index.column(f.name).to_pylist() for f in IDENTITY]
        known = {f: (i, ident) for i, (f, *ident) in enumerate(zip(*cols))}
    keep: list[int] = []
    todo: list[tuple] = []
    for rel, path, st in entries:
        ident = identity(st)
        hit = known.pop(rel, None)
        if hit is not None and tuple(hit[1]) == ident:
            keep.append(hit[0])
        else:
            todo.append((rel, path, ident))
    fresh: list[pa.Table] = []
    fresh_ids: list[tuple] = []
    for rel, path, ident in todo:
        t = read_file(path)
        if t is not None:
            fresh.append(t)
            fresh_ids.append((rel, *ident))
    changed = index is None or bool(todo) or bool(known)  # new, changed or gone since the index
    kept = index.take(pa.array(keep, pa.int64())) if index is not None else None
    out_schema = dictionary_schema(schema) if dictionary else schema
    parts = ([kept.select(schema.names).cast(out_schema)] if kept is not None and kept.num_rows else []) \
        + [t.cast(out_schema) for t in fresh]
    out = pa.concat_tables(parts) if parts else out_schema.empty_table()
    if changed:
        _write(folder, schema, kept, fresh, fresh_ids)
    return out


def _write(folder: Path, schema: pa.Schema, kept: pa.Table | None, fresh: list[pa.Table],
           fresh_ids: list[tuple]) -> None:
    want = _index_schema(schema)
    parts = [kept.cast(want)] if kept is not None and kept.num_rows else []
    if fresh:
        new = pa.concat_tables(fresh)
        ids = list(zip(*fresh_ids))
        for f, values in zip(IDENTITY, ids):
            new = new.append_column(f, pa.array(values, f.type))
        parts.append(new.cast(want))
    table = pa.concat_tables(parts) if parts else want.empty_table()
    racy = time.time_ns() - RACY_NS
    table = table.filter(pc.less(table.column("mtime_ns"), racy))
    table = table.replace_schema_metadata({FOLDER: os.fsencode(folder.name)})
    tmp = folder / f".tmp-{NAME.lstrip('.')}.{os.getpid()}.{secrets.token_hex(6)}"
    try:
        write_parquet(table, tmp)
        os.replace(tmp, folder / NAME)
    except OSError:  # a read-only or full disk: the files were read anyway
        try:
            os.unlink(tmp)
        except OSError:
            pass
