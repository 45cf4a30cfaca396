"""Hostile project files: property-based fuzzing of the config loader.

Whatever the YAML holds (random structures built from the real key names, the shipped
configs with random parts replaced or removed, random text and bytes, alias bombs,
self-referencing aliases, deep nesting), `load_config` must return, never raise, and every
rejection must be a Problem naming the file, the config path and what was expected.
The quick run tries a few hundred inputs; `make test-long` tries thousands.
"""
from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.project.config import KNOWN_TOP_KEYS, POTATO_IGNORED_TOP_KEYS, load_config
from app.project.problems import Problem, errors
from app.types.registry import COMMON_KEYS, TYPES
from tests.conftest import ROOT

CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))
SCHEME_KEYS = sorted(set(COMMON_KEYS) | {k for t in TYPES.values() for k in t.keys})
KEYS = sorted(KNOWN_TOP_KEYS | set(SCHEME_KEYS) | set(TYPES) | {"path", "data_format", "id_key", "text_key",
              "scheme", "any_of", "subtypes", "tooltip", "weight"} | set(list(POTATO_IGNORED_TOP_KEYS)[:5]))
QUICK = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
LONG = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), database=None)

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
scalars = (st.none() | st.booleans() | st.integers(-10**6, 10**12) | st.floats(allow_nan=True) | text
           | st.sampled_from(sorted(TYPES)) | st.sampled_from(["", " ", "../../x", "/etc/passwd", "a\x00b",
                                                               "x" * 300, "radio", "auto", "potato"]))
keys = st.sampled_from(KEYS) | text | st.integers(-3, 3) | st.booleans() | st.none()
yamlish = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(keys, c, max_size=5),
                       max_leaves=30)
scheme = st.fixed_dictionaries({"annotation_type": st.sampled_from(sorted(TYPES)) | scalars},
                               optional={k: yamlish for k in SCHEME_KEYS if k != "annotation_type"})
project = st.fixed_dictionaries({}, optional={
    "annotation_task_name": yamlish, "task_dir": yamlish, "item_properties": yamlish,
    "output_annotation_dir": yamlish, "annotation_schemes": st.lists(scheme | yamlish, max_size=4) | yamlish,
    "data_files": st.just([str(ROOT / "data" / "demo_runs.jsonl")]) | yamlish,
    "port": yamlish, "bogus_key": yamlish})


def check(path: Path, raw_is_mapping: bool | None = None) -> None:
    """load_config returns; every problem names this file and says something; no error means a project."""
    t0 = time.perf_counter()
    proj, problems = load_config(path)
    assert time.perf_counter() - t0 < 10, "load_config took more than 10 s"
    for p in problems:
        assert isinstance(p, Problem) and p.file == str(path), p
        assert isinstance(p.message, str) and p.message.strip(), p
        assert len(p.message) < 20_000, f"unbounded message: {p.message[:200]}..."
        if raw_is_mapping and p.level == "error" and not p.message.startswith(("YAML", "cannot read")):
            assert p.where, f"an error without its config path: {p}"
    if proj is None:
        assert errors(problems), "rejected without an error"
    else:
        assert not errors(problems)


def _dump(path: Path, obj) -> None:
    path.write_text(yaml.safe_dump(obj, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _random_structures(tmp_path_factory, obj):
    path = tmp_path_factory.mktemp("cfg") / "project.yaml"
    _dump(path, obj)
    check(path, isinstance(obj, dict))


def _mutated(tmp_path_factory, data, n_mutations):
    base = yaml.safe_load(data.draw(st.sampled_from(CONFIGS)).read_text())
    base["data_files"] = [str(ROOT / "data" / "demo_runs.jsonl")]
    cfg = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, n_mutations))):
        # walk to a random container, then replace, delete or add one of its entries
        node = cfg
        while True:
            children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
            if not children:
                break
            k, child = data.draw(st.sampled_from(children))
            if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
                node = child
                continue
            op = data.draw(st.sampled_from(["replace", "delete", "add", "retype"]))
            if op == "replace":
                node[k] = data.draw(yamlish)
            elif op == "delete":
                del node[k]
            elif op == "add" and isinstance(node, dict):
                node[data.draw(keys)] = data.draw(yamlish)
            elif op == "add":
                node.append(data.draw(yamlish))
            else:  # the same content in another shape
                node[k] = data.draw(st.sampled_from([[child], {"x": child}, str(child), None, 0]))
            break
    path = tmp_path_factory.mktemp("cfg") / "project.yaml"
    _dump(path, cfg)
    check(path, True)


def _raw_text(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("cfg") / "project.yaml"
    (path.write_bytes if isinstance(raw, bytes) else path.write_text)(raw)
    check(path)


YAML_SNIPPETS = ["a: [", "{", "- - -", "? [a]\n: b", "&a [*a]", "*undefined", "!!python/object:os.system {}",
                 "\t", "%YAML 9.9\n---", "--- !!binary |\n  AAA=", "a: !!int x", "annotation_schemes:\n  - ",
                 "data_files: [{path: ", "'\\x00'", "\"\\ud800\"", "a: 2020-13-45", "<<: *a"]


@given(obj=project | yamlish)
@QUICK
def test_random_structures(tmp_path_factory, obj):
    _random_structures(tmp_path_factory, obj)


@pytest.mark.long
@given(obj=project | yamlish)
@LONG
def test_random_structures_long(tmp_path_factory, obj):
    _random_structures(tmp_path_factory, obj)


@given(data=st.data())
@QUICK
def test_mutated_shipped_configs(tmp_path_factory, data):
    _mutated(tmp_path_factory, data, 3)


@pytest.mark.long
@given(data=st.data())
@LONG
def test_mutated_shipped_configs_long(tmp_path_factory, data):
    _mutated(tmp_path_factory, data, 8)


raw = st.binary(max_size=200) | st.text(max_size=200) | st.lists(
    st.sampled_from(YAML_SNIPPETS) | st.text(max_size=10), max_size=8).map("\n".join)


@given(raw=raw)
@QUICK
def test_random_text_and_bytes(tmp_path_factory, raw):
    _raw_text(tmp_path_factory, raw)


@pytest.mark.long
@given(raw=raw)
@LONG
def test_random_text_and_bytes_long(tmp_path_factory, raw):
    _raw_text(tmp_path_factory, raw)


def _bomb(levels: int, fan: int = 10) -> str:
    lines = [f"l0: &l0 [{', '.join(['lol'] * fan)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan)}]")
    top = f"*l{levels - 1}"
    lines += [f"annotation_task_name: {top}", f"data_files: {top}", f"output_annotation_dir: {top}",
              f"item_properties: {{id_key: {top}, text_key: {top}}}",
              f"annotation_schemes: [{{annotation_type: radio, name: {top}, labels: {top}}}, {top}]"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name, text", [
    ("alias bomb (10^9 leaves if expanded)", _bomb(9)),
    ("self-referencing aliases", "annotation_task_name: &a [*a]\ndata_files: &b [*b]\n"
                                 "annotation_schemes: &c [*c]\nitem_properties: &d {x: *d}\n"),
    ("self-referencing scheme", "annotation_task_name: x\ndata_files: [d]\nannotation_schemes:\n"
                                "  - &s {annotation_type: radio, name: a, labels: [*s], show_if: *s}\n"),
    ("100k nested lists", "annotation_task_name: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    ("100k nested mappings", "a: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n"),
    ("non-string keys", "annotation_task_name: x\ndata_files: [d]\nitem_properties: {1: 2, true: x, null: y}\n"
                        "annotation_schemes: [{annotation_type: radio, name: a, labels: [x], 7: 8}]\n"),
    ("NUL in a data path", 'annotation_task_name: x\ndata_files: ["a\\0b", {path: "\\0"}]\n'
                           "annotation_schemes: [{annotation_type: radio, name: a, labels: [x]}]\n"),
    ("very long paths", f'annotation_task_name: x\ndata_files: ["{"a" * 5000}", "{"b/" * 3000}"]\n'
                        f'output_annotation_dir: "{"c" * 5000}"\ntask_dir: "{"d" * 5000}"\n'
                        "annotation_schemes: [{annotation_type: radio, name: a, labels: [x]}]\n"),
    ("a 5 MB string", "annotation_task_name: x\ndata_files: [d]\nannotation_schemes: [{annotation_type: radio, "
                      f"name: a, labels: [x], description: {'y' * 5_000_000}, bogus: {'z' * 5_000_000}}}]\n"),
    ("bad tagged values", "annotation_task_name: !!int x\ndata_files: !!float y\nannotation_schemes: !!int\n"),
    ("dates and binary", "annotation_task_name: 2020-01-01\ndata_files: !!binary AAAA\n"
                         "annotation_schemes: [{annotation_type: 2020-01-01 10:00:00, name: 1.5}]\n"),
])
def test_hostile_yaml(tmp_path, name, text):
    path = tmp_path / "project.yaml"
    path.write_text(text)
    proj, problems = load_config(path)
    check(path)
    assert proj is None and errors(problems), name
