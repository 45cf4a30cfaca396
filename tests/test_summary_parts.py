"""Each scheme's part of the summary is kept in memory under its rows' digest: a summary after a
save equals a summary computed afresh, and recomputes only the part of the scheme that changed."""
from __future__ import annotations

import json

import pandas as pd

from app.project.workspace import open_project
from app.summary.summarize import summarize
from tests.summary_data import generated_study, same


def _changed(rows: pd.DataFrame, scheme: str) -> pd.DataFrame:
    """The rows after one save on `scheme`: its first judgement given its last one's value."""
    at = rows.index[rows["scheme"] == scheme]
    values = rows["value"].astype(object).to_numpy().copy()
    values[rows.index.get_loc(at[0])] = values[rows.index.get_loc(at[-1])]
    return rows.assign(value=pd.Series(values, index=rows.index, dtype=rows["value"].dtype))


def _parts(ws) -> dict:
    """{scheme: its part} of the one option set summarised so far."""
    (kept,) = ws.__dict__["_summary_parts"].values()
    return {name: found[1] for name, found in kept.items() if isinstance(name, str)}


def test_a_summary_after_a_save_equals_one_computed_afresh(tmp_path):
    ws, _derivations, rows = generated_study(tmp_path / "study", seed=3)
    before = summarize(ws, rows)
    first = _parts(ws)
    after = summarize(ws, _changed(rows, "scorecard"))
    second = _parts(ws)
    fresh = summarize(open_project(ws.project.path), _changed(rows, "scorecard"))
    assert same(after, fresh)
    assert not same(before, after)
    # only the scheme that changed was computed again
    assert [name for name in first if first[name] is not second[name]] == ["scorecard"]


def test_unchanged_rows_give_the_same_summary_from_memory(tmp_path):
    ws, _derivations, rows = generated_study(tmp_path / "study", seed=4)
    once = summarize(ws, rows)
    kept = _parts(ws)
    again = summarize(ws, rows.copy())
    assert json.dumps(once, sort_keys=True) == json.dumps(again, sort_keys=True)
    assert all(kept[name] is part for name, part in _parts(ws).items())


def test_other_options_are_their_own_parts(tmp_path):
    ws, _derivations, rows = generated_study(tmp_path / "study", seed=5)
    at_one, at_three = summarize(ws, rows, k=1), summarize(ws, rows, k=3)
    assert same(at_three, summarize(open_project(ws.project.path), rows, k=3))
    assert same(at_one, summarize(ws, rows, k=1))


def test_the_summary_says_which_scheme_it_is_on(tmp_path):
    ws, _derivations, rows = generated_study(tmp_path / "study", seed=6)
    told = []
    summarize(ws, rows, on_scheme=lambda done, of, scheme: told.append((done, of, scheme)))
    names = [s.name for s in ws.project.schemes]
    assert told == [(i, len(names), name) for i, name in enumerate(names)]
