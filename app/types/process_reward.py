"""process_reward: a reward per step of the trace, for process reward model data (PRM800K style).

Stored value: Potato's documented shape::

    {"mode": "per_step" | "first_error",
     "steps": [{"index": int, "reward": 1 | 0 | -1 | None, ...}, ...]}

`index` is the step's index in the trace; `reward` +1 (correct), -1 (incorrect), 0 (neutral,
only with `allow_neutral`) or None (not judged). Without `allow_neutral`, Potato stores an
unmarked step as 0: an import reads a 0 there as not judged. Other fields of an imported step
(`source`, `verified`, `ai_reward`, ...) are kept. In `first_error` mode the annotator names the
first incorrect step: every asked step before it is +1, it and every step after -1; "no error"
makes every step +1.

Keys: `mode` (first_error), `allow_neutral` (false, per_step only), `step_text_key`,
`reward_labels` (`{correct, neutral, incorrect}` wording), trace keys; Potato's `ai_prelabel`
and `require_verification` are accepted and ignored (nothing is sent to a model).

Summary: a row per judged step; counts per reward, the mean reward, the first error's step.
Agreement: interval alpha on the reward of each step two annotators judged; the first error's
step per item (exact and within ±k).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from app.project import validators as v
from app.stats.agreement import judgements, ordinal, show_number, within
from app.types import numeric, steps
from app.types.base import AnnotationType, Key, Scheme, as_int
from app.types.choices import label_counts
from app.types.panel import SchemeRows

MODES = ("first_error", "per_step")
WORDS = {1: "correct", 0: "neutral", -1: "incorrect"}


def rewards(scheme: Scheme | dict) -> list[int]:
    neutral = scheme.get("allow_neutral") and scheme.get("mode", "first_error") == "per_step"
    return [1, 0, -1] if neutral else [1, -1]


def word(scheme: Scheme | dict, reward: int) -> str:
    return str((scheme.get("reward_labels") or {}).get(WORDS[reward], WORDS[reward]))


def parse(value: Any) -> list[dict]:
    """The stored steps with an index, by index (the last wins on a repeat)."""
    entries = value.get("steps") if isinstance(value, dict) else None
    by_index: dict[int, dict] = {}
    for e in entries if isinstance(entries, list) else []:
        if isinstance(e, dict) and as_int(e.get("index")) is not None:
            by_index[as_int(e["index"])] = {**e, "index": as_int(e["index"])}
    return [by_index[i] for i in sorted(by_index)]


def reward_of(e: dict) -> int | None:
    x = e.get("reward")
    return None if x is None or isinstance(x, bool) else as_int(x)


def build(scheme: Scheme | dict, given: dict[int, int | None]) -> dict:
    """The stored value of {step index: reward}; steps without a reward are left out."""
    return {"mode": scheme.get("mode", "first_error"),
            "steps": [{"index": i, "reward": r} for i, r in sorted(given.items()) if r is not None]}


def first_error(scheme: Scheme | dict, asked: list[int], first: int | None) -> dict:
    """first_error mode: +1 before `first`, -1 from it on (None: no error, every step +1)."""
    return build(scheme, {i: (1 if first is None or i < first else -1) for i in asked})


def first_error_of(value: Any) -> int | None:
    """The index of the first step given -1 (None: none)."""
    return next((e["index"] for e in parse(value) if reward_of(e) == -1), None)


def coerce(value: Any, scheme: Scheme) -> Any:
    """Potato's stored value as it is; a bare list of steps, or `{index: reward}`, taken as steps.
    Without allow_neutral a 0 is Potato's unmarked step: None."""
    if isinstance(value, list):
        value = {"steps": value}
    elif isinstance(value, dict) and "steps" not in value and value and all(as_int(k) is not None for k in value):
        value = {"steps": [{"index": as_int(k), "reward": x} for k, x in value.items()]}
    if not isinstance(value, dict) or not isinstance(value.get("steps"), list):
        return value
    neutral = scheme is not None and 0 in rewards(scheme)
    out = []
    for e in value["steps"]:
        if isinstance(e, dict):
            r = e.get("reward")
            e = {**e, "reward": None if (not neutral and numeric.number_of(r) == 0) else (
                as_int(r) if as_int(r) is not None else r)}
        out.append(e)
    return {**value, "mode": value.get("mode") or (scheme.get("mode") if scheme is not None else None), "steps": out}


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or not isinstance(value.get("steps"), list):
        return [f"expected {{\"mode\", \"steps\": [{{index, reward}}, ...]}}, got {v.show(value)}"]
    allowed = rewards(scheme)
    out = [f"steps[{n}]: expected {{index, reward}}, got {v.show(e)}" for n, e in enumerate(value["steps"])
           if not isinstance(e, dict) or as_int(e.get("index")) is None]
    for e in parse(value):
        why, _ = steps.step_problem(e["index"], scheme, derivation, f"step {e['index']}:")
        if why:
            out.append(why)
        r = e.get("reward")
        if r is not None and reward_of(e) not in allowed:
            out.append(f"step {e['index']}: reward {v.show(r)} is not one of {', '.join(map(str, allowed))}")
    if value.get("mode") == "first_error" and not out:
        seq = [reward_of(e) for e in parse(value) if reward_of(e) is not None]
        if -1 in seq and any(r == 1 for r in seq[seq.index(-1):]):
            out.append("first_error mode: a step after the first incorrect one is marked correct")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    return [{"step": e["index"], "reward": float(reward_of(e)), "label": WORDS.get(reward_of(e), str(reward_of(e)))}
            for e in parse(value) if reward_of(e) is not None]


def _firsts(scheme_rows: SchemeRows) -> pd.DataFrame:
    """(item_id, annotator, first) per judgement: the first -1's step (-1 when none)."""
    t = scheme_rows.table
    judged = scheme_rows.judged[["item_id", "annotator"]].drop_duplicates()
    if "reward" not in t:
        return judged.assign(first=-1.0)
    errors = t[t["reward"] == -1].groupby(["item_id", "annotator"], sort=False)["step"].min().rename("first")
    return judged.merge(errors.reset_index(), on=["item_id", "annotator"], how="left").fillna({"first": -1.0})


def rollup(scheme_rows: SchemeRows) -> dict:
    out = label_counts(scheme_rows, "label", [WORDS[r] for r in rewards(scheme_rows.scheme)])
    t = scheme_rows.table
    out["mean_reward"] = numeric.stats(t["reward"].tolist() if "reward" in t else [])["mean"]
    firsts = _firsts(scheme_rows)
    out["first_error_step"] = numeric.stats(firsts.loc[firsts["first"] >= 0, "first"].tolist())
    out["judgements_without_error"] = int((firsts["first"] < 0).sum())
    return out


def agreement(scheme_rows: SchemeRows, disagreements) -> dict:
    """Interval alpha on the rewards of steps two or more annotators judged (a step left
    unjudged is no judgement); the first error's step per item (no error: -1)."""
    panel = scheme_rows.panel
    given = panel.members(scheme_rows.table)
    if "step" not in given:
        given = given.assign(step=pd.Series([], dtype="int64"), reward=pd.Series([], dtype=float))
    pairs = list(dict.fromkeys(zip(given["item"].tolist(), given["step"].tolist())))
    code = {p: i for i, p in enumerate(pairs)}
    table = judgements([code[p] for p in zip(given["item"].tolist(), given["step"].tolist())], given["rater"],
                       given["reward"])
    disagreements.add(table, lambda unit: (panel.items[pairs[unit][0]], f"step {pairs[unit][1]}"), "reward",
                      show_number, gap=1)
    firsts = panel.members(_firsts(scheme_rows))
    first_table = judgements(firsts["item"], firsts["rater"], firsts["first"])
    return {"reward": ordinal(table, "interval"), "first_error": within(first_table, scheme_rows.k)}


TYPE = AnnotationType(
    name="process_reward", title="Process reward", page="pages/process_reward.py", trace=True,
    keys={**steps.STEP_KEYS, "mode": Key(v.one_of(MODES), default="first_error"),
          "allow_neutral": Key(v.boolean, default=False), "reward_labels": Key(v.mapping),
          "ai_prelabel": Key(v.boolean, default=False), "require_verification": Key(v.boolean, default=False)},
    section="choices", rows=rows, rollup=rollup, agreement=agreement, coerce=coerce,
    looks_like=lambda value: isinstance(value, dict) and isinstance(value.get("steps"), list), validate=validate,
    objects=lambda value, derivation: steps.objects([e["index"] for e in parse(value)], derivation),
    headline=lambda measures: measures.get("reward"),
    scheme_problems=steps.binding_problems, honours=steps.HONOURS,
    ignored_keys=lambda o: steps.binding_ignored(o) + [
        (k, why) for k, why in (("ai_prelabel", "Baton sends nothing to a model: every reward is the annotator's"),
                                ("require_verification", "every reward is the annotator's own"))
        if o.get(k)] + ([("allow_neutral", "first_error mode has no neutral step")]
                        if o.get("allow_neutral") and o.get("mode", "first_error") == "first_error" else []))
