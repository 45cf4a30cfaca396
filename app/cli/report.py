"""`python -m app report`."""
from __future__ import annotations

from pathlib import Path

from app.cli._common import open_or_exit

HELP = "write a one-file HTML report (headline numbers, charts, a few runs) readable offline"


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("-o", "--output", default="report.html", help="the HTML file to write (default report.html)")
    p.add_argument("-k", "--k", type=int, default=1, help="step tolerance for ±k agreement and accuracy")


def run(args) -> int:
    from app.summary.report import build_html
    ws = open_or_exit(args.config)
    text = build_html(ws, k=args.k)
    out = Path(args.output)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    print(f"report written to {out} ({len(text.encode('utf-8')) / 1e6:.1f} MB)")
    return 0
