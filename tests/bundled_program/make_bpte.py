"""Writes the tiny .bpte files the bundled-program tests read, with
executorch's own BundledProgram API (run with the project's venv python):

  good.bpte  forward(x, y) = x * y + x on float32 [2, 3] (2 cases) and
             twice(h) = h + h on float16 [4] (1 case): every case passes
  bad.bpte   the same program; forward's case 1 expects 0.5 too much at
             element 4, so it fails there and nowhere else
  noisy.bpte forward's expected outputs off by 1e-3 everywhere: fails at the
             default tolerances, passes with --atol 1e-2
"""
import os
import sys

import torch
from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
from executorch.devtools.bundled_program.core import BundledProgram
from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
from executorch.exir import to_edge
from torch.export import export


class Model(torch.nn.Module):
    def forward(self, x, y):
        return x * y + x

    def twice(self, h):
        return h + h


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *a):
        return self.fn(*a)


def main(out_dir):
    m = Model()
    fwd_cases = [(torch.arange(6.0).reshape(2, 3), torch.full((2, 3), 0.5)),
                 (torch.linspace(-1, 1, 6).reshape(2, 3), torch.linspace(2, 3, 6).reshape(2, 3))]
    h_cases = [(torch.tensor([0.5, -1.0, 2.0, 1000.0], dtype=torch.float16),)]
    prog = to_edge({"forward": export(_Fn(m.forward), fwd_cases[0], strict=True),
                    "twice": export(_Fn(m.twice), h_cases[0], strict=True)}).to_executorch()

    def write(name, fwd_expected):
        suites = [
            MethodTestSuite("forward", [MethodTestCase(inputs=list(i), expected_outputs=[e])
                                        for i, e in zip(fwd_cases, fwd_expected)]),
            MethodTestSuite("twice", [MethodTestCase(inputs=list(i), expected_outputs=[m.twice(*i)])
                                      for i in h_cases]),
        ]
        data = serialize_from_bundled_program_to_flatbuffer(BundledProgram(prog, suites))
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print(name, len(data), "bytes")

    good = [m.forward(*i) for i in fwd_cases]
    write("good.bpte", good)
    wrong = good[1].clone()
    wrong.view(-1)[4] += 0.5
    write("bad.bpte", [good[0], wrong])
    write("noisy.bpte", [g + 1e-3 for g in good])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
