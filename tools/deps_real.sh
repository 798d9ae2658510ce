#!/usr/bin/env bash
# Creates the second Python environment the real-size benchmark models need
# (bench/realsize.py, the ONNX Runtime peer of bench/run.py), when missing:
# transformers 5.0.0rc1 wants tokenizers<=0.23.0 and huggingface-hub<2, while
# the test environment keeps the tokenizers its tokenizer tests use as a
# reference, so these pins (tools/requirements-real.txt) live apart. The new
# environment sees the test environment's packages (torch, executorch, numpy)
# behind its own through a .pth file: torch is not installed twice and the
# test environment is not changed.
#   tools/deps_real.sh [BASE_VENV [REAL_VENV]]   (default .venv, .venv-real)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:-$root/.venv}
real=${2:-$root/.venv-real}
[ -x "$base/bin/python" ] || { echo "deps_real: no $base (run tools/deps.sh --python)" >&2; exit 1; }
if [ ! -x "$real/bin/python" ]; then
  echo "deps_real: creating $real"
  /usr/bin/python3 -m venv "$real"
fi
own=$("$real/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
base_site=$("$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$base_site" > "$own/pterun_base_venv.pth"
# Installed at the pinned versions, in this environment's own folder?
if ! "$real/bin/python" - "$root/tools/requirements-real.txt" "$own" <<'PY'
import sys, importlib.metadata as m, os
from pip._vendor.packaging.requirements import Requirement
own = os.path.realpath(sys.argv[2])
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    r = Requirement(line)
    d = next((d for d in m.distributions(path=[own]) if d.metadata["Name"].lower().replace("_", "-") == r.name.lower()), None)
    if d is None or d.version not in r.specifier:
        sys.exit(1)
PY
then
  echo "deps_real: installing the real-size model packages into $real"
  "$real/bin/python" -m pip install -q -r "$root/tools/requirements-real.txt"
fi
