"""Upper bound of cross-checking a verified candidate against k samples on probe inputs."""
import json, sys, time
from pathlib import Path
sys.path.insert(0, "/work/main/bench"); sys.path.insert(0, "/work/bench-out/xcheck")
from humaneval import Bare, load_problems
from humaneval_judge import assemble, first_code_block, judge
from exp_probe import behaviour, probes

ids = sys.argv[1].split(","); k = int(sys.argv[2]); runs = Path(sys.argv[3]); out = Path(sys.argv[4])
out.mkdir(exist_ok=True)
problems = {p["task_id"]: p for p in load_problems(",".join(ids), None)}
bare = Bare("local", ["llm.profiles.local.n_threads=1"])
results = out / "results.jsonl"
for tid, p in problems.items():
    n = tid.split("/")[1]; entry = p["entry_point"]
    codur = runs / f"HumanEval_{n}.codur.s1" / "solution.py"
    cands = [("codur", codur)]
    for s in range(1, k + 1):
        f = out / f"{n}.s{s}.py"
        if not f.exists():
            bare.profile = bare.profile.model_copy(update={"temperature": 0.8, "seed": 100 + s})
            bare._model = None
            t = time.time(); text, _ = bare.ask(p["prompt"])
            f.write_text(assemble(p["prompt"], first_code_block(text), entry))
            print(tid, "sample", s, round(time.time() - t, 1), flush=True)
        cands.append((f"s{s}", f))
    args, nex = probes(p["prompt"], entry)
    beh = {name: behaviour(path, entry, args) for name, path in cands}
    ok = {name: judge(path, p, 10).passed for name, path in cands}
    base = beh["codur"][:nex]
    agreeing = [c for c, _ in cands if beh[c][:nex] == base]
    score = {c: sum(sum(x == y for x, y in zip(beh[c], beh[o])) for o in agreeing if o != c) for c in agreeing}
    best = max(agreeing, key=lambda c: (score[c], c == "codur"))
    clusters = {}
    for c in agreeing:
        clusters.setdefault(json.dumps(beh[c]), []).append(c)
    big = max(clusters.values(), key=len)
    mine = clusters[json.dumps(beh["codur"])]
    strict = big[0] if len(big) > len(mine) else "codur"
    crash = [a for a, r in zip(args, beh["codur"]) if r.startswith("!")]
    rec = dict(task=tid, probes=len(args), examples=nex, judge=ok, agreeing=agreeing, score=score,
               mbr=best, mbr_ok=ok[best], strict=strict, strict_ok=ok[strict], codur_ok=ok["codur"],
               clusters=len(clusters), codur_crashes=len(crash))
    print(json.dumps(rec), flush=True)
    with results.open("a") as fh:
        fh.write(json.dumps(rec) + "\n")
