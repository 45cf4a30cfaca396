"""Tests for app.storage (real files under tmp_path, no mocks).

Save cost note: a save writes one ~2 KB file and fsyncs it plus its folder; it never
lists or rewrites the store, so its cost is independent of the number of stored
annotations (a few ms here, dominated by fsync).  Benchmarks live elsewhere.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store.storage import (
    SCHEMA, Annotation, AnnotationStore, encode_component, value_from_json, value_to_json)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
COLUMNS = [
    "item_id",
    "annotator",
    "scheme",
    "annotation_type",
    "value",
    "status",
    "trace_hash",
    "updated_at",
    "seconds_spent",
]

TRICKY = [
    "..",
    ".",
    "../../x",
    "../..",
    "/etc/passwd",
    "/",
    "a/b",
    "a\\b",
    "a\x00b",
    "\x00",
    "x" * 1000,
    "x" * 999 + "y",
    "Alice",
    "alice",
    "ALICE",
    "日本語のテキスト",
    "emoji 🎉",
    "a~" + "0" * 20,
    "a~b",
    "~",
    "_hidden",
    ".hidden",
    ".tmp-q1",
    "con",
    "CON",
    "nul.txt",
    "a.",
    "a ",
    " ",
    "-rf",
    "q1.parquet",
    "a" * 64,
    "a" * 65,
    "k=v",
]


def ann(item="item-1", annotator="alice", scheme="q1", value=None, **kw) -> Annotation:
    kw.setdefault("annotation_type", "label")
    return Annotation(item_id=item, annotator=annotator, scheme=scheme, value=value, **kw)


def parquet_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.parquet") if p.is_file())


# --------------------------------------------------------------------------- #
# basics
# --------------------------------------------------------------------------- #
def test_round_trip(tmp_path):
    store = AnnotationStore(tmp_path / "out")
    value = {"zeta": 1, "alpha": ["é", None, 2.5, True], "nested": {"b": 1, "a": 2}}
    written = store.save(
        ann(value=value, trace_hash="abc123", seconds_spent=12.5, status="annotated")
    )
    assert written.updated_at is not None and written.updated_at.tzinfo is not None
    assert written.updated_at.utcoffset() == timedelta(0)
    assert abs(datetime.now(timezone.utc) - written.updated_at) < timedelta(minutes=1)

    loaded = store.load("item-1", "alice", "q1")
    assert loaded == written
    assert loaded.value == value
    assert list(loaded.value) == ["zeta", "alpha", "nested"]  # key order kept
    assert isinstance(loaded.seconds_spent, float)

    # on disk: JSON text, not ASCII-escaped, key order kept
    (path,) = parquet_files(tmp_path / "out")
    assert path == store.path_for("item-1", "alice", "q1")
    table = pq.read_table(path)
    assert table.schema.equals(SCHEMA)
    raw = table.column("value")[0].as_py()
    assert "é" in raw and raw.index("zeta") < raw.index("alpha")
    assert value_from_json(raw) == value


def test_save_returns_normalised_value_and_explicit_timestamp(tmp_path):
    store = AnnotationStore(tmp_path)
    ts = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    written = store.save(ann(value=(1, 2), updated_at=ts, seconds_spent=3))
    assert written.value == [1, 2]  # what a later load returns
    assert written.updated_at == ts and written.updated_at.tzinfo == timezone.utc
    assert written.seconds_spent == 3.0
    assert store.load("item-1", "alice", "q1") == written


@pytest.mark.parametrize(
    "bad",
    [
        dict(status="done"),
        dict(status="cleared", value="x"),
        dict(seconds_spent=float("nan")),
        dict(seconds_spent=-1.0),
        dict(value=float("nan")),
        dict(updated_at=datetime(2024, 1, 1)),  # naive
        dict(item=""),
        dict(annotator="\ud800"),  # lone surrogate: not UTF-8
        dict(scheme=3),
    ],
)
def test_invalid_annotations_rejected(tmp_path, bad):
    store = AnnotationStore(tmp_path / "out")
    with pytest.raises(ValueError):
        store.save(ann(**{"value": 1, **bad}))
    assert not (tmp_path / "out").exists() or parquet_files(tmp_path / "out") == []


def test_statuses(tmp_path):
    store = AnnotationStore(tmp_path)
    store.save(ann(scheme="a", value=3))
    store.save(ann(scheme="b", value=None, status="reviewed_clean"))
    store.save(ann(scheme="c", value=None, status="cleared"))
    got = store.for_item("item-1", "alice")
    assert {k: v.status for k, v in got.items()} == {
        "a": "annotated",
        "b": "reviewed_clean",
        "c": "cleared",
    }


def test_value_json_helpers():
    assert value_to_json({"b": 1, "a": "ü"}) == '{"b": 1, "a": "ü"}'
    assert value_from_json(value_to_json([1, "x", None])) == [1, "x", None]
    with pytest.raises(ValueError):
        value_to_json(float("inf"))
    with pytest.raises(TypeError):
        value_to_json(object())


def test_overwrite_last_write_wins(tmp_path):
    store = AnnotationStore(tmp_path)
    store.save(ann(value="first", seconds_spent=1))
    second = store.save(ann(value="second", seconds_spent=4))
    assert store.load("item-1", "alice", "q1") == second
    assert len(parquet_files(tmp_path)) == 1
    assert [a.value for a in store.all()] == ["second"]
    # no temp files left behind
    assert [p.name for p in tmp_path.rglob(".tmp-*")] == []


def test_delete(tmp_path):
    store = AnnotationStore(tmp_path)
    store.save(ann(scheme="q1", value=1))
    store.save(ann(scheme="q2", value=2))
    assert store.delete("item-1", "alice", "q1") is True
    assert store.delete("item-1", "alice", "q1") is False
    assert store.delete("nope", "nobody", "q1") is False
    assert store.load("item-1", "alice", "q1") is None
    assert list(store.for_item("item-1", "alice")) == ["q2"]
    assert [a.scheme for a in store.all()] == ["q2"]
    store.delete("item-1", "alice", "q2")
    assert store.annotators() == []  # empty folders are not annotators
    assert store.problems == []


def test_queries_and_empty_store(tmp_path):
    root = tmp_path / "missing"
    store = AnnotationStore(root)
    assert store.all() == [] and store.annotators() == []
    assert store.for_item("i", "a") == {} and store.for_annotator("a") == []
    assert store.load("i", "a", "s") is None
    empty = store.to_table()
    assert empty.num_rows == 0 and empty.schema.equals(SCHEMA)
    assert not root.exists()  # created lazily, by saves only

    store.save(ann(item="i1", annotator="bob", scheme="s1", value=1))
    store.save(ann(item="i1", annotator="bob", scheme="s2", value=2))
    store.save(ann(item="i2", annotator="bob", scheme="s1", value=3))
    store.save(ann(item="i1", annotator="Zoë", scheme="s1", value=4))
    assert store.annotators() == ["Zoë", "bob"]
    assert {k: v.value for k, v in store.for_item("i1", "bob").items()} == {"s1": 1, "s2": 2}
    assert [(a.item_id, a.scheme) for a in store.for_annotator("bob")] == [
        ("i1", "s1"),
        ("i1", "s2"),
        ("i2", "s1"),
    ]
    assert [a.value for a in store.for_annotator("Zoë")] == [4]
    assert len(store.all()) == 4
    table = store.to_table()
    assert table.schema.equals(SCHEMA) and table.num_rows == 4
    assert store.problems == []


# --------------------------------------------------------------------------- #
# dataset readers
# --------------------------------------------------------------------------- #
def _populate_tricky(store: AnnotationStore) -> set[tuple[str, str, str]]:
    keys = set()
    for i, name in enumerate(TRICKY):
        for key in [(name, "alice", "q1"), ("item", name, "q1"), ("item", "bob", name)]:
            store.save(ann(*key, value={"i": i}))
            keys.add(key)
    store.save(ann("item", "bob", "..", value="overwritten"))  # overwrite: still one row
    assert ("item", "bob", "..") in keys
    return keys


def test_pandas_reads_one_row_per_key(tmp_path):
    pd = pytest.importorskip("pandas")
    root = tmp_path / "out"
    store = AnnotationStore(root)
    keys = _populate_tricky(store)
    # an in-flight temp file must be invisible to readers
    folder = store.path_for("item", "bob", "..").parent
    (folder / ".tmp-x.123.abcdef").write_bytes(b"partial garbage")

    df = pd.read_parquet(root)
    assert list(df.columns) == COLUMNS
    assert len(df) == len(keys)
    assert not df.duplicated(["item_id", "annotator", "scheme"]).any()
    assert set(map(tuple, df[["item_id", "annotator", "scheme"]].to_numpy())) == keys
    assert str(df["updated_at"].dtype).startswith("datetime64") and "UTC" in str(
        df["updated_at"].dtype
    )
    assert df["seconds_spent"].dtype == "float64"
    assert set(df["status"]) == {"annotated"}
    assert store.to_table().num_rows == len(keys)


def test_duckdb_reads_dataset(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    root = tmp_path / "out"
    store = AnnotationStore(root)
    keys = _populate_tricky(store)
    rows = duckdb.sql(
        f"select item_id, annotator, scheme from read_parquet('{root.as_posix()}/**/*.parquet')"
    ).fetchall()
    assert len(rows) == len(keys) and set(rows) == keys


# --------------------------------------------------------------------------- #
# robustness
# --------------------------------------------------------------------------- #
def test_corrupt_file_is_skipped_and_reported(tmp_path):
    store = AnnotationStore(tmp_path)
    store.save(ann(scheme="good", value=1))
    store.save(ann(scheme="bad", value=2))
    store.save(ann(item="other", scheme="q", value=3))
    bad = store.path_for("item-1", "alice", "bad")
    data = bad.read_bytes()
    bad.write_bytes(data[: len(data) // 2])  # truncated by an external crash

    assert [a.scheme for a in store.all()] == ["good", "q"]
    assert len(store.problems) == 1 and str(bad) in store.problems[0]
    assert list(store.for_item("item-1", "alice")) == ["good"]
    assert store.load("item-1", "alice", "bad") is None
    assert store.to_table().num_rows == 2
    assert store.annotators() == ["alice"]
    assert len(store.problems) == 1  # reported once, not once per read

    # a file copied to the wrong key's place is reported, not misattributed
    misplaced = store.path_for("item-1", "alice", "copy")
    misplaced.write_bytes(store.path_for("other", "alice", "q").read_bytes())
    assert store.load("item-1", "alice", "copy") is None
    assert any(str(misplaced) in p and "belongs in" in p for p in store.problems)

    # saving over the corrupt file repairs the key
    store.save(ann(scheme="bad", value=22))
    assert store.load("item-1", "alice", "bad").value == 22


def test_failed_save_leaves_no_temp_and_keeps_old_data(tmp_path):
    store = AnnotationStore(tmp_path)
    store.save(ann(scheme="ok", value=1))
    # make os.replace fail: a directory occupies the target file name
    blocker = store.path_for("item-1", "alice", "blocked")
    blocker.mkdir()
    with pytest.raises(OSError):
        store.save(ann(scheme="blocked", value=2))
    assert list(blocker.parent.glob(".tmp-*")) == []
    assert store.load("item-1", "alice", "ok").value == 1
    assert list(store.for_item("item-1", "alice")) == ["ok"]


def test_remove_stale_temp_files(tmp_path):
    store = AnnotationStore(tmp_path)
    store.save(ann(value=1))
    folder = store.path_for("item-1", "alice", "q1").parent
    old = folder / ".tmp-q1.1.aaaa"
    new = folder / ".tmp-q1.2.bbbb"
    old.write_bytes(b"x")
    new.write_bytes(b"x")
    past = time.time() - 7200
    os.utime(old, (past, past))
    assert store.remove_stale_temp_files(older_than_seconds=3600) == 1
    assert not old.exists() and new.exists()
    assert store.load("item-1", "alice", "q1").value == 1


def test_path_escape_impossible(tmp_path):
    root = tmp_path / "store"
    store = AnnotationStore(root)
    for i, name in enumerate(TRICKY):
        keys = [(name, "a", "s"), ("i", name, "s"), ("i", "a", name)]
        for key in keys:
            p = store.path_for(*key)
            assert p.resolve().is_relative_to(root.resolve())
            enc = [encode_component(k) for k in key]
            assert p.relative_to(root).parts == (enc[1], enc[0], enc[2] + ".parquet")
        key = keys[i % 3]  # actually write each name once, in rotating positions
        store.save(ann(*key, value=name))
        assert store.load(*key).value == name
    assert [p.name for p in tmp_path.iterdir()] == ["store"]  # nothing written outside

    # a symlinked folder pointing outside the store is refused
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "mallory").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError):
        store.save(ann(annotator="mallory", value=1))
    with pytest.raises(ValueError):
        store.path_for("i", "mallory", "s")
    assert list(outside.iterdir()) == []
    # the by-name path (for a stat on every rerun) names the same file; reading it still checks
    assert store.key_file("i", "mallory", "s") == str(root / "mallory" / "i" / "s.parquet")
    with pytest.raises(ValueError):
        store.load("i", "mallory", "s")


def test_key_file_is_path_for_by_name(tmp_path):
    store = AnnotationStore(tmp_path / "store")
    for name in TRICKY:
        for key in [(name, "a", "s"), ("i", name, "s"), ("i", "a", name)]:
            assert store.key_file(*key) == str(store.path_for(*key))
    for bad in ["", None, "\udc80"]:
        with pytest.raises(ValueError):
            store.key_file("i", bad, "s")


def test_encode_component_rules():
    for plain in ["alice", "item-1", "q1", "a.b_c-d", "0", "a" * 64]:
        assert encode_component(plain) == plain
    for name in TRICKY + ["Item-1", "a" * 65]:
        comp = encode_component(name)
        assert "/" not in comp and "\\" not in comp and "\x00" not in comp
        assert comp not in (".", "..") and len(comp) <= 64
        assert not comp.startswith((".", "_", "~", "-"))
        assert "=" not in comp
    assert encode_component("Alice") != encode_component("alice")
    assert encode_component("Alice").lower() != encode_component("ALICE").lower()
    # a plain-looking name containing "~" cannot impersonate a hashed one
    hashed = encode_component("Alice")
    assert encode_component(hashed) != hashed
    for bad in ["", None, 5, "\udc80"]:
        with pytest.raises(ValueError):
            encode_component(bad)


# --------------------------------------------------------------------------- #
# properties
# --------------------------------------------------------------------------- #
names = st.one_of(
    st.text(min_size=1, max_size=40),
    st.sampled_from(TRICKY),
    st.from_regex(r"[a-z0-9][a-z0-9._-]{0,8}", fullmatch=True),
    st.text(alphabet="aA./\\~_-\x00 ", min_size=1, max_size=8),
    st.builds(lambda s, k: s * k, st.text(min_size=1, max_size=8), st.integers(40, 200)),
)


@settings(max_examples=200, deadline=None)
@given(names, names)
def test_components_injective(a, b):
    if a != b:
        assert encode_component(a) != encode_component(b)
        # also on case-insensitive filesystems
        assert encode_component(a).casefold() != encode_component(b).casefold()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(names, names, names), min_size=1, max_size=5, unique=True),
    st.one_of(st.none(), st.text(), st.integers(), st.dictionaries(st.text(), st.integers())),
)
def test_save_load_property(keys, value):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "out"
        store = AnnotationStore(root)
        written = {}
        for n, (item, annotator, scheme) in enumerate(keys):
            written[(item, annotator, scheme)] = store.save(
                Annotation(item, annotator, scheme, "t", {"n": n, "v": value})
            )
        for key, w in written.items():
            got = store.load(*key)
            assert got == w and got.key == key
        assert len(parquet_files(root)) == len(keys)  # distinct keys, distinct files
        assert sorted(a.key for a in store.all()) == sorted(keys)
        for p in root.rglob("*"):
            assert p.resolve().is_relative_to(root.resolve())
        assert store.problems == []


# --------------------------------------------------------------------------- #
# concurrency and crashes
# --------------------------------------------------------------------------- #
MP_ANNOTATORS = ["ann-0", "Ann 1", "ann/2", "ánn-3"]
MP_SAVES = 50


def _mp_worker(root: str, idx: int) -> None:
    store = AnnotationStore(root)
    annotator = MP_ANNOTATORS[idx]
    for j in range(MP_SAVES):
        # items are shared between workers; keys are distinct within a worker
        store.save(Annotation(f"item-{j % 10}", annotator, f"s{j // 10}", "t", [idx, j]))
        if j % 10 == 0:  # the same person in several tabs: same key from all workers
            store.save(Annotation("shared", "same-person", "contest", "t", [idx, j]))


def test_multiprocess_saves(tmp_path):
    root = tmp_path / "out"
    # forkserver: children fork from a fresh server that has imported this module once
    # (fast, and no fork of the threaded pytest process); spawn where unavailable.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        # pandas: pyarrow imports it lazily on the first write (~0.4 s per process)
        ctx.set_forkserver_preload(["pandas", "app.store.storage", _mp_worker.__module__])
    procs = [ctx.Process(target=_mp_worker, args=(str(root), i)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]

    store = AnnotationStore(root)
    rows = [a for a in store.all() if a.annotator != "same-person"]
    assert len(rows) == 4 * MP_SAVES
    for idx, annotator in enumerate(MP_ANNOTATORS):
        for j in range(MP_SAVES):
            got = store.load(f"item-{j % 10}", annotator, f"s{j // 10}")
            assert got is not None and got.value == [idx, j]
    contest = store.for_item("shared", "same-person")
    assert list(contest) == ["contest"]
    idx, j = contest["contest"].value
    assert 0 <= idx < 4 and j % 10 == 0
    assert store.annotators() == sorted(MP_ANNOTATORS + ["same-person"])
    assert store.problems == []
    assert list(root.rglob(".tmp-*")) == []


# A launcher imports the store once, then forks one saving child per trial (saves the
# interpreter start-up per trial).  Each child saves in a loop and prints "<n>" after
# every save returns; the test SIGKILLs it at a random moment.  The launcher prints
# "dead" once the child is reaped, so all of the child's output precedes it.
CRASH_LAUNCHER = textwrap.dedent(
    """
    import io, os, sys
    import pyarrow as pa, pyarrow.parquet as pq
    from app.store.storage import Annotation, AnnotationStore
    pq.write_table(pa.table({"warm": ["up"]}), io.BytesIO())  # one-off lazy imports
    root = sys.argv[1]
    for line in sys.stdin:
        n = int(line)
        pid = os.fork()
        if pid == 0:
            store = AnnotationStore(root)
            while True:
                k = n % 7
                store.save(Annotation(f"item {k % 3}", "crash/annotator", f"s{k}", "t",
                                      {"n": n, "pad": "x" * (n % 2000)},
                                      seconds_spent=float(n)))
                os.write(1, f"{n}\\n".encode())
                n += 1
        sys.stdout.write(f"pid {pid}\\n")
        sys.stdout.flush()
        os.waitpid(pid, 0)
        sys.stdout.write("dead\\n")
        sys.stdout.flush()
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_crash_mid_save_loses_nothing_reported(tmp_path):
    import signal

    root = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    rng = random.Random(1234)
    reported: dict[tuple[str, str], int] = {}
    launcher = subprocess.Popen(
        [sys.executable, "-c", CRASH_LAUNCHER, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
    )
    try:
        for trial in range(10):
            launcher.stdin.write(f"{trial * 1_000_000}\n")
            launcher.stdin.flush()
            pid_line = launcher.stdout.readline()
            assert pid_line.startswith("pid "), pid_line
            # seven saves done (every key once, so the check below covers all keys even on a
            # loaded machine); the child keeps saving while the kill lands at a random moment
            lines = [launcher.stdout.readline() for _ in range(7)]
            time.sleep(rng.uniform(0.0, 0.05))
            os.kill(int(pid_line.split()[1]), signal.SIGKILL)
            while (line := launcher.stdout.readline()) not in ("dead\n", ""):
                lines.append(line)
            assert line == "dead\n"
            for line in lines:
                if not line.endswith("\n"):
                    continue  # cut short by the kill: that save was not reported
                n = int(line)
                k = n % 7
                key = (f"item {k % 3}", f"s{k}")
                reported[key] = max(reported.get(key, -1), n)
    finally:
        launcher.stdin.close()
        launcher.wait(10)
        launcher.stdout.close()
    assert launcher.returncode == 0

    store = AnnotationStore(root)
    rows = store.all()
    assert store.problems == []
    for path in parquet_files(root):  # every file is a valid one-row Parquet file
        assert pq.read_table(path).num_rows == 1
    assert len(reported) == 7
    for (item, scheme), n in reported.items():
        got = store.load(item, "crash/annotator", scheme)
        assert got is not None
        assert got.value["n"] >= n and got.value["n"] % 7 == int(scheme[1:])
        assert got.value["pad"] == "x" * (got.value["n"] % 2000)
        assert got.seconds_spent == float(got.value["n"])
    assert len(rows) == 7


def test_warm_writer_leaves_nothing_for_the_first_save_to_import(tmp_path):
    """A server warms the writer at start (shell._load): the first save then imports no module
    (pyarrow's pandas layer had cost an annotator's first click ~10 ms), and the warm-up
    writes no file."""
    script = textwrap.dedent(f"""
        import os, sys
        import pandas  # (a server has it: Streamlit imports it)
        from app.store.storage import Annotation, AnnotationStore, warm_writer
        os.chdir({str(tmp_path)!r})
        warm_writer()
        assert os.listdir(".") == [], os.listdir(".")
        before = set(sys.modules)
        AnnotationStore("store").save(Annotation("run-1", "ann", "outcome", "radio", {{"ok": "true"}}))
        print(sorted(set(sys.modules) - before))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
