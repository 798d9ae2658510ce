"""Writes the tiny attention programs test_fuse.c loads for the copy-elision
and scaled-softmax rules (run with the venv's python:
`python tests/runtime/fuse/make_attn.py`; the .pte files are committed)."""
import os

import torch
from executorch.exir import to_edge

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(23)


class Attn(torch.nn.Module):  # ViT's self-attention: scores * scale, softmax, dropout clone, expand for bmm
    def __init__(self, width=16, heads=2, keep=False):
        super().__init__()
        self.h, self.d, self.keep = heads, width // heads, keep
        self.q, self.k, self.v = (torch.nn.Linear(width, width) for _ in range(3))
        self.drop = torch.nn.Dropout(0.0)

    def split(self, t):
        b, n, _ = t.shape
        return t.view(b, n, self.h, self.d).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        s = torch.matmul(q, k.transpose(-1, -2)) * (self.d ** -0.5)
        p = self.drop(torch.softmax(s, dim=-1))
        o = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        o = o.view(x.shape[0], x.shape[1], -1)
        # the scaled scores read again: the multiply stays
        return o + s.sum() if self.keep else o


x = torch.randn(1, 9, 16)
CASES = {"attn": Attn(), "attn_kept": Attn(keep=True)}
for name, mod in CASES.items():
    ep = torch.export.export(mod.eval(), (x,))
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep).to_executorch().buffer)
