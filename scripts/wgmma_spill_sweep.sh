#!/usr/bin/env bash
# Compiles a grid of mma=wgmma configs for sm_90a (no GPU needed) and writes, per config, the spilled bytes
# ptxas reported: the data behind excluded_by_default's wgmma rule (attention_family.cpp), and the fixture
# tests/data/wgmma_spills_sm90a.txt that AttentionWgmma.CertainSpillRuleMatchesTheSweep reads.
#   scripts/wgmma_spill_sweep.sh [BUILD_DIR] > tests/data/wgmma_spills_sm90a.txt
#   CAUSAL=0 scripts/wgmma_spill_sweep.sh [BUILD_DIR] > tests/data/wgmma_spills_sm90a_noncausal.txt
#   DS=256 BLOCK_NS="32 64 80 96" scripts/wgmma_spill_sweep.sh [BUILD_DIR] > tests/data/wgmma_spills_sm90a_d256.txt
# Environment: CAUSAL (default 1), DS (head dims, default "64 128"), MIN_CTAS (default 1), BLOCK_NS (default
# "64 96 128 144 160 176 192"),
# PRODUCER_REGS (default "0 24 32"); e.g. the min_ctas=2 sweep
# (lab/h100/hopper/probe.tar.xz: call9/min_ctas2_spill_sweep.txt):
#   MIN_CTAS=2 BLOCK_NS="16 32 64 80 96 112 128" PRODUCER_REGS="0 24 32 40 56" scripts/wgmma_spill_sweep.sh
# Columns: d block_m block_n producer_regs overlap spilled_store_bytes ("invalid": refused by the rules;
# "error": no CUBIN, ptxas gave up for want of registers). bf16, causal unless CAUSAL=0, grid scheduler, unsplit;
# pingpong where there are two consumer warpgroups.
set -euo pipefail
cd "$(dirname "$0")/.."
evotune="${1:-build}/cli/evotune"
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
one() {
  local d=$1 bm=$2 bn=$3 pr=$4 ov=$5 pp=off
  [ "$bm" -ge 128 ] && pp=on
  local out
  out=$("$evotune" --cache-dir "$cache" compile --problem "b=1,hq=8,sq=2048,d=$d,causal=$causal,dtype=bf16" --target sm_90a \
    --config "mma=wgmma,block_m=$bm,block_n=$bn,stages=2,producer_regs=$pr,overlap=$ov,pingpong=$pp,min_ctas=$min_ctas" \
    2>&1 || true)
  local stored
  stored=$(sed -n 's/^ *spills *\([0-9]*\) B stored.*/\1/p' <<<"$out")
  grep -q "is invalid for" <<<"$out" && stored=invalid  # the rules refuse it (shared memory)
  echo "$d $bm $bn $pr $([ "$ov" = on ] && echo 1 || echo 0) ${stored:-error}"
}
export -f one
min_ctas="${MIN_CTAS:-1}"
causal="${CAUSAL:-1}"
export evotune cache min_ctas causal
echo "# scripts/wgmma_spill_sweep.sh (causal=$causal): d block_m block_n producer_regs overlap spilled_store_bytes (sm_90a)"
for d in ${DS:-64 128}; do for bm in 64 128 192; do for bn in ${BLOCK_NS:-64 96 128 144 160 176 192}; do
  for pr in ${PRODUCER_REGS:-0 24 32}; do for ov in on off; do
    [ "$bm" -eq 64 ] && [ "$pr" -ne 0 ] && continue
    echo "$d $bm $bn $pr $ov"
  done; done
done; done; done | xargs -P "$(nproc)" -L1 bash -c 'one "$@"' _ | sort -n -k1 -k2 -k3 -k4 -k5
