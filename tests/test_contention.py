"""Tests for app.contention (and app.timeparse, which it relies on)."""

import math
import random
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.traces import contention
from app.traces.contention import Region, find_regions, find_regions_quadratic
from app.traces.timed_calls import Call, _label, normalize_calls
from app.traces.timeparse import parse_duration, parse_time


def calls_of(*specs):
    """Build Calls from (agent, start, end) or (agent, start, end, resource)."""
    out = []
    for i, spec in enumerate(specs):
        agent, start, end, *rest = spec
        resource = rest[0] if rest else "db"
        out.append(Call(i, agent, "tool", resource, float(start), float(end)))
    return out


def both(calls, same_agent=False):
    """Run both implementations, check they agree, return the result."""
    fast = find_regions(calls, same_agent)
    assert fast == find_regions_quadratic(calls, same_agent)
    return fast


# --- parse_time / parse_duration -------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        (5, 5.0),
        (1.5, 1.5),
        ("42", 42.0),
        (" -3.5e1 ", -35.0),
        ("2025-01-02T03:04:05Z", 1735787045.0),
        ("2025-01-02T03:04:05", 1735787045.0),  # naive means UTC
        ("2025-01-02T05:04:05+02:00", 1735787045.0),
        ("2025-01-02T03:04:05.25Z", 1735787045.25),
        ("1970-01-01T00:00:00Z", 0.0),
    ],
)
def test_parse_time_accepts(value, expected):
    assert parse_time(value) == pytest.approx(expected)


@pytest.mark.parametrize(
    "value", [True, None, "soon", "", "nan", "inf", math.nan, math.inf, [1], "1_000"]
)
def test_parse_time_rejects(value):
    with pytest.raises(ValueError, match="expected a number of seconds or an ISO 8601 time"):
        parse_time(value)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("PT1M48.75533S", 108.75533),
        ("P1DT2H", 93600.0),
        ("PT0.5S", 0.5),
        ("PT0,5S", 0.5),
        ("P2W", 1209600.0),
        ("P0Y0M1D", 86400.0),
        ("pt3m", 180.0),
        (2.5, 2.5),
        ("7", 7.0),
    ],
)
def test_parse_duration_accepts(value, expected):
    assert parse_duration(value) == pytest.approx(expected)


@pytest.mark.parametrize("value", ["P", "PT", "P1DT", "1M", "PT-1S", "P1Y", "P2M", -1, True, None, "x"])
def test_parse_duration_rejects(value):
    with pytest.raises(ValueError):
        parse_duration(value)


# --- normalize_calls ---------------------------------------------------------


def test_normalize_resource_defaults_to_tool_and_agent_to_unknown():
    calls, problems = normalize_calls([{"tool": "search", "start": 0, "end": 1}])
    assert problems == []
    assert calls == [Call(0, "(unknown)", "search", "search", 0.0, 1.0)]


def test_normalize_custom_keys_and_values_shown_as_str():
    raw = [{"who": 7, "tool": "t", "res": 3, "start": "1", "end": 2}]
    calls, _ = normalize_calls(raw, agent_key="who", resource_key="res")
    assert (calls[0].agent, calls[0].resource) == ("7", "3")


def test_normalize_iso_times():
    calls, problems = normalize_calls(
        [{"agent": "a", "tool": "t", "start": "2025-01-02T03:04:05Z", "end": "2025-01-02T03:04:06.5Z"}]
    )
    assert problems == []
    assert calls[0].end - calls[0].start == pytest.approx(1.5)


def test_normalize_reports_bad_times_and_keeps_every_call():
    raw = [
        {"agent": "a", "tool": "t", "start": 0, "end": 1},
        "not a call",
        {"agent": "b", "tool": "t", "start": 0},
        {"agent": "c", "tool": "t", "start": 1, "end": "soon"},
        {"agent": "d", "tool": "t", "start": 5, "end": 3},
        {"agent": "e", "start": 0, "end": 1},
    ]
    calls, problems = normalize_calls(raw)
    assert [c.index for c in calls] == [0, 1, 2, 3, 4, 5]
    assert calls[0].problem is None
    assert problems == [
        "calls[1]: expected a dict, got str",
        "calls[2].end: expected a number of seconds or an ISO 8601 time, got nothing",
        'calls[3].end: expected a number of seconds or an ISO 8601 time, got "soon"',
        "calls[4].end: expected a time at or after start (5), got 3",
        "calls[5].resource: expected a resource or a tool name, got nothing",
    ]
    assert calls[1].problem == problems[0]
    assert (calls[2].start, calls[2].end) == (0.0, None)
    assert (calls[3].start, calls[3].end) == (1.0, None)
    assert (calls[4].start, calls[4].end) == (5.0, None)
    # Problem calls never contend, even though their starts overlap call 0.
    assert find_regions(calls) == []


def test_normalize_names_and_times_same_in_any_company():
    # Names are checked once per distinct (tool, resource, agent): each call must still
    # come out as it would alone, whatever came before it.
    names = [None, "", "  ", "db", " db ", "x", 7]
    rng = random.Random(3)
    raw = [{"tool": rng.choice(names), "resource": rng.choice(names), "agent": rng.choice(names),
            "start": rng.choice([0, -0.0, 1.5, 2, True, "3"]), "end": rng.choice([2, 2.5, 4.0, None])}
           for _ in range(300)]
    calls, problems = normalize_calls(raw)
    alone = [normalize_calls([r]) for r in raw]
    assert [(c.agent, c.tool, c.resource, c.problem) for c in calls] == \
        [(cs[0].agent, cs[0].tool, cs[0].resource, cs[0].problem.replace("calls[0]", f"calls[{i}]")
          if cs[0].problem else None) for i, (cs, _) in enumerate(alone)]
    # names as the general rules give them (_label: text unless missing or blank), and
    # times as floats of the same value and sign (-0.0 stays -0.0)
    for c, r in zip(calls, raw):
        tool, resource = _label(r["tool"]), _label(r["resource"])
        assert (c.agent, c.tool) == (_label(r["agent"]) or "(unknown)", tool or "(unknown)")
        assert c.resource == (resource or tool or "(unknown)")
        if c.problem is None:
            assert type(c.start) is float and type(c.end) is float
            assert math.copysign(1, c.start) == math.copysign(1, float(r["start"]))
    assert len(problems) == sum(len(p) for _, p in alone)


# --- find_regions ------------------------------------------------------------


def test_touching_calls_do_not_contend():
    assert both(calls_of(("a", 0, 5), ("b", 5, 9))) == []


def test_zero_length_call_overlaps_nothing():
    assert both(calls_of(("a", 0, 5), ("b", 2, 2))) == []


def test_nested_calls():
    assert both(calls_of(("a", 0, 10), ("b", 2, 3))) == [
        Region(0, "db", 0.0, 10.0, (0, 1), ("a", "b"))
    ]


def test_chain_merges_into_one_region():
    # A overlaps B, B overlaps C, A and C are disjoint: still one region.
    regions = both(calls_of(("A", 0, 4), ("B", 3, 7), ("C", 6, 9)))
    assert regions == [Region(0, "db", 0.0, 9.0, (0, 1, 2), ("A", "B", "C"))]


def test_three_mutually_overlapping_calls_are_one_region():
    regions = both(calls_of(("a", 0, 9), ("b", 1, 9), ("c", 2, 9)))
    assert [r.calls for r in regions] == [(0, 1, 2)]


def test_same_agent_overlap_does_not_contend_by_default():
    assert both(calls_of(("a", 0, 5), ("a", 1, 6))) == []


def test_same_agent_option():
    regions = both(calls_of(("a", 0, 5), ("a", 1, 6)), same_agent=True)
    assert regions == [Region(0, "db", 0.0, 6.0, (0, 1), ("a",))]


def test_same_agent_call_joins_region_through_another_agent():
    # a0 and a1 do not contend with each other, but both contend with b.
    regions = both(calls_of(("a", 0, 10), ("b", 1, 3), ("a", 2, 4)))
    assert [r.calls for r in regions] == [(0, 1, 2)]


def test_different_resources_do_not_contend():
    assert both(calls_of(("a", 0, 5, "x"), ("b", 1, 6, "y"))) == []


def test_agents_in_order_of_first_start_and_regions_numbered():
    calls = calls_of(
        ("late", 20, 30, "r2"),
        ("early", 10, 25, "r2"),
        ("x", 0, 2, "r1"),
        ("y", 1, 3, "r1"),
        ("p", 0, 2, "r0"),
        ("q", 1, 3, "r0"),
    )
    regions = both(calls)
    assert [(r.index, r.resource, r.calls) for r in regions] == [
        (0, "r0", (4, 5)),
        (1, "r1", (2, 3)),
        (2, "r2", (0, 1)),
    ]
    assert regions[2].agents == ("early", "late")


def test_regions_from_normalized_iso_calls():
    raw = [
        {"agent": "a", "tool": "write", "resource": "file.txt",
         "start": "2025-01-02T03:00:00Z", "end": "2025-01-02T03:00:10Z"},
        {"agent": "b", "tool": "write", "resource": "file.txt",
         "start": "2025-01-02T04:00:05+01:00", "end": "2025-01-02T03:00:20Z"},
    ]
    calls, problems = normalize_calls(raw)
    assert problems == []
    [region] = both(calls)
    assert (region.calls, region.end - region.start) == ((0, 1), 20.0)


call_specs = st.lists(
    st.tuples(
        st.sampled_from("abcd"),
        st.sampled_from(["r1", "r2", "r3"]),
        st.integers(0, 12),
        st.integers(0, 6),
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(specs=call_specs, same_agent=st.booleans(), seed=st.integers(0, 2**16),
       pairwise_max=st.sampled_from([2, 12, 1000]))
def test_sweep_matches_quadratic(specs, same_agent, seed, pairwise_max):
    calls = [
        Call(i, agent, "tool", res, float(s), float(s + d))
        for i, (agent, res, s, d) in enumerate(specs)
    ]
    # Indexes need not follow list order; shuffling checks nothing relies on it.
    random.Random(seed).shuffle(calls)
    # Clusters that need it are swept above the bound and tested pair by pair below it:
    # check both ways on every size of cluster (2: always the sweep, 1000: never).
    with mock.patch.object(contention, "_PAIRWISE_MAX", pairwise_max):
        assert find_regions(calls, same_agent) == find_regions_quadratic(calls, same_agent)


def test_large_input_matches_quadratic_blockwise():
    # Blocks sit in disjoint time windows, so regions never span blocks and
    # the all-pairs reference can check each block on its own.
    rng = random.Random(1)
    calls, blocks = [], []
    for b in range(400):
        block = []
        for _ in range(50):
            start = b * 1000 + rng.randint(0, 400)
            block.append(
                Call(len(calls), rng.choice("abcd"), "t", rng.choice(["x", "y"]),
                     float(start), float(start + rng.randint(0, 80)))
            )
            calls.append(block[-1])
        blocks.append(block)
    assert len(calls) == 20_000
    expected = [r for block in blocks for r in find_regions_quadratic(block)]
    got = find_regions(calls)
    strip = lambda rs: [(r.resource, r.start, r.end, r.calls, r.agents) for r in rs]
    assert strip(got) == strip(expected)
    assert [r.index for r in got] == list(range(len(got)))


def test_times_beyond_the_largest_float_are_reported_not_raised():
    """JSON allows integers of any size: one too large for a float is a bad time (reported with
    its call), not an OverflowError; the largest finite floats and ints still work."""
    import json
    import sys
    big = "1" + "0" * 400
    raw = json.loads(f'[{{"agent": "A", "tool": "t", "start": {big}, "end": 2{big}}},'
                     f' {{"agent": "B", "tool": "t", "start": 1, "end": {big}}},'
                     f' {{"agent": "C", "tool": "t", "start": -{sys.float_info.max!r}, "end": {int(sys.float_info.max)}}}]')
    calls, problems = normalize_calls(raw)
    assert [c.problem is None for c in calls] == [False, False, True]
    assert problems[0].startswith("calls[0].start: expected a number of seconds or an ISO 8601 time, got 1000")
    assert problems[-1].startswith("calls[1].end: expected a number of seconds")
    assert calls[2].start == -sys.float_info.max and calls[2].end == sys.float_info.max
    assert find_regions(calls) == []
