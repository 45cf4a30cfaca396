"""What an annotation type is: the protocol every module of app/types follows.

One module per type (`app/types/<type name>.py`) defines `TYPE = AnnotationType(...)`, which
owns everything about the type:

- **config**: `keys`, the scheme keys it accepts, each with its validator and default (common
  keys, COMMON_KEYS, come on top); `trace` says whether it works on the trace (it then
  accepts the trace keys `steps_key` and `agent_key` too).
- **stored value**: `coerce(value, scheme)` turns what an import or a hand-made file holds into
  the stored form; by default it takes off Potato's hidden-input wrapper where the value is not
  yet of the type's shape (`looks_like`).
- **summary**: `rows(value, scheme)` spreads one parsed stored value into rows of plain fields
  (an attribution, a handoff entry, a score, a marked turn); the summary puts them in one
  long table per scheme (`SchemeRows.table`). `rollup(rows)` gives the scheme's entry in the
  summary's `section`; `agreement(rows, disagreements)` its agreement measures, adding what
  annotators disagree on; `listings` the records the summary lists only when asked.
- **validation**: `validate(value, scheme, derivation)` lists what is wrong with a stored value
  (in its stored form, after `coerce`) against the scheme's options and the item's trace
  (`derivation` is None for types that do not work on the trace): labels not in the scheme,
  steps, agents or handoffs the run does not have, scores off the scale. An empty list means it
  fits. The UI, the import and the summary use this one check.
- **two tabs**: `parts(value, scheme)` spreads a stored value into independent fields ({field
  tuple: value}, a field left alone absent), `join(fields, scheme)` builds the stored value back;
  app/types/merge.py uses them so that a save applies only what its click changed on top of what
  is on disk now, and reports a field that another tab set differently meanwhile.
- **export**: `objects(value, derivation)`, what each index in a stored value names in the
  trace as it is now; `headline(measures)`, the one agreement measure a report leads with.

The registry (app/types/registry.py) lists the modules and nothing else. Its Streamlit surface
is app/ui/surfaces/<type name>.py.

No Streamlit here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from app.project import validators as v

if TYPE_CHECKING:  # (for annotations only: the summary's view imports nothing of the types)
    from app.stats.agreement import Disagreements
    from app.traces.derive import Derivation
    from app.types.panel import SchemeRows


@dataclass
class Scheme:
    """One configured annotation scheme: its type, name and options (the config's keys)."""

    index: int
    type: str
    name: str
    description: str
    options: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.options[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.options.get(key, default)

    @property
    def where(self) -> str:
        return f"annotation_schemes[{self.index}]"


@dataclass(frozen=True)
class Key:
    """A scheme key: how it is checked, its default, whether it must be given."""

    check: v.Validator
    default: Any = None
    required: bool = False
    doc: str = ""


# Keys every scheme may have.
COMMON_KEYS: dict[str, Key] = {
    "annotation_type": Key(v.nonempty_string, required=True),
    "name": Key(v.nonempty_string, required=True),
    "description": Key(v.string, default=""),
    "title": Key(v.string, default="", doc="the name of the scheme's page in the menu (else its description)"),
    "show_if": Key(v.show_if, doc="ask only when another scheme's answer is one of `any_of`"),
    # Potato's per-turn and per-session keys: checked and accepted; where a type has no use for
    # them (it is not in its `honours`), the config says they are ignored and why (POTATO_NOTED)
    "turn_level": Key(v.boolean, default=False),
    "turn_binding": Key(v.mapping, default=None),
    "per_step": Key(v.anything, default=None),  # (its shape is not documented: any value is accepted)
    "session_level": Key(v.boolean, default=False),
}

# Why a Potato key in COMMON_KEYS changes nothing for a type that does not honour it.
POTATO_NOTED_SCHEME_KEYS = {
    "turn_level": "Potato asks this scheme once per matching turn; Baton asks it once per item",
    "turn_binding": "Potato attaches this scheme to matching turns; Baton asks it once per item",
    "per_step": "Potato asks this scheme once per step; Baton asks it once per item",
    "session_level": "Potato scores a session of several items at once; Baton asks each item on its own",
}

# Potato scheme keys that only change Potato's HTML; accepted and reported as ignored.
POTATO_IGNORED_SCHEME_KEYS = {
    "horizontal", "sequential_key_binding", "displaying_score", "label_requirement", "tooltip",
    "tooltip_file", "annotation_id", "displayed_label", "label_css", "allow_paste", "textarea",
    "video_as_label", "image_as_label", "hide_label", "option_randomization", "keyboard_shortcuts",
    "required", "display", "layout", "instructions", "min_value", "max_value",
    "display_config", "arrangement", "inline_with_trace", "show_diff", "show_edit_distance", "allow_reset",
    "color", "colors", "key_bindings", "placement",
}

# Keys of every type that works on the trace.
TRACE_KEYS: dict[str, Key] = {
    "steps_key": Key(v.nonempty_string, default="steps", doc="item field holding the step list"),
    "agent_key": Key(v.nonempty_string, default="agent", doc="step field naming the acting agent"),
}


def as_int(x: Any) -> int | None:
    """A step index or score as stored or imported: ints, whole floats and digit strings;
    anything else (bool, "3.5", "x") is None rather than a guess."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, str) and x.strip().lstrip("-").isdigit():
        return int(x.strip())
    return None


def _no_objects(value: Any, derivation: "Derivation | None") -> Any:
    return None


def hidden_input(value: Any, looks_like: Callable[[Any], bool]) -> Any:
    """Potato keeps a multi-agent scheme's value as JSON text in a hidden input of the scheme,
    `{input name: "<JSON>"}`: the value inside, where `value` is such a wrapper."""
    if isinstance(value, dict) and len(value) == 1 and not looks_like(value):
        inner = next(iter(value.values()))
        if isinstance(inner, str):
            try:
                inner = json.loads(inner)
            except ValueError:
                return value
        if isinstance(inner, (dict, list)):
            return inner
    return value


@dataclass(frozen=True)
class AnnotationType:
    """Everything about one annotation type (see the module's docstring)."""

    name: str
    title: str
    page: str | None  # its page, relative to the repository's root
    keys: dict[str, Key] = field(default_factory=dict)
    trace: bool = False
    section: str | None = None  # its part of the summary (None: agreement only)
    rows: Callable[[Any, Scheme], list[dict]] = lambda value, scheme: []
    rollup: "Callable[[SchemeRows], Any] | None" = None
    agreement: "Callable[[SchemeRows, Disagreements], dict] | None" = None
    listings: "Mapping[str, Callable[[SchemeRows], list[dict]]]" = field(default_factory=dict)
    listings_first: bool = False  # listed records before the rollup's keys in the JSON (as they always were)
    # (None: Potato's hidden-input wrapper taken off where the value is not of the type's shape)
    coerce: Callable[[Any, Scheme], Any] | None = None
    looks_like: Callable[[Any], bool] = lambda value: isinstance(value, dict)  # the stored shape, roughly
    # (reasons the stored value does not fit the scheme and the trace; [] when it fits)
    validate: "Callable[[Any, Scheme, Derivation | None], list[str]]" = lambda value, scheme, derivation: []
    # (its independent fields, {field: value}, and the stored value built back from them)
    parts: Callable[[Any, Scheme], dict] = lambda value, scheme: {("value",): value} if value else {}
    join: Callable[[dict, Scheme], Any] = lambda fields, scheme: fields.get(("value",))
    objects: "Callable[[Any, Derivation | None], Any]" = _no_objects
    headline: Callable[[dict], dict | None] = lambda measures: None  # its main agreement measure, for reports
    # (what is wrong with the checked keys taken together, as (key, message); [] when they agree)
    scheme_problems: Callable[[dict], list[tuple[str, str]]] = lambda options: []
    honours: frozenset = frozenset()  # the keys of POTATO_NOTED_SCHEME_KEYS the type acts on
    # (keys the type accepts from Potato with no effect in Baton, as (key, why), given the options)
    ignored_keys: Callable[[dict], list[tuple[str, str]]] = lambda options: []

    def __post_init__(self):
        if self.coerce is None:
            object.__setattr__(self, "coerce", lambda value, scheme: hidden_input(value, self.looks_like))
        if self.trace:  # (a type that works on the trace takes the trace keys too)
            object.__setattr__(self, "keys", {**TRACE_KEYS, **self.keys})
