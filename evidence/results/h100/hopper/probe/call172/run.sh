#!/usr/bin/env bash
# probe/call172: upload_race_sizes.cpp (built on the CPU machine, carried as build-pack/upload_race_sizes):
# call171's race probe at GpuSmoke's sizes, a fresh buffer each round, 2000 rounds a size (200 above 1 MiB).
set -uo pipefail
mkdir -p "$OUT/race"
timeout 120 build-pack/upload_race_sizes 2000 2>&1 | tee "$OUT/race/upload_race_sizes.txt"
