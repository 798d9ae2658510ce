"""Export the small programs the etdump tests run (committed next to this file).

Run from anywhere: python tests/etdump/programs/make_programs.py
Needs torch and executorch; seeds are fixed so the files are reproducible.

- mlp.pte: Linear(8,16) -> ReLU -> Linear(16,4) -> sum(dim=1), input [2, 8];
  mlp_input.npy / mlp_expected.npy hold an input and eager PyTorch's output.
- delegated.pte: relu(x + y) + x with every add delegated to
  "BackendWithCompilerDemo" (executorch's demo backend), so the program has two
  DelegateCalls around one portable relu. The tests implement that backend id
  with a fake that adds (tests/etdump/test_delegate.c).
- multi_out.pte: torch.max(x, dim=1) on [3, 5]: one aten::max.dim_max
  instruction with two outputs (values, indices); test_delegate.c also has a
  kernel for it, as the portable library may not.
"""
import os

import numpy as np
import torch
from executorch.exir import to_edge, to_edge_transform_and_lower

HERE = os.path.dirname(os.path.abspath(__file__))


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(8, 16)
        self.l2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x))).sum(dim=1)


class MaxDim(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.max(x, dim=1)
        return values, indices


class AddReluAdd(torch.nn.Module):
    def forward(self, x, y):
        return torch.relu(x + y) + x


def save(name, program):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(program.buffer)


def main():
    torch.manual_seed(0)
    m = MLP().eval()
    x = torch.randn(2, 8)
    ep = torch.export.export(m, (x,))
    save("mlp.pte", to_edge_transform_and_lower(ep).to_executorch())
    np.save(os.path.join(HERE, "mlp_input.npy"), x.numpy())
    np.save(os.path.join(HERE, "mlp_expected.npy"), m(x).detach().numpy())

    from executorch.exir.backend.test.op_partitioner_demo import AddMulPartitionerDemo

    a, b = torch.randn(3, 4), torch.randn(3, 4)
    ep = torch.export.export(AddReluAdd().eval(), (a, b))
    edge = to_edge(ep).to_backend(AddMulPartitionerDemo())
    save("delegated.pte", edge.to_executorch())

    ep = torch.export.export(MaxDim().eval(), (torch.randn(3, 5),))
    save("multi_out.pte", to_edge_transform_and_lower(ep).to_executorch())


if __name__ == "__main__":
    main()
