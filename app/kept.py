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
- ``<id>.rows.feather``: the rows the parts were computed from (the columns a summary reads,
  with each row's hash), read only then too: the items that changed are taken out of the tallies
  with these rows and put back in with the new ones. (Arrow's Feather format, not Parquet: a
  glob of the store's ``**/*.parquet`` must find the saved annotations only.)

A state is written as a whole: its two data files under a new id first, then ``state.json``
replaced atomically, then other ids' files removed. A reader that finds its id's files gone,
or anything unreadable, starts from every row (the numbers are never wrong, only slower).

No Streamlit here.
"""
from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather

from . import tally

FOLDER = ".summary"
STATE = "state.json"
VERSION = 2  # (raised whenever what a tally counts, or how it is finished, changes)


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
         rows: pd.DataFrame, hashes: np.ndarray, columns: list[str]) -> None:
    """Writes a state of the workspace with this stamp (Workspace.stamp): `parts` {key: (mark,
    tally)}, `finished` {key: (mark, output)}, the rows (their `columns`) and their hashes."""
    folder.mkdir(parents=True, exist_ok=True)
    state_id = uuid.uuid4().hex
    table = pa.Table.from_pandas(rows[columns].reset_index(drop=True), preserve_index=False)
    for i, field in enumerate(table.schema):  # (categories as plain text: what the store's files hold)
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field.name, table.column(i).cast(field.type.value_type))
    table = table.append_column("_hash", pa.array(hashes, pa.uint64()))
    tmp = folder / f".tmp-{state_id}.rows.feather"
    feather.write_feather(table, tmp)
    os.replace(tmp, folder / f"{state_id}.rows.feather")
    _atomic(folder / f"{state_id}.tallies.json", tally.dumps({key: t for key, (_m, t) in parts.items()}))
    # (what the summary shows is plain JSON already: written as it is, read back at C speed)
    shown = list(finished.items())
    head = {"version": VERSION, "stamp": stamp, "where": where, "id": state_id,
            "marks": {key: m for key, (m, _t) in parts.items()},
            "finished": [(key, mark) for key, (mark, _out) in shown]}
    _atomic(folder / STATE, orjson.dumps({"head": tally.encoded(head), "shown": [out for _k, (_m, out) in shown]}))
    stale = time.time() - 3600  # (another writer's temporary file is newer: it may be writing it)
    for p in folder.iterdir():
        try:
            if p.name.endswith((".rows.feather", ".tallies.json")) and not p.name.startswith((state_id, ".")):
                p.unlink(missing_ok=True)
            elif p.name.startswith(".tmp-") and p.stat().st_mtime < stale:  # a writer killed midway
                p.unlink(missing_ok=True)
        except OSError:
            continue


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
        return {"id": state["id"], "marks": marks, "finished": finished}
    except Exception:  # noqa: BLE001 (whatever is wrong with a kept state, the rows are read instead)
        return None


def load_rest(folder: Path, state_id: str) -> tuple[dict, pa.Table, np.ndarray] | None:
    """(the tallies {key: tally}, the rows (Arrow), their hashes) of a state, or None when its
    files are gone or unreadable."""
    try:
        tallies = tally.loads((folder / f"{state_id}.tallies.json").read_bytes())
        table = feather.read_table(folder / f"{state_id}.rows.feather")
        hashes = table["_hash"].to_numpy()
        if not isinstance(tallies, dict):
            return None
        return tallies, table.drop_columns(["_hash"]), hashes
    except Exception:  # noqa: BLE001 (as in load)
        return None
