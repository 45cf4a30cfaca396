"""Load annotations made elsewhere into a project's store.

Accepted input (detected per file and per record):

- **JSON Lines of** ``{"item_id", "annotator", "scheme", "value"}`` (optionally ``status``,
  ``trace_hash``, ``updated_at``, ``seconds_spent``) — which is also Baton's own export
  (``.jsonl``, ``.csv`` or ``.parquet``: ``value`` may be JSON text). A convenience for hand-made
  files: a radio value may be the bare label, a multiselect value a list of labels, a likert value
  the number, a text value the string.
- **Potato's annotation output**: a folder ``annotation_output/`` (or one file in it) holding
  per-annotator ``annotated_instances.jsonl`` (records ``{"id", "label_annotations": {scheme:
  {label: value}}, ...}``, the annotator from ``user_id`` or the folder name) or ``user_state.json``
  (``{"user_id", "instance_id_to_label_to_value": {...}}``). Potato keeps the multi-agent schemes'
  value as JSON text in a hidden input of the scheme; it is unwrapped. Schemes of the Potato project
  that this project does not have are reported and skipped.

Rows are checked against the project: the item must exist, the scheme must be configured and the
value must have its type's shape; anything else is reported with where it came from and skipped.
Then every value is checked by its type's `validate` against the scheme and the item's trace (the
check the app's saves pass): a value that does not fit is refused, with file, line and reason, and
counted apart (`refused`); with ``keep_invalid`` it is stored with the status ``invalid`` instead,
which the summary never counts. A ``seconds_spent`` that is not a number, negative, NaN or more
than MAX_SECONDS_SPENT is refused too.
Existing annotations are kept unless ``overwrite`` (a second import of the same file therefore
changes nothing). ``cleared`` rows are not annotations and are skipped.

No Streamlit here.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from app.store.rows import MAX_SECONDS_SPENT, STATUS_INVALID
from app.store.storage import DONE, STATUS_ANNOTATED, STATUS_CLEARED, STATUSES, Annotation, AnnotationStore
from app.traces.derive import derive, scheme_keys
from app.types.registry import TYPES

POTATO_FILES = ("annotated_instances.jsonl", "user_state.json")


@dataclass
class ImportResult:
    imported: int = 0
    kept_existing: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)  # format -> records read
    refused: int = 0  # values that do not fit their scheme or trace (not stored, or stored as invalid)
    kept_invalid: int = 0  # of which stored with the status "invalid" (keep_invalid)

    def problem(self, where: str, msg: str) -> None:
        self.skipped += 1
        self.problems.append(f"{where}: {msg}")

    def refuse(self, where: str, scheme: str, reasons: list[str], kept: bool) -> None:
        self.refused += 1
        self.kept_invalid += kept
        shown = "; ".join(reasons[:5]) + (f"; and {len(reasons) - 5} more" if len(reasons) > 5 else "")
        self.problems.append(f"{where}: {'kept as invalid' if kept else 'refused'}: {scheme}: {shown}")


# --- reading ------------------------------------------------------------------------------------

def _records(path: Path, result: ImportResult) -> Iterator[tuple[dict, str, str | None]]:
    """(record, where, annotator implied by the file's folder) for every record under `path`."""
    if path.is_dir():
        found = False
        for f in sorted(path.rglob("*")):
            if f.name in POTATO_FILES and f.is_file():
                found = True
                yield from _records(f, result)
        if not found:
            result.problems.append(f"{path}: no Potato annotation files ({', '.join(POTATO_FILES)}) in this folder")
        return
    suffix = path.suffix.lower()
    folder_user = path.parent.name if path.name in POTATO_FILES else None
    if suffix in (".parquet", ".csv"):
        import pandas as pd
        df = pd.read_parquet(path) if suffix == ".parquet" else pd.read_csv(path, dtype=str, keep_default_na=False)
        for i, rec in enumerate(df.to_dict("records")):
            yield rec, f"{path}: row {i + 1}", None
        return
    text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "instance_id_to_label_to_value" in whole:
        yield whole, str(path), folder_user
        return
    if isinstance(whole, list):
        for i, rec in enumerate(whole):
            yield rec, f"{path}: entry {i + 1}", folder_user
        return
    if isinstance(whole, dict):
        yield whole, str(path), folder_user
        return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line), f"{path}: line {n}", folder_user
        except ValueError as e:
            result.problem(f"{path}: line {n}", f"not JSON ({e})")


# --- values ---------------------------------------------------------------------------------------

def _maybe_json(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def coerce(t: str, v: Any, scheme=None) -> Any:
    """A value in the stored format of type `t` from the shapes other tools (and people) write
    (the type's own `coerce`; text that holds JSON is read first)."""
    kind = TYPES.get(t)
    return kind.coerce(_maybe_json(v), scheme) if kind is not None else _maybe_json(v)


def _looks_like(t: str, v: Any) -> bool:
    kind = TYPES.get(t)
    return kind is not None and kind.looks_like(v)


def _shape_error(t: str, v: Any, status: str) -> str | None:
    if v is None and status != STATUS_ANNOTATED:
        return None
    if t == DONE:
        return None if isinstance(v, dict) else "a done mark must be {\"done\": true|false}"
    if not _looks_like(t, v):
        return f"value {json.dumps(v, ensure_ascii=False, default=str)[:120]} is not a {t} value"
    return None


# --- records → annotations ----------------------------------------------------------------------------

def _time(v: Any) -> datetime | None:
    if v is None or v == "" or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, datetime):
        ts = v
    else:
        try:
            ts = datetime.fromisoformat(str(v).replace("Z", "+00:00"))
        except ValueError:
            return None
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def _seconds(v: Any) -> float | str:
    """The time spent an imported row gives (none given: 0), or why it is refused."""
    if v is None or v == "":
        return 0.0
    try:
        if isinstance(v, bool):
            raise TypeError
        f = float(v)
    except (TypeError, ValueError):
        return f"seconds_spent {str(v)[:40]!r} is not a number"
    if not math.isfinite(f) or f < 0 or f > MAX_SECONDS_SPENT:
        return f"seconds_spent {f!r} is not a time spent (expected 0 to {MAX_SECONDS_SPENT:.0f} seconds)"
    return f


def _done_reasons(value: Any) -> list[str]:
    if isinstance(value, dict) and set(value) <= {"done"} and isinstance(value.get("done"), bool):
        return []
    return ['a done mark must be {"done": true|false}']


class _Traces:
    """Each item's derivation for a scheme's trace keys, made once per import."""

    def __init__(self):
        self._found: dict[tuple, Any] = {}

    def __call__(self, item, scheme) -> Any:
        keys = scheme_keys(scheme)
        key = (item.id, tuple(sorted(keys.items())))
        if key not in self._found:
            self._found[key] = derive(item.data, **keys)
        return self._found[key]


def reasons(kind_name: str, value: Any, scheme, derivation) -> list[str]:
    """Why a value in its stored form does not fit its scheme (and trace): the type's validate."""
    if kind_name == DONE:
        return _done_reasons(value)
    return list(TYPES[kind_name].validate(value, scheme, derivation))


def _rows(rec: Any, where: str, folder_user: str | None, default_annotator: str | None,
          result: ImportResult) -> Iterator[tuple[dict, str]]:
    """Baton-shaped rows {item_id, annotator, scheme, value, ...} from one record of any format."""
    if not isinstance(rec, dict):
        result.problem(where, "expected a JSON object")
        return
    if "instance_id_to_label_to_value" in rec:  # Potato user_state.json
        result.sources["potato"] = result.sources.get("potato", 0) + 1
        who = rec.get("user_id") or folder_user or default_annotator
        data = rec["instance_id_to_label_to_value"] or {}
        for item_id, labels in (data.items() if isinstance(data, dict) else ()):
            for scheme, value in _potato_labels(labels).items():
                yield {"item_id": str(item_id), "annotator": who, "scheme": scheme, "value": value,
                       "potato": True}, f"{where}: instance {item_id!r}"
        spans = rec.get("instance_id_to_span_to_value") or {}  # (span schemes: {item: {scheme: [spans]}})
        for item_id, by_scheme in (spans.items() if isinstance(spans, dict) else ()):
            for scheme, value in _potato_spans(by_scheme).items():
                yield {"item_id": str(item_id), "annotator": who, "scheme": scheme, "value": value,
                       "potato": True}, f"{where}: instance {item_id!r} spans"
        return
    if "label_annotations" in rec:  # Potato annotated_instances.jsonl
        result.sources["potato"] = result.sources.get("potato", 0) + 1
        who = rec.get("user_id") or rec.get("user") or folder_user or default_annotator
        item_id = rec.get("id", rec.get("instance_id"))
        bd = rec.get("behavioral_data") if isinstance(rec.get("behavioral_data"), dict) else {}
        for scheme, value in _potato_labels(rec.get("label_annotations")).items():
            yield {"item_id": None if item_id is None else str(item_id), "annotator": who, "scheme": scheme,
                   "value": value, "potato": True, "seconds_spent": bd.get("time_spent")}, where
        for scheme, value in _potato_spans(rec.get("span_annotations")).items():
            yield {"item_id": None if item_id is None else str(item_id), "annotator": who, "scheme": scheme,
                   "value": value, "potato": True}, f"{where}: spans"
        return
    result.sources["baton"] = result.sources.get("baton", 0) + 1
    row = dict(rec)
    if not row.get("annotator"):
        row["annotator"] = default_annotator
    yield row, where


def _potato_labels(labels: Any) -> dict[str, Any]:
    """{scheme: raw value} from Potato's label annotations (a dict, or a list of [label, value] pairs)."""
    if isinstance(labels, dict):
        return {str(k): v for k, v in labels.items()}
    out: dict[str, dict] = {}
    for pair in labels if isinstance(labels, list) else ():
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], dict):
            schema, name = pair[0].get("schema"), pair[0].get("name")
            if schema is not None:
                out.setdefault(str(schema), {})[str(name)] = pair[1]
    return out


def _potato_spans(spans: Any) -> dict[str, Any]:
    """{scheme: [spans]} from Potato's span annotations: a mapping of scheme to spans, or a list
    of spans each naming its scheme (`schema`)."""
    if isinstance(spans, dict):
        return {str(k): v for k, v in spans.items()}
    out: dict[str, list] = {}
    for e in spans if isinstance(spans, list) else ():
        if isinstance(e, dict) and e.get("schema") is not None:
            out.setdefault(str(e["schema"]), []).append({k: x for k, x in e.items() if k != "schema"})
    return out


def import_file(ws, path: str | Path, *, overwrite: bool = False, annotator: str | None = None,
                store: AnnotationStore | None = None, keep_invalid: bool = False) -> ImportResult:
    """Import every annotation in `path` (a file or a Potato output folder) into the project."""
    path = Path(path)
    result = ImportResult()
    traces = _Traces()
    store = store or AnnotationStore(ws.project.output_dir)
    schemes = {s.name: s for s in ws.project.schemes}
    unknown_schemes: dict[str, int] = {}
    if not path.exists():
        result.problems.append(f"{path}: no such file or folder")
        return result
    for rec, where, folder_user in _records(path, result):
        for row, at in _rows(rec, where, folder_user, annotator, result):
            item_id, who, scheme = row.get("item_id"), row.get("annotator"), row.get("scheme")
            if not item_id or not isinstance(item_id, str):
                result.problem(at, "no item_id")
                continue
            if not who or not isinstance(who, str):
                result.problem(at, "no annotator (give one with --annotator)")
                continue
            if scheme != DONE and scheme not in schemes:
                if row.get("potato"):
                    unknown_schemes[scheme] = unknown_schemes.get(scheme, 0) + 1
                    result.skipped += 1
                else:
                    result.problem(at, f"scheme {scheme!r} is not in this project "
                                       f"({', '.join(schemes) or 'no schemes'})")
                continue
            item = ws.by_id.get(item_id)
            if item is None:
                result.problem(at, f"item {item_id!r} is not in this project")
                continue
            status = row.get("status") or STATUS_ANNOTATED
            if status == STATUS_CLEARED:
                result.skipped += 1
                continue
            if status not in STATUSES:
                result.problem(at, f"unknown status {status!r}")
                continue
            t = DONE if scheme == DONE else schemes[scheme].type
            declared = row.get("annotation_type")
            if declared and declared != t and scheme != DONE:
                result.problem(at, f"scheme {scheme!r} is {t} in this project, the file says {declared}")
                continue
            value = _maybe_json(row.get("value")) if t == DONE else coerce(t, row.get("value"), schemes.get(scheme))
            err = _shape_error(t, value, status)
            if err:
                result.problem(at, err)
                continue
            seconds = _seconds(row.get("seconds_spent"))
            if isinstance(seconds, str):
                result.problem(at, seconds)
                continue
            scheme_of = schemes.get(scheme)
            wrong = [] if value is None else reasons(
                t, value, scheme_of, traces(item, scheme_of) if t != DONE and TYPES[t].trace else None)
            if wrong and not keep_invalid:
                result.refuse(at, scheme, wrong, kept=False)
                continue
            trace_hash = row.get("trace_hash")
            if not isinstance(trace_hash, str) or not trace_hash:
                trace_hash = item.trace_hash
            try:
                # the check for a saved row and the write as one step: the app saving this key
                # meanwhile (another process) is never overwritten without --overwrite
                with store.locked(who):
                    if not overwrite and store.path_for(item_id, who, scheme).exists():
                        result.kept_existing += 1
                        continue
                    store.save(Annotation(item_id, who, scheme, t, value, STATUS_INVALID if wrong else status,
                                          trace_hash, _time(row.get("updated_at")), seconds))
            except (ValueError, TypeError) as e:
                result.problem(at, str(e))
                continue
            if wrong:
                result.refuse(at, scheme, wrong, kept=True)
                continue
            result.imported += 1
    for scheme, n in unknown_schemes.items():
        result.problems.append(f"{path}: scheme {scheme!r} ({n} annotation(s)) is not in this project; skipped")
    return result
