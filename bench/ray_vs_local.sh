#!/usr/bin/env bash
# The 20 challenges (not the traps) with the embedded model, one llama.cpp thread a run:
# one run at a time here (--jobs 1), then on a local Ray instance with 2 runs at a time
# (--ray --jobs 2: two Ray workers of 1 CPU each). Prints both wall times, their ratio and
# whether every run's result is the same. The figures go into docs/scaling.md.
#
#   bench/ray_vs_local.sh [OUT [ARGS...]]  # OUT: a new folder (default: a fresh temp one);
#                                         # ARGS: more options for both runs (-o k=v ...)
#   PYTHON=/path/to/python bench/ray_vs_local.sh   # another interpreter (default .venv's)
#
# Needs codur[local,ray]. Expect ~20 minutes for the local half on an idle 2-core machine
# (docs/benchmarks.md: 1,008 s for the 20 at --max-iterations 5) and less for the Ray
# half; run it when nothing else uses the cores, or the ratio says little.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/codur-ray-vs-local-XXXXXX")}
shift || true
EXTRA=("$@")
mapfile -t CHALLENGES < <(ls -d challenges/*/ | grep -v '/trap_')
COMMON=(--profile local -o llm.profiles.local.n_threads=1 --max-iterations 5 --timeout 900)

timed() {  # timed NAME ARGS...: run `codur challenges run`, print and keep its wall time
  local name=$1; shift
  local start
  start=$(date +%s)
  "$PY" -m codur challenges run "${CHALLENGES[@]}" "${COMMON[@]}" "${EXTRA[@]}" \
    --out "$OUT/$name" "$@" || true  # exit 1 when a challenge fails: the reports count
  echo $(($(date +%s) - start)) > "$OUT/$name.wall_s"
  echo "[$name] wall $(cat "$OUT/$name.wall_s") s"
}

echo "[ray_vs_local] ${#CHALLENGES[@]} challenges; output in $OUT"
timed local --jobs 1
timed ray --ray --jobs 2
"$PY" - "$OUT" <<'PY'
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
wall = {n: float((out / f"{n}.wall_s").read_text()) for n in ("local", "ray")}
runs = {}
for name in wall:
    report = json.loads((out / name / "report.json").read_text())
    runs[name] = {(c["name"], c["seed"]): (c["result"], c["status"]) for c in report["challenges"]}
    passed = sum(r[0] == "pass" for r in runs[name].values())
    print(f"{name:5}: passed {passed}/{len(runs[name])}, wall {wall[name]:.0f} s")
ray = json.loads((out / "ray" / "report.json").read_text())["ray"]
print(f"ray  : {ray['cluster']}; {ray['placement']}; retries {ray['retries']}, lost {ray['lost']}")
print(f"wall-time ratio local / ray: {wall['local'] / wall['ray']:.2f}")
differ = sorted(k for k in runs["local"] if runs["local"][k] != runs["ray"].get(k))
print(f"same results: {'yes' if not differ else 'no'}")
for key in differ:
    print(f"  {key[0]}: local {runs['local'][key]}, ray {runs['ray'].get(key)}")
PY
