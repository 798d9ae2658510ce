#!/usr/bin/env bash
# Formats pterun's C sources with clang-format (.clang-format at the root).
#   tools/format.sh          rewrite the files in place
#   tools/format.sh --check  list the files that differ and fail (make test-format)
#   either followed by files: only those (default: every tracked .c and .h)
# The clang-format is the one tools/toolchain.py resolved (Debian's 14): another
# release formats some constructs differently.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cf="$root/.venv/toolchain/clang-format"
[ -x "$cf" ] || { echo "format: $cf missing: run make deps" >&2; exit 2; }
check=false
if [ "${1:-}" = "--check" ]; then check=true; shift; fi
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files '*.c' '*.h'); fi
if $check; then
  bad=()
  for f in "${files[@]}"; do
    if ! "$cf" --style="file:$root/.clang-format" "$f" | cmp -s - "$f"; then bad+=("$f"); fi
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} file(s) differ from .clang-format (run tools/format.sh):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files match .clang-format"
else
  "$cf" --style="file:$root/.clang-format" -i "${files[@]}"
fi
