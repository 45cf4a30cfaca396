"""Command line: `python -m app check|derive|serve ...`.

Imports stay inside each command so that `derive` pays only for what it uses.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _open(config: str):
    from .workspace import ProjectError, open_project
    try:
        return open_project(config)
    except ProjectError as e:
        for p in e.problems:
            print(p, file=sys.stderr)
        n = sum(p.level == "error" for p in e.problems)
        print(f"{config}: {n} problem(s); the project was not loaded", file=sys.stderr)
        sys.exit(1)


def _trace_scheme(project):
    """The scheme whose trace keys the trace view and `derive` use: the first trace scheme."""
    from .registry import TYPES
    return next((s for s in project.schemes if TYPES[s.type].trace), None)


def cmd_check(args) -> int:
    from .derive import derive, scheme_keys
    from .registry import TYPES
    ws = _open(args.config)
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


def cmd_derive(args) -> int:
    from .derive import derive, scheme_keys, to_json
    ws = _open(args.config)
    scheme = _trace_scheme(ws.project)
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
        out.write(json.dumps(to_json(it.id, derive(it.data, **keys)), ensure_ascii=False, default=str))
        out.write("\n")
    return 0


def cmd_serve(args) -> int:
    _open(args.config)  # fail early, in the terminal, on a broken project
    os.environ["BATON_CONFIG"] = str(Path(args.config).resolve())
    # Streamlit treats a `pages/` folder beside the entry script as a legacy multipage app
    # until the first st.navigation() call in the process; a deep link opened first would
    # then run a page without the entry script. Baton always uses st.navigation, so say so
    # before the server starts.
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli as stcli
    PagesManager.uses_pages_directory = False
    argv = ["streamlit", "run", str(ROOT / "streamlit_app.py"), "--server.port", str(args.port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    if args.address:
        argv += ["--server.address", args.address]
    print(f"Baton on http://localhost:{args.port}  (project {args.config})", flush=True)
    sys.argv = argv
    return stcli.main()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app", description="Baton: annotate multi-agent runs")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="validate a project and its data")
    c.add_argument("config")
    c.set_defaults(func=cmd_check)
    d = sub.add_parser("derive", help="print agents, steps, handoffs, tool calls and contention per item (JSON Lines)")
    d.add_argument("config")
    d.add_argument("--item", help="only this item id")
    d.add_argument("--scheme", help="use this scheme's steps/agent/calls keys (default: the first trace scheme)")
    d.set_defaults(func=cmd_derive)
    s = sub.add_parser("serve", help="start the app on a project")
    s.add_argument("config")
    s.add_argument("--port", type=int, default=8501)
    s.add_argument("--address", help="address to listen on (default: all)")
    s.set_defaults(func=cmd_serve)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
