"""The pilot's selection rules, simulated with Codur's own probes, behaviour and choose
(codur/agents/crosscheck.py as checked out) on the files exp.py drew.

    PYTHONPATH=. .venv/bin/python bench/results/crosscheck-pilot/sim2.py \
        bench/results/crosscheck-pilot/samples bench/results/crosscheck-pilot/codur
"""
import json, shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, "/work/main/bench")
from humaneval import load_problems
from codur.agents.crosscheck import agreement, choose
from codur.events import EventBus
from codur.tools.context import ToolContext
from codur.verify.probe import behaviour, probes
from codur.workspace import Workspace

out = Path(sys.argv[1]); runs = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("/work/bench-out/m2-he/runs")
recs = [json.loads(l) for l in open(out / "results.jsonl")]
probs = {p["task_id"]: p for p in load_problems("", None)}

def beh(path, found):
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(path, Path(d) / "solution.py")
        return behaviour(ToolContext(Workspace(Path(d)), bus=EventBus()), found, 1.0)

tot = {}; rules = [(4, 0), (4, 2), (4, 1), (3, 0), (2, 0)]
for r in recs:
    p = probs[r["task"]]; n = r["task"].split("/")[1]
    names = ["codur"] + [f"s{i}" for i in range(1, 5)]
    paths = {"codur": runs / f"HumanEval_{n}.codur.s1" / "solution.py", **{f"s{i}": out / f"{n}.s{i}.py" for i in range(1, 5)}}
    found = probes({"solution.py": paths["codur"].read_text()}, 40)
    nex = sum(f.example for f in found)
    b = {c: beh(paths[c], found) for c in names}
    ok = r["judge"]
    def pick(k, stop):
        pool = ["codur"]; drawn = 0
        for c in names[1:1 + k]:
            if stop and sum(b[x] == b["codur"] for x in pool[1:]) >= stop:
                break
            drawn += 1
            if b[c][:nex] == b["codur"][:nex] and not any(x.startswith("!load") for x in b[c]):
                pool.append(c)
        return pool[choose(agreement([b[c] for c in pool]))], drawn
    line = {}
    for rule in rules:
        c, d = pick(*rule)
        t = tot.setdefault(rule, [0, 0, 0]); t[0] += ok[c]; t[1] += d; t[2] += 1
        line[str(rule)] = f"{c}:{'ok' if ok[c] else 'X'}/{d}"
    print(r["task"], len(found), "codur", "ok" if ok["codur"] else "X", line, flush=True)
print("codur as verified:", sum(r["judge"]["codur"] for r in recs), "of", len(recs))
for rule, (okc, drawn, n) in tot.items():
    print(f"k={rule[0]} enough_agreeing={rule[1]}: passed {okc}/{n}, drawn {drawn} ({drawn/n:.2f}/task)")
