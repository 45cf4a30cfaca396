"""Agreement per scheme, and the objects annotators disagree on, computed column-wise.

For each annotation type this decides what a *unit* is (an item, a handoff, a step, a region,
an agent × dimension) and what each annotator's value for it is, then hands integer arrays to
:class:`app.agreement.Ratings`. Objects the trace offers but an annotator left alone get the
type's default value ("normal" edge, "unlabelled" region, untagged step, "(none)") through the
panel of annotators who judged the item, not through a row per untouched object, so the cost
grows with the judgements given, not with objects × annotators.

Only items judged by two or more annotators (on this scheme) take part. Each type counts its
measures as tallies (app/tally.py: counts that add up over items, see agreement_tally) and
finishes them (agreement_from). Disagreement records name the item, the object and every
annotator's value (sorted by annotator).

No Streamlit here.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from app._old import agreement as ag
from app._old.tally import in_order, merge, prune, sum_by
from app._old import trace_columns
from app._old.labels import NO_ROWS, Labels, codes_of, groups, positions_in, rows_by
from app.types.tool_contention import UNLABELLED

NO_FAILURE = "(no failure)"
SCORE_GAP = 2  # scores this far apart are listed as a disagreement
NONE = "(none)"


def _ints(col) -> np.ndarray:
    return pd.to_numeric(pd.Series(col), errors="coerce").fillna(-1).astype(np.int64).to_numpy()


def _set_show(v) -> str:
    return ", ".join(map(str, v)) if v else NONE


def _num_show(v) -> str:
    return f"{v:g}"


class Panel:
    """The annotators of one scheme on the items two or more of them judged, as codes.

    Items are numbered in the summary's order of items (app.trace_columns.cover: the
    workspace's), those outside it after them in order of first judgement, and annotators in
    name order (so sorting by code sorts by name): units, and the disagreements listed, come in
    an order that does not depend on the order of the rows."""

    def __init__(self, lab: Labels, scheme: str):
        at = lab.where("rows", scheme)
        # on integer codes of the item and annotator columns (categoricals: their own codes),
        # not on the text: a panel per scheme, ~70,000 rows each at a million (the codes of
        # the whole table taken once, no copy of the scheme's rows)
        ic, item_names = lab.codes("rows", "item_id")
        ac, annotator_names = lab.codes("rows", "annotator")
        ic, ac = ic[at], ac[at]
        n_rows = len(ic)
        named = (ic >= 0) & (ac >= 0)  # a row without an item or annotator is nobody's judgement
        ic, ac = ic[named], ac[named]
        # schemes judged by the same annotators on the same items, rows in the same order (a
        # study where everyone does every scheme), have the same panel: built once per summary
        # (its arrays are only read)
        same = (ic.tobytes(), ac.tobytes())
        shared = lab.memo.setdefault("panels", {})
        if same not in shared:
            self._build(ic, ac, item_names, annotator_names, lab)
            shared[same] = dict(self.__dict__)
        self.__dict__.update(shared[same])
        self.memo = lab.memo
        self.n_rows = n_rows  # the scheme's rows, panel or not

    def _build(self, ic: np.ndarray, ac: np.ndarray, item_names: pd.Index, annotator_names: pd.Index,
               lab: Labels) -> None:
        n_a = max(len(annotator_names), 1)
        pair = ag.distinct_ints(ic * n_a + ac, len(item_names) * n_a)  # by item, then annotator
        pair_item, pair_ann = pair // n_a, pair % n_a
        shared = np.bincount(pair_item, minlength=len(item_names)) >= 2
        keep = shared[pair_item]
        pair_item, pair_ann = pair_item[keep], pair_ann[keep]
        # items numbered in the summary's order of items, then in order of first judgement;
        # annotators in name order (each item's first row: factorize numbers items in order of
        # first appearance, so an item first appears where its number exceeds every number
        # before it)
        number, seen = pd.factorize(ic)
        first_row = np.flatnonzero(number > np.r_[-1, np.maximum.accumulate(number)[:-1]]) if len(ic) else NO_ROWS
        first = np.full(len(item_names), len(ic), dtype=np.int64)
        first[seen] = first_row
        covered = lab.memo.get("covered_items")
        if covered:
            place = pd.Index(list(dict.fromkeys(covered)), dtype=object).get_indexer(item_names)
            first = np.where(place >= 0, place, len(covered) + first)
        items = ag.distinct_ints(pair_item, len(item_names))
        items = items[np.argsort(first[items], kind="stable")]
        item_rank = np.full(len(item_names), -1, dtype=np.int64)
        item_rank[items] = np.arange(len(items))
        present = ag.distinct_ints(pair_ann, n_a)
        names = annotator_names.take(present).tolist()  # only the present ones become Python text
        by_name = sorted(range(len(present)), key=names.__getitem__)
        rater_rank = np.full(n_a, -1, dtype=np.int64)
        rater_rank[present[by_name]] = np.arange(len(present))
        # (schemes judged on the same items share one index of their ids)
        shared_ids = lab.__dict__.setdefault("_panel_items", {})
        key = (id(item_names), items.tobytes())
        if key not in shared_ids:
            shared_ids[key] = (item_names, pd.Index(item_names.take(items).tolist(), dtype=object))
        self.item_ids = shared_ids[key][1]
        self.rater_names = pd.Index([names[j] for j in by_name], dtype=object)
        self.judged_by = len(self.rater_names)
        self.items = self.item_ids.tolist()  # plain lists: indexing a pandas Index per unit is slow
        self.raters = self.rater_names.tolist()
        n_r = max(len(present), 1)
        ranked = ag.distinct_ints(item_rank[pair_item] * n_r + rater_rank[pair_ann], len(items) * n_r)
        self.item, self.rater = ranked // n_r, ranked % n_r  # sorted by item, then rater
        self.member_keys = self.item * len(self.raters) + self.rater  # sorted (by item, then rater)
        # a mark per possible (item, rater) key where that is cheap (None: a crowd of raters)
        self.member_marks = ag.marks(self.member_keys, len(self.item_ids) * len(self.raters))
        n = len(self.item_ids)
        self.units = ag.UnitPanel(np.arange(n), self.item, self.rater, n)  # the item as unit
        # where each of the rows' own item and annotator categories is in this panel, known
        # already: other tables of the summary share these categories (see _positions)
        self._looked_up: dict[tuple, tuple] = {
            (id(item_names), id(self.item_ids)): (item_names, item_rank),
            (id(annotator_names), id(self.rater_names)): (annotator_names, rater_rank)}

    def __len__(self) -> int:
        return len(self.item_ids)

    def _positions(self, col: pd.Series, names: pd.Index) -> np.ndarray:
        """positions_in(col, names), a categorical's categories looked up once per panel (every
        table of a summary shares the stored rows' categories)."""
        if not isinstance(col.dtype, pd.CategoricalDtype):
            return positions_in(col, names)
        cats = col.cat.categories
        hit = self._looked_up.get((id(cats), id(names)))
        if hit is None or hit[0] is not cats:
            hit = self._looked_up[(id(cats), id(names))] = (cats, names.get_indexer(cats))
        at = hit[1]
        c = np.asarray(col.cat.codes, dtype=np.int64)
        return np.where(c >= 0, at[c] if len(at) else -1, -1)

    def members(self, df: pd.DataFrame) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """(positions of df's rows of panel items and annotators, None when that is every row;
        their item codes; their rater codes): keyed() without a copy of the frame."""
        item = self._positions(df["item_id"], self.item_ids)
        rater = self._positions(df["annotator"], self.rater_names)
        # a rater who judged the item on another scheme only is not in this scheme's panel
        ok = (item >= 0) & (rater >= 0)
        key = np.where(ok, item * len(self.raters) + rater, 0)
        if self.member_marks is not None:
            inside = ok & self.member_marks[key] if len(key) else ok
        else:  # too many possible keys to mark: a search among the panel's (sorted) keys
            inside = ok & ag.find(self.member_keys, key)[1]
        if inside.all():
            return None, item, rater
        return np.flatnonzero(inside), item[inside], rater[inside]

    def keyed(self, df: pd.DataFrame) -> pd.DataFrame:
        """df's rows of panel items and annotators, with their codes as columns item and rater."""
        at, item, rater = self.members(df)
        # (pandas copies on write: the rows picked need no copy of their own before columns are added)
        out = df.take(at) if at is not None else df.copy(deep=False)
        out["item"] = item
        out["rater"] = rater
        return out

    def per_item(self, values, default) -> ag.Ratings:
        """Ratings with the item as unit from a {(item, rater): value} frame (missing → default)."""
        return ag.Ratings(*values, n_units=len(self), default=default, panel=self.units)


class Objects:
    """The objects of each panel item that annotators judge (steps, handoffs, regions, edges):
    one row per object with its unit code, from the derivations."""

    def __init__(self, panel: Panel, der, scheme,
                 columns_of: Callable[[trace_columns.TraceColumns, list], tuple[np.ndarray, dict]],
                 describe: Callable[[tuple], str], key: list[str] | None = None):
        """`columns_of(trace columns, item ids)` gives how many objects each item has and the
        objects' columns (numbers as int64 arrays, text as object arrays), gathered from the
        summary's derivations as columns (app.trace_columns: a tuple per object and a pandas
        column of them cost four times as much at 120,000 steps); judgements are matched to
        objects on the item and `key` (the first column by default)."""
        sizes, columns = columns_of(trace_columns.of(panel.memo, der, scheme, panel.items), panel.items)
        self.columns = columns
        self.key = key or list(columns)[:1]
        self.describe_row = describe
        self.panel = panel
        self._n = int(sum(sizes))
        # text stays plain objects (a DataFrame would turn it into Arrow strings)
        self.frame = pd.DataFrame({c: pd.Series(v, dtype=object) if v.dtype == object else v
                                   for c, v in columns.items()}, index=pd.RangeIndex(self._n))
        self.frame["item"] = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        self.frame["unit"] = np.arange(self._n, dtype=np.int64)
        self.unit_item = self.frame["item"].to_numpy()
        self.unit_item_list = self.unit_item.tolist()
        self.unit_panel = ag.UnitPanel(self.unit_item, panel.item, panel.rater, len(panel))
        self._keys = None  # built on first attach

    def __len__(self) -> int:
        return self._n

    def attach(self, given: pd.DataFrame) -> pd.DataFrame:
        """given (keyed: item, rater, + key columns) joined to the objects: adds unit, drops
        judgements of objects the trace does not have."""
        g = given.copy(deep=False)  # (copied on write: the caller's frame is never changed)
        for c, dtype in zip(self.key, self.frame[self.key].dtypes):
            if dtype.kind in "iu":
                g[c] = _ints(g[c])
        if self._keys is None:
            self._keys = self._object_keys()
        own, lookups, order = self._keys
        if own is None:  # objects sharing a key: let pandas pair every match
            return g.merge(self.frame[["item", "unit"] + self.key], on=["item"] + self.key, how="inner")
        key = np.asarray(g["item"], dtype=np.int64)
        ok = np.ones(len(g), dtype=bool)
        for c, (width, look) in zip(self.key, lookups):
            code = np.asarray(g[c], dtype=np.int64) if look is None else positions_in(g[c], look)
            ok &= (code >= 0) & (code < width)
            key = key * width + np.where(ok, code, 0)
        at, there = ag.find(own, key, order)
        found = ok & there
        out = g[found]
        out["unit"] = at[found]
        return out

    def _object_keys(self):
        """One integer per object from its item and key columns (numbers as they are, text by
        its position among the objects' distinct texts), with what turns a judgement's key
        columns into the same integers; (None, ...) when two objects share a key."""
        key = self.unit_item.astype(np.int64)
        lookups = []
        for c in self.key:
            col = self.frame[c]
            if col.dtype.kind in "iu":
                vals = col.to_numpy(dtype=np.int64)
                width, look = int(vals.max(initial=-1)) + 1, None
                if len(vals) and vals.min() < 0:
                    return None, None, None
            else:
                vals, found = pd.factorize(col.astype(object), use_na_sentinel=False)  # codes: positions in found
                look = pd.Index(found, dtype=object)
                width = max(len(look), 1)
            key = key * max(width, 1) + vals
            lookups.append((max(width, 1), look))
        order = np.argsort(key, kind="stable")
        ranked = key[order]
        if len(ranked) and (ranked[1:] == ranked[:-1]).any():
            return None, None, None
        return key, lookups, order

    def ratings(self, unit, rater, value, values, default) -> ag.Ratings:
        return ag.Ratings(unit, rater, value, values, len(self), default=default, panel=self.unit_panel)

    def describe(self, u: int) -> tuple[str, str]:
        row = tuple(c[u].item() if isinstance(c[u], np.generic) else c[u] for c in self.columns.values())
        return self.panel.items[self.unit_item_list[u]], self.describe_row(row)


def _pair_codes(a: np.ndarray, b: np.ndarray,
                ordered: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes of the distinct (a, b) integer pairs, in first-seen order (`ordered`: in order of
    a, then b), and each code's a and b. `a` are codes (0 and up); `b` any integers (a call or
    handoff index as stored: negative, or near 2**63)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if not len(b):
        return np.zeros(0, dtype=np.int64), a[:0], b[:0]
    low, high = int(b.min()), int(b.max())
    span = high - low + 1  # (Python integers: no overflow in the check)
    if (int(a.max()) + 1) * span < 1 << 62:  # one integer per pair
        code, uniq = pd.factorize(a * span + (b - low), sort=ordered)
        uniq = np.asarray(uniq, dtype=np.int64)
        return np.asarray(code, dtype=np.int64), uniq // span, uniq % span + low
    code, uniq = pd.MultiIndex.from_arrays([a, b]).factorize(sort=ordered)
    return (np.asarray(code, dtype=np.int64), np.asarray(uniq.get_level_values(0), dtype=np.int64),
            np.asarray(uniq.get_level_values(1), dtype=np.int64))


def _factor(values) -> tuple[np.ndarray, list]:
    """(a code per value, the distinct values in order of first appearance); a missing value
    is a value of its own. Categoricals are coded from their integer codes (no Python string
    per row); numbers are factorized as numbers."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        raw = np.asarray(values.cat.codes, dtype=np.int64)
        if not len(raw):
            return raw, []
        # the integer codes factorized (hashed, in order of first appearance; -1 is a value)
        rank, seen = pd.factorize(raw)
        cats = values.cat.categories
        uniques = [cats[c] if c >= 0 else np.nan for c in seen.tolist()]
        return np.asarray(rank, dtype=np.int64), uniques
    if isinstance(values, pd.Series) and values.dtype.kind in "fiub":
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
        return np.asarray(codes, dtype=np.int64), [x.item() if hasattr(x, "item") else x for x in uniques]
    codes, uniques = pd.factorize(pd.Series(list(values) if not isinstance(values, pd.Series) else values,
                                            dtype=object), use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64), list(uniques)


class Differences:
    """The objects of one scheme that annotators disagree on: always counted, listed (one record
    each, naming the item, the object and every annotator's value) only when asked: a large
    study has hundreds of thousands, and the summary's numbers need only how many."""

    def __init__(self, scheme: str, listed: bool = True):
        self.scheme, self.listed = scheme, listed
        self.count = 0
        self.records: list[dict] = []

    def add(self, r: ag.Ratings, rater_names, describe, kind: str, show=str, gap: float | None = None) -> None:
        units = r.differing_units(gap)
        self.count += len(units)
        if not self.listed or not len(units):
            return
        u, w, v = r.judgements_of(units)
        names = np.asarray(rater_names, dtype=object)
        shown = np.asarray([show(x) for x in r.values] + [""], dtype=object)[:-1]  # each distinct value once
        parts = (names[w] + ": " + shown[v]).tolist()  # sorted by unit, then annotator
        starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]]).tolist()
        ends = starts[1:] + [len(parts)]
        for x, a, b in zip(u[starts].tolist(), starts, ends):
            item, obj = describe(x)
            self.records.append({"item_id": item, "scheme": self.scheme, "kind": kind, "object": obj,
                                 "judgements": "; ".join(parts[a:b])})


class Sets:
    """The set of members (nodes, edges, turns, modes, labels) each rater gave each unit.

    Built from one row per member; a set is identified by a fingerprint, the wrapping sum of a
    random 64-bit key per member (order-free, so equal sets match whatever order they were
    clicked in), which groups the rows without a Python object per set. Only distinct sets
    become Python frozensets. Code 0 is the empty set."""

    _rng_seed = 20261130

    def __init__(self, unit, rater, member, order=None):
        unit = np.asarray(unit, dtype=np.int64)
        rater = np.asarray(rater, dtype=np.int64)
        mc, members = codes_of(member if isinstance(member, pd.Series) else pd.Series(list(member), dtype=object))
        members = members.tolist()
        given = mc >= 0  # a missing member is no member
        unit, rater, mc = unit[given], rater[given], mc[given]
        # distinct (unit, rater, member), sorted by unit then rater: one integer key each
        n_r, n_m = int(rater.max(initial=0)) + 1, max(len(members), 1)
        key = ag.distinct_ints((unit * n_r + rater) * n_m + mc, (int(unit.max(initial=-1)) + 1) * n_r * n_m)
        mc = key % n_m
        ur = key // n_m
        u, r = ur // n_r, ur % n_r
        keys = np.random.default_rng(self._rng_seed).integers(1, 2 ** 63, size=n_m, dtype=np.uint64)
        start = np.flatnonzero(np.r_[True, ur[1:] != ur[:-1]]) if len(ur) else np.zeros(0, np.int64)
        fp = np.add.reduceat(keys[mc], start) if len(ur) else np.zeros(0, np.uint64)
        code, uniq = pd.factorize(fp)
        ends = np.r_[start[1:], len(ur)]
        # the first group holding each distinct set: only those become Python frozensets
        # (codes number the sets in order of first appearance: a set first appears where its
        # code exceeds every code before it)
        first_group = np.flatnonzero(code > np.r_[-1, np.maximum.accumulate(code)[:-1]]) if len(code) else []
        self.sets = [frozenset()] + [frozenset(members[x] for x in mc[start[g]:ends[g]].tolist())
                                     for g in np.asarray(first_group).tolist()]
        self.unit, self.rater, self.code = u[start], r[start], np.asarray(code, dtype=np.int64) + 1
        self.order = order

    def codes_for(self, unit: np.ndarray, rater: np.ndarray) -> np.ndarray:
        """The set code of each (unit, rater) (0, the empty set, where nothing was given)."""
        unit, rater = np.asarray(unit, dtype=np.int64), np.asarray(rater, dtype=np.int64)
        if not len(self.code) or not len(unit):
            return np.zeros(len(unit), dtype=np.int64)
        # (unit, rater) as one integer: the given ones are sorted by unit, then rater
        span = int(max(self.rater.max(), rater.max())) + 1
        at, there = ag.find(self.unit * span + self.rater, unit * span + rater)
        return np.where(there, self.code[at], 0)

    def jaccard(self, unit: np.ndarray, rater: np.ndarray) -> dict:
        """The tally of the mean pairwise Jaccard over these (unit, rater) judgements (absent
        ones: the empty set), see ag.set_tally."""
        return ag.set_tally(np.asarray(unit, dtype=np.int64), self.codes_for(unit, rater), self.sets)

    def ratings(self, n_units: int, panel) -> ag.Ratings:
        """The sets as values (sorted tuples, or in `order`), the empty tuple for panel raters
        who gave none."""
        key = self.order
        values = [tuple(sorted(x, key=key)) for x in self.sets]
        return ag.Ratings(self.unit, self.rater, self.code, values, n_units, default=(), panel=panel)


# --- per type ------------------------------------------------------------------------------------------
# Each type writes the tallies of its measures into t (app/tally.py: counts that add up over
# items, so a kept tally is updated by the items that changed) and counts, or lists, what
# annotators disagree on in dis; its finish (BY_TYPE) turns the tallies into the measures. A
# measure per label (a flag, a mode, a behaviour) covers every unit, those without the label
# too, so each label keeps only what differs from the label-less tally (``base``), kept once.


def _labelled(t: dict, name: str, base: dict, by_label: dict) -> None:
    """t[name] = the label-less tally and each label's difference from it."""
    t[name] = {"base": base, "by": {x: merge(v, base, -1) for x, v in by_label.items()}}


def _labels_from(t: dict, name: str, order: list, finish) -> dict:
    """{label: finish(tally)} for the labels in `order`, each tally rebuilt from the base."""
    part = t.get(name) or {}
    base, by = part.get("base") or {}, part.get("by") or {}
    return {x: finish(merge(base, by.get(x) or {})) for x in order}


def _attribution(lab, s, panel, der, k, t, dis):
    at = panel.keyed(lab.of("attribution", s.name))
    names = panel.raters
    describe_item = lambda label: lambda u: (panel.items[u], label)  # noqa: E731
    named = at[at["agent"].map(lambda a: isinstance(a, str))]
    codes, vals = _factor(named["agent"])
    agent = panel.per_item((named["item"], named["rater"], codes, vals), NO_FAILURE)
    steps = at[at["step"].notna()]
    sc, sv = _factor(_ints(steps["step"]).tolist())
    step = ag.Ratings(steps["item"], steps["rater"], sc, sv, len(panel))
    t["agent"] = agent.nominal_tally(names)
    t["step"] = step.pairs_tally(names, explicit=True)
    dis.add(agent, names, describe_item("responsible agent"), "attribution")
    dis.add(step, names, describe_item("decisive step"), "attribution", gap=k + 1)


def _attribution_from(t, s, k):
    step = ag.within_from(t.get("step") or {}, k)
    step["alpha_interval"] = ag.ordinal_from(t.get("step") or {}, "interval")["alpha"]
    return {"agent": ag.nominal_from(t.get("agent") or {}, NO_FAILURE), "step": step}


def _graph(lab, s, panel, der, k, t, dis):
    names = panel.raters
    nodes = panel.keyed(lab.of("graph_nodes", s.name))
    crit = Sets(nodes["item"], nodes["rater"], nodes["agent"])
    t["critical_nodes"] = crit.jaccard(panel.item, panel.rater)
    edges = panel.keyed(lab.of("graph_edges", s.name))
    # each flagged edge as the integer code of its (from, to) pair: the sets compare pairs, and a
    # text per row ("a->b") cost more than the rest of the comparison
    src, src_names = codes_of(edges["src"])
    dst, dst_names = codes_of(edges["dst"])
    paired = (src >= 0) & (dst >= 0)  # (a stored edge always names both agents)
    pair = pd.Series(src[paired] * max(len(dst_names), 1) + dst[paired])
    flagged = Sets(edges["item"].to_numpy()[paired], edges["rater"].to_numpy()[paired], pair)
    t["flagged_edges"] = flagged.jaccard(panel.item, panel.rater)
    objs = Objects(panel, der, s, _edge_columns, lambda o: f"edge {o[0]} → {o[1]}", key=["src", "dst"])
    e = objs.attach(edges[["item", "rater", "src", "dst", "state"]])
    ec, ev = _factor(e["state"])
    state = objs.ratings(e["unit"], e["rater"], ec, ev, "normal")
    t["edge_state"] = state.nominal_tally(names)
    dis.add(crit.ratings(len(panel), panel.units), names, lambda u: (panel.items[u], "critical nodes"), "graph",
            _set_show)
    dis.add(state, names, objs.describe, "graph")


def _graph_from(t, s, k):
    return {"critical_nodes": ag.set_from(t.get("critical_nodes") or {}),
            "flagged_edges": ag.set_from(t.get("flagged_edges") or {}),
            "edge_state": ag.nominal_from(t.get("edge_state") or {}, "normal")}


def _handoffs(lab, s, panel, der, k, t, dis, judgements):
    names = panel.raters
    j = judgements(lab, s, der)[0]
    j = panel.keyed(j) if not j.empty else j.assign(item=[], rater=[])
    if j.empty:
        return
    # units in order of item, then handoff (not of the rows), each described by its first row
    unit, firsts, _ = _pair_codes(j["item"].to_numpy(), _ints(j["index"]), ordered=True)
    first_row = np.full(len(firsts), len(unit), dtype=np.int64)
    np.minimum.at(first_row, unit, np.arange(len(unit)))
    ji, jx = j["item"].to_numpy()[first_row], j["index"].to_numpy()[first_row]
    js, jd = j["src"].iloc[first_row].to_numpy(), j["dst"].iloc[first_row].to_numpy()
    # a unit is named only when its disagreement is listed
    describe = lambda u: (panel.items[ji[u]], f"handoff {jx[u]} ({js[u]} → {jd[u]})")  # noqa: E731
    n_units = len(firsts)
    fc, fsets = flag_sets(j)
    per_set = np.bincount(fc, minlength=len(fsets))
    t["flags_seen"] = {}
    for fl, n in zip(fsets, per_set.tolist()):
        for f in set(fl):
            t["flags_seen"][f] = t["flags_seen"].get(f, 0) + n
    rater = j["rater"].to_numpy()
    flag = lambda has: ag.Ratings(unit, rater, has, [False, True], n_units).nominal_tally(names)  # noqa: E731
    _labelled(t, "flags", flag(np.zeros(len(j), dtype=np.int64)),
              {f: flag(np.asarray([f in fl for fl in fsets], dtype=np.int64)[fc]) for f in t["flags_seen"]})
    # the same flags in another order are the same set: code the distinct sets, then the rows
    set_code, sv = _factor([tuple(sorted(fl)) for fl in fsets])
    sc = set_code[fc]
    sets = ag.Ratings(unit, rater, sc, sv, n_units)
    q = pd.to_numeric(j["quality"], errors="coerce").to_numpy(dtype=np.float64)
    rated = ~np.isnan(q)
    qc, qv = _factor(pd.Series(q[rated]))
    quality = ag.Ratings(unit[rated], rater[rated], qc, qv, n_units)
    t["quality"] = quality.pairs_tally(names)
    quality_desc = lambda u: (describe(u)[0], describe(u)[1] + " quality")  # noqa: E731
    dis.add(sets, names, describe, "handoff flags", _set_show)
    dis.add(quality, names, quality_desc, "handoff quality", _num_show, gap=SCORE_GAP)


def _handoffs_from(t, s, k):
    flags = _labels_from(t, "flags", in_order(s.get("flags"), t.get("flags_seen")),
                         lambda x: ag.nominal_from(x))
    return {"flags": flags, "quality": ag.ordinal_from(t.get("quality") or {})}


def flag_sets(j: pd.DataFrame) -> tuple[np.ndarray, list]:
    """Handoff judgements' flags (app.summary._handoff_judgements) coded as pd.factorize codes
    them: (a code per row, the distinct sets in order of first appearance), from the code of
    each row's set (its column ``flag_set``, indexing ``j.attrs["flag_sets"]``, distinct sets):
    integers factorized, not a tuple per row."""
    if "flag_set" not in j or "flag_sets" not in j.attrs:
        codes, found = pd.factorize(j["flags"].to_numpy(dtype=object), use_na_sentinel=False)
        return np.asarray(codes, dtype=np.int64), list(found)
    codes, found = pd.factorize(j["flag_set"].to_numpy(dtype=np.int64))
    every = j.attrs["flag_sets"]
    return np.asarray(codes, dtype=np.int64), [every[x] for x in found.tolist()]


def _codes_at(col: pd.Series, at: np.ndarray | None) -> tuple[np.ndarray, pd.Index]:
    """codes_of(col) at rows `at` (None: every row)."""
    codes, names = codes_of(col)
    return (codes if at is None else codes[at]), names


def _as_configured(found: list, configured, name=lambda g: g[0][-1]) -> list:
    """Groups (key, rows) in the order tally.in_order gives their names: the configured ones
    first, in their order, then the others sorted."""
    rank = {x: i for i, x in enumerate(in_order(configured, {name(g) for g in found}))}
    return sorted(found, key=lambda g: rank[name(g)])


def _scorecard(lab, s, panel, der, k, t, dis):
    names = panel.raters
    # on the columns' codes at the panel's rows: no copy of the frame, no sub-frame per group
    every = lab.of("scores", s.name)
    at, item, rater = panel.members(every)
    t["agent_dimensions"], t["team_dimensions"] = {}, {}
    score = every["score"].to_numpy(dtype=np.float64)
    score = score if at is None else score[at]
    keys = every[["level", "dimension"]]
    agent = every["agent"]
    coded = isinstance(agent.dtype, pd.CategoricalDtype)
    if coded:
        agent_codes, agent_names = _codes_at(agent, at)
    # in a set order, whatever order the rows came in (the order of agents within a stored
    # value is not read): the agents' dimensions, then the team's, each as configured; in a
    # dimension, item by item, agents by name
    found = groups(keys if at is None else keys.take(at), ["level", "dimension"])
    found = (_as_configured([g for g in found if g[0][0] == "agent"], s.get("agent_dimensions"))
             + _as_configured([g for g in found if g[0][0] != "agent"], s.get("team_dimensions")))
    for (level, dim), rows in found:
        team = level != "agent"
        rows = rows[~np.isnan(score[rows])]
        if coded:  # the categories' codes: sorted by name
            agent_code, agents = agent_codes[rows], list(agent_names) + [np.nan]
            agent_code = np.where(agent_code >= 0, agent_code, len(agent_names))  # (no agent: last)
        else:
            agent_code, agents = _factor(agent.iloc[rows if at is None else at[rows]])
        unit, unit_item, unit_agent = _pair_codes(item[rows], agent_code, ordered=True)
        vc, vv = _factor(pd.Series(score[rows]))
        r = ag.Ratings(unit, rater[rows], vc, vv, len(unit_item))
        (t["team_dimensions"] if team else t["agent_dimensions"])[dim] = r.pairs_tally(names)
        label = (lambda a, d=dim: f"team · {d}") if team else (lambda a, d=dim: f"{a} · {d}")
        # a unit is named only when its disagreement is listed
        describe = lambda u, ui=unit_item, ua=unit_agent, agents=agents, label=label: (  # noqa: E731
            panel.items[ui[u]], label(agents[ua[u]]))
        dis.add(r, names, describe, "score", _num_show, gap=SCORE_GAP)
    ms = panel.keyed(lab.of("milestones", s.name))
    t["milestones"] = {}
    item, rater = ms["item"].to_numpy(), ms["rater"].to_numpy()
    reached = ms["reached"].astype(bool).astype(np.int64).to_numpy()
    for (m,), rows in _as_configured(groups(ms, ["milestone"]), s.get("milestones")):
        r = ag.Ratings(item[rows], rater[rows], reached[rows], [False, True], len(panel))
        t["milestones"][m] = r.nominal_tally(names)
        dis.add(r, names, lambda u, m=m: (panel.items[u], f"milestone {m}"), "milestone",
                lambda v: "reached" if v else "not reached")


def _scorecard_from(t, s, k):
    def each(name, configured, finish):
        found = t.get(name) or {}
        return {x: finish(found[x]) for x in in_order(configured, found) if x in found}
    return {"agent_dimensions": each("agent_dimensions", s.get("agent_dimensions"), ag.ordinal_from),
            "team_dimensions": each("team_dimensions", s.get("team_dimensions"), ag.ordinal_from),
            "milestones": each("milestones", s.get("milestones"), ag.nominal_from)}


def _contention(lab, s, panel, der, k, t, dis):
    names = panel.raters
    every = lab.of("contention", s.name)
    c = panel.keyed(every)
    objs = Objects(panel, der, s, _region_columns, lambda o: f"region {o[0]} ({o[1]})")
    given = objs.attach(c[["item", "rater", "region", "label"]])
    lc, lv = _factor(given["label"])
    overall = objs.ratings(given["unit"], given["rater"], lc, lv, UNLABELLED)
    t["label"] = overall.nominal_tally(names)
    def one(hit):  # whether each annotator gave each region this label
        return objs.ratings(given["unit"], given["rater"], hit, [False, True], False).nominal_tally(names)
    _labelled(t, "labels", one(np.zeros(len(given), dtype=np.int64)),
              {x: one(np.asarray([v == x for v in lv], dtype=np.int64)[lc]) for x in lv if x != UNLABELLED})
    dis.add(overall, names, objs.describe, "contention")


def _contention_from(t, s, k):
    order = [x for x in in_order(s.get("contention_labels"), t.get("labels_seen")) if x != UNLABELLED]
    return {"label": ag.nominal_from(t.get("label") or {}, UNLABELLED),
            "labels": _labels_from(t, "labels", order, lambda x: ag.nominal_from(x, False))}


def _counts(col: pd.Series) -> dict:
    """{value: rows} of a column (missing values left out)."""
    codes, names = codes_of(col)
    return sum_by([codes[codes >= 0]], [names.tolist()])


def _step_objects(panel, der, s, with_agent: bool) -> Objects:
    if with_agent:
        return Objects(panel, der, s, lambda t, ids: _step_columns(t, ids, True), lambda o: f"step {o[0]} ({o[1]})")
    return Objects(panel, der, s, lambda t, ids: _step_columns(t, ids, False), lambda o: f"step {o[0]}")


def _step_columns(traces: trace_columns.TraceColumns, ids: list, with_agent: bool) -> tuple[np.ndarray, dict]:
    # a step's index is its position in the run (read_steps drops none)
    sizes, at = traces.steps.take(traces.slots(ids))
    n = np.maximum(sizes, 0)
    cols = {"step": np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)}
    if with_agent:
        cols["agent"] = traces.steps.columns["agent"][at]
    return n, cols


def _edge_columns(traces: trace_columns.TraceColumns, ids: list) -> tuple[np.ndarray, dict]:
    sizes, cols = traces.gather(traces.edges, ids)
    return sizes, {"src": cols["src"], "dst": cols["dst"]}


def _region_columns(traces: trace_columns.TraceColumns, ids: list) -> tuple[np.ndarray, dict]:
    sizes, cols = traces.gather(traces.regions, ids)
    return sizes, {"region": cols["index"], "resource": cols["resource"]}


def _emergent(lab, s, panel, der, k, t, dis):
    names = panel.raters
    every = lab.of("behaviours", s.name)
    behaviours = in_order(s.get("behaviors"), t["behaviors_seen"])
    b = panel.keyed(every)
    b = b.assign(turn=_ints(b["turn"]))
    objs = _step_objects(panel, der, s, with_agent=False)
    on = objs.attach(b[["item", "rater", "behavior", "turn"]].rename(columns={"turn": "step"}))
    # (a mark repeated is counted once: Ratings and Sets keep one per unit and rater)
    on_rows, b_rows = rows_by(on, "behavior"), rows_by(b, "behavior")
    on_unit, on_rater = on["unit"].to_numpy(), on["rater"].to_numpy()
    b_item, b_rater, b_turn = b["item"].to_numpy(), b["rater"].to_numpy(), b["turn"]
    marks, turns = {}, {}
    for n in behaviours:
        if n not in on_rows and n not in b_rows:
            continue  # (nothing marked: the label-less tallies)
        mine = on_rows.get(n, NO_ROWS)
        marks[n] = ag.marked_tally(on_unit[mine], on_rater[mine], objs.unit_panel, names)
        marked = b_rows.get(n, NO_ROWS)
        turns[n] = Sets(b_item[marked], b_rater[marked], b_turn.iloc[marked]).jaccard(panel.item, panel.rater)
    _labelled(t, "marks", ag.marked_tally(NO_ROWS, NO_ROWS, objs.unit_panel, names), marks)
    _labelled(t, "turns", Sets(NO_ROWS, NO_ROWS, pd.Series([], dtype=object)).jaccard(panel.item, panel.rater), turns)
    # what each annotator marked on a step, as one value: the behaviours in their listed order
    rank = {n: i for i, n in enumerate(behaviours)}
    steps = Sets(on["unit"], on["rater"], on["behavior"], order=rank.get).ratings(len(objs), objs.unit_panel)
    dis.add(steps, names, objs.describe, "behaviour", _set_show)


def _emergent_from(t, s, k):
    order = in_order(s.get("behaviors"), t.get("behaviors_seen"))
    marks = _labels_from(t, "marks", order, lambda x: ag.nominal_from(x, False))
    turns = _labels_from(t, "turns", order, ag.set_from)
    return {"behaviors": {n: {**marks[n], "turns_jaccard": turns[n]["jaccard"]} for n in order}}


def _tool_calls(lab, s, panel, der, k, t, dis):
    names = panel.raters
    v = panel.keyed(lab.of("tool_verdicts", s.name))
    unit, unit_item, unit_call = _pair_codes(v["item"].to_numpy(), _ints(v["index"]), ordered=True)
    # each call's tool as named by the first annotator (by name) who named it, not by the rows' order
    named = v["tool"].astype(object).to_numpy()
    missing = pd.isna(named)
    by_unit = np.lexsort((v["rater"].to_numpy(), missing, unit))
    firsts = by_unit[np.r_[True, unit[by_unit][1:] != unit[by_unit][:-1]]] if len(v) else NO_ROWS
    tools = [None if missing[r] else named[r] for r in firsts.tolist()]
    vc, vv = _factor(v["verdict"])
    r = ag.Ratings(unit, v["rater"], vc, vv, len(unit_item))
    t["verdict"] = r.nominal_tally(names)
    unit_item, unit_call = unit_item.tolist(), unit_call.tolist()
    describe = lambda u: (panel.items[unit_item[u]],  # noqa: E731
                          f"call {unit_call[u]}" + (f" ({tools[u]})" if tools[u] is not None else ""))
    dis.add(r, names, describe, "tool verdict")


def _tool_calls_from(t, s, k):
    return {"verdict": ag.nominal_from(t.get("verdict") or {})}


def _steps(lab, s, panel, der, k, t, dis):
    names = panel.raters
    objs = _step_objects(panel, der, s, with_agent=True)
    every = lab.of("step_modes", s.name)
    m = panel.keyed(every)
    m = m.assign(step=_ints(m["step"]))
    # (a mode repeated is counted once: Ratings and Sets keep one per unit and rater)
    tagged = objs.attach(m[["item", "rater", "step", "mode", "category"]])
    unit, rater = tagged["unit"].to_numpy(), tagged["rater"].to_numpy()

    def tagged_with(rows: np.ndarray) -> dict:  # whether each annotator tagged each step so
        return ag.marked_tally(unit[rows], rater[rows], objs.unit_panel, names)

    t["any_mode"] = tagged_with(np.arange(len(tagged)))
    sets = Sets(tagged["unit"], tagged["rater"], tagged["mode"])
    # Jaccard of the modes on steps that anyone tagged, over every annotator of the item
    pu, pr = objs.unit_panel.entries(ag.sorted_distinct(sets.unit))
    t["modes_jaccard_on_tagged_steps"] = sets.jaccard(pu, pr)
    base = tagged_with(NO_ROWS)
    by_category, by_mode = rows_by(tagged, "category"), rows_by(tagged, "mode")
    _labelled(t, "categories", base, {x: tagged_with(rows) for x, rows in by_category.items()})
    _labelled(t, "modes", base, {x: tagged_with(rows) for x, rows in by_mode.items()})
    tags = panel.keyed(lab.of("step_tags", s.name))
    tags = tags[tags["correctness"].map(lambda c: isinstance(c, str) and c != "")]
    tags = objs.attach(tags[["item", "rater", "step", "correctness"]].assign(step=lambda d: _ints(d["step"])))
    cc, cv = _factor(tags["correctness"])
    t["correctness"] = ag.Ratings(tags["unit"], tags["rater"], cc, cv, len(objs)).nominal_tally(names)
    dis.add(sets.ratings(len(objs), objs.unit_panel), names, objs.describe, "MAST modes", _set_show)


def _steps_from(t, s, k):
    marked = lambda x: ag.nominal_from(x, False)  # noqa: E731
    return {"any_mode": marked(t.get("any_mode") or {}),
            "modes_jaccard_on_tagged_steps": ag.set_from(t.get("modes_jaccard_on_tagged_steps") or {}),
            "categories": _labels_from(t, "categories", in_order([], t.get("categories_seen")), marked),
            "modes": _labels_from(t, "modes", in_order([], t.get("modes_seen")), marked),
            "correctness": ag.nominal_from(t.get("correctness") or {})}


def _radio(lab, s, panel, der, k, t, dis):
    c = panel.keyed(lab.of("choices", s.name))
    vc, vv = _factor(c["label"])
    r = panel.per_item((c["item"], c["rater"], vc, vv), NONE)
    t["choice"] = r.nominal_tally(panel.raters)
    dis.add(r, panel.raters, lambda u: (panel.items[u], "choice"), "choice")


def _radio_from(t, s, k):
    return {"choice": ag.nominal_from(t.get("choice") or {}, NONE)}


def _multiselect(lab, s, panel, der, k, t, dis):
    every = lab.of("choices", s.name)
    # (a label repeated is counted once: Ratings and Sets keep one per item and rater)
    c = panel.keyed(every)
    item, rater, by_label = c["item"].to_numpy(), c["rater"].to_numpy(), rows_by(c, "label")
    one = lambda rows: ag.marked_tally(item[rows], rater[rows], panel.units, panel.raters)  # noqa: E731
    _labelled(t, "labels", one(NO_ROWS), {x: one(rows) for x, rows in by_label.items()})
    sets = Sets(c["item"], c["rater"], c["label"])
    t["jaccard"] = sets.jaccard(panel.item, panel.rater)
    r = sets.ratings(len(panel), panel.units)
    dis.add(r, panel.raters, lambda u: (panel.items[u], "labels"), "labels", _set_show)


def _multiselect_from(t, s, k):
    labels = _labels_from(t, "labels", in_order(s.get("labels"), t.get("labels_seen")),
                          lambda x: ag.nominal_from(x, False))
    return {"labels": labels, "jaccard": ag.set_from(t.get("jaccard") or {})}


def _likert(lab, s, panel, der, k, t, dis):
    c = panel.keyed(lab.of("likert", s.name))
    c = c[c["score"].notna()]
    vc, vv = _factor(c["score"].astype(float))
    r = ag.Ratings(c["item"], c["rater"], vc, vv, len(panel))
    t["rating"] = r.pairs_tally(panel.raters)
    dis.add(r, panel.raters, lambda u: (panel.items[u], "rating"), "rating", _num_show, gap=SCORE_GAP)


def _likert_from(t, s, k):
    return {"rating": ag.ordinal_from(t.get("rating") or {})}


# each type: (how its tallies are counted, how its measures are finished from them)
BY_TYPE = {
    "failure_attribution": (_attribution, _attribution_from),
    "agent_interaction_graph": (_graph, _graph_from),
    "handoff_review": (_handoffs, _handoffs_from),
    "agent_scorecard": (_scorecard, _scorecard_from),
    "tool_contention": (_contention, _contention_from),
    "emergent_behavior": (_emergent, _emergent_from),
    "tool_call_review": (_tool_calls, _tool_calls_from),
    "trajectory_eval": (_steps, _steps_from),
    "radio": (_radio, _radio_from),
    "multiselect": (_multiselect, _multiselect_from),
    "likert": (_likert, _likert_from),
}
FREE_TEXT = "free text: no agreement measure"
# labels seen anywhere in a scheme's rows, on items two annotators judged or not (the order of
# its per-label measures): (tally key, table, column). Counted whether or not any item has two
# annotators, so that they add up over items (a kept tally brought up to date by the items that
# changed counts an item's rows alone)
SEEN = {"emergent_behavior": [("behaviors_seen", "behaviours", "behavior")],
        "trajectory_eval": [("modes_seen", "step_modes", "mode"), ("categories_seen", "step_modes", "category")],
        "tool_contention": [("labels_seen", "contention", "label")],
        "multiselect": [("labels_seen", "choices", "label")]}


def agreement_tally(lab: Labels, s, der, k: int, handoff_judgements=None, listed: bool = False
                    ) -> tuple[dict, list[dict]]:
    """The tally of one scheme's agreement (finished by :func:`agreement_from`), and the records
    of the objects annotators disagree on when `listed` (else an empty list).

    `handoff_judgements(lab, scheme, der)` gives the (item, annotator, derived handoff) rows of a
    handoff review (app.summary builds them for its rollup too)."""
    panel = Panel(lab, s.name)
    t: dict[str, Any] = {"items_compared": len(panel), "annotators": sum_by([panel.rater], [panel.raters]),
                         "rows": panel.n_rows}
    dis = Differences(s.name, listed)
    for key, table, col in SEEN.get(s.type, ()):
        t[key] = _counts(lab.of(table, s.name)[col])
    if len(panel) and s.type in BY_TYPE:
        count = BY_TYPE[s.type][0]
        if s.type == "handoff_review":
            count(lab, s, panel, der, k, t, dis, handoff_judgements)
        else:
            count(lab, s, panel, der, k, t, dis)
        t["disagreements"] = dis.count
    return prune(t), dis.records


def agreement_from(t: dict, s, k: int) -> dict:
    """Agreement measures for one scheme from its tally (with ``disagreements``, how many
    objects annotators disagree on)."""
    n = t.get("items_compared", 0)
    base: dict[str, Any] = {"type": s.type, "items_compared": n, "annotators": len(t.get("annotators") or {})}
    if s.type not in BY_TYPE:
        return {**base, "note": FREE_TEXT}
    if not n:
        return {**base, "note": "no item has two or more annotators for this scheme: no agreement to compute"
                if t.get("rows") else "no annotations"}
    base.update(BY_TYPE[s.type][1](t, s, k))
    base["disagreements"] = t.get("disagreements", 0)
    return base


def agreement_for(lab: Labels, s, der, k: int, handoff_judgements=None, listed: bool = True
                  ) -> tuple[dict, list[dict]]:
    """Agreement measures for one scheme (:func:`agreement_from`), and the records of the
    objects annotators disagree on when `listed` (else an empty list)."""
    t, records = agreement_tally(lab, s, der, k, handoff_judgements, listed)
    return agreement_from(t, s, k), records
