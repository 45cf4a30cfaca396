"""Load and validate a Potato-style project YAML.

Every problem names its config path (`annotation_schemes[2].quality_scale`) and says
what was expected; unknown keys suggest the closest known one. Potato keys Baton does
not use are accepted and reported as ignored.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.project import orchestration, validators as v
from app.project.problems import Problem
from app.traces.readers import FORMATS as READER_FORMATS
from app.types.base import POTATO_NOTED_SCHEME_KEYS, Scheme
from app.types.registry import COMMON_KEYS, POTATO_IGNORED_SCHEME_KEYS, TYPES

# Potato project keys that only shape Potato's own server or HTML.
POTATO_IGNORED_TOP_KEYS = {
    "port", "server_name", "user_config", "alert_time_each_instance", "annotation_codebook_url",
    "header_file", "html_layout", "base_html_template", "site_dir", "surveyflow",
    "jumping_to_id_within_the_page", "list_as_text", "login", "automatic_assignment", "hide_navbar",
    "customjs", "customjs_hostname", "output_annotation_format", "instance_display", "display",
    "keyword_highlights_file", "horizontal_key_bindings", "annotation_instructions", "ui", "prolific",
    "debug", "persist_sessions", "secret_key", "max_annotations_per_user", "max_annotations_per_item",
    "assignment_strategy", "training", "active_learning", "ai_support", "agent_trace_display",
    "trace_display", "annotation_task_description", "host", "require_password", "authentication",
    "database", "phases", "random_seed", "highlight_linebreaks", "allow_all_users", "consent",
    "instructions", "completion_code", "quality_control", "attention_checks", "gold_standards",
    "admin_api_key", "server", "logging", "export", "adjudication", "span_highlight_colors",
    # Potato's live ingestion (a webhook, Langfuse polling, a watched folder): Baton reads files
    "trace_ingestion",
    # its export format
    "export_annotation_format",
}
ITEM_PROPERTY_KEYS = {"id_key": "id", "text_key": "text"}
POTATO_IGNORED_ITEM_KEYS = {"context_key", "kwargs", "image_key", "audio_key", "video_key", "label_key"}
KNOWN_TOP_KEYS = {"annotation_task_name", "data_files", "item_properties", "output_annotation_dir",
                  "task_dir", "annotation_schemes", "session_idle_minutes", "cot_segmentation",
                  "orchestration_scheme", "orchestration_lens"}
DONE_SCHEME = "_item"  # the scheme name under which the per-item "done" mark is stored
# scheme names Baton keeps for its own records: a scheme of the project under one of them
# would have its answers overwritten (the done mark replaces them)
RESERVED_PREFIX = "_"
MAX_CONFIG_BYTES = 1_000_000  # a project file is a few KB; YAML this big is a mistake or an attack
DATA_FORMATS = ("auto", *READER_FORMATS)  # every reader module can be named by data_files[].data_format


@dataclass(frozen=True)
class DataFile:
    path: Path
    data_format: str = "auto"
    where: str = ""  # its config path, for messages
    given: Path | None = None  # the path as the config names it (unresolved: a link may be retargeted)


@dataclass(frozen=True)
class Unsupported:
    """A scheme of a type Baton does not support: the project opens without it, the items page
    lists it and `check` fails naming it."""

    index: int
    type: str
    name: str

    @property
    def where(self) -> str:
        return f"annotation_schemes[{self.index}]"


@dataclass
class Project:
    path: Path
    name: str
    base_dir: Path
    data_files: list[DataFile]
    id_key: str
    text_key: str
    output_dir: Path
    schemes: list[Scheme]
    ignored: list[str] = field(default_factory=list)
    # schemes of a type Baton does not support (audio, video, images, ...): listed, never asked
    unsupported: list[Unsupported] = field(default_factory=list)
    session_idle_minutes: float | None = None  # a signed-in session idle this long ends (None: default)
    cot_segmentation: dict | None = None  # Potato's: a reasoning string split into a step list (app/traces/cot.py)
    orchestration_scheme: str | None = None  # the radio asking the run's pattern (app/project/orchestration.py)
    orchestration_lens: dict[str, list[str]] = field(default_factory=dict)  # pattern -> schemes to show first

    def scheme(self, name: str) -> Scheme:
        for s in self.schemes:
            if s.name == name:
                return s
        raise KeyError(name)

    def schemes_of(self, type_name: str) -> list[Scheme]:
        return [s for s in self.schemes if s.type == type_name]

    def types(self) -> list[str]:
        """Annotation types present, in first-use order."""
        return list(dict.fromkeys(s.type for s in self.schemes))


def _suggest(key: Any, known) -> str:
    close = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""


UNSUPPORTED = "unsupported"  # the level of the problem naming a scheme of a type Baton lacks


def _validate_scheme(i: int, raw: Any, out: list[Problem], file: str,
                     unsupported: list[Unsupported] | None = None) -> Scheme | None:
    where = f"annotation_schemes[{i}]"
    if not isinstance(raw, dict):
        out.append(Problem(file, where, f"expected a mapping with annotation_type and name, got {v.show(raw)}"))
        return None
    t = raw.get("annotation_type")
    if isinstance(t, str) and t.strip() and t not in TYPES:
        # (an audio, video or image scheme, or a newer Potato type: the rest of the project opens)
        name = raw.get("name") if isinstance(raw.get("name"), str) else f"#{i}"
        out.append(Problem(file, f"{where}.annotation_type",
                           f"annotation type {v.show(t)} (scheme {v.show(name)}) is not supported by Baton: the "
                           f"scheme is listed as not supported and not asked (supported: {', '.join(TYPES)})"
                           + _suggest(t, TYPES), UNSUPPORTED))
        if unsupported is not None:
            unsupported.append(Unsupported(i, t, name))
        return None
    if not isinstance(t, str) or t not in TYPES:
        got = "nothing" if t is None else v.show(t)
        out.append(Problem(file, f"{where}.annotation_type", f"expected one of {', '.join(TYPES)}, got {got}"))
        return None
    spec = {**COMMON_KEYS, **TYPES[t].keys}
    opts: dict[str, Any] = {}
    ok = True
    for key, value in raw.items():
        if key in spec:
            try:
                opts[key] = spec[key].check(value)
            except v.Invalid as e:
                out.append(Problem(file, f"{where}.{key}{e.subpath}", e.message))
                ok = False
        elif key in POTATO_IGNORED_SCHEME_KEYS:
            out.append(Problem(file, f"{where}.{key}", "Potato display key, ignored by Baton", "ignored"))
        else:
            out.append(Problem(file, f"{where}.{key}",
                               f'unknown key for {t}{_suggest(key, spec) or "; known keys: " + ", ".join(spec)}'))
            ok = False
    for key, k in spec.items():
        if key not in opts:
            if k.required:
                out.append(Problem(file, f"{where}.{key}", f"required for {t}: {k.doc or 'missing'}"))
                ok = False
            else:
                opts[key] = k.default
    if ok:  # (keys that must agree with each other: a slider's min below its max, ...)
        for key, message in TYPES[t].scheme_problems(opts):
            out.append(Problem(file, f"{where}.{key}" if key else where, message))
            ok = False
    if not ok:
        return None
    for key, why in POTATO_NOTED_SCHEME_KEYS.items():  # (Potato keys accepted, with no effect here)
        if key in raw and key not in TYPES[t].honours and raw[key] not in (False, None):
            out.append(Problem(file, f"{where}.{key}", f"ignored by Baton: {why}", "ignored"))
    for key, why in TYPES[t].ignored_keys(opts):
        out.append(Problem(file, f"{where}.{key}", f"ignored by Baton: {why}", "ignored"))
    return Scheme(i, t, opts.pop("name"), opts.pop("description") or "", opts)


def _cross_checks(schemes: list[Scheme], out: list[Problem], file: str) -> None:
    seen: dict[str, int] = {}
    for s in schemes:
        if s.name.startswith(RESERVED_PREFIX):
            out.append(Problem(file, f"{s.where}.name",
                               f'scheme names starting with "{RESERVED_PREFIX}" are reserved for Baton\'s own '
                               f'records ("{DONE_SCHEME}" is the done mark, which would overwrite this '
                               f'scheme\'s answers), got {v.show(s.name)}'))
        if s.name in seen:
            out.append(Problem(file, f"{s.where}.name",
                               f'duplicate scheme name "{s.name}" (also annotation_schemes[{seen[s.name]}])'))
        seen.setdefault(s.name, s.index)
    by_name = {s.name: s for s in schemes}
    for s in schemes:
        cond = s.get("show_if")
        if not cond:
            continue
        target = by_name.get(cond["scheme"])
        if target is None or target is s:
            out.append(Problem(file, f"{s.where}.show_if.scheme",
                               f'expected the name of another scheme, got "{cond["scheme"]}"'
                               + _suggest(cond["scheme"], by_name)))
        elif target.type != "radio":
            out.append(Problem(file, f"{s.where}.show_if.scheme",
                               f'expected a radio scheme, "{target.name}" is {target.type}'))
        else:
            names = [lab["name"] for lab in target["labels"]]
            for j, lab in enumerate(cond["any_of"]):
                if lab not in names:
                    out.append(Problem(file, f"{s.where}.show_if.any_of[{j}]",
                                       f'expected a label of "{target.name}" ({", ".join(names)}), got "{lab}"'))


def _data_files(raw: Any, base: Path, out: list[Problem], file: str) -> list[DataFile]:
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
        path = _path(base, entry)
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


def _path(base: Path, entry: str) -> Path | str:
    """`base / entry` resolved, or what is wrong with it (a NUL byte, a loop of links)."""
    if "\x00" in entry:
        return f"expected a folder or file path, got one with a NUL byte: {v.show(entry)}"
    try:
        return (base / entry).resolve()
    except (OSError, ValueError, RuntimeError) as e:
        return f"cannot resolve the path {v.show(entry)}: {e}"


def _cot_segmentation(raw: Any, out: list[Problem], file: str) -> dict | None:
    """Potato's `cot_segmentation`, checked: {source_key, strategy, target_key, min_step_chars,
    max_steps, markers, sentences_per_step}."""
    from app.traces.cot import STRATEGIES
    if raw is None:
        return None
    if not isinstance(raw, dict):
        out.append(Problem(file, "cot_segmentation", f"expected a mapping with source_key, got {v.show(raw)}"))
        return None
    known = {"source_key", "strategy", "target_key", "min_step_chars", "max_steps", "markers", "sentences_per_step"}
    opts = {"strategy": "auto", "target_key": "cot_steps", "min_step_chars": 0, "max_steps": 200, "markers": None,
            "sentences_per_step": 1, **raw}
    checks = [("source_key", isinstance(opts.get("source_key"), str) and bool(opts.get("source_key")), "a field name"),
              ("target_key", isinstance(opts["target_key"], str) and bool(opts["target_key"]), "a field name"),
              ("strategy", opts["strategy"] in STRATEGIES, "one of " + ", ".join(STRATEGIES)),
              ("markers", opts["markers"] is None or (isinstance(opts["markers"], list)
                                                      and all(isinstance(m, str) for m in opts["markers"])),
               "a list of strings")]
    checks += [(k, isinstance(opts[k], int) and not isinstance(opts[k], bool) and opts[k] >= low, f"a whole number >= {low}")
               for k, low in (("min_step_chars", 0), ("max_steps", 1), ("sentences_per_step", 1))]
    bad = False
    for key, fine, wanted in checks:
        if not fine:
            out.append(Problem(file, f"cot_segmentation.{key}", f"expected {wanted}, got {v.show(opts.get(key))}"))
            bad = True
    for key in sorted(set(raw) - known):
        out.append(Problem(file, f"cot_segmentation.{key}", "Potato key, ignored by Baton", "ignored"))
    if opts["strategy"] == "llm":
        out.append(Problem(file, "cot_segmentation.strategy", "Baton calls no model: the auto strategy is used",
                           "ignored"))
    return None if bad else opts


def load_config(path: str | Path) -> tuple[Project | None, list[Problem]]:
    """Parse and validate a project; returns the project (None on errors) and all problems."""
    path = Path(path)
    file = str(path)
    out: list[Problem] = []
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            return None, [Problem(file, "", f"the config is {size:,} bytes; a project file is a few KB "
                                            f"(at most {MAX_CONFIG_BYTES:,} bytes are read)")]
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return None, [Problem(file, "", f"cannot read the config: {e}")]
    try:
        raw = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        return None, [Problem(file, where, f"YAML syntax error: {e.problem or e}")]
    except yaml.YAMLError as e:
        return None, [Problem(file, "", f"YAML error: {e}")]
    except RecursionError:
        return None, [Problem(file, "", "YAML nested too deeply to read (thousands of levels); "
                                       "a project file is a few levels deep")]
    except Exception as e:  # PyYAML's constructors raise plain errors for bad tagged values (`!!int x`)
        return None, [Problem(file, "", f"YAML error: a value cannot be read ({type(e).__name__}: {e})")]
    if not isinstance(raw, dict):
        return None, [Problem(file, "", f"expected a mapping of project keys, got {v.show(raw)}")]

    ignored = []
    for key in raw:
        if key in KNOWN_TOP_KEYS:
            continue
        if key in POTATO_IGNORED_TOP_KEYS:
            out.append(Problem(file, str(key), "Potato key, ignored by Baton", "ignored"))
            ignored.append(str(key))
        else:
            out.append(Problem(file, str(key) or v.show(key), "unknown project key" + (
                _suggest(str(key), KNOWN_TOP_KEYS) or "; known keys: " + ", ".join(sorted(KNOWN_TOP_KEYS)))))

    name = raw.get("annotation_task_name")
    if not isinstance(name, str) or not name.strip():
        out.append(Problem(file, "annotation_task_name", f"expected a non-empty string, got {v.show(name)}"))
    base = path.resolve().parent
    task_dir = raw.get("task_dir")
    if task_dir is not None:
        if not isinstance(task_dir, str):
            out.append(Problem(file, "task_dir", f"expected a folder path, got {v.show(task_dir)}"))
        else:
            got = _path(base, task_dir)
            if isinstance(got, str):
                out.append(Problem(file, "task_dir", got))
            else:
                base = got

    props = raw.get("item_properties") or {}
    keys = dict(ITEM_PROPERTY_KEYS)
    if not isinstance(props, dict):
        out.append(Problem(file, "item_properties", f"expected a mapping with id_key and text_key, got {v.show(props)}"))
        props = {}
    for k, value in props.items():
        if k in keys:
            if not isinstance(value, str) or not value:
                out.append(Problem(file, f"item_properties.{k}", f"expected a field name, got {v.show(value)}"))
            else:
                keys[k] = value
        elif k in POTATO_IGNORED_ITEM_KEYS:
            out.append(Problem(file, f"item_properties.{k}", "Potato key, ignored by Baton", "ignored"))
        else:
            out.append(Problem(file, f"item_properties.{k}",
                               "unknown key" + (_suggest(k, ITEM_PROPERTY_KEYS) or "; expected id_key, text_key")))

    data_files = _data_files(raw.get("data_files"), base, out, file)

    out_dir = raw.get("output_annotation_dir", "annotation_output/")
    if not isinstance(out_dir, str) or not out_dir.strip():
        out.append(Problem(file, "output_annotation_dir", f"expected a folder path, got {v.show(out_dir)}"))
        out_dir = "annotation_output/"
    output_dir = _path(base, out_dir)
    if isinstance(output_dir, str):
        out.append(Problem(file, "output_annotation_dir", output_dir))

    schemes_raw = raw.get("annotation_schemes")
    schemes: list[Scheme] = []
    unsupported: list[Unsupported] = []
    if not isinstance(schemes_raw, list) or not schemes_raw:
        out.append(Problem(file, "annotation_schemes",
                           f"expected a non-empty list of schemes, got {v.show(schemes_raw)}"))
    else:
        for i, s in enumerate(schemes_raw):
            scheme = _validate_scheme(i, s, out, file, unsupported)
            if scheme:
                schemes.append(scheme)
        _cross_checks(schemes, out, file)
    orchestration_scheme, lens = orchestration.check(raw, schemes, out, file)  # (after the schemes)

    idle = raw.get("session_idle_minutes")
    if idle is not None and (isinstance(idle, bool) or not isinstance(idle, (int, float)) or not 0 < idle <= 10080):
        out.append(Problem(file, "session_idle_minutes",
                           f"expected a number of minutes above 0 and at most 10080 (a week), got {v.show(idle)}"))

    cot = _cot_segmentation(raw.get("cot_segmentation"), out, file)

    if any(p.level == "error" for p in out):
        return None, out
    return Project(path.resolve(), name, base, data_files, keys["id_key"], keys["text_key"],
                   output_dir, schemes, ignored, unsupported, idle, cot, orchestration_scheme, lens), out


def output_dir_problem(path: Path) -> str | None:
    """Why annotations could not be saved in this folder, or None: it is a file, or it (or,
    not made yet, the nearest folder above it) cannot be written. The app says the same on a
    failed save; `check` says it before anyone annotates."""
    probe = Path(path)
    while not os.path.lexists(probe) and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        return f"not a folder: {probe} (annotations are saved in a folder)"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"the annotation folder cannot be written: {probe}"
    return None
