"""The summary's parts kept on disk (app/kept.py): a new process starts from the last summary's
parts; with the rows unchanged it spreads no value and reads no tally, with a few items changed
it brings the parts up to date by those items; a state gone or broken is never trusted."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from app import kept as keptmod
from app import labels, summary as core
from app.labels import frame
from benchmarks.summary import generate


def same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    ws, der, path = generate(tmp_path_factory.mktemp("study"), 2_400, 4, seed=5)
    return ws, der, frame(pq.read_table(path))


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
    assert [x for x, _ in spy["spread"]] == [set()] and spy["read"] == 0

    # a few saves since: the tallies and rows read once, the changed items' rows spread
    df2 = _saved(df, 5, seed=1)
    want = core.summarize(ws, df2, derived=der, disagreements=False)
    spy["spread"].clear()
    after = _summary(ws, der, df2, folder)
    assert same(after, want)
    assert spy["read"] == 1
    whole, *changed = spy["spread"]
    assert whole == (set(), len(df2)) and len(changed) == 2 and all(n < len(df2) / 4 for _, n in changed)

    # and that state is the one kept now
    spy["spread"].clear()
    assert same(_summary(ws, der, df2, folder), after) and spy["read"] == 1


def test_a_state_whose_files_are_gone_or_broken_is_not_trusted(study, tmp_path):
    ws, der, df = study
    folder = tmp_path / ".summary"
    _summary(ws, der, df, folder)
    for p in folder.glob("*.feather"):
        p.unlink()  # the rows gone: changed items cannot be taken out, every row is read
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
    assert keptmod.load(folder, (None, None, None, 2)) is not None
    assert keptmod.load(folder, (None, None, None, 1)) is None  # (a summary with another k starts afresh)
