"""The annotator folders' row index (app/store_index): whole-store reads open only the key
files that are new or changed; the files stay the record."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from app.store import index as store_index
from app.store.storage import Annotation, AnnotationStore


def save(store, item, who, scheme, value):
    return store.save(Annotation(item, who, scheme, "text", value))


def age(root, seconds=60):
    """Make every key file look `seconds` old (past the racy window)."""
    past = time.time() - seconds
    for p in root.rglob("*.parquet"):
        os.utime(p, (past, past))


def values(store):
    t = store.to_table()
    return {(a, i, s): v for a, i, s, v in zip(*(t.column(c).to_pylist()
                                               for c in ("annotator", "item_id", "scheme", "value")))}


@pytest.fixture
def filled(tmp_path):
    store = AnnotationStore(tmp_path)
    for who in ("alice", "bob"):
        for i in range(5):
            save(store, f"run-{i}", who, "note", {"text": f"{who} {i}"})
    age(tmp_path)
    return store


def counting(monkeypatch, store):
    reads = []
    real = store._read_file

    def read_file(path):
        reads.append(Path(path))
        return real(path)
    monkeypatch.setattr(store, "_read_file", read_file)
    return reads


def test_a_second_read_opens_no_key_file_and_gives_the_same_rows(filled, monkeypatch, tmp_path):
    first = values(filled)
    assert len(first) == 10
    assert sorted(p.name for p in tmp_path.glob("*/" + store_index.NAME)) == [store_index.NAME] * 2
    fresh = AnnotationStore(tmp_path)  # another process, say: only the index is shared
    reads = counting(monkeypatch, fresh)
    assert values(fresh) == first
    assert reads == []
    assert [a.item_id for a in fresh.for_annotator("bob")] == [f"run-{i}" for i in range(5)]
    assert len(fresh.all()) == 10 and reads == []
    # the index is invisible to dataset readers and to globs of key files
    assert len(pd.read_parquet(tmp_path)) == 10
    assert len(list(tmp_path.rglob("*.parquet"))) == 10


def test_saves_deletes_and_new_annotators_are_seen(filled, monkeypatch, tmp_path):
    values(filled)
    save(filled, "run-1", "alice", "note", {"text": "changed"})
    filled.delete("run-2", "bob", "note")
    save(filled, "run-9", "carol", "note", {"text": "new"})
    reads = counting(monkeypatch, filled)
    got = values(filled)
    assert got[("alice", "run-1", "note")] == '{"text": "changed"}'
    assert ("bob", "run-2", "note") not in got
    assert got[("carol", "run-9", "note")] == '{"text": "new"}'
    assert len(got) == 10
    assert sorted(p.parent.name + "/" + p.name for p in reads) == ["run-1/note.parquet", "run-9/note.parquet"]


def test_a_file_changed_just_now_is_read_again_next_time(filled, monkeypatch):
    values(filled)
    save(filled, "run-0", "alice", "note", {"text": "now"})
    values(filled)  # read, but too recent to be trusted by its stat alone
    reads = counting(monkeypatch, filled)
    assert values(filled)[("alice", "run-0", "note")] == '{"text": "now"}'
    assert [p.parent.name for p in reads] == ["run-0"]


@pytest.mark.parametrize("index", [b"not parquet at all", b""])
def test_an_unreadable_index_is_ignored_and_rebuilt(filled, tmp_path, index):
    first = values(filled)
    for p in tmp_path.glob("*/" + store_index.NAME):
        p.write_bytes(index)
    assert values(filled) == first
    assert all(pq.read_table(p).num_rows == 5 for p in tmp_path.glob("*/" + store_index.NAME))
    assert filled.problems == []


def test_an_index_of_another_schema_is_ignored(filled, tmp_path):
    first = values(filled)
    for p in tmp_path.glob("*/" + store_index.NAME):
        pq.write_table(pa.table({"item_id": ["run-0"], "value": ["forged"]}), p)
    assert values(filled) == first


def test_a_key_file_broken_after_indexing_is_reported_not_served(filled, tmp_path):
    values(filled)
    broken = filled.path_for("run-3", "alice", "note")
    broken.write_bytes(b"garbage")
    got = values(filled)
    assert ("alice", "run-3", "note") not in got and len(got) == 9
    assert len(filled.problems) == 1 and str(broken) in filled.problems[0]
    again = AnnotationStore(tmp_path)
    values(again)
    assert len(again.problems) == 1  # never indexed: read, and reported, every time


def test_an_index_that_cannot_be_written_costs_nothing_but_speed(filled, monkeypatch, tmp_path):
    def refuse(*a, **k):
        raise OSError("read-only file system")
    monkeypatch.setattr(store_index.pq, "write_table", refuse)
    fresh = AnnotationStore(tmp_path)
    assert len(values(fresh)) == 10 and fresh.problems == []
    assert not any(p.name.startswith(".tmp-") for p in tmp_path.rglob("*"))


def test_stale_index_temp_files_are_cleaned(filled, tmp_path):
    adir = filled.annotator_dir("alice")
    leftover = adir / ".tmp-row-index.123.abcdef"
    leftover.write_bytes(b"x")
    os.utime(leftover, (time.time() - 7200, time.time() - 7200))
    assert filled.remove_stale_temp_files() == 1 and not leftover.exists()


def test_a_renamed_annotator_folder_is_not_served_from_its_index(filled, tmp_path):
    # the files keep their stat and their paths within the folder; their rows name the old
    # folder's annotator, which a read of the files reports (the index must not hide that)
    values(filled)
    os.rename(tmp_path / "bob", tmp_path / "robert")
    fresh = AnnotationStore(tmp_path)
    got = values(fresh)
    assert {a for a, _i, _s in got} == {"alice"}
    assert len(fresh.problems) == 5 and all("not here" in p for p in fresh.problems)


def test_the_summary_read_gives_the_same_rows_with_text_as_dictionaries(filled, monkeypatch, tmp_path):
    """to_table(dictionary=True): the same rows in the same order, text columns dictionary-encoded,
    whether rows come from the index, from files changed since, or from a store without index."""
    def both(store):
        plain, coded = store.to_table(), store.to_table(dictionary=True)
        assert pa.types.is_dictionary(coded.schema.field("value").type)
        assert pa.types.is_timestamp(coded.schema.field("updated_at").type)
        assert coded.cast(plain.schema).equals(plain)
        return plain
    first = both(filled)  # the first read writes the index
    fresh = AnnotationStore(tmp_path)
    reads = counting(monkeypatch, fresh)
    assert both(fresh).equals(first) and reads == []  # from the index, read as dictionaries
    save(filled, "run-1", "alice", "note", {"text": "changed"})
    save(filled, "run-0", "carol", "note", {"text": "new"})
    changed = both(AnnotationStore(tmp_path))  # an index and files newer than it
    assert changed.num_rows == 11
    assert {"changed", "new"} <= {json.loads(v)["text"] for v in changed.column("value").to_pylist()}
    empty = AnnotationStore(tmp_path / "none").to_table(dictionary=True)
    assert empty.num_rows == 0 and pa.types.is_dictionary(empty.schema.field("item_id").type)


def test_the_index_codes_each_stored_text_once_however_many_there_are(filled, monkeypatch, tmp_path):
    """Past Parquet's default dictionary page (1 MB of distinct text) a writer falls back to
    plain pages, which a read wanting dictionaries codes again row by row: the index is written
    with every distinct value in its dictionary page (write_parquet), so the column holds each
    text once."""
    texts = [json.dumps({"text": f"{k:05d} " + "x" * 300}) for k in range(5000)]  # 1.5 MB distinct
    table = pa.table({"value": [texts[k % len(texts)] for k in range(20000)]})
    plain, coded = tmp_path / "plain.parquet", tmp_path / "coded.parquet"
    pq.write_table(table, plain)
    store_index.write_parquet(table, coded)

    def stored(path):
        return pq.ParquetFile(path).metadata.row_group(0).column(0).total_uncompressed_size
    distinct = sum(map(len, texts))
    assert stored(plain) > 3 * distinct  # (the fallback: every row's text)
    assert stored(coded) < 1.2 * distinct
    assert pq.read_table(coded).equals(table)
    written = []
    real = store_index.write_parquet
    monkeypatch.setattr(store_index, "write_parquet", lambda t, where: written.append(where) or real(t, where))
    save(filled, "run-9", "alice", "note", {"text": "new"})
    filled.to_table()
    assert "alice" in {Path(w).parent.name for w in written}  # (the row index of the folder saved in)
