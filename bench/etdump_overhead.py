#!/usr/bin/env python3
"""What profiling costs: a long chain of tiny operators, executed by pterun with
no tracer attached and with the etdump profiler recording every instruction.

    python bench/etdump_overhead.py [--ops 500] [--iterations 2000] [--rounds 5]
                                    [--pterun build/cli/pterun] [--program chain.pte]

The program (x = x + y, --ops times, on 4-element tensors) is exported once
with torch + executorch into a temporary folder (or taken from --program).
Each round runs `pterun run` twice, without and with --profile, and reads the
median latency it prints; the best round of each is kept. Reported: ns per
instruction with the tracer off, with it on, and the difference, which is the
price of one traced instruction (two clock reads, one record, two interned
names). With the tracer off the interpreter runs a loop compiled without the
hook, so there the hook costs nothing per instruction.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def export_chain(path, ops):
    import torch
    from executorch.exir import to_edge_transform_and_lower

    class Chain(torch.nn.Module):
        def forward(self, x, y):
            for _ in range(ops):
                x = x + y
            return x

    x, y = torch.zeros(4), torch.ones(4)
    program = to_edge_transform_and_lower(torch.export.export(Chain().eval(), (x, y))).to_executorch()
    with open(path, "wb") as f:
        f.write(program.buffer)


def median_ms(pterun, program, iterations, profile):
    cmd = [pterun, "run", program, "--iterations", str(iterations), "--warmup", str(max(1, iterations // 10))]
    if profile:
        cmd.append("--profile")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = re.search(r"median ([\d.]+) ms", out)
    if not m:
        raise RuntimeError(f"no latency in pterun's output:\n{out}")
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=500)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pterun", default=os.environ.get("PTERUN", os.path.join(REPO, "build", "cli", "pterun")))
    ap.add_argument("--program", help="an existing chain program (skips the export)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    program = a.program
    if not program:
        program = os.path.join(tempfile.mkdtemp(prefix="etdump_bench_"), f"chain{a.ops}.pte")
        export_chain(program, a.ops)
    info = json.loads(subprocess.run([a.pterun, "info", program, "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    n = info["methods"][0]["instructions"]
    off, on = [], []
    for _ in range(a.rounds):
        off.append(median_ms(a.pterun, program, a.iterations, False))
        on.append(median_ms(a.pterun, program, a.iterations, True))
    best_off, best_on = min(off), min(on)
    per_off = best_off * 1e6 / n
    per_on = best_on * 1e6 / n
    result = {"instructions": n, "iterations": a.iterations, "rounds": a.rounds,
              "execute_us_off": best_off * 1e3, "execute_us_on": best_on * 1e3,
              "ns_per_instruction_off": per_off, "ns_per_instruction_on": per_on,
              "tracer_overhead_ns_per_instruction": per_on - per_off}
    if a.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{n} instructions, median of {a.iterations} executes, best of {a.rounds} rounds")
        print(f"  tracer off: {best_off * 1e3:9.2f} us per execute, {per_off:7.1f} ns per instruction")
        print(f"  tracer on : {best_on * 1e3:9.2f} us per execute, {per_on:7.1f} ns per instruction")
        print(f"  overhead  : {per_on - per_off:7.1f} ns per traced instruction "
              f"({100.0 * (best_on / best_off - 1):.0f}% on this chain of tiny ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
