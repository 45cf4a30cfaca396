"""`python -m app derive`."""
from __future__ import annotations

import sys

from app.cli._common import open_or_exit, trace_scheme

HELP = "print agents, steps, handoffs, tool calls and contention per item (JSON Lines)"


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("--item", help="only this item id")
    p.add_argument("--scheme", help="use this scheme's steps/agent/calls keys (default: the first trace scheme)")


def run(args) -> int:
    import gc
    # A short batch run that builds only acyclic data (the parsed trace, its derivations, the
    # output): the cyclic collector would walk every live object again and again for nothing.
    gc.disable()
    from app.traces import jsontext
    from app.traces.derive import derive, scheme_keys, to_json
    ws = open_or_exit(args.config)
    scheme = trace_scheme(ws.project)
    if args.scheme:
        try:
            scheme = ws.project.scheme(args.scheme)
        except KeyError:
            print(f"no scheme named {args.scheme!r}", file=sys.stderr)
            return 2
    keys = scheme_keys(scheme)
    items = ws.items
    if args.item is not None:
        if args.item not in ws.by_id:
            print(f"no item with id {args.item!r} in {args.config}", file=sys.stderr)
            return 2
        items = [ws.by_id[args.item]]
    out = sys.stdout
    for it in items:
        out.write(jsontext.dumps(to_json(it.id, derive(it.data, **keys))))
        out.write("\n")
    return 0
