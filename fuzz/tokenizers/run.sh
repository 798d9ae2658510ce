#!/usr/bin/env bash
# Bounded fuzz run of the tokenizer targets (the fuzz gate calls it):
#   fuzz/tokenizers/run.sh BUILD_DIR [SECONDS_PER_TARGET]
# Seeds: the committed test tokenizers and corpus (tests/llm/tokenizers/data)
# and the small hostile files in seeds/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
data="$root/tests/llm/tokenizers/data"
mkdir -p "$work/json" "$work/tiktoken" "$work/spm" "$work/text"
cp "$data"/*.json "$here"/seeds/*.json "$work/json/"
cp "$data"/*.tiktoken "$here"/seeds/*.tiktoken "$work/tiktoken/"
cp "$data"/*.model "$here"/seeds/*.model "$work/spm/"
cp "$here"/seeds/*.txt "$work/text/"
# the corpus lines as text seeds (first field of each reference line, hex)
i=0
cut -f1 "$data/gpt2_bpe.ref" | while read -r hex; do
  printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" > "$work/text/line_$i"
  i=$((i + 1))
done
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for name in json tiktoken spm text; do
  echo "== fuzz_tokenizer_$name for ${secs}s ($(ls "$work/$name" | wc -l) seeds)"
  if ! "$build/fuzz/tokenizers/fuzz_tokenizer_$name" "$work/$name" -max_total_time="$secs" -rss_limit_mb=2048 \
       -malloc_limit_mb=512 -timeout=20 -max_len=200000 -seed="${FUZZ_SEED:-1}" -print_final_stats=1 \
       2>"$work/$name.log"; then
    tail -60 "$work/$name.log" >&2
    echo "fuzz_tokenizer_$name FAILED" >&2
    status=1
  else
    grep -E "Done" "$work/$name.log" | tail -1
  fi
done
exit $status
