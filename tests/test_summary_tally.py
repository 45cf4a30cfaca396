"""The summary's tallies add up over items: computed on two disjoint sets of items and merged,
they equal the tally of all the items, so a kept summary can be updated by the items that
changed. On a generated study with every scheme of the demo project (benchmarks/summary.py's
generator: values valid for their type, naming the runs' real handoffs, steps, calls and
regions, annotators disagreeing now and then)."""
from __future__ import annotations

import json
import random

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from app._old import summary as S
from app._old.labels import build, frame
from app._old.scheme_agreement import agreement_from, agreement_tally
from app._old.tally import dumps, loads, merge
from benchmarks.summary import generate


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    ws, der, path = generate(folder, 4000, 4, seed=3)
    for n, it in enumerate(ws.items):  # gold on two runs of three (the generator gives none)
        agents = der.get(it.id).agents or ["(unknown)"]
        if n % 3:
            it.gold = {"mistake_agent": agents[n % len(agents)], "mistake_step": n % 7,
                       "failures": [{"step": 2, "agent": agents[0], "root_cause": True}, {"step": 5}]}
    df = frame(pq.read_table(path))
    return ws, der, df


def _lab(ws, df):
    return build(df, {s.name: s for s in ws.project.schemes})


def _tally(ws, der, df, s, k=1):
    lab = _lab(ws, df)
    return agreement_tally(lab, s, der, k, handoff_judgements=S._handoff_judgements)[0]


@pytest.mark.parametrize("seed", [0, 1])
def test_every_schemes_agreement_tally_adds_up_over_items(study, seed):
    ws, der, df = study
    items = sorted(df["item_id"].astype(str).unique())
    some = set(random.Random(seed).sample(items, len(items) // 3))
    mine = df["item_id"].astype(str).isin(some).to_numpy()
    for s in ws.project.schemes:
        whole = _tally(ws, der, df, s)
        parts = merge(_tally(ws, der, df[mine], s), _tally(ws, der, df[~mine], s))
        assert parts == whole, s.name
        assert json.dumps(agreement_from(parts, s, 1)) == json.dumps(agreement_from(whole, s, 1)), s.name


def test_a_tally_of_items_no_two_annotators_judged_adds_up_too(study):
    """The labels seen anywhere in a scheme (behaviours, modes, categories, contention labels,
    multiselect labels) count every row, so items judged by one annotator count for them even
    where no item has two: a kept tally brought up to date by such items stays equal."""
    ws, der, df = study
    _some, _rest, mine = _halves(df, 2)
    first = df["annotator"].astype(str) == df.groupby("item_id", observed=True)["annotator"].transform(
        lambda a: sorted(a.astype(str))[0]).astype(str)
    alone = df[mine & first.to_numpy()]  # one annotator an item: nobody to agree with
    rest = df[~mine]
    seen = 0
    for s in ws.project.schemes:
        solo = _tally(ws, der, alone, s)
        assert not solo.get("items_compared"), s.name
        seen += any(k.endswith("_seen") for k in solo)
        both = _tally(ws, der, pd.concat([alone, rest]), s)
        assert merge(solo, _tally(ws, der, rest, s)) == both, s.name
    assert seen >= 4  # (emergent, MAST, contention, multiselect)


def test_a_tally_kept_on_disk_and_updated_by_one_changed_item_finishes_equal(study):
    ws, der, df = study
    s = ws.project.scheme("scorecard")
    kept = loads(dumps(_tally(ws, der, df, s)))
    item = df["item_id"].iloc[0]
    changed = df.copy()
    at = changed.index[(changed["item_id"] == item) & (changed["scheme"] == "scorecard")][0]
    new_value = json.dumps({"agents": {}, "team": {"overall": 1}, "milestones": {}})
    changed["value"] = changed["value"].cat.add_categories([new_value])
    changed.loc[at, "value"] = new_value
    one = (df["item_id"] == item).to_numpy()
    kept = merge(merge(kept, _tally(ws, der, df[one], s), -1), _tally(ws, der, changed[one], s))
    assert kept == _tally(ws, der, changed, s)
    assert agreement_from(kept, s, 1) == agreement_from(_tally(ws, der, changed, s), s, 1)


def _halves(df, seed):
    items = sorted(df["item_id"].astype(str).unique())
    some = set(random.Random(seed).sample(items, len(items) // 3))
    mine = df["item_id"].astype(str).isin(some).to_numpy()
    return some, set(items) - some, mine


def test_a_handoff_review_without_its_item_or_annotator_is_nobodys(study):
    """A review row missing its annotator or item (a hand-made store) is no judgement: its code
    (-1) was read as the last item's or the item before's last annotator, which crashed the
    summary or counted it where it did not belong, so the tally did not add up over items."""
    ws, der, df = study
    s = next(x for x in ws.project.schemes if x.type == "handoff_review")
    at = np.flatnonzero((df["scheme"] == s.name).to_numpy())
    odd = df.astype({"item_id": object, "annotator": object})
    odd.iloc[at[::7], odd.columns.get_loc("annotator")] = None
    odd.iloc[at[3::11], odd.columns.get_loc("item_id")] = None
    odd = odd.astype({"item_id": "category", "annotator": "category"})
    j = S._handoff_judgements(_lab(ws, odd), s, der)[0]
    assert len(j) and j["item_id"].notna().all() and j["annotator"].notna().all()
    for seed in range(3):
        some, _rest, _mine = _halves(odd.dropna(subset=["item_id"]), seed)
        mine = odd["item_id"].astype(object).isin(some).to_numpy()  # (an item missing: the second half)
        for count in (lambda lab: S.handoffs_tally(lab, s, der), lambda lab: S.handoff_flags(lab, s, der)):
            assert merge(count(_lab(ws, odd[mine])), count(_lab(ws, odd[~mine]))) == count(_lab(ws, odd))


@pytest.mark.parametrize("seed", [0, 1])
def test_every_rollup_and_the_graph_and_gold_add_up_over_items(study, seed):
    ws, der, df = study
    some, rest, mine = _halves(df, seed)
    graphs = [s for s in ws.project.schemes if s.type == "agent_interaction_graph"]
    reviews = [s for s in ws.project.schemes if s.type == "handoff_review"]
    att = next(s for s in ws.project.schemes if s.type == "failure_attribution")
    steps = [s for s in ws.project.schemes if s.type == "trajectory_eval"]
    ids = [it.id for it in ws.items]
    # (items nobody judged belong to the second half)
    counts = {
        **{s.name: lambda lab, ids, s=s: S.ROLLUPS[s.type][1](lab, s, der) for s in ws.project.schemes
           if s.type in S.ROLLUPS},
        "graph_marks": lambda lab, ids: S.graph_marks(lab, graphs),
        **{f"flags {s.name}": lambda lab, ids, s=s: S.handoff_flags(lab, s, der) for s in reviews},
        "interaction": lambda lab, ids: S.interaction_tally(lab, der, ids, graphs, reviews),
        "gold": lambda lab, ids: S.gold_tally(lab, ws, ids, att, steps, 1),
        "progress": lambda lab, ids: S.progress_tally(lab),
    }
    first = [i for i in ids if i in some]
    second = [i for i in ids if i not in some]
    for name, count in counts.items():
        whole = count(_lab(ws, df), ids)
        parts = merge(count(_lab(ws, df[mine]), first), count(_lab(ws, df[~mine]), second))
        assert parts == whole, name
        assert whole, name  # (the study has something to count for each)
