"""hierarchical_multiselect: any labels of a tree of labels (Potato's hierarchical multi-label
selection), parents and children chosen independently.

Stored as Potato stores it, `{"selected_labels": "Physics,Quantum Mechanics"}`: the chosen
names, comma-separated, in the order chosen (a name holding a comma is matched whole). Names are
unique over the whole tree: the stored value holds names, not paths.

Summary: each label's count (in tree order) and each top-level branch's. Agreement: per label,
whether each annotator chose it; the Jaccard of the sets chosen (as for multiselect).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any

from app.project import validators as v
from app.project.validators import Invalid, show
from app.stats.counting import count, distinct, in_order
from app.types.base import AnnotationType, Key, Scheme
from app.types.choices import label_counts, set_agreement
from app.types.options import optional_integer, split_known, text_map
from app.types.panel import SchemeRows
from app.types.radio import truthy


def taxonomy(value: Any) -> list[dict]:
    """Potato's taxonomy (a mapping of parents to a list of leaves or to a nested mapping; a list
    of leaves; null for a leaf) as nodes `{name, parent, depth, path}` in tree order."""
    nodes: list[dict] = []
    seen: dict[str, str] = {}

    def add(name: Any, parent: str | None, depth: int, where: str) -> str:
        if not isinstance(name, str) or not name.strip():
            raise Invalid(f"expected a label name, got {show(name)}", where)
        if name in seen:
            raise Invalid(f'label "{name}" appears twice in the taxonomy (also at {seen[name] or "the top"}); '
                          "stored values name labels, so each name must be unique", where)
        seen[name] = where
        path = ([n["path"] for n in nodes if n["name"] == parent][0] if parent else []) + [name]
        nodes.append({"name": name, "parent": parent, "depth": depth, "path": path})
        return name

    def walk(tree: Any, parent: str | None, depth: int, where: str) -> None:
        if isinstance(tree, dict):
            for k, sub in tree.items():
                walk(sub, add(k, parent, depth, f"{where}.{k}"), depth + 1, f"{where}.{k}")
        elif isinstance(tree, list):
            for i, x in enumerate(tree):
                if isinstance(x, dict):
                    walk(x, parent, depth, f"{where}[{i}]")
                else:
                    add(x, parent, depth, f"{where}[{i}]")
        elif tree is not None:
            raise Invalid(f"expected a list of labels or a mapping of parents to children, got {show(tree)}", where)

    if not isinstance(value, (dict, list)) or not value:
        raise Invalid(f"expected a mapping of parent labels to children, or a list of labels, got {show(value)}")
    walk(value, None, 0, "")
    return nodes


def nodes_of(scheme: Scheme) -> list[dict]:
    return scheme.get("taxonomy") or []


def parse(value: Any, known: list[str] = ()) -> list[str]:
    """The chosen labels of a stored value, in order; the `known` names matched whole, so a label
    holding a comma is read as one (as Potato reads it)."""
    text = value.get("selected_labels") if isinstance(value, dict) else None
    if not isinstance(text, str):
        return []
    return [name for _, name in split_known(text, list(known))]


def names_of(scheme: Scheme) -> list[str]:
    return [n["name"] for n in nodes_of(scheme)]


def build(labels: list[str]) -> dict:
    labels = list(dict.fromkeys(labels))
    return {"selected_labels": ",".join(labels)} if labels else {}


def descendants(nodes: list[dict], name: str) -> list[str]:
    """Every label under `name`, in tree order."""
    return [n["name"] for n in nodes if name in n["path"][:-1]]


def children(nodes: list[dict], name: str) -> list[str]:
    return [n["name"] for n in nodes if n["parent"] == name]


def propagate(nodes: list[dict], before: list[str], after: list[str], scheme: Scheme) -> list[str]:
    """The selection after a change, with Potato's optional propagation: choosing a parent
    chooses its children (`auto_select_children`); choosing every child of a parent chooses the
    parent (`auto_select_parent`). Unchoosing propagates nothing (as in Potato)."""
    out = list(after)
    added = [x for x in after if x not in before]
    if scheme.get("auto_select_children"):
        for x in added:
            out += [d for d in descendants(nodes, x) if d not in out]
    if scheme.get("auto_select_parent"):
        changed = True
        while changed:
            changed = False
            for n in nodes:
                kids = children(nodes, n["name"])
                if kids and n["name"] not in out and all(k in out for k in kids):
                    out.append(n["name"])
                    changed = True
    return out


def coerce(value: Any, scheme: Scheme) -> Any:
    """The stored form of an imported value: the comma-separated text, a list of labels, or
    `{label: truthy}`."""
    if isinstance(value, str):
        return build(parse({"selected_labels": value}, names_of(scheme)))
    if isinstance(value, list):
        return build([str(x) for x in value])
    if isinstance(value, dict) and "selected_labels" not in value and value and \
            all(isinstance(k, str) for k in value):
        return build([k for k, x in value.items() if truthy(x)])
    return value


def validate(value: Any, scheme: Scheme, derivation) -> list[str]:
    if not isinstance(value, dict) or set(value) != {"selected_labels"} or not isinstance(value["selected_labels"], str):
        return [f'expected {{"selected_labels": "label,label"}}, got {show(value)}']
    chosen = parse(value, names_of(scheme))
    known = set(names_of(scheme))
    out = [f"{show(x)} is not a label of the taxonomy" for x in chosen if x not in known]
    if len(set(chosen)) != len(chosen):
        out.append("a label is chosen twice")
    cap = scheme.get("max_selections")
    if cap is not None and len(set(chosen)) > cap:
        out.append(f"{len(set(chosen))} labels chosen, max_selections is {cap}")
    return out


def rows(value: Any, scheme: Scheme) -> list[dict]:
    place = {n["name"]: n for n in nodes_of(scheme)}
    out = []
    for x in dict.fromkeys(parse(value, list(place))):
        n = place.get(x)
        out.append({"label": x, "branch": n["path"][0] if n else None, "depth": n["depth"] if n else None})
    return out


def rollup(scheme_rows: SchemeRows) -> dict:
    nodes = nodes_of(scheme_rows.scheme)
    out = label_counts(scheme_rows, "label", [n["name"] for n in nodes])
    depth = {n["name"]: n["depth"] for n in nodes}
    for row in out["labels"]:
        row["depth"] = depth.get(row["label"])
    table = scheme_rows.table
    counted = count(table, ["branch"]) if "branch" in table else {}
    runs = distinct(table, ["branch"], "item_id") if "branch" in table else {}
    tops = [n["name"] for n in nodes if n["depth"] == 0]
    out["branches"] = [{"branch": b, "count": counted[b], "runs": runs.get(b, 0)}
                       for b in in_order(tops, counted) if b in counted]
    return out


TYPE = AnnotationType(
    name="hierarchical_multiselect", title="Hierarchical labels", page="pages/hierarchical_multiselect.py",
    keys={"taxonomy": Key(taxonomy, required=True, doc="the tree of labels"),
          "auto_select_children": Key(v.boolean, default=False),
          "auto_select_parent": Key(v.boolean, default=False),
          "show_search": Key(v.boolean, default=False, doc="accepted; the label picker is always searchable"),
          "max_selections": Key(optional_integer(1, 100000)),
          "expand_depth": Key(v.integer(0, 100), default=1),
          "tooltips": Key(text_map, doc="a description per label")},
    section="choices", rows=rows, rollup=rollup, coerce=coerce, validate=validate,
    agreement=lambda scheme_rows, disagreements: set_agreement(
        scheme_rows, disagreements, [n["name"] for n in nodes_of(scheme_rows.scheme)]),
    looks_like=lambda value: isinstance(value, dict) and "selected_labels" in value,
    headline=lambda measures: measures.get("jaccard"))
