"""The summary's parts kept on disk (app/kept.py): a new process starts from the last summary's
parts; with the rows unchanged it spreads no value and reads no tally, with a few items changed
it brings the parts up to date by those items; a state gone or broken is never trusted."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from app._old import kept as keptmod
from app._old import labels, summary as core
from tests.summary_data import generated_study, same


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return generated_study(tmp_path_factory.mktemp("study"), seed=5)


def _saved(df: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """The rows after n saves: judgements given another judgement's value of their scheme."""
    rng = np.random.default_rng(seed)
    values = df["value"].astype(object).to_numpy().copy()
    schemes = df["scheme"].astype(str).to_numpy()
    for at in rng.choice(len(df), n, replace=False):
        values[at] = values[rng.choice(np.flatnonzero(schemes == schemes[at]))]
    return df.assign(value=pd.Categorical(values))


def _summary(ws, der, df, folder, spy=None):
    parts = core.Parts(folder)  # (a new process: nothing kept in memory)
    got = core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    parts.flush()
    return got


@pytest.fixture
def spy(monkeypatch):
    calls = {"spread": [], "read": 0}
    real_build, real_rest = labels.build, keptmod.load_rest
    monkeypatch.setattr(core, "build", lambda df, *a, **kw: calls["spread"].append((kw.get("spread"), len(df)))
                        or real_build(df, *a, **kw))

    def rest(*a, **kw):
        calls["read"] += 1
        return real_rest(*a, **kw)
    monkeypatch.setattr(keptmod, "load_rest", rest)
    return calls


def test_a_new_process_starts_from_the_parts_kept_on_disk(study, tmp_path, spy):
    ws, der, df = study
    folder = tmp_path / ".summary"
    first = _summary(ws, der, df, folder)
    assert same(first, core.summarize(ws, df, derived=der, disagreements=False))
    assert (folder / keptmod.STATE).exists()
    assert not list(tmp_path.rglob("*.parquet"))  # (a glob of the store's Parquet files finds annotations only)

    # rows unchanged: no value spread, no tally read
    spy["spread"].clear()
    again = _summary(ws, der, df, folder)
    assert same(again, first)
    assert spy["spread"] == [] and spy["read"] == 0

    # a few saves since: the tallies and rows read once, the changed items' rows spread
    df2 = _saved(df, 5, seed=1)
    want = core.summarize(ws, df2, derived=der, disagreements=False)
    spy["spread"].clear()
    after = _summary(ws, der, df2, folder)
    assert same(after, want)
    assert spy["read"] == 1
    # no row framed but the changed items', before and now: for the parts of one scheme, the
    # rows of the items changed on it; for the others (the progress), every row of those items
    changed = spy["spread"]
    assert len(changed) == 4 and all(n < len(df2) / 4 for _, n in changed)
    assert changed[0][1] < changed[2][1]

    # and that state is the one kept now
    spy["spread"].clear()
    assert same(_summary(ws, der, df2, folder), after) and spy["read"] == 1


def test_a_state_whose_files_are_gone_or_broken_is_not_trusted(study, tmp_path):
    ws, der, df = study
    folder = tmp_path / ".summary"
    _summary(ws, der, df, folder)
    files = list(folder.glob("*.rows.arrow"))
    assert len(files) == 1
    files[0].unlink()  # the rows gone: changed items cannot be taken out, every row is read
    df2 = _saved(df, 5, seed=2)
    assert same(_summary(ws, der, df2, folder), core.summarize(ws, df2, derived=der, disagreements=False))
    (folder / keptmod.STATE).write_text("{not json")
    df3 = _saved(df2, 5, seed=3)
    assert same(_summary(ws, der, df3, folder), core.summarize(ws, df3, derived=der, disagreements=False))
    assert len(list(folder.glob("*.tallies.json"))) == 1  # (each state replaces the one before)


def test_only_the_unfiltered_summary_is_kept_on_disk(study, tmp_path):
    ws, der, df = study
    folder = tmp_path / ".summary"
    parts = core.Parts(folder)
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts, schemes=["outcome"])
    core.summarize(ws, df, derived=der, disagreements=True, parts=parts)
    parts.flush()
    assert not folder.exists()
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts, k=2)
    parts.flush()
    assert keptmod.load(folder, "", (None, None, None, 2)) is not None
    assert keptmod.load(folder, "", (None, None, None, 1)) is None  # (a summary with another k starts afresh)


def test_a_state_of_another_workspace_is_not_taken(study, tmp_path, spy):
    """Kept parts belong to the workspace read from the same files (Workspace.stamp): an edited
    config or data file is another workspace, whose summary starts from the rows."""
    ws, der, df = study
    folder = tmp_path / ".summary"
    parts = core.Parts(folder, "stamp-1")
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    parts.flush()
    assert keptmod.load(folder, "stamp-1", (None, None, None, 1)) is not None
    assert keptmod.load(folder, "stamp-2", (None, None, None, 1)) is None
    spy["spread"].clear()
    core.summarize(ws, df, derived=der, disagreements=False, parts=core.Parts(folder, "stamp-2"))
    assert spy["read"] == 0 and len(spy["spread"][0][0]) == len(ws.project.schemes)  # (from the rows)


def test_a_workspaces_stamp_follows_its_files(tmp_path):
    import shutil
    from tests.conftest import ROOT, write_project
    from app.project.workspace import open_project
    data = tmp_path / "runs.jsonl"
    shutil.copy(ROOT / "data" / "demo_runs.jsonl", data)
    cfg = write_project(tmp_path, data_files=[str(data)])
    first = open_project(cfg).stamp
    assert first and open_project(cfg).stamp == first
    data.write_text(data.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # a data file edited
    second = open_project(cfg).stamp
    assert second != first
    cfg.write_text(cfg.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # the config edited
    assert open_project(cfg).stamp not in (first, second)


def test_summaries_sharing_parts_wait_for_each_other(study, monkeypatch):
    """Two sessions with different rows: the second waits while the first brings the shared parts
    up to date and finishes from them, so neither shows the other's numbers."""
    import threading
    ws, der, df = study
    parts = core.Parts()
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    a_rows, b_rows = _saved(df, 4, seed=7), _saved(df, 4, seed=8)
    inside, go = threading.Event(), threading.Event()
    real = core.progress_from

    def slow(t, n, configured):  # the first session pauses between counting its parts and finishing them
        if threading.current_thread().name == "a":
            inside.set()
            go.wait(10)
        return real(t, n, configured)
    monkeypatch.setattr(core, "progress_from", slow)
    got = {}
    a = threading.Thread(target=lambda: got.update(a=core.summarize(ws, a_rows, derived=der, disagreements=False,
                                                                     parts=parts)), name="a")
    b = threading.Thread(target=lambda: got.update(b=core.summarize(ws, b_rows, derived=der, disagreements=False,
                                                                     parts=parts)), name="b")
    a.start()
    assert inside.wait(10)
    b.start()
    b.join(0.5)
    assert b.is_alive()  # (waiting for the first)
    go.set()
    a.join(30)
    b.join(30)
    monkeypatch.setattr(core, "progress_from", real)
    assert same(got["a"], core.summarize(ws, a_rows, derived=der, disagreements=False))
    assert same(got["b"], core.summarize(ws, b_rows, derived=der, disagreements=False))


def test_a_part_that_fails_leaves_the_kept_parts_as_they_were(study, monkeypatch):
    ws, der, df = study
    parts = core.Parts()
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    real = core.ROLLUPS["radio"]

    def broken(lab, s, der_):
        raise RuntimeError("a part failed")
    monkeypatch.setitem(core.ROLLUPS, "radio", (real[0], broken, real[2]))
    df2 = _saved(df, 6, seed=9)
    values = df2["value"].astype(object).to_numpy().copy()
    radio = np.flatnonzero((df2["scheme"] == "outcome").to_numpy())
    values[radio[0]] = next(v for v in values[radio] if v != values[radio[0]])  # an outcome saved too
    df2 = df2.assign(value=pd.Categorical(values))
    with pytest.raises(RuntimeError):
        core.summarize(ws, df2, derived=der, disagreements=False, parts=parts)
    monkeypatch.setitem(core.ROLLUPS, "radio", real)
    df3 = _saved(df2, 6, seed=10)
    for rows in (df, df2, df3):  # (the rows before the failed summary first)
        assert same(core.summarize(ws, rows, derived=der, disagreements=False, parts=parts),
                    core.summarize(ws, rows, derived=der, disagreements=False))


def test_the_values_kept_spread_survive_a_summary_after_a_save(study):
    ws, der, df = study
    parts = core.Parts()
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    before = {k: len(v) for k, v in parts.spreads.items()}
    core.summarize(ws, _saved(df, 3, seed=11), derived=der, disagreements=False, parts=parts)
    after = {k: len(v) for k, v in parts.spreads.items()}
    assert all(after.get(k, 0) >= n - 3 for k, n in before.items()), (before, after)


def test_one_project_writes_its_parts_at_most_once_a_minute(study, tmp_path, monkeypatch):
    """A summary page computing again after each re-read that found saves does not rewrite the
    state (tens of MB at a million rows) each time: the next write waits WRITE_EVERY seconds."""
    ws, der, df = study
    folder = tmp_path / ".summary"
    parts = core.Parts(folder)
    core.summarize(ws, df, derived=der, disagreements=False, parts=parts)
    parts.flush()
    first = keptmod.load(folder, "", (None, None, None, 1))["id"]
    df2 = _saved(df, 3, seed=12)
    core.summarize(ws, df2, derived=der, disagreements=False, parts=parts)
    parts.flush()
    assert keptmod.load(folder, "", (None, None, None, 1))["id"] == first  # (within the minute: not written)
    monkeypatch.setattr(core.Parts, "WRITE_EVERY", 0.0)
    df3 = _saved(df2, 3, seed=13)
    core.summarize(ws, df3, derived=der, disagreements=False, parts=parts)
    parts.flush()
    assert keptmod.load(folder, "", (None, None, None, 1))["id"] != first
    assert same(core.summarize(ws, df3, derived=der, disagreements=False, parts=core.Parts(folder)),
                core.summarize(ws, df3, derived=der, disagreements=False))


def test_the_rows_kept_are_read_for_the_changed_items_only(study, tmp_path, monkeypatch):
    """The rows file is sorted by item in batches: the rows of chosen items are exactly theirs,
    across batch boundaries, read from their batches alone; the index of another project's items
    is not taken."""
    ws, der, df = study
    monkeypatch.setattr(keptmod, "BATCH", 7)  # (items' rows straddle batches)
    folder = tmp_path / ".summary"
    _summary(ws, der, df, folder)
    state = keptmod.load(folder, "", (None, None, None, 1))
    items = pd.Index([it.id for it in ws.items], dtype=object)
    names = pd.Index(sorted([s.name for s in ws.project.schemes] + [labels.DONE]), dtype=object)  # (what parts read)
    tallies, counted = keptmod.load_rest(folder, state, items, names)
    assert set(tallies) == set(state["marks"])
    read = []
    real = counted.rows._reader.get_batch
    monkeypatch.setattr(counted.rows._reader, "get_batch", lambda i: read.append(i) or real(i), raising=False)
    ids = [items[0], items[len(items) // 2], items[-1]]
    got = counted.of(ids, core.row_hashes)
    want = df[df["item_id"].isin(ids)]
    key = ["item_id", "annotator", "scheme"]
    as_text = lambda f: sorted(map(tuple, f[core.READ].astype(str).to_numpy().tolist()))  # noqa: E731
    assert len(got) == len(want) > 0 and as_text(got) == as_text(want)
    assert got[key].duplicated().sum() == 0
    assert 0 < len(set(read)) <= len(want) // 7 + 2 * len(ids)  # (the items' batches, not the file's)
    # sums over other items or schemes: not this state
    assert keptmod.load_rest(folder, state, items[:-1], names) is None
    assert keptmod.load_rest(folder, state, items, names[:-1]) is None


def test_a_rows_file_broken_after_it_was_opened_counts_every_row(study, tmp_path, monkeypatch):
    ws, der, df = study
    folder = tmp_path / ".summary"
    _summary(ws, der, df, folder)

    def broken(self, positions):
        raise OSError("a batch cannot be read")
    monkeypatch.setattr(keptmod.RowsOnDisk, "of", broken)
    df2 = _saved(df, 5, seed=14)
    assert same(_summary(ws, der, df2, folder), core.summarize(ws, df2, derived=der, disagreements=False))


def test_kept_files_changed_since_they_were_written_are_not_counted_from(study, tmp_path, monkeypatch):
    """A rows file damaged on disk (a bit flipped anywhere) neither crashes the summary nor
    changes its numbers: rows read from it are validated, and must give the sums kept for their
    items, or every row is counted; a tally or index file that is not what the state wrote (a
    hand edit) is not taken."""
    import shutil
    ws, der, df = study
    folder = tmp_path / ".summary"
    _summary(ws, der, df, folder)
    df2 = _saved(df, 3, seed=15)  # (a few items: brought up to date with their rows kept)
    want = core.summarize(ws, df2, derived=der, disagreements=False)
    read = []
    real_of = keptmod.RowsOnDisk.of
    monkeypatch.setattr(keptmod.RowsOnDisk, "of", lambda self, at: read.append(len(at)) or real_of(self, at))
    rows_file = next(folder.glob("*.rows.arrow"))
    size = rows_file.stat().st_size
    for at in range(size // 50, size, size // 13):  # (twelve places, the dictionaries' texts and offsets among them)
        copy = tmp_path / f"copy-{at}"
        shutil.copytree(folder, copy)
        damaged = next(copy.glob("*.rows.arrow"))
        data = bytearray(damaged.read_bytes())
        data[at] ^= 0x40
        damaged.write_bytes(bytes(data))
        assert same(_summary(ws, der, df2, copy), want), at
    # two damages made on purpose: a stored text changed in place (its length kept: the file is
    # valid, its rows are not those counted), and a text's end offset sent far past the data
    texts = [str(x).encode() for x in df["value"].cat.categories]
    common = df["value"].astype(str).value_counts().index[0].encode()
    ends = np.cumsum([len(t) for t in texts], dtype=np.int64)
    for name, old, new in [("text", common, common.replace(b"t", b"T", 1)),
                           ("offset", ends[1:4].tobytes(), np.array([ends[1], 1 << 40, ends[3]]).tobytes())]:
        copy = tmp_path / f"copy-{name}"
        shutil.copytree(folder, copy)
        damaged = next(copy.glob("*.rows.arrow"))
        data = damaged.read_bytes()
        assert data.count(old) == 1 and old != new, name
        damaged.write_bytes(data.replace(old, new))
        read.clear()
        assert same(_summary(ws, der, df2, copy), want), name
        assert read and 0 < read[0] <= 3  # (the changed items' rows were read from the file)
    for name in ("tallies.json", "index.npz"):
        copy = tmp_path / f"copy-{name}"
        shutil.copytree(folder, copy)
        edited = next(copy.glob(f"*.{name}"))
        if name == "tallies.json":  # valid, but another count
            edited.write_bytes(edited.read_bytes().replace(b"1", b"2", 1))
        else:
            edited.write_bytes(edited.read_bytes() + b"\0")
        state = keptmod.load(copy, "", (None, None, None, 1))
        names = pd.Index(sorted([s.name for s in ws.project.schemes] + [labels.DONE]), dtype=object)
        assert keptmod.load_rest(copy, state, pd.Index([it.id for it in ws.items], dtype=object), names) is None
        assert same(_summary(ws, der, df2, copy), want)


@pytest.mark.parametrize("case", ["plain", "missing rows", "missing value", "twice", "chunks", "empty", "unused",
                                  "nulls only", "unsigned"])
def test_rows_read_back_keep_only_their_own_values(case):
    """own_values gives what casting a dictionary column to text and coding it afresh gives
    (frame()'s categories, in order of first use, and missing rows), without a string per row;
    a column it does not read so comes back as its values, framed as before."""
    import pyarrow as pa
    d = pa.array(["a", "b", "c", "d"])
    idx = pa.array([2, 0, 2, 3], pa.int32())
    col = {"plain": pa.DictionaryArray.from_arrays(idx, d),
           "missing rows": pa.DictionaryArray.from_arrays(pa.array([2, None, 0, 2], pa.int32()), d),
           "missing value": pa.DictionaryArray.from_arrays(idx, pa.array(["a", "b", None, "d"])),
           "twice": pa.DictionaryArray.from_arrays(pa.array([0, 2, 1, 3], pa.int32()), pa.array(["a", "b", "a", "c"])),
           "chunks": pa.chunked_array([pa.DictionaryArray.from_arrays(idx, d),
                                       pa.DictionaryArray.from_arrays(pa.array([1, 1], pa.int32()), pa.array(["z", "b"]))]),
           "empty": pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), d),
           "unused": pa.DictionaryArray.from_arrays(pa.array([3, 3], pa.int32()), d),
           # (what kept.save writes for a text column without a value in any row)
           "nulls only": pa.DictionaryArray.from_arrays(pa.array([None, None], pa.int8()), pa.nulls(0)),
           "unsigned": pa.DictionaryArray.from_arrays(pa.array([2, 0, 2], pa.uint8()), d)}[case]
    got = keptmod.own_values(col)
    plain = (col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col).cast(col.type.value_type)
    pd.testing.assert_frame_equal(labels.frame(pa.table({"value": got})), labels.frame(pa.table({"value": plain})))
    if case in ("plain", "missing rows", "chunks", "empty", "unused"):  # (read as dictionaries)
        want = plain.dictionary_encode()
        assert got.dictionary.to_pylist() == want.dictionary.to_pylist()
        assert got.indices.to_pylist() == want.indices.to_pylist()
