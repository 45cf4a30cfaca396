"""Load and validate a Potato-style project YAML.

Every problem names its config path (`annotation_schemes[2].quality_scale`) and says
what was expected; unknown keys suggest the closest known one. Potato keys Baton does
not use are accepted and reported as ignored.

One scheme's checks are app/project/schemes.py, the data files' app/project/data_files.py,
`cot_segmentation`'s app/project/cot_segmentation.py, the orchestration keys'
app/project/orchestration.py; this module reads the file and checks the rest of the top level.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from app.project import orchestration, validators as v
from app.project.cot_segmentation import check_cot_segmentation
from app.project.data_files import DATA_FORMATS, DataFile, check_data_files, resolve  # noqa: F401 (DATA_FORMATS)
from app.project.problems import Problem
from app.project.schemes import DONE_SCHEME, Unsupported, check_scheme, cross_checks  # noqa: F401 (DONE_SCHEME)
from app.types.base import Scheme

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
MAX_CONFIG_BYTES = 1_000_000  # a project file is a few KB; YAML this big is a mistake or an attack


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
                v.suggest(str(key), KNOWN_TOP_KEYS) or "; known keys: " + ", ".join(sorted(KNOWN_TOP_KEYS)))))

    name = raw.get("annotation_task_name")
    if not isinstance(name, str) or not name.strip():
        out.append(Problem(file, "annotation_task_name", f"expected a non-empty string, got {v.show(name)}"))
    base = path.resolve().parent
    task_dir = raw.get("task_dir")
    if task_dir is not None:
        if not isinstance(task_dir, str):
            out.append(Problem(file, "task_dir", f"expected a folder path, got {v.show(task_dir)}"))
        else:
            got = resolve(base, task_dir)
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
                               "unknown key" + (v.suggest(k, ITEM_PROPERTY_KEYS) or "; expected id_key, text_key")))

    data_files = check_data_files(raw.get("data_files"), base, out, file)

    out_dir = raw.get("output_annotation_dir", "annotation_output/")
    if not isinstance(out_dir, str) or not out_dir.strip():
        out.append(Problem(file, "output_annotation_dir", f"expected a folder path, got {v.show(out_dir)}"))
        out_dir = "annotation_output/"
    output_dir = resolve(base, out_dir)
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
            scheme = check_scheme(i, s, out, file, unsupported)
            if scheme:
                schemes.append(scheme)
        cross_checks(schemes, out, file)
    orchestration_scheme, lens = orchestration.check(raw, schemes, out, file)  # (after the schemes)

    idle = raw.get("session_idle_minutes")
    if idle is not None and (isinstance(idle, bool) or not isinstance(idle, (int, float)) or not 0 < idle <= 10080):
        out.append(Problem(file, "session_idle_minutes",
                           f"expected a number of minutes above 0 and at most 10080 (a week), got {v.show(idle)}"))

    cot = check_cot_segmentation(raw.get("cot_segmentation"), out, file)

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
