#!/usr/bin/env python3
"""What the selective build saves: builds pterun's kernel libraries holding
only the operators of one zoo program (-DPTERUN_SELECT_PROGRAMS) next to
the full build and prints the stripped sizes of both, as a row for
bench/results.md.

    python3 bench/selective_size.py --build build [--model zoo/models/mobilenet_v2_tiny/model.pte]
                                    [--record bench/results.json]

--record adds the row to results.json's "selective_build" (replacing the
same program's) and re-renders results.md, whose "Selective build" section
bench/report.py writes from it.

The full libraries are taken from --build (built if missing); the selective
build goes to <build>/bench-selective (reused on the next run).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run import strip_size  # noqa: E402  (one place measures library sizes)

LIBS = ("libpterun_kernels_portable", "libpterun_kernels_optimized")


def sh(argv):
    r = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    if r.returncode != 0:
        sys.exit(f"selective_size: {' '.join(argv)} failed:\n{r.stdout}\n{r.stderr}")
    return r.stdout


def lib_path(build, name):
    d = os.path.join(build, "kernels", name.split("_")[-1])
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        if f.startswith(name + ".so") and not os.path.islink(p):
            return p
    sys.exit(f"selective_size: no {name} in {d}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--model", default=os.path.join(REPO, "zoo", "models", "mobilenet_v2_tiny", "model.pte"))
    ap.add_argument("--record", help="results.json to record the row into (results.md is re-rendered)")
    args = ap.parse_args()
    full, sel = os.path.abspath(args.build), os.path.join(os.path.abspath(args.build), "bench-selective")
    model = os.path.abspath(args.model)
    targets = ["pterun_kernels_portable", "pterun_kernels_optimized"]
    sh(["cmake", "--build", full, "--target", *targets])
    cfg = ["cmake", "-S", REPO, "-B", sel, "-DCMAKE_BUILD_TYPE=Release", f"-DPTERUN_SELECT_PROGRAMS={model}",
           "-DPTERUN_BUILD_TESTS=OFF", "-DPTERUN_BUILD_BENCH=OFF", "-DPTERUN_BUILD_XNNPACK=OFF"]
    if os.path.exists(os.path.join(full, "build.ninja")):
        cfg += ["-G", "Ninja"]
    sh(cfg)
    sh(["cmake", "--build", sel, "--target", *targets])
    ops = sh([sys.executable, os.path.join(REPO, "cmake", "pte_operators.py"), model]).split()
    with tempfile.TemporaryDirectory() as tmp:
        a = sum(strip_size(lib_path(full, n), tmp)["stripped_bytes"] for n in LIBS)
        b = sum(strip_size(lib_path(sel, n), tmp)["stripped_bytes"] for n in LIBS)
    name = os.path.relpath(model, REPO)
    print(f"| selective build for {name} ({len(ops)} operators) | kernel libraries (portable + optimized), "
          f"stripped | {a / 1024:.1f} KB → {b / 1024:.1f} KB | saves {(a - b) / 1024:.1f} KB ({100 * (a - b) / a:.0f}%) |")
    if args.record:
        record(args.record, {"program": name, "operators": len(ops), "full_bytes": a, "selective_bytes": b})
    return 0


def record(path: str, row: dict) -> None:
    import datetime
    import json

    import report

    with open(path) as f:
        res = json.load(f)
    sel = res.setdefault("selective_build", {"rows": []})
    sel["rows"] = [r for r in sel["rows"] if r["program"] != row["program"]] + [row]
    sel["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    res.setdefault("warnings", [])
    report.write_all(res, os.path.dirname(os.path.abspath(path)))


if __name__ == "__main__":
    sys.exit(main())
