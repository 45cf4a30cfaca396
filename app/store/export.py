"""Every stored annotation as one table, readable without Baton: Parquet, CSV or JSON Lines.

One row per stored (item, annotator, scheme), the per-item done marks included (scheme
``_item``) and the ``cleared`` rows left out (they are not annotations). Columns:

``item_id, annotator, scheme, annotation_type, status, value, objects, stale, item_text,
trace_hash, updated_at, seconds_spent``

- ``value``: the stored value (the format in README "Stored annotations").
- ``objects``: what each positional index in the value refers to in the trace as it is now
  (derive()): the decisive step's agent and text, each handoff's step and agents, each contention
  region's resource, time window and agents, each tool call's step, agent, tool and arguments,
  each tagged turn or step's agent, each graph edge's handoff count. ``null`` for types
  without positions.
- ``stale``: the trace changed since the label was made (its fingerprint differs), so an index
  may now name another object; ``objects`` describe the trace as it is now.

In Parquet and CSV, ``value`` and ``objects`` are JSON text; in JSON Lines they are nested
JSON. ``updated_at`` is ISO 8601 UTC in CSV and JSON Lines, a timestamp in Parquet.
No Streamlit here.
"""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd

from app.traces.derive import derive, scheme_keys

from app.store.storage import DONE, STATUS_CLEARED, AnnotationStore
from app.types.registry import TYPES

FORMATS = {".parquet": "parquet", ".csv": "csv", ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl"}
COLUMNS = ["item_id", "annotator", "scheme", "annotation_type", "status", "value", "objects", "stale",
           "item_text", "trace_hash", "updated_at", "seconds_spent"]
TEXT_CHARS = 300


def format_of(path: str | Path, explicit: str | None = None) -> str:
    if explicit:
        if explicit not in ("parquet", "csv", "jsonl"):
            raise ValueError(f"unknown format {explicit!r}: expected parquet, csv or jsonl")
        return explicit
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ValueError(f"cannot tell the format of {path}: name it .parquet, .csv or .jsonl (or pass --format)")
    return fmt


def _cut(text: Any, n: int = TEXT_CHARS) -> str:
    s = "" if text is None else str(text)
    return s if len(s) <= n else s[: n - 1] + "…"


def objects_for(annotation_type: str, value: Any, derivation) -> Any:
    """What each positional index in `value` names in the trace (None when nothing to name):
    the type's own `objects`."""
    kind = TYPES.get(annotation_type)
    return kind.objects(value, derivation) if kind is not None and derivation is not None else None


def export_frame(ws, table=None) -> pd.DataFrame:
    """The export table (value and objects as Python values; see the module doc)."""
    if table is None:
        table = AnnotationStore(ws.project.output_dir).to_table()
    df = table.to_pandas()
    df = df[df["status"] != STATUS_CLEARED].reset_index(drop=True)
    schemes = {s.name: s for s in ws.project.schemes}
    cache: dict = {}
    values, objects, stale, texts = [], [], [], []
    for item_id, scheme, t, text, th in zip(df["item_id"], df["scheme"], df["annotation_type"], df["value"],
                                           df["trace_hash"]):
        v = json.loads(text)
        values.append(v)
        item = ws.by_id.get(item_id)
        texts.append(_cut(item.text) if item else None)
        stale.append(bool(item is not None and th and th != item.trace_hash))
        if item is None or scheme == DONE:
            objects.append(None)
            continue
        keys = tuple(sorted(scheme_keys(schemes.get(scheme)).items()))
        if (item_id, keys) not in cache:
            cache[(item_id, keys)] = derive(item.data, **dict(keys))
        objects.append(objects_for(t, v, cache[(item_id, keys)]))
    df["value"] = pd.Series(values, dtype=object)
    df["objects"] = pd.Series(objects, dtype=object)
    df["stale"] = pd.Series(stale, dtype=bool)
    df["item_text"] = pd.Series(texts, dtype=object)
    return df[COLUMNS]


def _json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, default=str)


def _iso(ts) -> str | None:
    return None if ts is None or pd.isna(ts) else pd.Timestamp(ts).tz_convert("UTC").isoformat()


def to_bytes(df: pd.DataFrame, fmt: str) -> bytes:
    """The export table written as Parquet, CSV or JSON Lines."""
    if fmt == "jsonl":
        lines = []
        for rec in df.to_dict("records"):
            rec["updated_at"] = _iso(rec["updated_at"])
            rec["stale"] = bool(rec["stale"])
            lines.append(_json(rec))
        return ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")
    flat = df.copy()
    flat["value"] = [_json(v) for v in flat["value"]]
    flat["objects"] = [_json(v) for v in flat["objects"]]
    if fmt == "csv":
        flat["updated_at"] = [_iso(t) for t in flat["updated_at"]]
        return flat.to_csv(index=False).encode("utf-8")
    if fmt == "parquet":
        buf = io.BytesIO()
        flat.to_parquet(buf, index=False)
        return buf.getvalue()
    raise ValueError(f"unknown format {fmt!r}")


def write(df: pd.DataFrame, path: str | Path, fmt: str | None = None) -> int:
    """Write the export to `path` (atomically: a temporary file then a rename); returns rows written."""
    path = Path(path)
    data = to_bytes(df, format_of(path, fmt))
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return len(df)
