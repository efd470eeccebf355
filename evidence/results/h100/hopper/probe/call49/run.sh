#!/usr/bin/env bash
# probe/call49: the 192-row persistent o_store=tma config against the default on seven non-causal d=64 shapes
# not used to find it (call48), chosen to test a rule: 192-row tiles >= 3 waves of SMs and <= 1/8 of rows padding.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call49
mapfile -t c <"$here/cases.txt"
ROUNDS=2 REPS=300 timeout 140 scripts/ab_builds.sh "$OUT/ab_rows192_heldout.txt" "main=build-device/cli/evotune" "${c[@]}"
