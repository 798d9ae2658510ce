"""Small programs for the tests of pterun's ExecuTorch-shaped Python API
(test_et_*.py), exported with the executorch package once per session.

Each builder returns (program bytes, example inputs). Exporting is the slow
part (about a second each), so results are cached.
"""
import functools

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("executorch.exir")
pterun = pytest.importorskip("pterun")

from executorch.exir import ExecutorchBackendConfig, to_edge  # noqa: E402
from torch.export import export  # noqa: E402


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _lower(methods, config=None):
    """methods: {name: (callable or module, inputs)} -> ExecutorchProgramManager."""
    exported = {n: export(f if isinstance(f, torch.nn.Module) else _Fn(f), i, strict=True)
                for n, (f, i) in methods.items()}
    return to_edge(exported).to_executorch(config=config)


def _two():
    return (torch.ones(2, 2), torch.ones(2, 2))


@functools.lru_cache(None)
def add():
    """forward(x, y) = x + y on 2x2 float tensors."""
    return _lower({"forward": (lambda x, y: x + y, _two())}).buffer, _two()


@functools.lru_cache(None)
def two_methods():
    """forward = x + y, forward2 = x + y + 1."""
    return _lower({"forward": (lambda x, y: x + y, _two()),
                   "forward2": (lambda x, y: x + y + 1, _two())}).buffer, _two()


@functools.lru_cache(None)
def double():
    """forward(x) = x + x, a single input."""
    return _lower({"forward": (lambda x: x + x, (torch.ones(2, 2),))}).buffer, (torch.ones(2, 2),)


def _upsample(x):
    return torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest")


@functools.lru_cache(None)
def channels_last(default_out=False):
    """Nearest upsampling of a channels-last input (output contiguous if default_out)."""
    fn = (lambda x: _upsample(x).to(memory_format=torch.contiguous_format)) if default_out else _upsample
    x = torch.arange(24, dtype=torch.float32).reshape(1, 2, 3, 4).to(memory_format=torch.channels_last)
    return _lower({"forward": (fn, (x,))}).buffer, (x,), fn


class _Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x)


@functools.lru_cache(None)
def linear_external():
    """A linear layer whose weights live in a .ptd: (pte bytes, ptd bytes, inputs, eager module)."""
    m = _Linear()
    inputs = (torch.randn(3),)
    prog = _lower({"forward": (m, inputs)}, ExecutorchBackendConfig(external_constants=True))
    data = bytes(prog._tensor_data.pop("_default_external_constant"))
    return prog.buffer, data, inputs, m


def _mul_add_relu(x, y):
    return torch.relu(x * y + x)


@functools.lru_cache(None)
def mul_add_relu():
    """forward(x, y) = relu(x * y + x): three operators, so intermediate outputs."""
    x = torch.tensor([[1.0, -2.0], [3.0, -4.0]])
    y = torch.full((2, 2), 2.0)
    return _lower({"forward": (_mul_add_relu, (x, y))}).buffer, (x, y)


class _Add(torch.nn.Module):  # named arguments: FX symbolic tracing cannot take *args
    def forward(self, x, y):
        return x + y


@functools.lru_cache(None)
def quantized_add():
    """x + y through quantize / quantized add / dequantize on 1x5 floats
    (torch.ao's FX flow with ExecuTorch's backend config, then QuantFusionPass)."""
    import executorch.kernels.quantized  # noqa: F401  registers the .out variants for to_executorch
    from executorch.exir import EdgeCompileConfig
    from executorch.exir.passes.quant_fusion_pass import QuantFusionPass
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.backend_config.executorch import get_executorch_backend_config
    from torch.ao.quantization.quantize_fx import _convert_to_reference_decomposed_fx, prepare_fx

    inputs = (torch.ones(1, 5), torch.ones(1, 5))
    fx = prepare_fx(_Add().eval(), get_default_qconfig_mapping("qnnpack"), inputs,
                    backend_config=get_executorch_backend_config())
    edge = to_edge(export(_convert_to_reference_decomposed_fx(fx), inputs, strict=True),
                   compile_config=EdgeCompileConfig(_check_ir_validity=False))
    prog = edge.transform([QuantFusionPass(_fix_node_meta_val=True)]).to_executorch()
    ops = {f"{o.name}.{o.overload}" for o in prog.executorch_program.execution_plan[0].operators}
    assert "quantized_decomposed::add.out" in ops, ops  # else this tests no quantized kernel
    return prog.buffer, inputs


class _ConstReturn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.state = torch.ones(2, 2)

    def forward(self, x):
        return x + self.state, self.state


@functools.lru_cache(None)
def const_output_unplanned():
    """forward(x) = (x + c, c) with graph outputs left unplanned (alloc_graph_output=False)."""
    from executorch.exir.passes import MemoryPlanningPass
    cfg = ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(alloc_graph_output=False))
    return _lower({"forward": (_ConstReturn(), (torch.ones(2, 2),))}, cfg).buffer, (torch.ones(2, 2),)


class _DeviceTwo(torch.nn.Module):
    def forward(self, x, y):
        return x + y + 1


@functools.lru_cache(None)
def one_method_device_planned():
    """forward = x + y on the CPU; forward2 = x + y + 1 delegated with its
    planned memory tagged for CUDA (ExecuTorch's DeviceAwarePartitioner)."""
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.backend.test.device_util import DeviceAwarePartitioner
    exported = {"forward": export(_Fn(lambda x, y: x + y), _two(), strict=True),
                "forward2": export(_DeviceTwo(), _two(), strict=True)}
    edge = to_edge_transform_and_lower(exported, partitioner={"forward2": [DeviceAwarePartitioner()]})
    prog = edge.to_executorch(ExecutorchBackendConfig(enable_non_cpu_memory_planning=True))
    return prog, _two()


class _AddWithState(torch.nn.Module):
    """forward(x, y): state += 1 (a named mutable buffer), returns x + y."""
    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 2))

    def forward(self, x, y):
        self.state.add_(1)
        return x + y


@functools.lru_cache(None)
def add_with_attribute():
    """ExecuTorch's ModuleAddWithAttributes, exported with emit_mutable_buffer_names."""
    return _lower({"forward": (_AddWithState(), _two())},
                  ExecutorchBackendConfig(emit_mutable_buffer_names=True)).buffer, _two()


class _Counter(torch.nn.Module):
    """forward() = counter + 1, counter updated: no user inputs; the buffer's
    initial value is not stored (the runtime's zeroed memory is its start)."""
    def __init__(self):
        super().__init__()
        self.register_buffer("counter", torch.zeros(3), persistent=False)

    def forward(self):
        self.counter.add_(torch.ones(3))
        return self.counter * 2


@functools.lru_cache(None)
def counter_no_inputs():
    return _lower({"forward": (_Counter(), ())}).buffer, ()


class _Dropout(torch.nn.Module):
    def __init__(self, p, train):
        super().__init__()
        self.p, self.train_ = p, train

    def forward(self, x):
        return torch.ops.aten.native_dropout(x, self.p, self.train_)


@functools.lru_cache(None)
def native_dropout(p, train):
    """(out, mask) of aten::native_dropout on a 4x8 float input."""
    x = torch.arange(1, 33, dtype=torch.float32).reshape(4, 8)
    return _lower({"forward": (_Dropout(p, train), (x,))}).buffer, (x,)
