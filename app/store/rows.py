"""One stored annotation: the row type, the Parquet schema of the store and the statuses.

No Streamlit here.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from app.store.files import _check_name, _check_utf8, value_from_json, value_to_json

STATUS_ANNOTATED = "annotated"
STATUS_REVIEWED_CLEAN = "reviewed_clean"
STATUS_CLEARED = "cleared"
# a value that does not fit its scheme or trace, kept on request (`import --keep-invalid`):
# stored for a person to look at and mend, never counted by the summary
STATUS_INVALID = "invalid"
# the scheme name of the per-item "done" mark (not a judgement: no scheme may take this name)
DONE = "_item"
STATUSES = frozenset({STATUS_ANNOTATED, STATUS_REVIEWED_CLEAN, STATUS_CLEARED, STATUS_INVALID})
# the most time one annotation may have taken: an imported seconds_spent above it is refused
# (a week; the app counts at most IDLE_CAP a click, app/ui/saving.py)
MAX_SECONDS_SPENT = 7 * 24 * 3600.0

SCHEMA_VERSION = "1"

SCHEMA = pa.schema(
    [
        pa.field("item_id", pa.string()),
        pa.field("annotator", pa.string()),
        pa.field("scheme", pa.string()),
        pa.field("annotation_type", pa.string()),
        pa.field("value", pa.string()),  # JSON text
        pa.field("status", pa.string()),
        pa.field("trace_hash", pa.string()),
        pa.field("updated_at", pa.timestamp("us", tz="UTC")),
        pa.field("seconds_spent", pa.float64()),
    ],
    metadata={"baton.schema_version": SCHEMA_VERSION},
)




# --------------------------------------------------------------------------- #
# Row type
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Annotation:
    """One stored row.  ``value`` is the Python value; it is JSON text on disk."""

    item_id: str
    annotator: str
    scheme: str
    annotation_type: str
    value: Any
    status: str = STATUS_ANNOTATED
    trace_hash: str = ""
    updated_at: datetime | None = None
    seconds_spent: float = 0.0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.item_id, self.annotator, self.scheme)


def _normalise(ann: Annotation) -> tuple[Annotation, str]:
    """Validate ``ann``; return the exact annotation that will be written + its JSON."""
    for what in ("item_id", "annotator", "scheme"):
        _check_name(getattr(ann, what), what)
    for what in ("annotation_type", "trace_hash"):
        val = getattr(ann, what)
        if not isinstance(val, str):
            raise ValueError(f"{what} must be a str, got {type(val).__name__}")
        _check_utf8(val, what)
    if ann.status not in STATUSES:
        raise ValueError(f"status must be one of {sorted(STATUSES)}, got {ann.status!r}")
    if ann.status == STATUS_CLEARED and ann.value is not None:
        raise ValueError("a 'cleared' annotation must have value None")
    try:
        seconds = float(ann.seconds_spent)
    except (TypeError, ValueError):
        raise ValueError(f"seconds_spent must be a number, got {ann.seconds_spent!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"seconds_spent must be finite and >= 0, got {seconds!r}")

    ts = ann.updated_at
    if ts is None:
        ts = datetime.now(timezone.utc)
    elif not isinstance(ts, datetime):
        raise ValueError(f"updated_at must be a datetime, got {type(ts).__name__}")
    elif ts.tzinfo is None or ts.utcoffset() is None:
        raise ValueError("updated_at must be timezone-aware")
    ts = ts.astimezone(timezone.utc)

    text = value_to_json(ann.value)
    out = dataclasses.replace(
        ann, value=value_from_json(text), updated_at=ts, seconds_spent=seconds
    )
    return out, text


def _to_table(ann: Annotation, value_json: str) -> pa.Table:
    return pa.Table.from_pydict(
        {
            "item_id": [ann.item_id],
            "annotator": [ann.annotator],
            "scheme": [ann.scheme],
            "annotation_type": [ann.annotation_type],
            "value": [value_json],
            "status": [ann.status],
            "trace_hash": [ann.trace_hash],
            "updated_at": [ann.updated_at],
            "seconds_spent": [ann.seconds_spent],
        },
        schema=SCHEMA,
    )


def warm_writer() -> None:
    """Make one row's Parquet file in memory, nothing on disk. The first save of a process
    converts a save time through pyarrow's pandas layer, imported then (~10 ms, with the
    writer's first use): a server calls this at start, so an annotator's first click does not."""
    ann, text = _normalise(Annotation("-", "-", "-", "text", None))
    pq.write_table(_to_table(ann, text), pa.BufferOutputStream())


def _row_to_annotation(row: dict[str, Any]) -> Annotation:
    ts = row["updated_at"]
    if ts is not None:
        ts = ts.astimezone(timezone.utc)
    return Annotation(
        item_id=row["item_id"],
        annotator=row["annotator"],
        scheme=row["scheme"],
        annotation_type=row["annotation_type"],
        value=value_from_json(row["value"]),
        status=row["status"],
        trace_hash=row["trace_hash"],
        updated_at=ts,
        seconds_spent=row["seconds_spent"],
    )


