"""Writes the tiny programs test_fuse.c loads for the rule that packs a
patch convolution's filter (kernel == stride, no padding: ViT's embedding)
at load (run with the venv's python: `python tests/runtime/fuse/make_patches.py`;
the .pte files are committed)."""
import os

import torch
from executorch.exir import to_edge

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(13)


class Patches(torch.nn.Module):  # constant filter: packed at load
    def __init__(self, k=(4, 4), bias=True):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 24, k, stride=k, bias=bias)

    def forward(self, x):
        return self.c(x)


class Overlap(torch.nn.Module):  # stride below the kernel: not patches
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 24, 4, stride=2)

    def forward(self, x):
        return self.c(x)


class Inputs(torch.nn.Module):  # the filter a method input: nothing to pack
    def forward(self, x, w):
        return torch.nn.functional.conv2d(x, w, stride=4)


x = torch.randn(2, 3, 17, 22)  # 4x5 patches of 4x4, the last rows and columns dropped
CASES = {"patch_conv": (Patches(), (x,)), "patch_rect_nobias": (Patches((2, 3), False), (x,)),
         "patch_overlap": (Overlap(), (x,)), "patch_inputs": (Inputs(), (x, torch.randn(24, 3, 4, 4)))}

for name, (mod, args) in CASES.items():
    ep = torch.export.export(mod.eval(), args)
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep).to_executorch().buffer)
