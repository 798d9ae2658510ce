#!/usr/bin/env python3
"""Export the chain programs the per-instruction figure is measured on.

    python3 bench/programs/make_chains.py [--out bench/programs] [--lengths 200,2000]

chain_<N>.pte computes x = x + y, N times, on two float32 tensors of shape
[4]: N KernelCall instructions of aten::add.out whose arithmetic is
negligible, so the time per instruction is the interpreter's dispatch cost
(argument lookup, kernel call, the kernel's own checks). The benchmark times
two lengths and takes the slope, which cancels everything per call (input
copy, Python, clocks). Exported with torch + executorch exactly like the zoo
(torch.export, to_edge_transform_and_lower, to_executorch), deterministic.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LENGTHS = (200, 2000)


class _Chain:
    """Built lazily so importing this file does not import torch."""

    @staticmethod
    def module(n: int):
        import torch

        class Chain(torch.nn.Module):
            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                for _ in range(n):
                    x = x + y
                return x

        return Chain().eval()


def export_chain(path: str, n: int) -> None:
    import numpy as np
    import torch
    from executorch.exir import to_edge_transform_and_lower

    warnings.filterwarnings("ignore")
    x, y = torch.zeros(4), torch.full((4,), 0.5)
    ep = torch.export.export(_Chain.module(n), (x, y))
    program = to_edge_transform_and_lower(ep).to_executorch()
    with open(path, "wb") as f:
        f.write(program.buffer)
    inputs = os.path.join(os.path.dirname(path), "inputs")
    os.makedirs(inputs, exist_ok=True)
    np.save(os.path.join(inputs, "0.npy"), x.numpy())
    np.save(os.path.join(inputs, "1.npy"), y.numpy())


def chain_path(out: str, n: int) -> str:
    return os.path.join(out, f"chain_{n}.pte")


def ensure_chains(out: str = HERE, lengths=DEFAULT_LENGTHS) -> list:
    """Paths of the chain programs, exporting the missing ones."""
    paths = []
    for n in lengths:
        p = chain_path(out, n)
        if not os.path.exists(p):
            print(f"bench: exporting {p}", file=sys.stderr)
            export_chain(p, n)
        paths.append(p)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--lengths", default=",".join(map(str, DEFAULT_LENGTHS)))
    args = ap.parse_args()
    for n in (int(s) for s in args.lengths.split(",")):
        p = chain_path(args.out, n)
        export_chain(p, n)
        print(f"{p}: {os.path.getsize(p)} bytes")


if __name__ == "__main__":
    main()
