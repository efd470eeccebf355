#!/usr/bin/env bash
# probe/call48: call47's s768 winner (192-row tiles, pingpong, overlap, persistent, o_store=tma) against the
# default on other non-causal d=64 shapes, short and long. Run from the repository root, build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call48
mapfile -t c <"$here/cases.txt"
ROUNDS=2 REPS=300 timeout 200 scripts/ab_builds.sh "$OUT/ab_rows192.txt" "main=build-device/cli/evotune" "${c[@]}"
