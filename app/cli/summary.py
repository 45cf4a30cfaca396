"""`python -m app summary`."""
from __future__ import annotations

import json
import sys

from app.cli._common import open_or_exit

HELP = "progress, rollups, agreement between annotators and accuracy against gold (--json: one object)"


def add_arguments(p):
    p.add_argument("config")
    p.add_argument("--json", action="store_true", help="print the whole summary as one JSON object")
    p.add_argument("-k", "--k", type=int, default=1, help="step tolerance for ±k agreement and accuracy (default 1)")
    p.add_argument("--annotator", action="append", help="only this annotator (repeatable)")
    p.add_argument("--scheme", action="append", help="only this scheme (repeatable)")
    p.add_argument("--item", action="append", help="only this item (repeatable)")


def _pct(x) -> str:
    return "–" if x is None else f"{x:.0%}"


def _num(x) -> str:
    return "–" if x is None else f"{x:.2f}"


def run(args) -> int:
    from app.summary.report import headline_agreement
    from app.summary.summarize import summarize
    ws = open_or_exit(args.config)
    names = {s.name for s in ws.project.schemes}
    for s in args.scheme or []:
        if s not in names:
            print(f"no scheme named {s!r} (schemes: {', '.join(sorted(names))})", file=sys.stderr)
            return 2
    if args.k < 0:
        print("-k must be 0 or more", file=sys.stderr)
        return 2
    # the records of every disagreement only for --json; the text gives their number
    s = summarize(ws, annotators=args.annotator, schemes=args.scheme, items=args.item, k=args.k,
                  disagreements=args.json)
    if args.json:
        json.dump(s, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    c = s["counts"]
    out = [f"{s['project']}: {c['items']} items, {c['annotators']} annotators, {c['judgements']} judgements",
           "", "Progress (items done / items, judgements, time spent):"]
    for p in s["progress"]["by_annotator"]:
        out.append(f"  {p['annotator']}: {p['items_done']}/{p['items_total']} done, {p['judgements']} judgements, "
                   f"{p['seconds'] / 60:.1f} min")
    for name, att in s["attribution"].items():
        out.append(f"\nBlame ({name}):")
        out += [f"  {b['agent']}: {b['count']} ({_pct(b['share'])})" for b in att["blame"]] or ["  none yet"]
        acting = att["acting_is_blamed"]
        if acting["of"]:
            out.append(f"  the blamed agent acts at the decisive step: {_pct(acting['share'])} "
                       f"({acting['count']} of {acting['of']})")
    if s["gold"]:
        out.append(f"\nAccuracy against gold ({s['gold_detail']['items_with_gold']} items with gold, k={args.k}):")
        for who, g in s["gold"].items():
            out.append(f"  {who}: n={g['n']} agent {_pct(g['agent_accuracy'])}, step {_pct(g['step_accuracy'])}, "
                       f"step ±{g['k']} {_pct(g['step_accuracy_within_k'])}")
    orch = s.get("orchestration") or {}
    if orch.get("patterns"):
        out.append(f"\nOrchestration ({orch['scheme']}; outcomes from {orch['outcome_scheme'] or 'no outcome question'}):")
        out += [f"  {r['pattern']}: {r['judgements']} judgements, failure rate {_pct(r['failure_rate'])}"
                for r in orch["patterns"]]
        kept = orch["suggestion"]
        out.append(f"  suggested pattern kept: {kept['kept']} of {kept['judgements']} ({_pct(kept['kept_rate'])})")
    out.append("\nAgreement:")
    for row in headline_agreement(s["agreement"]):
        out.append(f"  {row['scheme']} ({row['type']}): {row['agreement']}")
    n = sum(a.get("disagreements", 0) for a in s["agreement"].values())
    out.append(f"\n{n} disagreement(s)" + (": see --json" if n else ""))
    print("\n".join(out))
    return 0
