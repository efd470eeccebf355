#!/usr/bin/env bash
# The Python environment the PyTorch op's CPU tests run in: a virtual environment at .venv/ (git-ignored)
# with torch 2.11.0, the version on the H100 machine, from PyPI (about a minute and 4.6 GB with its NVIDIA
# wheels, which torch's import needs even without a GPU). Created when missing or when torch does not import;
# otherwise left as it is. Prints the interpreter's path.
#   scripts/python_env.sh
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
torch_version=2.11.0
if ! "$venv/bin/python" -c "import torch" >/dev/null 2>&1; then
  echo "python_env: creating $venv with torch==$torch_version (PyPI)" >&2
  python3 -m venv "$venv" || { echo "python_env: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "torch==$torch_version" >&2
fi
echo "$PWD/$venv/bin/python"
