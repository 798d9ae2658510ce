"""Writes the tiny programs test_fuse.c loads for the tanh-GELU chain rule
(run with the venv's python: `python tests/runtime/fuse/make_gelu.py`; the
.pte files are committed)."""
import math
import os

import torch
from executorch.exir import to_edge

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(12)


def new_gelu(x, k=0.044715):  # transformers' NewGELUActivation (GPT-2), spelled out; and x**3
    half = 0.5 * x  # in the order the module's one expression evaluates
    p = torch.pow(x, 3.0)
    return half * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + k * p))), p


class Mlp(torch.nn.Module):  # Linear -> GELU chain -> Linear: the chain becomes one gelu
    def __init__(self, k=0.044715, again=False):
        super().__init__()
        self.up, self.down, self.k, self.again = torch.nn.Linear(40, 96), torch.nn.Linear(96, 24), k, again

    def forward(self, x):
        h = self.up(x)
        g, p = new_gelu(h, self.k)
        y = self.down(g)
        # x read last keeps its bytes (test_fuse runs twice on one input);
        # an intermediate of the chain read again: the chain stays
        y = y + x[:, :24]
        return y + p[:, :24] if self.again else y


x = torch.randn(5, 40) * 2
CASES = {"gelu_chain": Mlp(), "gelu_chain_other": Mlp(k=0.05), "gelu_chain_again": Mlp(again=True)}

for name, mod in CASES.items():
    ep = torch.export.export(mod.eval(), (x,))
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep).to_executorch().buffer)
