"""Writes the program test_method.c lends output memory to (run with the
venv's python: `python tests/runtime/unplanned/make_unplanned.py`; the .pte is
committed): two outputs the memory plan leaves unallocated
(MemoryPlanningPass(alloc_graph_output=False)), a batch dim of at most 4."""
import os

import torch
from executorch.exir import ExecutorchBackendConfig, to_edge
from executorch.exir.passes import MemoryPlanningPass

HERE = os.path.dirname(os.path.abspath(__file__))


class AddSub(torch.nn.Module):
    def forward(self, x, y):
        return x + y, x - y


batch = torch.export.Dim("batch", min=1, max=4)
ep = torch.export.export(AddSub(), (torch.ones(4, 3), torch.ones(4, 3)), dynamic_shapes=({0: batch}, {0: batch}))
cfg = ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(alloc_graph_output=False))
with open(os.path.join(HERE, "add_sub.pte"), "wb") as f:
    f.write(to_edge(ep).to_executorch(cfg).buffer)
