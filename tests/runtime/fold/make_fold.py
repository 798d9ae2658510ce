"""Writes the tiny programs test_fold.c loads (run with the venv's python:
`python tests/runtime/fold/make_fold.py`; the .pte files are committed)."""
import os

import torch
from executorch.exir import to_edge

HERE = os.path.dirname(os.path.abspath(__file__))


class Chain(torch.nn.Module):  # permute of a constant, then a view of it: both fold
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.arange(32, dtype=torch.float32).reshape(8, 4) / 8)

    def forward(self, x):
        return x.mm(self.w.t().contiguous().view(4, 8))


class Grow(torch.nn.Module):  # an expand of a constant grows: not folded
    def __init__(self):
        super().__init__()
        self.register_buffer("c", torch.arange(4, dtype=torch.float32).reshape(1, 4))

    def forward(self, x):
        return x + self.c.expand(16, 4)


class Out(torch.nn.Module):  # the permuted constant is a method output: not folded
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.arange(8, dtype=torch.float32).reshape(2, 4))

    def forward(self, x):
        return x + 1, self.w.permute(1, 0)


CASES = {"chain": (Chain(), (torch.ones(3, 4),)), "grow": (Grow(), (torch.ones(16, 4),)),
         "out": (Out(), (torch.ones(3, 4),))}

for name, (mod, args) in CASES.items():
    ep = torch.export.export(mod.eval(), args)
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep).to_executorch().buffer)
