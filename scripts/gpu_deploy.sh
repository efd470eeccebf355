#!/usr/bin/env bash
# The issue-5 GPU evidence (deploying a winner), on the device machine:
#   scripts/gpu_deploy.sh BUILD_DIR OUT_DIR [PART...]
# PROBLEM (default b4 hq16 s4096 d128 fp16 causal) is searched and deployed. Parts, in order (default all):
#   search    evo search, 300 trials (--evo offspring=12), into OUT_DIR/deploy.db; the search also records the
#             run's baselines (unfused cuBLAS attention, GEMM and copy peaks)
#   random    a random-strategy search of the same problem and budget into the same database (the report's
#             comparison curve); stopped after RANDOM_MINUTES (default 5) of wall time if not done
#   export    evotune export: the header (re-verified on this GPU), trials and evo_log as CSV, T4 JSON
#   example   the example program (built with the header it was built with: examples/tuned_attention.h
#             unless the build was configured otherwise) runs the exported winner and checks it
#   sdpa      PyTorch SDPA flash and cudnn on the same problem, the same way the issue-3/4 tables did
#   report    evotune report of the evo run (HTML; the screenshot is made on a machine with Chromium)
set -uo pipefail
cd "$(dirname "$0")/.."
build="$1" out="$2"
shift 2
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(search random export example sdpa report)
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
evotune="$build/cli/evotune"
problem="${PROBLEM:-b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16}"
db="$out/deploy.db"
python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
status=0
run() {  # run FILE COMMAND...: the command line and its output into OUT_DIR/FILE, wall time appended
  local file="$1"
  shift
  local start=$SECONDS
  { echo "\$ $*"; "$@"; } >"$out/$file" 2>&1
  local code=$?
  echo "(exit $code, $((SECONDS - start)) s wall)" >>"$out/$file"
  echo "== $file: exit $code in $((SECONDS - start)) s"
  tail -n 4 "$out/$file"
  [[ $code -eq 0 ]] || status=1
}
for part in "${parts[@]}"; do
  case "$part" in
    search)
      run search_evo.txt "$evotune" search --problem "$problem" --budget 300 --evo offspring=12 --seed 1 --devices 0 \
        --db "$db" ;;
    random)
      run search_random.txt "$evotune" search --problem "$problem" --strategy random --budget 300 --seed 1 \
        --devices 0 --max-minutes "${RANDOM_MINUTES:-5}" --db "$db" ;;
    export)
      run export_header.txt "$evotune" export --db "$db" --run 1 --out "$out/tuned_attention.h"
      run export_csv.txt "$evotune" export --db "$db" --run 1 --format csv --out "$out/trials_1.csv"
      run export_evo_log.txt "$evotune" export --db "$db" --format csv --table evo_log --out "$out/evo_log.csv"
      run export_t4.txt "$evotune" export --db "$db" --run 1 --format t4 --out "$out/run_1.t4.json" ;;
    example)
      cp "$build/examples/tuned_attention_header.txt" "$out/example_built_with.txt" 2>/dev/null
      run example.txt "$build/examples/tuned_attention_example" ;;
    sdpa)
      run sdpa.txt "$python" scripts/compare_sdpa.py --problem "$problem" --backends flash,cudnn --csv "$out/sdpa.csv" ;;
    report)
      run runs.txt "$evotune" runs --db "$db"
      run report.txt "$evotune" report --db "$db" --run 1 -o "$out/report_run1.html" ;;
    *) echo "gpu_deploy: unknown part '$part'" >&2; exit 2 ;;
  esac
  if [[ -n "${OUT:-}" && "$(realpath "$out")" != "$(realpath "$OUT")" ]]; then
    tar czf "$OUT/results.tgz" -C "$(dirname "$out")" "$(basename "$out")"
  fi
done
exit $status
