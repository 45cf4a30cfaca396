"""A demo page for the instant-click prototypes (app/ui/instant.py); used only by
benchmarks/clicks.py and tests/browser/test_instant.py.

    BATON_DEMO_ITEMS=items.jsonl BATON_DEMO_OUT=annotations/ streamlit run benchmarks/pages/instant_demo.py
    ?item=run-50-0&mode=instant|fragment&fail=1&labels=<json list>

One generated item (benchmarks/gen.py): its first steps as text (every step is read and its
handoffs counted on each full run, as a page of Baton does), then a card of handoff flags per
handoff (up to CARDS) and a radio card for the whole run, saved to a real AnnotationStore.
`fail=1` makes every save fail as a read-only folder does; `labels` replaces the flag labels
(the injection test's markup).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app.store.storage import Annotation, AnnotationStore  # noqa: E402
from app.ui.instant import instant_choice  # noqa: E402
from app.ui.instant_fragment import fragment_choice  # noqa: E402

FLAGS = ["info_loss", "dropped_constraint", "garbling", "goal_drift"]
OUTCOMES = ["success", "partial", "failure"]
CARDS = 3


@st.cache_data(show_spinner=False)
def read_items(path: str) -> dict[str, dict]:
    with open(path, encoding="utf-8") as f:
        return {d["id"]: d for d in map(json.loads, f)}


def handoffs(item: dict) -> list[int]:
    steps = item["steps"]
    return [i for i in range(1, len(steps)) if steps[i]["agent"] != steps[i - 1]["agent"]]


st.set_page_config(page_title="instant demo", layout="wide")
q = st.query_params
items = read_items(os.environ["BATON_DEMO_ITEMS"])
item = items[q.get("item", next(iter(items)))]
mode = q.get("mode", "instant")
fail = q.get("fail") == "1"
labels = dict(zip(FLAGS, json.loads(q["labels"]))) if "labels" in q else None
store = AnnotationStore(os.environ["BATON_DEMO_OUT"])
annotator = q.get("annotator", "bench")

st.subheader(f"{item['id']} · {mode}")
points = handoffs(item)  # the whole item read on each full run, as a Baton page does
st.text(f"{len(item['steps'])} steps, {len(points)} handoffs")
with st.container(height=200):
    for i, step in enumerate(item["steps"][:10]):
        st.text(f"Step {i} · {step['agent']}: {step['content']}")


def loader(scheme: str):
    def load() -> list[str]:
        ann = store.load(item["id"], annotator, scheme)
        return list(ann.value) if ann else []
    return load


def saver(scheme: str):
    def save(value: list[str]) -> None:
        if fail:
            raise PermissionError(13, "Permission denied")
        if value:
            store.save(Annotation(item["id"], annotator, scheme, "multiselect", value))
        else:
            store.delete(item["id"], annotator, scheme)
    return save


card = instant_choice if mode == "instant" else fragment_choice
for k, step in enumerate(points[:CARDS]):
    scheme = f"handoff-{step}"
    card(f"{mode}-{item['id']}-{scheme}", title=f"Handoff at step {step}: flags", options=FLAGS,
         labels=labels, load=loader(scheme), save=saver(scheme), multi=True)
card(f"{mode}-{item['id']}-outcome", title="Outcome of the run", options=OUTCOMES,
     load=loader("outcome"), save=saver("outcome"), multi=False)
