"""Writes the tiny programs test_fuse.c loads for the packed-weight rules
(run with the venv's python: `python tests/runtime/fuse/make_pack.py`; the
.pte files are committed)."""
import os

import torch
from executorch.exir import EdgeCompileConfig, to_edge

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(11)


class Lin(torch.nn.Module):  # addmm over the permuted (folded) weight: packed
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(40, 56)

    def forward(self, x):
        return self.l(x)


class Mm(torch.nn.Module):  # mm over a constant read directly from the file: packed
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(40, 56))

    def forward(self, x):
        return torch.mm(x, self.w)


class Inputs(torch.nn.Module):  # both operands method inputs: nothing to pack
    def forward(self, x, w):
        return torch.mm(x, w)


class Shared(torch.nn.Module):  # one constant read by two products: left as it is
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(40, 56))

    def forward(self, x):
        return torch.mm(x, self.w) + torch.mm(x * 2, self.w)


class Kept(torch.nn.Module):  # aten::linear.out kept (not decomposed): packed
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(40, 56)

    def forward(self, x):
        return self.l(x)


class Act(torch.nn.Module):  # Linear then relu / ReLU6 (hardtanh): fused into the product
    def __init__(self, act, again=False, keepx=False):
        super().__init__()
        self.l, self.act, self.again, self.keepx = torch.nn.Linear(40, 56), act, again, keepx

    def forward(self, x):
        y = self.l(x)
        z = self.act(y) + (y if self.again else 0)  # read again: the activation stays
        # x read later: the planner cannot give the activation's output x's bytes
        return z + x[:, :1] if self.keepx else z


x = torch.randn(5, 40)
CASES = {"pack_linear": (Lin(), (x,), None), "pack_mm": (Mm(), (x,), None),
         "pack_inputs": (Inputs(), (x, torch.randn(40, 56)), None), "pack_shared": (Shared(), (x,), None),
         "pack_kept": (Kept(), (torch.randn(2, 5, 40),), [torch.ops.aten.linear.default]),
         "pack_relu": (Act(torch.nn.ReLU()), (x,), None), "pack_relu6": (Act(torch.nn.ReLU6()), (x * 4,), None),
         "pack_relu_again": (Act(torch.nn.ReLU(), True), (x,), None),
         "pack_kept_relu": (Act(torch.nn.ReLU(), keepx=True), (x,), [torch.ops.aten.linear.default])}

for name, (mod, args, keep) in CASES.items():
    ep = torch.export.export(mod.eval(), args)
    cfg = EdgeCompileConfig(preserve_ops=keep, _core_aten_ops_exception_list=keep,
                            _check_ir_validity=False) if keep else None
    with open(os.path.join(HERE, name + ".pte"), "wb") as f:
        f.write(to_edge(ep, compile_config=cfg).to_executorch().buffer)
