#!/usr/bin/env bash
# Copies what the GPU machine needs from a release build into build-device/ (ignored by git, ~17 MB), in
# the build tree's layout, and packs that into build-pack/build-device.tar.xz (~3 MB), for the device tool's
# `carry`:
#   scripts/device_pack.sh [BUILD_DIR] [BASE_BUILD_DIR]
# BASE_BUILD_DIR, a release build of another commit (a rule change's parent), travels as build-base/ (its
# evotune and source_commit.txt), for gpu_hopper.sh's probe with BASE_BUILD=build-base: build against build.
# The device tool carries at most 64 MiB with the working tree, whose tracked files (evidence databases
# above all) passed 50 MiB, so the archive is what travels: carry ["build-pack"] and start the command with
#   tar xJf build-pack/build-device.tar.xz &&
# There: LD_LIBRARY_PATH=/usr/local/cuda/lib64 build-device/cli/evotune ... (build-device/lib/ holds muParser,
# found through the binaries' RPATH); the tests find the checkout
# through EVOTUNE_SOURCE_DIR and the binary beside them.
# With DEVICE_PACK=cli only the CLI travels (~1.6 MB packed instead of ~3): enough for gpu_hopper.sh's
# machine, sdpa, probe, bench and sanitize steps. (The tracked tree once reached ~65 MiB on disk and the full
# pack was refused; the closed probe calls' probe.jsonl are gzipped since, ~54 MiB, and the closed probe calls
# are archived in lab/ (lab/README.md), ~43 MiB; grown to ~46 MiB, the superseded run folders of
# evidence/results/h100/ were archived there too (issue 49), ~39 MiB.)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
base="${2:-}"
rm -rf build-device build-base
mkdir -p build-device/cli
cp "$build/cli/evotune" build-device/cli/
cp "$build/source_commit.txt" build-device/
if [[ ${DEVICE_PACK:-all} != cli ]]; then
  mkdir -p build-device/tests build-device/examples build-device/deploy
  cp "$build/tests/evotune_tests" build-device/tests/
  cp "$build/examples/tuned_attention_example" "$build/examples/tuned_attention_header.txt" build-device/examples/
  cp "$build/deploy/libevotune_capi.so" build-device/deploy/
fi
# Shared libraries the GPU machine may lack: muParser (the user-kernel family's expressions) and the OpenMP
# runtime it needs. The binaries find them in lib/ through their RPATH ($ORIGIN/../lib; see
# families/user_kernel/CMakeLists.txt).
mkdir -p build-device/lib
for binary in build-device/cli/evotune build-device/tests/evotune_tests; do
  [[ -f $binary ]] || continue
  ldd "$binary" | awk '/libmuparser|libgomp/ && $3 ~ /^\// {print $3}' | while read -r library; do
    [[ -e build-device/lib/$(basename "$library") ]] || cp -L "$library" build-device/lib/
  done
done
packed=(build-device)
if [[ -n $base ]]; then
  mkdir -p build-base/cli
  cp "$base/cli/evotune" build-base/cli/
  cp "$base/source_commit.txt" build-base/
  packed+=(build-base)
fi
mkdir -p build-pack
tar cJf build-pack/build-device.tar.xz "${packed[@]}"
du -sh "${packed[@]}" build-pack/build-device.tar.xz
