#!/bin/sh
# Bounded fuzz run (CI), seeded from tests/bundled_program/*.bpte and
# fuzz/regress/bundled_program/ if present.
#   fuzz/bundled_program/run.sh BUILD_DIR [SECONDS]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir -p "$corpus/seeds" "$corpus/work"
cp "$root"/tests/bundled_program/*.bpte "$corpus/seeds/"
[ -d "$root/fuzz/regress/bundled_program" ] && cp "$root/fuzz/regress/bundled_program"/* "$corpus/seeds/" 2>/dev/null || true
ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  "$build/fuzz/bundled_program/fuzz_bundled_program" -max_total_time="$secs" -rss_limit_mb=2048 \
  -malloc_limit_mb=512 -max_len=65536 -timeout=20 -seed="${FUZZ_SEED:-1}" -print_final_stats=1 \
  "$corpus/work" "$corpus/seeds"
