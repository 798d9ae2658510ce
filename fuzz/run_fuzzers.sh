#!/usr/bin/env bash
# Run every fuzzer for a bounded time, each seeded from the zoo and from
# fuzz/regress/NAME/ (inputs that once found a bug: keep them there).
#   fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_FUZZER]
# FUZZ_SEED (default 1) fixes libFuzzer's random choices so that a gate run
# explores the same inputs each time; FUZZ_SEED=0 draws a new seed (for
# exploring: run it long, then add what it finds to fuzz/regress).
set -euo pipefail
build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/program" "$work/npy" "$work/data_map"
i=0
while IFS= read -r f; do cp "$f" "$work/program/seed_$i.pte"; i=$((i+1)); done < <(find "$root/zoo" -name model.pte | sort)
i=0
while IFS= read -r f; do cp "$f" "$work/npy/seed_$i.npy"; i=$((i+1)); done < <(find "$root/zoo" -name '*.npy' | sort | head -200)
i=0
while IFS= read -r f; do cp "$f" "$work/data_map/seed_$i.ptd"; i=$((i+1)); done < <(find "$root/zoo" -name '*.ptd' | sort)
for name in program npy data_map; do
  [ -d "$root/fuzz/regress/$name" ] && cp "$root/fuzz/regress/$name"/* "$work/$name/" 2>/dev/null || true
done
seed=${FUZZ_SEED:-1}
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Two groups side by side, one per core (the gate's time halves; each fuzzer
# keeps its seconds): the format fuzzers, then the components' own.
format_fuzzers() {
  local status=0
  for name in program npy data_map; do
    bin="$build/fuzz/fuzz_$name"
    [ -x "$bin" ] || { echo "missing $bin" >&2; exit 1; }
    extra=()
    [ -d "$root/fuzz/dict" ] && [ -f "$root/fuzz/dict/$name.dict" ] && extra+=("-dict=$root/fuzz/dict/$name.dict")
    echo "== fuzz_$name for ${secs}s ($(ls "$work/$name" | wc -l) seeds, seed $seed)"
    if ! "$bin" "$work/$name" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=20 \
         -max_len=1048576 -seed="$seed" -print_final_stats=1 "${extra[@]}" 2>"$work/$name.log"; then
      tail -60 "$work/$name.log" >&2
      echo "fuzz_$name FAILED" >&2
      status=1
    else
      grep -E "stat::number_of_executed_units|Done" "$work/$name.log" | tail -2
    fi
  done
  return $status
}
component_fuzzers() {
  local status=0
  # Components with their own fuzzers and seed corpora.
  if [ -x "$build/fuzz/xnnpack/fuzz_xnnpack_payload" ]; then
    echo "== fuzz_xnnpack_payload for ${secs}s"
    if ! "$root/fuzz/xnnpack/run.sh" "$build" "$secs" "$root/zoo" >"$work/xnnpack.log" 2>&1; then
      tail -60 "$work/xnnpack.log" >&2
      echo "fuzz_xnnpack_payload FAILED" >&2
      status=1
    else
      grep -E "Done" "$work/xnnpack.log" | tail -1
    fi
  fi
  # The four tokenizer targets share about one fuzzer's time (small inputs).
  if [ -x "$build/fuzz/tokenizers/fuzz_tokenizer_json" ]; then
    if ! "$root/fuzz/tokenizers/run.sh" "$build" $((secs / 3 > 5 ? secs / 3 : 5)) >"$work/tokenizers.log" 2>&1; then
      tail -60 "$work/tokenizers.log" >&2
      echo "fuzz_tokenizer_* FAILED" >&2
      status=1
    else
      grep -E "^==|Done" "$work/tokenizers.log"
    fi
  fi
  if [ -x "$build/fuzz/bundled_program/fuzz_bundled_program" ]; then
    echo "== fuzz_bundled_program for ${secs}s"
    if ! "$root/fuzz/bundled_program/run.sh" "$build" "$secs" >"$work/bundled_program.log" 2>&1; then
      tail -60 "$work/bundled_program.log" >&2
      echo "fuzz_bundled_program FAILED" >&2
      status=1
    else
      grep -E "stat::number_of_executed_units|Done" "$work/bundled_program.log" | tail -2
    fi
  fi
  return $status
}
format_fuzzers >"$work/group1.out" 2>&1 &
g1=$!
status=0
component_fuzzers >"$work/group2.out" 2>&1 || status=1
wait $g1 || status=1
cat "$work/group1.out" "$work/group2.out"
exit $status
