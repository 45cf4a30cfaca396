"""`python -m app convert --from FORMAT INPUT... -o items.jsonl`: traces to Potato-format items.

Each item is written as one JSON line exactly as Baton holds it (id, text, steps with agent,
content, id and tool_calls, timed calls, gold, and the format's extras), so reading the
result as Potato items gives the same derivations as reading the source.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HELP = "convert trace files (any supported format) to Potato-format items (JSON Lines)"


def add_arguments(p):
    from app.traces.readers import FORMATS
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="trace files or folders")
    p.add_argument("--from", dest="fmt", default="auto", choices=["auto", *FORMATS],
                   help="the input format (default: recognised from each record's shape)")
    p.add_argument("-o", "--output", required=True, help="the items file to write (.jsonl), or - for stdout")
    p.add_argument("--id-key", default="id", help="field holding each item's id (default: id)")
    p.add_argument("--text-key", default="text", help="field holding each item's text (default: text)")


def run(args) -> int:
    from app.traces.readers import attach_golds, data_paths, join_split, read_path
    items, problems, golds = [], [], []
    for name in args.inputs:
        path = Path(name)
        if not path.exists():
            print(f"{name}: no such file or folder", file=sys.stderr)
            return 2
        paths = data_paths(path)
        if not paths:
            print(f"{name}: no .json, .jsonl or .parquet files found", file=sys.stderr)
        for p in paths:
            got, probs, gs = read_path(p, args.id_key, args.text_key, args.fmt)
            items.extend(got)
            problems.extend(probs)
            golds.extend(gs)
    items, joined = join_split(items, args.id_key, args.text_key)  # a trace split over several files: one item
    problems.extend(joined)
    problems.extend(attach_golds(items, golds, "from the inputs"))
    seen: dict[str, str] = {}
    out = sys.stdout if args.output == "-" else None
    tmp = None
    if out is None:
        target = Path(args.output)
        tmp = target.with_name(target.name + ".tmp")
        out = tmp.open("w", encoding="utf-8")
    written = 0
    try:
        for it in items:
            if it.id in seen:
                print(f"{it.source}: item {it.id!r}: duplicate item id (first at {seen[it.id]}); skipped",
                      file=sys.stderr)
                continue
            seen[it.id] = it.source
            out.write(json.dumps(it.data, ensure_ascii=False, default=str))
            out.write("\n")
            written += 1
    finally:
        if tmp is not None:
            out.close()
    if tmp is not None:
        tmp.replace(args.output)
    for x in problems:
        print(x, file=sys.stderr)
    bad = [x for x in problems if x.level in ("error", "warning")]
    formats = sorted({it.format for it in items})
    print(f"{written} item(s) written to {args.output} from {', '.join(formats) or 'no'} data"
          + (f"; {len(bad)} problem(s)" if bad else ""), file=sys.stderr if out is sys.stdout else sys.stdout)
    return 1 if bad else 0
