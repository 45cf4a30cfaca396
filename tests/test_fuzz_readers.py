"""Hostile trace files: property-based fuzzing of every reader in `app.readers.FORMATS`.

Parametrized over the registry, so a reader added later is fuzzed without touching this file.
Inputs: random JSON values built from the key names the readers themselves use, the real
samples in ../shared/datasets (in a bare clone, the copies in tests/data) and data/ with random
parts replaced, removed or retyped, and the same samples cut short at random bytes. For each, read with the format forced and with
detection: no exception escapes; every problem names the file it is about and says something;
every item has a text id, a fingerprint and derives (agents, steps, handoffs, calls) without
raising, which is what the pages do with it next. The quick run tries a few hundred inputs per
reader; `make test-long` tries thousands.
"""
from __future__ import annotations

import ast
import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import app.traces.readers as readers
from app.traces.derive import derive
from app.project.problems import Problem
from tests.conftest import DATASETS, ROOT, TEST_DATA

FORMATS = sorted(readers.FORMATS)
SHARED = sorted(DATASETS.rglob("*.json")) or sorted(TEST_DATA.rglob("*.json"))
SAMPLES = sorted(p for p in [*SHARED, *(ROOT / "data").rglob("*.json*")] if p.is_file())
QUICK = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
LONG = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _reader_words() -> list[str]:
    """Every short string literal in the reader modules: the keys and values they look for."""
    words = set()
    for path in Path(readers.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) <= 40:
                words.add(node.value)
    return sorted(words)


WORDS = _reader_words()
DEEP_JSON_TEXT = "[" * 5000 + "]" * 5000  # a string attribute that readers may parse as JSON
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=16)
strings = (text | st.sampled_from(WORDS) | st.sampled_from([
    "", "../../x", "/etc/passwd", "a\x00b", "x" * 3000, "2024-01-01T00:00:00Z", "PT1M2.5S", "1e308",
    '{"a": [1, 2]}', "[1, 2", DEEP_JSON_TEXT, "<script>window.__pwned=1</script>", "\ufeff"]))
scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
           | strings)
json_values = st.recursive(scalars, lambda c: st.lists(c, max_size=5) | st.dictionaries(
    st.sampled_from(WORDS) | text, c, max_size=6), max_leaves=40)


def check_read(path: Path, fmt: str = "auto") -> tuple[list, list[Problem]]:
    """What must hold for any file: no exception, problems name the file, items are usable."""
    items, problems = readers.read_file(path, data_format=fmt)
    for p in problems:
        assert isinstance(p, Problem), p
        assert p.file.startswith(str(path.parent)), f"problem not naming the file: {p}"
        assert isinstance(p.message, str) and p.message.strip(), p
    for it in items:
        assert isinstance(it.id, str) and it.id, it
        assert isinstance(it.data, dict)
        assert len(it.trace_hash) == 16
        derive(it.data)  # what the pages compute next
    return items, problems


def _write(path: Path, value, jsonl: bool = False) -> Path:
    if jsonl and isinstance(value, list):
        path = path.with_suffix(".jsonl")
        path.write_text("\n".join(json.dumps(v, ensure_ascii=False) for v in value), encoding="utf-8")
    else:
        path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


_PARSED: dict[Path, object] = {}


def _sample(path: Path):
    if path not in _PARSED:
        text_ = path.read_text(encoding="utf-8-sig")
        try:
            _PARSED[path] = json.loads(text_)
        except ValueError:  # JSON Lines
            _PARSED[path] = [json.loads(line) for line in text_.splitlines() if line.strip()]
    return copy.deepcopy(_PARSED[path])


def mutate(value, rnd: random.Random, draw_value, n: int):
    """Replace, delete, add or retype n random entries anywhere in the tree."""
    for _ in range(n):
        node = value
        while True:
            children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
            if not children:
                break
            k, child = rnd.choice(children)
            if isinstance(child, (dict, list)) and child and rnd.random() < 0.75:
                node = child
                continue
            op = rnd.choice(["replace", "delete", "add", "retype", "duplicate"])
            if op == "replace":
                node[k] = draw_value()
            elif op == "delete":
                del node[k]
            elif op == "add" and isinstance(node, dict):
                node[rnd.choice(WORDS)] = draw_value()
            elif op == "add":
                node.insert(rnd.randrange(len(node) + 1), draw_value())
            elif op == "retype":
                node[k] = rnd.choice([[child], {"value": child}, json.dumps(child), None, 0, "", {}])
            else:
                node[k] = copy.deepcopy(children[0][1]) if children[0][1] is not child else child
            break
    return value


def _random_values(tmp_path_factory, fmt, value, jsonl):
    path = _write(tmp_path_factory.mktemp("r") / "trace.json", value, jsonl)
    check_read(path, fmt)


def _mutated_samples(tmp_path_factory, fmt, data, n):
    src = data.draw(st.sampled_from(SAMPLES))
    rnd = random.Random(data.draw(st.integers(0, 2**32)))
    value = mutate(_sample(src), rnd, lambda: data.draw(json_values), data.draw(st.integers(1, n)))
    path = _write(tmp_path_factory.mktemp("r") / src.name, value, src.suffix == ".jsonl")
    check_read(path, fmt)


def _truncated_samples(tmp_path_factory, fmt, data):
    src = data.draw(st.sampled_from(SAMPLES))
    raw = src.read_bytes()
    cut = data.draw(st.integers(0, len(raw)))
    path = tmp_path_factory.mktemp("r") / src.name
    path.write_bytes(raw[:cut] + data.draw(st.sampled_from([b"", b"\xff", b"}", b"]]]", b'"', b"\n{"])))
    check_read(path, fmt)


@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@given(value=json_values, jsonl=st.booleans())
@QUICK
def test_random_json(tmp_path_factory, fmt, value, jsonl):
    _random_values(tmp_path_factory, fmt, value, jsonl)


@pytest.mark.long
@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@given(value=json_values, jsonl=st.booleans())
@LONG
def test_random_json_long(tmp_path_factory, fmt, value, jsonl):
    _random_values(tmp_path_factory, fmt, value, jsonl)


@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@given(data=st.data())
@QUICK
def test_mutated_samples(tmp_path_factory, fmt, data):
    _mutated_samples(tmp_path_factory, fmt, data, 4)


@pytest.mark.long
@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@given(data=st.data())
@LONG
def test_mutated_samples_long(tmp_path_factory, fmt, data):
    _mutated_samples(tmp_path_factory, fmt, data, 12)


@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@given(data=st.data())
@QUICK
def test_truncated_samples(tmp_path_factory, fmt, data):
    _truncated_samples(tmp_path_factory, fmt, data)


@pytest.mark.long
@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@given(data=st.data())
@LONG
def test_truncated_samples_long(tmp_path_factory, fmt, data):
    _truncated_samples(tmp_path_factory, fmt, data)


@pytest.mark.parametrize("fmt", FORMATS)
@given(value=json_values)
@QUICK
def test_detect_never_raises(fmt, value):
    assert readers.FORMATS[fmt].detect(value) in (True, False)


@pytest.mark.parametrize("fmt", ["auto", *FORMATS])
@pytest.mark.parametrize("field", [[], {}, [["llm"]]])
def test_an_unhashable_run_type_is_a_wrong_shape_not_a_crash(tmp_path, fmt, field):
    """Found by test_random_json: {"run_type": []} made the LangSmith detector raise
    (a list is not hashable) while another reader asked which format the record was."""
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"run_type": field}))
    check_read(path, fmt)
    assert all(readers.FORMATS[name].detect({"run_type": field, "inputs": {}}) in (True, False) for name in FORMATS)
