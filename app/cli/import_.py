"""`python -m app import`."""
from __future__ import annotations

import sys

from app.cli._common import open_or_exit

HELP = ("load annotations: JSON Lines of {item_id, annotator, scheme, value}, Baton's own export "
        "(.jsonl/.csv/.parquet) or Potato's annotation output (a folder or file)")
SHOWN = 20


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("file", help="the file, or Potato's annotation_output folder")
    p.add_argument("--overwrite", action="store_true", help="replace annotations that already exist")
    p.add_argument("--annotator", help="annotator for records that do not name one")
    p.add_argument("--keep-invalid", action="store_true",
                   help="store values that do not fit their scheme or trace, marked invalid (never counted "
                        "by the summary), instead of refusing them")


def run(args) -> int:
    from app.store.importer import import_file
    ws = open_or_exit(args.config)
    r = import_file(ws, args.file, overwrite=args.overwrite, annotator=args.annotator,
                    keep_invalid=args.keep_invalid)
    for p in r.problems[:SHOWN]:
        print(p, file=sys.stderr)
    if len(r.problems) > SHOWN:
        print(f"... and {len(r.problems) - SHOWN} more problem(s)", file=sys.stderr)
    src = ", ".join(f"{n} {k} record(s)" for k, n in r.sources.items()) or "no records"
    print(f"read {src}; imported {r.imported}, kept {r.kept_existing} existing"
          f"{' (use --overwrite to replace them)' if r.kept_existing else ''}, skipped {r.skipped}, "
          f"refused {r.refused} that do not fit their scheme or trace"
          + (f" ({r.kept_invalid} stored marked invalid, not counted)" if r.kept_invalid else
             " (--keep-invalid stores them marked invalid)" if r.refused else ""))
    stored = r.imported or r.kept_existing or r.kept_invalid
    return 1 if ((r.problems and not stored) or r.refused > r.kept_invalid) else 0

