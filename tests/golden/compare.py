import json, pyarrow.parquet as pq, time, sys
from app.project.workspace import open_project
from app.summary.rows import frame
from app.summary.summarize import summarize
from tests.test_summary_golden import mismatch
for case in ["real","generated"]:
    ws=open_project(f"tests/golden/{case}/project.yaml"); rows=frame(pq.read_table(f"tests/golden/{case}/rows.parquet"))
    g=json.load(open(f"tests/golden/{case}/summaries.json"))
    for var in (sys.argv[1:] or ["all"]):
        t=time.time(); s=summarize(ws, rows, **g[var]["kwargs"]); print(case, var, "time %.2f" % (time.time()-t))
        want=g[var]["summary"]
        for sec in want:
            if isinstance(want[sec], dict) and sec in ("agreement","choices","attribution","scorecards","handoffs","contention","emergent","tool_verdicts","mast"):
                for n in want[sec]:
                    m = mismatch(s[sec].get(n), want[sec][n], sec+"."+n)
                    if m: print("  ", m[:300])
            elif sec=="disagreements":
                for n in dict.fromkeys(r["scheme"] for r in want[sec]):
                    m = mismatch([r for r in s[sec] if r["scheme"]==n], [r for r in want[sec] if r["scheme"]==n], "dis."+n)
                    if m: print("  ", m[:300])
            else:
                m = mismatch(s[sec], want[sec], sec)
                if m: print("  ", m[:300])
