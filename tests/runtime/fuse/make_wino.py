"""Writes the tiny programs test_fuse.c loads for the Winograd filter rule
(run with the venv's python: `python tests/runtime/fuse/make_wino.py`; the
.pte files are committed)."""
import os

import torch
from executorch.exir import to_edge

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(12)


class Conv(torch.nn.Module):  # 3x3 stride 1, constant weight: transformed at load
    def __init__(self, stride=1):
        super().__init__()
        self.c = torch.nn.Conv2d(8, 8, 3, stride=stride, padding=1)

    def forward(self, x):
        return self.c(x)


class ConvBn(torch.nn.Module):  # the batch norm folded first, then the scaled filter transformed
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(8)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.relu(self.bn(self.c(x)))


class Inputs(torch.nn.Module):  # the filter a method input: nothing to transform
    def forward(self, x, w):
        return torch.nn.functional.conv2d(x, w, padding=1)


x = torch.randn(1, 8, 16, 16)
CASES = {"wino_conv": (Conv(), (x,)), "wino_conv_bn": (ConvBn(), (x,)),
         "wino_inputs": (Inputs(), (x, torch.randn(8, 8, 3, 3))),
         "wino_small": (Conv(), (torch.randn(1, 8, 8, 8),)),  # 64 outputs: direct is faster
         "wino_stride2": (Conv(2), (x,))}

for name, (mod, args) in CASES.items():
    ep = torch.export.export(mod.eval(), args)
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep).to_executorch().buffer)
