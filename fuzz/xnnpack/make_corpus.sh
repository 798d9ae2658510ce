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
for pte in $(find "$root/tests/backend_xnnpack/cases" "$zoo/xnnpack" "$zoo/quantized" -path '*xnnpack*' -name model.pte 2>/dev/null | sort); do
  name=$(basename "$(dirname "$pte")")
  "${PYTHON:-python3}" "$root/tools/xnnpack_dump.py" "$pte" --summary --blobs "$out/tmp" >/dev/null 2>&1 || continue
  for b in "$out"/tmp/*.bin; do
    [ -e "$b" ] && mv "$b" "$out/${name}_$(basename "$b")"
  done
done
rmdir "$out/tmp" 2>/dev/null || true
for r in "$root"/fuzz/regress/xnnpack_payload/*; do
  [ -e "$r" ] && cp "$r" "$out/regress_$(basename "$r")"
done
echo "$(ls "$out" | wc -l) seed payloads in $out"
