"""Config and trace text is shown as text: Markdown in labels stays literal (no image the
browser would fetch, no colour, no KaTeX, no link), hidden characters that reorder or hide
text are shown escaped, and reserved scheme names are refused.

The browser's side of the Markdown (what is painted, what is fetched) is checked in
tests/browser/test_config_text.py.
"""
from __future__ import annotations

import json

import pytest

from app.project.config import load_config
from app.ui.state import widget_key
from app.ui.text import excerpt, md, visible
from tests.conftest import agent_card, instant_card, make_app, open_page, step_cards, text_card, write_project

HOSTILE = ["![x](http://leak.invalid/a.png)", ":red[x]", "$x$", "[a](b)"]
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff\u2060"


def hostile_schemes() -> list[dict]:
    return [
        {"annotation_type": "radio", "name": "verdict", "description": HOSTILE[0] + " " + HOSTILE[2],
         "labels": [{"name": h, "tooltip": f"tip {h}"} for h in HOSTILE],
         "has_free_response": {"instruction": HOSTILE[3]}},
        {"annotation_type": "likert", "name": "sure", "size": 5, "min_label": HOSTILE[0], "max_label": HOSTILE[1]},
        {"annotation_type": "multiselect", "name": "flags",
         "labels": [{"name": h, "tooltip": f"![t](http://leak.invalid/{i}.png)"} for i, h in enumerate(HOSTILE)]},
    ]


def test_md_keeps_every_construct_literal():
    for text in HOSTILE:
        escaped = md(text)
        # every character that could open a construct is escaped: nothing is left to parse
        for c in "![]():$":
            assert c not in escaped.replace("\\" + c, ""), (text, escaped)


def test_config_labels_reach_the_page_escaped(tmp_path):
    cfg = write_project(tmp_path, schemes=hostile_schemes())
    at = open_page(make_app(cfg), "radio")
    # an instant card (app/ui/instant.py): labels and tips go to the page as JSON, written as text
    card = instant_card(at, widget_key("radio", "verdict"))
    assert [o["value"] for o in card["options"]] == HOSTILE
    assert [o["label"] for o in card["options"]] == [visible(h) for h in HOSTILE]
    assert [o["tip"] for o in card["options"]] == [visible(f"tip {h}") for h in HOSTILE]
    # the free response: an instant text card (app/ui/instant_text.py), its title written as text
    assert text_card(at, widget_key("radio-free", "verdict"))["title"] == visible(HOSTILE[3])
    assert md(HOSTILE[0] + " " + HOSTILE[2]) in [c.value for c in at.caption]  # the description
    at = open_page(make_app(cfg), "likert")
    options = [o["label"] for o in instant_card(at, widget_key("likert", "sure"))["options"]]
    assert options[0] == visible(f"1 {HOSTILE[0]}") and options[-1] == visible(f"5 {HOSTILE[1]}")
    at = open_page(make_app(cfg), "multiselect")
    card = instant_card(at, widget_key("multi", "flags"))
    for i, h in enumerate(HOSTILE):
        option = card["options"][i]
        assert option["value"] == h and option["label"] == visible(h)
        assert option["tip"] == visible(f"![t](http://leak.invalid/{i}.png)")


def test_hidden_characters_are_shown_escaped():
    assert visible("ab" + HIDDEN + "c") == "ab" + "".join(f"\\u{ord(c):04x}" for c in HIDDEN) + "c"
    assert visible("Planner\u202e") != visible("Planner") and visible("Planner") == "Planner"
    assert "\\\\u202e" in md("x\u202ey") and "\u202e" not in md("x\u202ey")
    assert excerpt("x\u200by") == "x\\u200by"
    assert visible("élise, 東京, emoji 👍") == "élise, 東京, emoji 👍"  # nothing else changes


def test_look_alike_agent_names_and_ids_differ_where_shown(tmp_path):
    twin, item = "Planner\u202e", "run\u200b-1"
    data = tmp_path / "runs.jsonl"
    data.write_text(json.dumps({"id": item, "text": "task", "steps": [
        {"agent": "Planner", "content": "a"}, {"agent": twin, "content": "b"}]}, ensure_ascii=False) + "\n")
    cfg = write_project(tmp_path, data_files=[str(data)], schemes=[
        {"annotation_type": "failure_attribution", "name": "attribution", "steps_key": "steps", "agent_key": "agent"}])
    at = open_page(make_app(cfg), "failure_attribution")
    agents = agent_card(at)  # (an instant card: text, the hidden character shown as an escape)
    assert [o["label"] for o in agents["options"]] == ["Planner", "Planner\\u202e"]
    assert [o["value"] for o in agents["options"]] == ["Planner", twin]  # (saved as it is)
    titles = ["".join(t if isinstance(t, str) else t["agent"] for t in c["title"]) for c in step_cards(at)]
    assert any("Planner\\u202e" in t for t in titles) and not any("\u202e" in t for t in titles)
    picker = at.sidebar.selectbox(key=widget_key("nav", "item"))
    assert picker.options == ["• run\\u200b-1"]  # the item picker (its popover's label is md() of it)
    home = make_app(cfg)
    home.run()
    assert home.dataframe[0].value["item"].tolist() == ["run\\u200b-1"]


@pytest.mark.parametrize("name", ["_item", "_done"])
def test_reserved_scheme_names_are_refused_with_the_reason(tmp_path, name, capsys):
    from app.__main__ import main
    cfg = write_project(tmp_path, schemes=[{"annotation_type": "radio", "name": name, "labels": ["a", "b"]}])
    project, problems = load_config(cfg)
    assert project is None
    bad = [p for p in problems if p.where == "annotation_schemes[0].name"]
    assert bad and "reserved" in bad[0].message and "done mark" in bad[0].message
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(cfg)])
    assert exit_.value.code == 1 and "reserved" in capsys.readouterr().err
