"""`python -m app export`."""
from __future__ import annotations

import sys

from app.cli._common import open_or_exit

HELP = "write every annotation, with the trace objects its indices name, to Parquet, CSV or JSON Lines"


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("--to", required=True, metavar="FILE", help="output file: .parquet, .csv or .jsonl")
    p.add_argument("--format", choices=["parquet", "csv", "jsonl"], help="override the format the suffix implies")


def run(args) -> int:
    from app.store.export import export_frame, format_of, write
    try:
        fmt = format_of(args.to, args.format)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    ws = open_or_exit(args.config)
    df = export_frame(ws)
    n = write(df, args.to, fmt)
    print(f"{n} annotation(s) written to {args.to} ({fmt})")
    return 0
