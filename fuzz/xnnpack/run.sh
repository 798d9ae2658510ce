#!/bin/sh
# Bounded fuzz run (CI): build dir with -DPTERUN_BUILD_FUZZERS=ON, seconds.
#   fuzz/xnnpack/run.sh BUILD_DIR [SECONDS] [ZOO_DIR]
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR [SECONDS] [ZOO_DIR]}
secs=${2:-60}
corpus=$(mktemp -d)
"$here/make_corpus.sh" "$corpus/seeds" "$3"
mkdir -p "$corpus/work"
ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
  "$build/fuzz/xnnpack/fuzz_xnnpack_payload" -max_total_time="$secs" -rss_limit_mb=4096 -max_len=200000 \
  -timeout=30 -seed="${FUZZ_SEED:-1}" "$corpus/work" "$corpus/seeds"
rm -rf "$corpus"
