"""Command line: `python -m app COMMAND ...`; one module per command in app/commands/.

Each command module has HELP, add_arguments(parser) and run(args), and imports its heavy
dependencies inside run(), so a command pays only for what it uses.
"""
from __future__ import annotations

import argparse
import importlib
import sys

# command name -> module in app.commands
COMMANDS = {"check": "check", "derive": "derive", "serve": "serve", "token": "token",
            "summary": "summary", "export": "export", "import": "import_", "report": "report",
            "convert": "convert"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app", description="Baton: annotate multi-agent runs")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, module in COMMANDS.items():
        mod = importlib.import_module(f"app.cli.{module}")
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(func=mod.run)
    args = ap.parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
