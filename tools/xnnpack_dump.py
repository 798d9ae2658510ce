#!/usr/bin/env python3
"""Print the XnnpackBackend delegate payloads of a .pte as JSON.

    python3 tools/xnnpack_dump.py model.pte [--blobs DIR] [--summary]
    python3 tools/xnnpack_dump.py --seeds DIR a/model.pte b/model.pte ...

Decodes each payload's XNNHeader and its XNNGraph flatbuffer with the flatc
and schema.fbs shipped in the installed executorch package. --blobs writes
each raw payload to DIR/<method>_<index>.bin (fuzzer seeds); --summary prints
one line per delegate with its node types instead of the full graph.
--seeds writes the raw payloads of many programs, DIR/<folder>_<method>_<index>.bin
(<folder>: the program's folder name), without decoding them: one process for
the whole fuzzer corpus instead of one per program; a program that cannot be
read is skipped.
"""
import argparse
import collections
import importlib.resources
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")


def payloads(pte_path):
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(pte_path, "rb") as f:
        buf = f.read()
    pte = deserialize_pte_binary(buf)
    prog = getattr(pte, "program", pte)
    for plan in prog.execution_plan:
        for i, d in enumerate(plan.delegates):
            if d.id != "XnnpackBackend":
                continue
            if d.processed.location != 0:
                raise SystemExit("delegate data not inlined by the deserializer")
            yield plan.name, i, bytes(prog.backend_delegate_data[d.processed.index].data)


def decode(blob):
    pkg = importlib.resources.files("executorch")
    flatc = str(pkg / "data" / "bin" / "flatc")
    schema = str(pkg / "backends" / "xnnpack" / "serialization" / "schema.fbs")
    header = None
    fb = blob
    if blob[4:8] == b"XH00":
        hlen, fo, fs, co, cs = struct.unpack_from("<HIIIQ", blob, 8)
        header = {"header_length": hlen, "flatbuffer_offset": fo, "flatbuffer_size": fs,
                  "constant_offset": co, "constant_size": cs}
        fb = blob[fo:fo + fs]
    with tempfile.TemporaryDirectory() as td:
        p = os.path.join(td, "g.bin")
        with open(p, "wb") as f:
            f.write(fb)
        subprocess.run([flatc, "--json", "--strict-json", "--raw-binary", "--defaults-json",
                        "-o", td, schema, "--", p], check=True, capture_output=True)
        with open(os.path.join(td, "g.json")) as f:
            text = f.read()
    # flatc writes non-finite floats (clamp bounds) as bare inf/nan.
    text = re.sub(r"(?<=[:\[,\s])(-?)inf\b", lambda m: m.group(1) + "Infinity", text)
    text = re.sub(r"(?<=[:\[,\s])-?nan\b", "NaN", text)
    graph = json.loads(text)
    return header, graph


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pte", nargs="+")
    ap.add_argument("--blobs", help="write raw payloads here")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--seeds", help="write every program's raw payloads here (no decoding)")
    a = ap.parse_args()
    if a.seeds:
        os.makedirs(a.seeds, exist_ok=True)
        n = 0
        for pte in a.pte:
            folder = os.path.basename(os.path.dirname(os.path.abspath(pte)))
            try:
                blobs = list(payloads(pte))
            except Exception as e:  # a program the deserializer refuses gives no seeds
                print(f"{pte}: skipped ({type(e).__name__})", file=sys.stderr)
                continue
            for method, i, blob in blobs:
                with open(os.path.join(a.seeds, f"{folder}_{method}_{i}.bin"), "wb") as f:
                    f.write(blob)
                n += 1
        print(f"{n} payloads from {len(a.pte)} programs")
        return
    if len(a.pte) != 1:
        ap.error("one program at a time without --seeds")
    a.pte = a.pte[0]
    out = []
    for method, i, blob in payloads(a.pte):
        if a.blobs:
            os.makedirs(a.blobs, exist_ok=True)
            with open(os.path.join(a.blobs, f"{method}_{i}.bin"), "wb") as f:
                f.write(blob)
        header, graph = decode(blob)
        if a.summary:
            kinds = collections.Counter(n["xnode_union_type"] for n in graph.get("xnodes", []))
            dts = collections.Counter(
                (v["xvalue_union"].get("datatype") or v["xvalue_union"].get("tensor_value", {}).get("datatype"))
                for v in graph.get("xvalues", []))
            print(f"{method} delegate {i}: {len(blob)} bytes, {len(graph.get('xvalues', []))} values, "
                  f"nodes {dict(kinds)}, datatypes {dict(dts)}")
        else:
            out.append({"method": method, "delegate": i, "size": len(blob), "header": header, "graph": graph})
    if not a.summary:
        json.dump(out, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
