"""Potato's `cot_segmentation` project key checked: a reasoning string split into a step list
(app/traces/cot.py does the splitting)."""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.project.problems import Problem
from app.traces.cot import STRATEGIES


def check_cot_segmentation(raw: Any, out: list[Problem], file: str) -> dict | None:
    """Potato's `cot_segmentation`, checked: {source_key, strategy, target_key, min_step_chars,
    max_steps, markers, sentences_per_step}."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        out.append(Problem(file, "cot_segmentation", f"expected a mapping with source_key, got {v.show(raw)}"))
        return None
    known = {"source_key", "strategy", "target_key", "min_step_chars", "max_steps", "markers", "sentences_per_step"}
    opts = {"strategy": "auto", "target_key": "cot_steps", "min_step_chars": 0, "max_steps": 200, "markers": None,
            "sentences_per_step": 1, **raw}
    checks = [("source_key", isinstance(opts.get("source_key"), str) and bool(opts.get("source_key")), "a field name"),
              ("target_key", isinstance(opts["target_key"], str) and bool(opts["target_key"]), "a field name"),
              ("strategy", opts["strategy"] in STRATEGIES, "one of " + ", ".join(STRATEGIES)),
              ("markers", opts["markers"] is None or (isinstance(opts["markers"], list)
                                                      and all(isinstance(m, str) for m in opts["markers"])),
               "a list of strings")]
    checks += [(k, isinstance(opts[k], int) and not isinstance(opts[k], bool) and opts[k] >= low, f"a whole number >= {low}")
               for k, low in (("min_step_chars", 0), ("max_steps", 1), ("sentences_per_step", 1))]
    bad = False
    for key, fine, wanted in checks:
        if not fine:
            out.append(Problem(file, f"cot_segmentation.{key}", f"expected {wanted}, got {v.show(opts.get(key))}"))
            bad = True
    for key in sorted(set(raw) - known):
        out.append(Problem(file, f"cot_segmentation.{key}", "Potato key, ignored by Baton", "ignored"))
    if opts["strategy"] == "llm":
        out.append(Problem(file, "cot_segmentation.strategy", "Baton calls no model: the auto strategy is used",
                           "ignored"))
    return None if bad else opts
