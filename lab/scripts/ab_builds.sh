#!/usr/bin/env bash
# A/B/C... of several builds' attention kernels on one GPU, in one call: each (problem, config) benched by
# every build's `evotune bench` in turn, ROUNDS rounds interleaved (so that drift hits all), no baselines;
# prints the median of each round and each build's median over the first build's.
#   lab/scripts/ab_builds.sh OUT_FILE 'NAME=EVOTUNE,NAME=EVOTUNE,...' 'PROBLEM|CONFIG' ...
# (lab/scripts/ab_kernels.sh is the two-build case with its own output; this one isolates which of several
# changes moved a kernel.)
set -uo pipefail
out=$1 builds=$2
shift 2
rounds=${ROUNDS:-3}
IFS=',' read -ra named <<<"$builds"
median_of() { "$1" --no-cache bench --problem "$2" --config "$3" --no-baseline --reps "${REPS:-300}" --json 2>/dev/null |
  python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["kernel"]["median_us"])' 2>/dev/null || echo nan; }
{
  echo "# builds: $builds; $rounds interleaved rounds of evotune bench --no-baseline --reps ${REPS:-300} (median us)"
  for case in "$@"; do
    problem=${case%%|*} config=${case#*|}
    declare -A times=()
    for ((r = 0; r < rounds; r++)); do
      for nb in "${named[@]}"; do times[${nb%%=*}]+="$(median_of "${nb#*=}" "$problem" "$config") "; done
    done
    args=()
    for nb in "${named[@]}"; do args+=("${nb%%=*}:${times[${nb%%=*}]}"); done
    python3 - "$problem" "$config" "${args[@]}" <<'PY'
import statistics, sys
problem, config, *runs = sys.argv[1:]
print(f"{problem}\n  {config}")
first = None
for run in runs:
    name, values = run.split(":", 1)
    xs = [float(x) for x in values.split()]
    m = statistics.median(xs)
    first = first or m
    print(f"  {name:12s} {' '.join(f'{x:.2f}' for x in xs)} -> {m:.2f} us; /first {m / first:.3f}")
PY
    unset times
  done
} | tee "$out"
