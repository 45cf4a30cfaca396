"""`python -m app check`."""
from __future__ import annotations

import sys

from ._common import open_or_exit

HELP = "validate a project and its data"


def add_arguments(p):
    p.add_argument("config")


def run(args) -> int:
    from ..derive import derive, scheme_keys
    from ..registry import TYPES
    ws = open_or_exit(args.config)
    p = ws.project
    print(f"project: {p.name}  ({p.path})")
    print(f"data: {', '.join(str(d.path) for d in p.data_files)}")
    print(f"annotations: {p.output_dir}")
    problems = [x for x in ws.problems if x.level != "ignored"]
    agents: dict[str, None] = {}
    trace_schemes = [s for s in p.schemes if TYPES[s.type].trace]
    for it in ws.items:
        seen_keys = set()
        for s in trace_schemes or [None]:
            keys = scheme_keys(s)
            sig = tuple(sorted(keys.items()))
            if sig in seen_keys:
                continue
            seen_keys.add(sig)
            d = derive(it.data, **keys)
            agents.update(dict.fromkeys(d.agents))
            if trace_schemes:
                problems += [f"{it.source}: item {it.id!r}: {m}" for m in d.problems]
                if d.unknown_steps:
                    print(f"note: item {it.id!r}: {d.unknown_steps} step(s) without "
                          f'"{keys["agent_key"]}", counted as agent (unknown)')
    print(f"items: {len(ws.items)}")
    print(f"agents: {len(agents)}: {', '.join(agents)}")
    print(f"schemes: {len(p.schemes)}")
    for s in p.schemes:
        print(f"  - {s.name} ({s.type})")
    for x in ws.problems:
        if x.level == "ignored":
            print(x)
    for x in problems:
        print(x, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("ok")
    return 0
