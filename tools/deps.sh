#!/usr/bin/env bash
# Installs what building and testing pterun needs, when it is missing:
# Debian packages (apt-get, needs root or sudo) and a Python virtual
# environment in .venv with the test tools, torch 2.13.0 (CPU) and the pinned
# ExecuTorch exporter.
#   tools/deps.sh [--python]     (--python: also the Python test environment)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

apt_pkgs=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
          libxnnpack-dev libpthreadpool-dev libcpuinfo-dev python3-venv python3-dev patchelf)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--python" ]; then
  venv="$root/.venv"
  if [ ! -x "$venv/bin/python" ]; then
    echo "deps: creating $venv"
    python3 -m venv "$venv"
  fi
  # torch==2.13.0 is the CPU build that lies on this machine's disk; executorch
  # 1.5.1 is the newest exporter release that works with it.
  if ! "$venv/bin/python" -c "import torch, executorch, pytest, numpy, matplotlib" 2>/dev/null; then
    echo "deps: installing Python packages into $venv"
    "$venv/bin/pip" install -q --upgrade pip
    "$venv/bin/pip" install -q -r "$root/tools/requirements-test.txt"
  fi
fi
