"""Writes the tiny programs test_fuse.c loads (run with the venv's python:
`python tests/runtime/fuse/make_fuse.py`; the .pte files are committed)."""
import os

import torch
from executorch.exir import to_edge

HERE = os.path.dirname(os.path.abspath(__file__))
F = torch.nn.functional
torch.manual_seed(7)


def bn(c):
    b = torch.nn.BatchNorm2d(c)
    with torch.no_grad():  # statistics far from (0, 1): a fold that drops a term shows
        b.running_mean.uniform_(-1, 1)
        b.running_var.uniform_(0.5, 2)
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-1, 1)
    return b


class Chain(torch.nn.Module):  # conv -> bn -> relu twice (with and without a conv bias): both fold
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = torch.nn.Conv2d(3, 4, 3, padding=1), bn(4)
        self.c2, self.b2 = torch.nn.Conv2d(4, 4, 3, padding=1, bias=False), bn(4)

    def forward(self, x):
        return torch.relu(self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))) * 2


class Twice(torch.nn.Module):  # the conv's output is read again after the bn: not folded
    def __init__(self):
        super().__init__()
        self.c, self.b = torch.nn.Conv2d(3, 4, 3, padding=1), bn(4)

    def forward(self, x):
        y = self.c(x)
        return torch.relu(self.b(y)) + y


class Stats(torch.nn.Module):  # Chain with the first statistics method inputs: that one stays
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.c2, self.b2 = torch.nn.Conv2d(4, 4, 3, padding=1, bias=False), bn(4)

    def forward(self, x, mean, var):
        mean = mean - 1  # computed first: the batch norm still follows its convolution
        y = torch.relu(F.batch_norm(self.c1(x), mean, var, training=False))
        return torch.relu(self.b2(self.c2(y))) * 2


class Between(torch.nn.Module):  # bn output read twice, a product written in between
    def __init__(self):
        super().__init__()
        self.c0 = torch.nn.Conv2d(3, 4, 1)
        self.c, self.b = torch.nn.Conv2d(4, 4, 3, padding=1), bn(4)

    def forward(self, x):
        z = self.b(self.c(torch.relu(self.c0(x))))
        return (z * 3) * z


class Pads(torch.nn.Module):  # explicit pads before unpadded convolutions
    def __init__(self, pad, value=0.0, twice=False):
        super().__init__()
        self.pad, self.value, self.twice = pad, value, twice
        self.c0 = torch.nn.Conv2d(3, 4, 1)
        self.c = torch.nn.Conv2d(4, 4, 3, groups=4)

    def forward(self, x):
        p = F.pad(torch.relu(self.c0(x)), self.pad, value=self.value)
        y = self.c(p)
        return y * 2 + (p[:, :, 1:-1, 1:-1] if self.twice else 0)


x = torch.randn(1, 3, 6, 6)
CASES = {"chain": (Chain(), (x,)), "twice": (Twice(), (x,)),
         "stats": (Stats(), (x, torch.rand(4), torch.rand(4) + 0.5)), "between": (Between(), (x,)),
         "pad": (Pads((1, 1, 1, 1)), (x,)),  # folds into the convolution
         "pad_value": (Pads((1, 1, 1, 1), 0.5), (x,)),  # not zeros: stays
         "pad_asym": (Pads((0, 1, 0, 1)), (x,)),  # one side only: stays
         "pad_twice": (Pads((1, 1, 1, 1), twice=True), (x,))}  # read again: stays

for name, (mod, args) in CASES.items():
    ep = torch.export.export(mod.eval(), args)
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep).to_executorch().buffer)
