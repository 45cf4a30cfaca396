"""The summary's parts kept on disk, so that a new process (a restarted server, the next
`python -m app summary`) starts from the last summary instead of from every row.

One state per project, in the hidden folder ``<output_dir>/.summary`` (hidden: the store's
listing and pyarrow's dataset discovery skip it), for the unfiltered summary of the workspace
read from the same files (Workspace.stamp: an edited config, data file or gold, a new item,
is another workspace, whose summary starts from the rows):

- ``state.json``: the filters and, per part, the fingerprint of the rows it was computed from
  and its finished output (what a summary shows when nothing changed);
- ``<id>.tallies.json``: each part's tally (app/tally.py), read only when some part must be
  brought up to date;
- ``<id>.rows.arrow``: the rows the parts were computed from (the columns a summary reads,
  text as dictionaries), sorted by item in record batches of BATCH rows: the items that changed
  are taken out of the tallies with these rows and put back in with the new ones, and only
  their rows are read (the file is memory-mapped, uncompressed). (Arrow's IPC file format, not
  Parquet: a glob of the store's ``**/*.parquet`` must find the saved annotations only.)
- ``<id>.index.npz``: per item and scheme, the rows' count and hash sums (app/counted.py: which
  items changed), and where each item's rows start in the rows file.

A state is written as a whole: its three data files under a new id first (synced), then
``state.json`` replaced atomically, with the digests of the tallies and the index, then other
ids' files removed. A reader that finds its id's files gone, changed (a digest that differs;
rows that fail Arrow's validation or do not give their items' sums) or anything unreadable,
starts from every row (the numbers are never wrong, only slower).

No Streamlit here.
"""
from __future__ import annotations

import hashlib
import io
import os
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from app._old import tally
from app._old.counted import Counted
from app._old.labels import frame, positions_in

FOLDER = ".summary"
STATE = "state.json"
VERSION = 5  # (raised whenever what a tally counts, or how it is finished, or the files' layout, changes)
# rows a record batch of the rows file (the batches are mapped, not read: their size only
# bounds the arithmetic of where an item's rows are)
BATCH = 65536
DATA = (".rows.arrow", ".index.npz", ".tallies.json")  # a state's data files, after its id


class Lazy:
    """A part's tally not read from disk yet."""


LAZY = Lazy()


def folder_of(output_dir: str | Path) -> Path:
    return Path(output_dir) / FOLDER


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save(folder: Path, stamp: str, where: tuple, parts: dict[tuple, tuple], finished: dict[tuple, tuple],
         counted: Counted, columns: list[str]) -> None:
    """Writes a state of the workspace with this stamp (Workspace.stamp): `parts` {key: (mark,
    tally)}, `finished` {key: (mark, output)}, and the rows they were counted over (`counted`,
    framed rows in memory: these `columns`, with their sums)."""
    folder.mkdir(parents=True, exist_ok=True)
    state_id = uuid.uuid4().hex
    rows, sums = counted.rows, counted.sums()
    # sorted by item (the workspace's order; rows of other items last), each item's start kept
    at = positions_in(rows["item_id"], counted.items)
    at = np.where(at >= 0, at, len(counted.items))
    order = np.argsort(at, kind="stable")
    starts = np.searchsorted(at[order], np.arange(len(counted.items) + 1), side="left")
    # text columns as dictionaries (the frame's categories: each distinct text once, a stored
    # value included), uncompressed: read through a memory map, a batch costs nothing until its
    # rows are taken
    table = pa.Table.from_pandas(rows[columns].iloc[order].reset_index(drop=True), preserve_index=False)
    for i, field in enumerate(table.schema):  # (text not framed as categories: as dictionaries too)
        if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            table = table.set_column(i, field.name, table.column(i).dictionary_encode())
    table = table.combine_chunks()  # (one dictionary a column; every batch but the last BATCH rows)
    tmp = folder / f".tmp-{state_id}.rows.arrow"
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        for batch in table.to_batches(max_chunksize=BATCH):
            writer.write_batch(batch)
    with open(tmp, "rb+") as f:  # (on disk before the state naming it is)
        os.fsync(f.fileno())
    os.replace(tmp, folder / f"{state_id}.rows.arrow")
    buf = io.BytesIO()
    np.savez(buf, sums=sums, starts=starts.astype(np.int64), rows=np.int64(len(rows)),
             names=np.asarray(counted.names.tolist(), dtype=str), items=np.int64(len(counted.items)))
    index, tallies = buf.getvalue(), tally.dumps({key: t for key, (_m, t) in parts.items()})
    _atomic(folder / f"{state_id}.index.npz", index)
    _atomic(folder / f"{state_id}.tallies.json", tallies)
    # (what the summary shows is plain JSON already: written as it is, read back at C speed)
    shown = list(finished.items())
    # (what the two files held: a file changed since, by a hand or the disk, is not trusted)
    head = {"version": VERSION, "stamp": stamp, "where": where, "id": state_id,
            "digests": {"index": _digest(index), "tallies": _digest(tallies)},
            "marks": {key: m for key, (m, _t) in parts.items()},
            "finished": [(key, mark) for key, (mark, _out) in shown]}
    _atomic(folder / STATE, orjson.dumps({"head": tally.encoded(head), "shown": [out for _k, (_m, out) in shown]}))
    stale = time.time() - 3600  # (another writer's temporary file is newer: it may be writing it)
    for p in folder.iterdir():
        try:
            # (and the rows files of states an earlier version wrote)
            if p.name.endswith(DATA + (".rows.feather",)) and not p.name.startswith((state_id, ".")):
                p.unlink(missing_ok=True)
            elif p.name.startswith(".tmp-") and p.stat().st_mtime < stale:  # a writer killed midway
                p.unlink(missing_ok=True)
        except OSError:
            continue


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def load(folder: Path, stamp: str, where: tuple) -> dict[str, Any] | None:
    """The state kept for the workspace with this stamp and these filters: {"id", "marks": {key:
    mark}, "finished": {key: (mark, output)}}, or None (none kept, another workspace or set of
    filters, or anything unreadable)."""
    try:
        raw = orjson.loads((folder / STATE).read_bytes())
        state = tally.decoded(raw["head"])
        if state.get("version") != VERSION or state.get("stamp") != stamp or state.get("where") != where:
            return None
        finished = {key: (mark, out) for (key, mark), out in zip(state["finished"], raw["shown"], strict=True)}
        marks = state["marks"]
        if not isinstance(state["id"], str) or not isinstance(marks, dict):
            return None
        return {"id": state["id"], "marks": marks, "finished": finished, "digests": state["digests"]}
    except Exception:  # noqa: BLE001 (whatever is wrong with a kept state, the rows are read instead)
        return None


def load_rest(folder: Path, state: dict, items: pd.Index, names: pd.Index) -> tuple[dict, Counted] | None:
    """(the tallies {key: tally}, the rows counted (their sums read, the rows file opened: the
    rows of items read when asked)) of a state (load()), or None when its files are gone,
    unreadable or not what it wrote, or were counted over other items or schemes."""
    state_id = state["id"]
    try:
        raw_tallies = (folder / f"{state_id}.tallies.json").read_bytes()
        raw_index = (folder / f"{state_id}.index.npz").read_bytes()
        if state["digests"] != {"index": _digest(raw_index), "tallies": _digest(raw_tallies)}:
            return None
        tallies = tally.loads(raw_tallies)
        with np.load(io.BytesIO(raw_index), allow_pickle=False) as index:
            sums, starts, n_rows = index["sums"], index["starts"], int(index["rows"])
            if int(index["items"]) != len(items) or index["names"].tolist() != names.tolist():
                return None
        rows = RowsOnDisk(folder / f"{state_id}.rows.arrow", starts)
        if (not isinstance(tallies, dict) or sums.shape != (3, len(items) * len(names) + 1)
                or len(starts) != len(items) + 1 or rows.n_rows != n_rows or starts[0] != 0
                or (np.diff(starts) < 0).any() or starts[-1] > n_rows):
            return None
        return tallies, Counted(rows, items, names, sums=sums)
    except Exception:  # noqa: BLE001 (as in load)
        return None


class RowsOnDisk:
    """The rows file of a state, memory-mapped (kept readable while open, should another process
    replace the state): the rows of chosen items, copying only theirs. Batch i holds the file's
    rows [i * BATCH, (i + 1) * BATCH)."""

    def __init__(self, path: Path, starts: np.ndarray):
        self._reader = pa.ipc.open_file(pa.memory_map(str(path)))
        self._starts = starts
        n = self._reader.num_record_batches
        self.n_rows = (n - 1) * BATCH + self._reader.get_batch(n - 1).num_rows if n else 0

    def of(self, positions: np.ndarray) -> pd.DataFrame:
        """The rows of the items at these positions (among the items the state was counted
        over), framed, in the file's order."""
        lo, hi = self._starts[positions], self._starts[np.asarray(positions, dtype=np.int64) + 1]
        take = np.sort(np.concatenate([np.arange(a, b) for a, b in zip(lo.tolist(), hi.tolist())]
                                      + [np.zeros(0, dtype=np.int64)]))
        wanted = np.unique(take // BATCH)
        batches = [self._reader.get_batch(int(i)) for i in wanted]
        if not batches:
            return frame(self._reader.schema.empty_table())
        sizes = np.asarray([b.num_rows for b in batches], dtype=np.int64)
        if (sizes[:-1] != BATCH).any():
            raise ValueError("a rows file whose batches are not BATCH rows each")
        # each row's batch among those read, and its place in their concatenation
        k = np.searchsorted(wanted, take // BATCH)
        within = take - wanted[k] * BATCH + k * BATCH
        # (text is dictionaries: taking rows copies their indices; a file damaged since it was
        # written raises here, before anything reads through a bad offset or index)
        table = pa.Table.from_batches(batches).take(pa.array(within, pa.int64()))
        table.validate(full=True)
        # (the few rows' own values as categories, not every value the file holds, which every
        # later step would carry)
        return frame(pa.table([own_values(c) if pa.types.is_dictionary(c.type) else c
                               for c in table.columns], names=table.column_names))


def own_values(col: pa.ChunkedArray | pa.DictionaryArray) -> pa.Array:
    """A dictionary column with only the values its rows use, numbered in order of first use:
    what casting it to text and dictionary-encoding that gives (frame()'s categories), without
    making a string per row (at 130,000 rows of stored values, 50-100 ms of a summary's 0.7 s).
    A column it does not read so (values that are not text, such as a column of nulls only;
    unsigned indices; a missing or repeated value in the dictionary) is given as its values,
    for frame() to code (the rows' own values as categories all the same)."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    values = arr.dictionary
    plain = lambda: arr.cast(values.type)  # noqa: E731
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)) \
            or not pa.types.is_signed_integer(arr.indices.type):
        return plain()
    codes = np.asarray(arr.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    ok = codes >= 0
    number = np.full(len(codes), -1, dtype=np.int32)
    number[ok], used = pd.factorize(codes[ok])
    used_values = values.take(pa.array(used, pa.int64()))
    if used_values.null_count or pc.count_distinct(used_values, mode="all").as_py() != len(used_values):
        return plain()
    return pa.DictionaryArray.from_arrays(pa.array(number, mask=~ok), used_values)
