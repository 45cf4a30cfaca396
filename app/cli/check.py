"""`python -m app check`."""
from __future__ import annotations

import sys

from app.cli._common import open_or_exit

HELP = "validate a project and its data"


def add_arguments(p):
    p.add_argument("config")


def setup_problems(config: str, project) -> list[str]:
    """What would stop annotators (a damaged secrets file, an annotation folder that cannot be
    written), as the app says it; prints how access is set up."""
    from app.project.access import load_access, secrets_files
    from app.project.config import output_dir_problem
    access = load_access(secrets_files(config))
    if access.is_open:
        print("access: off (no .streamlit/secrets.toml): anyone who reaches the app may annotate under any name")
    else:
        print(f"access: {len(access.accounts)} account(s) from {', '.join(str(f) for f in access.files)}")
    out = [f"access refused to everyone until fixed: {x}" for x in access.problems]
    where = output_dir_problem(project.output_dir)
    if where:
        out.append(f"{project.path}: output_annotation_dir: {where}")
    return out


def run(args) -> int:
    from app.traces.conversation import savings
    from app.traces.derive import derive, scheme_keys
    from app.types.registry import TYPES
    ws = open_or_exit(args.config)
    p = ws.project
    print(f"project: {p.name}  ({p.path})")
    print(f"data: {', '.join(str(d.path) for d in p.data_files)}")
    print(f"annotations: {p.output_dir}")
    # (a scheme of a type Baton does not support opens with the project, and fails the check)
    problems = [x for x in ws.problems if x.level in ("error", "warning", "unsupported")]
    problems += setup_problems(args.config, p)
    agents: dict[str, None] = {}
    trace_schemes = [s for s in p.schemes if TYPES[s.type].trace]
    conversations = []
    empty: dict[str, list[str]] = {}  # trace scheme -> items that derive nothing for it to annotate
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
            if trace_schemes and not d.steps and not d.calls:
                for sc in trace_schemes:
                    if tuple(sorted(scheme_keys(sc).items())) == sig:
                        empty.setdefault(sc.name, []).append(it.id)
            if trace_schemes:
                problems += [f"{it.source}: item {it.id!r}: {m}" for m in d.problems]
                if d.unknown_steps:
                    print(f"note: item {it.id!r}: {d.unknown_steps} step(s) without "
                          f'"{keys["agent_key"]}", counted as agent (unknown)')
        keys = scheme_keys(trace_schemes[0] if trace_schemes else None)
        view = savings(it.data, keys["steps_key"], keys["agent_key"])
        if view.has_inputs:
            conversations.append((it.id, view))
    for name, ids in empty.items():  # a trace scheme with nothing to annotate is no working project
        shown = ", ".join(repr(i) for i in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        problems.append(f"{p.path}: scheme {name!r} works on the trace, but {len(ids)} of {len(ws.items)} item(s) "
                        f"derive no steps and no timed calls for it: {shown} (is the trace in a format Baton "
                        "reads, and are steps_key and agent_key right?)")
    print(f"items: {len(ws.items)}")
    print(f"agents: {len(agents)}: {', '.join(agents)}")
    print(f"schemes: {len(p.schemes)}")
    for s in p.schemes:
        print(f"  - {s.name} ({s.type})")
    for u in p.unsupported:
        print(f"  - {u.name} ({u.type}): not supported by Baton, not asked")
    if conversations:
        print("conversations (characters shown, each agent's conversation once / characters in the raw steps):")
        shown = raw = 0
        for item_id, v in conversations:
            shown += v.shown_chars
            raw += v.raw_chars
            print(f"  {item_id}: {v.shown_chars:,} / {v.raw_chars:,} ({v.saved:.0%} saved, "
                  f"{len(v.threads)} threads)")
        if len(conversations) > 1:
            print(f"  total: {shown:,} / {raw:,} ({1 - shown / raw if raw else 0:.0%} saved)")
    for x in ws.problems:
        if x.level == "ignored":
            print(x)
    notes = [x for x in ws.problems if x.level == "note"]
    if notes:
        print(f"notes ({len(notes)}; read in full):")
        for x in notes:
            print(f"  {x}")
    data = [x for x in problems if not isinstance(x, str)]
    if data:  # what the readers could not read, or read only in part, and why
        print(f"skipped or misread ({len(data)}):", file=sys.stderr)
        for x in data:
            print(f"  {x}", file=sys.stderr)
    for x in problems:
        if isinstance(x, str):
            print(x, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("ok")
    return 0
