"""One entry of a project's `annotation_schemes`, checked against its type's keys; then the checks
across schemes (reserved and duplicate names, `show_if` naming another scheme's labels).

A scheme of a type Baton does not support (audio, video, images, a newer Potato type) is an
`Unsupported`: the project opens without it, the items page lists it and `check` fails naming it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.project import validators as v
from app.project.problems import Problem
from app.types import radio
from app.types.base import POTATO_NOTED_SCHEME_KEYS, Scheme
from app.types.registry import COMMON_KEYS, POTATO_IGNORED_SCHEME_KEYS, TYPES

DONE_SCHEME = "_item"  # the scheme name under which the per-item "done" mark is stored
# scheme names Baton keeps for its own records: a scheme of the project under one of them
# would have its answers overwritten (the done mark replaces them)
RESERVED_PREFIX = "_"


@dataclass(frozen=True)
class Unsupported:
    """A scheme of a type Baton does not support (see the module's docstring)."""

    index: int
    type: str
    name: str

    @property
    def where(self) -> str:
        return f"annotation_schemes[{self.index}]"


UNSUPPORTED = "unsupported"  # the level of the problem naming a scheme of a type Baton lacks


def check_scheme(i: int, raw: Any, out: list[Problem], file: str,
                 unsupported: list[Unsupported] | None = None) -> Scheme | None:
    """`annotation_schemes[i]` as a Scheme, or None when it is wrong or of an unsupported type
    (then added to `unsupported`); every problem found goes to `out`."""
    where = f"annotation_schemes[{i}]"
    if not isinstance(raw, dict):
        out.append(Problem(file, where, f"expected a mapping with annotation_type and name, got {v.show(raw)}"))
        return None
    t = raw.get("annotation_type")
    if isinstance(t, str) and t.strip() and t not in TYPES:
        # (an audio, video or image scheme, or a newer Potato type: the rest of the project opens)
        name = raw.get("name") if isinstance(raw.get("name"), str) else f"#{i}"
        out.append(Problem(file, f"{where}.annotation_type",
                           f"annotation type {v.show(t)} (scheme {v.show(name)}) is not supported by Baton: the "
                           f"scheme is listed as not supported and not asked (supported: {', '.join(TYPES)})"
                           + v.suggest(t, TYPES), UNSUPPORTED))
        if unsupported is not None:
            unsupported.append(Unsupported(i, t, name))
        return None
    if not isinstance(t, str) or t not in TYPES:
        got = "nothing" if t is None else v.show(t)
        out.append(Problem(file, f"{where}.annotation_type", f"expected one of {', '.join(TYPES)}, got {got}"))
        return None
    spec = {**COMMON_KEYS, **TYPES[t].keys}
    opts: dict[str, Any] = {}
    ok = True
    for key, value in raw.items():
        if key in spec:
            try:
                opts[key] = spec[key].check(value)
            except v.Invalid as e:
                out.append(Problem(file, f"{where}.{key}{e.subpath}", e.message))
                ok = False
        elif key in POTATO_IGNORED_SCHEME_KEYS:
            out.append(Problem(file, f"{where}.{key}", "Potato display key, ignored by Baton", "ignored"))
        else:
            out.append(Problem(file, f"{where}.{key}",
                               f'unknown key for {t}{v.suggest(key, spec) or "; known keys: " + ", ".join(spec)}'))
            ok = False
    for key, k in spec.items():
        if key not in opts:
            if k.required:
                out.append(Problem(file, f"{where}.{key}", f"required for {t}: {k.doc or 'missing'}"))
                ok = False
            else:
                opts[key] = k.default
    if ok:  # (keys that must agree with each other: a slider's min below its max, ...)
        for key, message in TYPES[t].scheme_problems(opts):
            out.append(Problem(file, f"{where}.{key}" if key else where, message))
            ok = False
    if not ok:
        return None
    for key, why in POTATO_NOTED_SCHEME_KEYS.items():  # (Potato keys accepted, with no effect here)
        if key in raw and key not in TYPES[t].honours and raw[key] not in (False, None):
            out.append(Problem(file, f"{where}.{key}", f"ignored by Baton: {why}", "ignored"))
    for key, why in TYPES[t].ignored_keys(opts):
        out.append(Problem(file, f"{where}.{key}", f"ignored by Baton: {why}", "ignored"))
    return Scheme(i, t, opts.pop("name"), opts.pop("description") or "", opts)


def cross_checks(schemes: list[Scheme], out: list[Problem], file: str) -> None:
    """Problems between schemes: reserved or duplicate names, a `show_if` naming no radio scheme or
    none of its labels."""
    seen: dict[str, int] = {}
    for s in schemes:
        if s.name.startswith(RESERVED_PREFIX):
            out.append(Problem(file, f"{s.where}.name",
                               f'scheme names starting with "{RESERVED_PREFIX}" are reserved for Baton\'s own '
                               f'records ("{DONE_SCHEME}" is the done mark, which would overwrite this '
                               f'scheme\'s answers), got {v.show(s.name)}'))
        if s.name in seen:
            out.append(Problem(file, f"{s.where}.name",
                               f'duplicate scheme name "{s.name}" (also annotation_schemes[{seen[s.name]}])'))
        seen.setdefault(s.name, s.index)
    by_name = {s.name: s for s in schemes}
    for s in schemes:
        cond = s.get("show_if")
        if not cond:
            continue
        target = by_name.get(cond["scheme"])
        if target is None or target is s:
            out.append(Problem(file, f"{s.where}.show_if.scheme",
                               f'expected the name of another scheme, got "{cond["scheme"]}"'
                               + v.suggest(cond["scheme"], by_name)))
        elif target.type != radio.TYPE.name:
            out.append(Problem(file, f"{s.where}.show_if.scheme",
                               f'expected a radio scheme, "{target.name}" is {target.type}'))
        else:
            names = [lab["name"] for lab in target["labels"]]
            for j, lab in enumerate(cond["any_of"]):
                if lab not in names:
                    out.append(Problem(file, f"{s.where}.show_if.any_of[{j}]",
                                       f'expected a label of "{target.name}" ({", ".join(names)}), got "{lab}"'))
