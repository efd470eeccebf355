#!/usr/bin/env bash
# Set up, build, and run evotune's main job, saying which one it ran:
#  - with a GPU: the search of the main problem on GPU 0 (evo, 300 trials in generations of 16; about half
#    a minute on an H100; scripts/main_search.sh), recorded in evotune.db, then its log and best trials;
#  - without one: a compile-only sweep of that problem's search space for sm_90a into the cubin cache,
#    recorded in evotune.db (the cache can be carried to the GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
cmake --preset release >/dev/null
cmake --build --preset release --target evotune

source scripts/main_search.sh  # main_problem, main_search_args
problem="$main_problem"
status=0
build/cli/evotune devices || status=$?
if [[ $status -eq 0 ]]; then
  echo "run: GPU found; searching $problem on GPU 0 (recorded in evotune.db)"
  build/cli/evotune search --problem "$problem" "${main_search_args[@]}" --db evotune.db
  build/cli/evotune log --db evotune.db --run "$(build/cli/evotune runs --db evotune.db | awk 'END { print $1 }')"
  build/cli/evotune top --db evotune.db -n 5
elif [[ $status -eq 3 ]]; then
  echo "run: no GPU on this machine; compile-only sweep of $problem for sm_90a (recorded in evotune.db)"
  build/cli/evotune search --problem "$problem" --compile-only --target sm_90a --budget 32 --db evotune.db
  build/cli/evotune runs --db evotune.db
else
  exit $status
fi
