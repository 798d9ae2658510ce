#!/bin/sh
# Seed corpus for fuzz_xnnpack_payload (PYTHON: a python with executorch, as
# make fuzz passes; the system one cannot dump .pte files): every XnnpackBackend payload of the
# zoo's xnnpack group, of its delegated quantized and fp16 cases and of the delegate's node-coverage
# cases.
#   fuzz/xnnpack/make_corpus.sh OUT_DIR [ZOO_DIR]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: make_corpus.sh OUT_DIR [ZOO_DIR]}
zoo=${2:-$root/zoo}
mkdir -p "$out"
for p in "$root"/tests/backend_xnnpack/payloads/*/payload.bin; do
  [ -e "$p" ] && cp "$p" "$out/payload_$(basename "$(dirname "$p")").bin"
done
# One python process dumps every program's payloads (a start per program cost minutes).
find "$root/tests/backend_xnnpack/cases" "$zoo/xnnpack" "$zoo/quantized" -path '*xnnpack*' -name model.pte 2>/dev/null | sort |
  xargs "${PYTHON:-python3}" "$root/tools/xnnpack_dump.py" --seeds "$out" >/dev/null 2>&1
# Without the programs' payloads the gate would fuzz a fraction of the delegate.
ls "$out" | grep -qv '^payload_' || { echo "make_corpus.sh: no payload dumped from the programs" >&2; exit 1; }
for r in "$root"/fuzz/regress/xnnpack_payload/*; do
  [ -e "$r" ] && cp "$r" "$out/regress_$(basename "$r")"
done
echo "$(ls "$out" | wc -l) seed payloads in $out"
