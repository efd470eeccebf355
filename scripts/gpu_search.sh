#!/usr/bin/env bash
# The issue-4 GPU evidence, on the device machine, in one call:
#   scripts/gpu_search.sh BUILD_DIR OUT_DIR BUDGET PROBLEM...
# SEARCH_EVO (e.g. offspring=12) passes --evo to the searches; SEARCH_TIME_LIMIT (default 600 s) stops a
# search that overruns (the run stays resumable; the script then fails).
# For each problem: `evotune search` on GPU 0 (wall time measured around the whole command, compiles
# included) into OUT_DIR/search.db, then `evotune log` and `evotune top` of that run, then the winner
# benched again with `evotune bench` (beside the cuBLAS baseline), and finally PyTorch SDPA's flash and
# cudnn backends on the same problems in the same call, side by side with the winners.
# Files per problem i (1, 2, ...): search_i.txt (the search's own output), wall_i.txt, log_i.txt,
# top_i.txt, top_i.json, winner_bench_i.txt; for all: search.db, bench.jsonl, sdpa.csv, side_by_side.md.
set -uo pipefail
cd "$(dirname "$0")/.."
build="$1" out="$2" budget="$3"
shift 3
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
evotune="$build/cli/evotune"
python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
db="$out/search.db"
status=0
i=0
problems=()
for problem in "$@"; do
  i=$((i + 1))
  problems+=(--problem "$problem")
  echo "== search $i: $problem (budget $budget)"
  start=$(date +%s.%N)
  # The issue's limit: a search must finish within 10 minutes of wall time, compiles included.
  timeout "${SEARCH_TIME_LIMIT:-600}" "$evotune" search --problem "$problem" --budget "$budget" --devices 0 \
    --db "$db" --seed 1 ${SEARCH_EVO:+--evo "$SEARCH_EVO"} >"$out/search_$i.txt" 2>&1 || status=1
  end=$(date +%s.%N)
  wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
  echo "search $i wall time: $wall s (the whole evotune search command: worker start, compiles, checks, timing)" |
    tee "$out/wall_$i.txt"
  tail -n 3 "$out/search_$i.txt"
  run=$("$evotune" top --db "$db" -n 1 --format json | "$python" -c 'import json,sys; print(json.load(sys.stdin)[0]["run_id"])')
  "$evotune" log --db "$db" --run "$run" >"$out/log_$i.txt" 2>&1 || status=1
  "$evotune" top --db "$db" --run "$run" -n 15 >"$out/top_$i.txt" 2>&1 || status=1
  "$evotune" top --db "$db" --run "$run" -n 15 --format json >"$out/top_$i.json" 2>&1 || status=1
  cat "$out/top_$i.txt" | head -n 6
  winner=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["config"])' "$out/top_$i.json")
  "$evotune" bench --problem "$problem" --config "$winner" --timer clock64 --json-out "$out/bench.jsonl" \
    >"$out/winner_bench_$i.txt" 2>&1 || status=1
done
"$python" scripts/compare_sdpa.py "${problems[@]}" --backends flash,cudnn --csv "$out/sdpa.csv" \
  --evotune-json "$out/bench.jsonl" --markdown "$out/side_by_side.md" >"$out/sdpa.txt" 2>&1 || status=1
cat "$out/side_by_side.md"
exit $status
