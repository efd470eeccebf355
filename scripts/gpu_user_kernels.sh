#!/usr/bin/env bash
# Issue 49's GPU evidence for users' own kernels, on the device machine:
#   scripts/gpu_user_kernels.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine  GPU, driver, CPU count, the build's source commit
#   search   each example kernel (examples/kernels/*/spec.toml) searched with default options on its first
#            listed problem, $UK_BUDGET trials (default 200), its library baseline (the spec's baseline
#            command, PyTorch) timed after the search in the same run -> search/<kernel>.txt, user_kernels.db
#   export   each kernel's winner exported to a header (re-verified on this GPU) -> tuned_<kernel>.h
#   t4       each run exported as Kernel Tuner T4, then re-imported: a replay search of 100 trials over it
#            -> t4/<kernel>.t4.json, t4/replay.db, t4/<kernel>.txt
#   summary  summary.json: rows of kernel, problem, trials, best_us, best_config, baseline, baseline_us
# Outputs go under OUT_DIR/user-kernels (default $OUT, else gpu-results/); with $OUT set they are packed into
# $OUT/results.tgz after every step.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=user-kernels
default_steps=(machine search export t4 summary)
source scripts/gpu_common.sh "$@"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
# The specs' baseline commands say python3: the one with torch.
PATH="$(dirname "$(command -v "$python")"):$PATH"
kernels=(${UK_KERNELS:-gemm softmax reduction})
db="$out/user_kernels.db"

# The run of a kernel's search: its spec's name is the run's family, user_kernel:<name>.
run_of() {
  "$python" - "$db" "$1" <<'EOF'
import sqlite3, sys, tomllib
name = tomllib.load(open(f"examples/kernels/{sys.argv[2]}/spec.toml", "rb"))["name"]
row = sqlite3.connect(sys.argv[1]).execute(
    "SELECT max(id) FROM runs WHERE family = ? AND strategy != 'replay'", (f"user_kernel:{name}",)).fetchone()
print(row[0] or "")
EOF
}

first_problem() {
  "$python" - "$1" <<'EOF'
import sys, tomllib
spec = tomllib.load(open(f"examples/kernels/{sys.argv[1]}/spec.toml", "rb"))
print(",".join(f"{s}={spec['problem']['listed'][0][s]}" for s in spec["problem"]["sizes"]))
EOF
}

status=0
for s in "${steps[@]}"; do
  start=$SECONDS
  case "$s" in
    machine)
      common_step "$s" || status=1 ;;
    search)
      mkdir -p "$out/search"
      for k in "${kernels[@]}"; do
        cmd=("$evotune" search --kernel "examples/kernels/$k/spec.toml" --problem "$(first_problem "$k")"
             --budget "${UK_BUDGET:-200}" --db "$db" --summary-json "$out/search/$k.summary.json")
        { echo "\$ ${cmd[*]}"; timeout "${UK_LIMIT:-400}" "${cmd[@]}"; echo "exit code $?"; } >"$out/search/$k.txt" 2>&1
        grep -E '^run [0-9]+:|^winner:|baseline|exit code' "$out/search/$k.txt" | tail -n 6
      done
      checkpoint_db "$db" ;;
    export)
      for k in "${kernels[@]}"; do
        run=$(run_of "$k")
        [[ -n $run ]] || { echo "export: no run of $k"; status=1; continue; }
        { echo "\$ evotune export --db $db --run $run -o $out/tuned_$k.h"
          "$evotune" export --db "$db" --run "$run" -o "$out/tuned_$k.h"; echo "exit code $?"; } >"$out/export_$k.txt" 2>&1
        tail -n 4 "$out/export_$k.txt"
      done ;;
    t4)
      mkdir -p "$out/t4"
      for k in "${kernels[@]}"; do
        run=$(run_of "$k")
        [[ -n $run ]] || continue
        { echo "\$ evotune export --db $db --run $run --format t4 -o $out/t4/$k.t4.json"
          "$evotune" export --db "$db" --run "$run" --format t4 -o "$out/t4/$k.t4.json"
          echo "\$ evotune search --replay $out/t4/$k.t4.json --budget 100 --db $out/t4/replay.db"
          "$evotune" search --replay "$out/t4/$k.t4.json" --budget 100 --db "$out/t4/replay.db"
          echo "exit code $?"; } >"$out/t4/$k.txt" 2>&1
        tail -n 3 "$out/t4/$k.txt"
      done ;;
    summary)
      "$python" - "$db" "$out" "${kernels[@]}" <<'EOF' || status=1
import json, sqlite3, sys, tomllib
db, out, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
con = sqlite3.connect(db)
rows = []
for k in kernels:
    name = tomllib.load(open(f"examples/kernels/{k}/spec.toml", "rb"))["name"]
    run = con.execute("SELECT id, problem FROM runs WHERE family = ? ORDER BY id DESC LIMIT 1",
                      (f"user_kernel:{name}",)).fetchone()
    if not run:
        continue
    trials = con.execute("SELECT count(*) FROM trials WHERE run_id = ?", (run[0],)).fetchone()[0]
    best = con.execute("SELECT median_us, config FROM trials WHERE run_id = ? AND status = 'ok' "
                       "ORDER BY median_us LIMIT 1", (run[0],)).fetchone()
    base = con.execute("SELECT name, median_us FROM baselines WHERE run_id = ? AND median_us IS NOT NULL "
                       "ORDER BY median_us LIMIT 1", (run[0],)).fetchone()
    rows.append({"kernel": k, "family": f"user_kernel:{name}", "run": run[0], "problem": run[1], "trials": trials,
                 "best_us": best[0] if best else None, "best_config": best[1] if best else None,
                 "baseline": base[0] if base else None, "baseline_us": base[1] if base else None,
                 "speedup_vs_baseline": base[1] / best[0] if best and base else None})
json.dump({"rows": rows}, open(f"{out}/summary.json", "w"), indent=2)
for r in rows:
    print(json.dumps(r))
EOF
      ;;
    *) echo "unknown step $s"; status=2 ;;
  esac
  echo "step $s: $((SECONDS - start)) s"
  pack
done
exit $status
