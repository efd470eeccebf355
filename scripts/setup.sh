#!/usr/bin/env bash
# Installs what evotune's build needs from Debian packages. Idempotent: runs `apt-get update` once, and
# only when a package is missing. The CUDA toolkit (nvcc, NVRTC, headers) must already be installed.
set -euo pipefail

packages=(cmake g++ make libfmt-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev libtomlplusplus-dev libmuparser-dev zlib1g-dev googletest libgtest-dev libgmock-dev
  chromium fonts-dejavu-core python3)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all packages present"
fi

cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if ! command -v nvcc >/dev/null && [[ ! -x "$cuda_home/bin/nvcc" ]]; then
  echo "setup: no CUDA toolkit found (nvcc not on PATH, none in $cuda_home); install CUDA 12 or newer" >&2
  exit 1
fi
if [[ ! -f "$cuda_home/include/nvrtc.h" ]] && ! command -v nvcc >/dev/null; then
  echo "setup: $cuda_home has no nvrtc.h; set CUDA_HOME to the toolkit" >&2
  exit 1
fi
