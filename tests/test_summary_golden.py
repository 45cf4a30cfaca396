"""The summary equals the golden files written by the summary it replaced (tests/golden/): the
incremental, on-disk tally summary of before the reshape, run on these rows (see the git history
of tests/golden/make_golden.py).

Two studies (the benchmark's generated one, and the demo's real runs annotated), six sets of
filters each; every section of the summary is compared on its own (each scheme's rollup,
agreement and disagreements apart), numbers to 1e-9. Select one with `-k`, e.g.
`pytest tests/test_summary_golden.py -k "real and handoffs"`.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from app.project.workspace import open_project
from app.summary.rows import frame
from app.summary.summarize import summarize

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = ["generated", "real"]
PER_SCHEME = ["agreement", "scorecards", "attribution", "handoffs", "contention", "emergent", "tool_verdicts",
              "mast", "choices"]


@lru_cache(maxsize=None)
def _study(case: str):
    folder = GOLDEN / case
    ws = open_project(folder / "project.yaml")
    return ws, frame(pq.read_table(folder / "rows.parquet")), json.loads((folder / "summaries.json").read_text())


@lru_cache(maxsize=None)
def _summary(case: str, variant: str) -> dict:
    ws, rows, golden = _study(case)
    # (validate=False: the golden rows hold tool verdicts the scheme does not have, which the
    # summary now leaves out; the summary's counting is compared here on every row as stored,
    # and test_golden_rows_left_out_by_validation says which rows validation leaves out)
    return summarize(ws, rows, **golden[variant]["kwargs"], validate=False)


def _paths() -> list[tuple[str, str, str]]:
    out = []
    for case in CASES:
        golden = json.loads((GOLDEN / case / "summaries.json").read_text())
        for variant, found in golden.items():
            s = found["summary"]
            for section, part in s.items():
                if section in PER_SCHEME:
                    out += [(case, variant, f"{section}.{name}") for name in part]
                elif section == "disagreements":
                    out += [(case, variant, f"disagreements.{name}") for name in dict.fromkeys(r["scheme"] for r in part)]
                else:
                    out.append((case, variant, section))
    return out


def _pick(summary: dict, path: str):
    section, _, name = path.partition(".")
    if section == "disagreements":
        return [r for r in summary["disagreements"] or [] if r["scheme"] == name]
    part = summary[section]
    return part.get(name) if name else part


def mismatch(got, want, where: str = "") -> str | None:
    """Where two JSON values first differ (floats to 1e-9), or None."""
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return None if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12) else f"{where}: {got!r} != {want!r}"
    if isinstance(want, dict) and isinstance(got, dict):
        if set(want) != set(got):
            return f"{where}: keys {sorted(set(got) ^ set(want))} differ"
        for key in want:
            found = mismatch(got[key], want[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return f"{where}: {len(got)} entries != {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            found = mismatch(g, w, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if got == want and type(got) is type(want) else f"{where}: {got!r} != {want!r}"


@pytest.mark.parametrize("case,variant,path", _paths(), ids=lambda x: x)
def test_summary_equals_golden(case, variant, path):
    _ws, _rows, golden = _study(case)
    want = _pick(golden[variant]["summary"], path)
    got = _pick(_summary(case, variant), path)
    assert mismatch(got, want, path) is None, mismatch(got, want, path)


@pytest.mark.parametrize("case,left_out", [("generated", 200), ("real", 7)])
def test_golden_rows_left_out_by_validation(case, left_out):
    """The only golden rows that do not validate are tool-call reviews whose verdict ("wrong
    tool", "wrong arguments") is not one of the scheme's options: the summary leaves them out."""
    ws, rows, golden = _study(case)
    s = summarize(ws, rows, **golden["all"]["kwargs"])
    invalid = s["invalid"]
    assert invalid["count"] >= left_out
    assert {r["scheme"] for r in invalid["rows"]} == {"tool_review"}
    assert all("verdict" in r["reasons"][0] and "is not one of correct, wrong_tool" in r["reasons"][0]
               for r in invalid["rows"])
