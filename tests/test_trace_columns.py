"""app.trace_columns: derivations as flat columns, gathered for any list of items, against
reading each derivation in turn."""
from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from app._old import summary as core
from app._old import trace_columns
from app.project.workspace import open_project
from tests.summary_data import CODE, TRIP, demo


def _derivation(agents: list[str], regions: list[tuple[int, str]]):
    edges = [(a, b, n) for n, (a, b) in enumerate(zip(agents, agents[1:]), start=1)]
    return SimpleNamespace(step_agents=tuple(agents), edges=edges,
                           edge_columns=(tuple(e[0] for e in edges), tuple(e[1] for e in edges)),
                           handoff_columns=(tuple(range(len(edges))), tuple(range(1, len(edges) + 1)),
                                            tuple(e[0] for e in edges), tuple(e[1] for e in edges)),
                           contentions=[SimpleNamespace(index=i, resource=r) for i, r in regions])


_runs = st.lists(st.one_of(st.none(), st.tuples(st.lists(st.sampled_from("ABC"), max_size=5),
                                                 st.lists(st.tuples(st.integers(0, 9), st.sampled_from("xy")),
                                                          max_size=3))), max_size=6)


@settings(max_examples=60, deadline=None)
@given(_runs, st.lists(st.integers(-1, 7), max_size=10))
def test_gathered_columns_equal_each_derivation_read_in_turn(runs, picks):
    ds = [None if r is None else _derivation(*r) for r in runs]
    ids = [f"i{k}" for k in range(len(ds))]
    tc = trace_columns.TraceColumns(ids, ds)
    wanted = [f"i{k}" for k in picks]  # some of them unknown (-1, or past the end)
    slots = tc.slots(wanted)
    by_id = dict(zip(ids, ds))
    for part, read in ((tc.steps, lambda d: [(a,) for a in d.step_agents]),
                       (tc.edges, lambda d: list(d.edges)),
                       (tc.handoffs, lambda d: list(zip(*d.handoff_columns))),
                       (tc.regions, lambda d: [(r.index, r.resource) for r in d.contentions])):
        sizes, at = part.take(slots)
        got = list(zip(*(part.columns[c][at].tolist() for c in part.columns))) if len(part.columns) else []
        want = []
        for i in wanted:
            d = by_id.get(i)
            want += read(d) if d is not None else []
        assert got == want
        assert sizes.tolist() == [len(read(by_id[i])) if by_id.get(i) is not None else -1 for i in wanted]


def test_derivation_parts_are_read_once_per_workspace_and_grow_for_new_items(tmp_path):
    cfg, _save = demo(tmp_path)
    ws = open_project(cfg)
    der, s = core.Derived(ws), ws.project.scheme("handoffs")
    memo: dict = {}
    trace_columns.cover(memo, [CODE])
    first = trace_columns.of(memo, der, s, [CODE])
    assert trace_columns.of(memo, der, s, []) is first and first.item_ids == [CODE]
    grown = trace_columns.of(memo, der, s, [TRIP, CODE])
    assert grown.item_ids == [CODE, TRIP]
    sizes, at = grown.handoffs.take(grown.slots([TRIP]))
    assert grown.handoffs.columns["index"][at].tolist() == [h.index for h in der.get(TRIP, s).handoffs]
    # a later summary (its own memo) takes the columns kept on the workspace's derivations
    assert trace_columns.of({}, der, s, [TRIP]) is grown
    trace_columns.cover(later := {}, [CODE, TRIP])
    assert trace_columns.of(later, der, s, [CODE]) is grown
    # one that covers more items grows them once to all it covers, whichever it asks for first
    others = [it.id for it in ws.items if it.id not in (CODE, TRIP)]
    trace_columns.cover(wider := {}, [CODE, TRIP] + others)
    assert trace_columns.of(wider, der, s, others[:1]).item_ids == [CODE, TRIP] + others
    trace_columns.forget(der)
    assert trace_columns.of({}, der, s, [TRIP]).item_ids == [TRIP]  # (built again after forget)


def test_contention_rollup_with_regions_sharing_an_index_takes_the_last(tmp_path):
    """Regions of one item sharing an index (not what derive() makes): the last one names the
    resource, as a dict of each item's regions by index would."""
    cfg, save = demo(tmp_path)
    save(CODE, "alice", "contention", {"contentions": {"0": "deadlock", "5": "benign"}})
    ws = open_project(cfg)
    s, der = ws.project.scheme("contention"), core.Derived(ws)
    d = der.get(CODE, s)
    d.contentions = [SimpleNamespace(index=0, resource="first"), SimpleNamespace(index=0, resource="second")]
    lab = core.build(core.load(ws), {s.name: s})
    got = core.contention(lab, s, der)
    assert got == {"labels": [{"resource": "second", "label": "deadlock", "count": 1}], "stale": 1}

