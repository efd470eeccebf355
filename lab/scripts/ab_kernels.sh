#!/usr/bin/env bash
# A/B of two builds' attention kernels on one GPU, in one call: each (problem, config) benched by each build's
# `evotune bench` in turn, ROUNDS rounds interleaved (so that drift hits both), no baselines; prints the
# median of each round and the ratio B/A of the medians of the rounds.
#   lab/scripts/ab_kernels.sh EVOTUNE_A EVOTUNE_B OUT_FILE 'PROBLEM|CONFIG' ...
# (Used to check that strided layouts cost the dense kernels nothing: A built before them, B after.)
set -uo pipefail
a=$1 b=$2 out=$3
shift 3
rounds=${ROUNDS:-3}
median_of() { "$1" --no-cache bench --problem "$2" --config "$3" --no-baseline --reps "${REPS:-300}" --json 2>/dev/null |
  python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["kernel"]["median_us"])' 2>/dev/null || echo nan; }
{
  echo "# A: $a; B: $b; $rounds interleaved rounds of evotune bench --no-baseline --reps ${REPS:-300} (median us)"
  for case in "$@"; do
    problem=${case%%|*} config=${case#*|}
    as=() bs=()
    for ((r = 0; r < rounds; r++)); do
      as+=("$(median_of "$a" "$problem" "$config")")
      bs+=("$(median_of "$b" "$problem" "$config")")
    done
    python3 - "$problem" "$config" "${as[*]}" "${bs[*]}" <<'PY'
import statistics, sys
problem, config, a, b = sys.argv[1:5]
a = [float(x) for x in a.split()]; b = [float(x) for x in b.split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"{problem}\n  {config}\n  A {' '.join(f'{x:.2f}' for x in a)} -> {ma:.2f} us; B {' '.join(f'{x:.2f}' for x in b)} -> {mb:.2f} us; B/A {mb / ma:.3f}")
PY
  done
} | tee "$out"
