"""`python -m app token NAME`: make an access token for an annotator."""
from __future__ import annotations

import re

HELP = "make an access token for an annotator and print the secrets.toml lines that enable it"


def add_arguments(p):
    p.add_argument("name", help="the annotator's name")
    p.add_argument("--admin", action="store_true", help="this annotator may see everyone's work and the summary")


def run(args) -> int:
    from app.project.access import hash_token, new_token
    token = new_token()
    role = "admin" if args.admin else "annotator"
    print(f"Token for {args.name} (give it to them; it is shown only now):\n\n  {token}\n")
    print("Add to .streamlit/secrets.toml beside the project config (or in the folder you start Baton from):\n")
    key = toml_key(args.name)
    print(f"[baton.annotators.{key}]\ntoken_sha256 = \"{hash_token(token)}\"\nrole = \"{role}\"")
    return 0


def toml_key(name: str) -> str:
    """The annotator's name as a TOML key: bare when TOML allows it, else a basic string with
    quotes, backslashes and control characters escaped (so `élise`, `a.b` or `a\\b` round-trip)."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", name):
        return name
    out = []
    for c in name:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'
