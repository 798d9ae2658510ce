"""ExecuTorch's `executorch.extension.pybindings.portable_lib`, on pterun.

Code written for ExecuTorch switches by changing the import:

    from pterun import portable_lib            # was: from executorch.extension.pybindings import portable_lib
    module = portable_lib._load_for_executorch("model.pte")
    outputs = module.forward((x, y))           # a list of torch.Tensor

Outputs are torch tensors when torch imports, numpy arrays otherwise (then
dtypes numpy cannot hold, such as bfloat16, cannot be returned). Outputs are
always copies, whatever `clone_outputs` says. Differences that remain:
pterun verifies every program completely, so `Verification.Minimal` checks as
much as `InternalConsistency`; `enable_etdump=True` records with pterun's
etdump component (as `pterun.profile()` does), from each method's load on
(the program's own load is not recorded); attributes (`get_attribute`,
`num_attributes`) are not exposed by the runtime's C API.
"""
from __future__ import annotations

import enum
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _convert, _pterun
from ._pterun import Error

__all__ = [
    "Verification", "TensorInfo", "MethodMeta", "ExecuTorchProgram", "ExecuTorchMethod", "ExecuTorchModule",
    "_load_for_executorch", "_load_for_executorch_from_buffer", "_load_program", "_load_program_from_buffer",
    "_get_registered_backend_names", "_is_available", "_get_operator_names", "_unsafe_reset_threadpool",
    "_threadpool_get_thread_count", "BundledModule", "_load_bundled_program_from_buffer",
    "_load_for_executorch_from_bundled_program",
]


class Verification(enum.Enum):
    """Accepted for compatibility: pterun always verifies the whole program."""
    Minimal = 0
    InternalConsistency = 1


# ExecuTorch's ScalarType names, as its TensorInfo repr prints them
_SCALAR_NAMES = {
    0: "Byte", 1: "Char", 2: "Short", 3: "Int", 4: "Long", 5: "Half", 6: "Float", 7: "Double",
    8: "ComplexHalf", 9: "ComplexFloat", 10: "ComplexDouble", 11: "Bool", 12: "QInt8", 13: "QUInt8",
    14: "QInt32", 15: "BFloat16", 16: "QUInt4x2", 17: "QUInt2x4", 22: "Bits16", 23: "Float8_e5m2",
    24: "Float8_e4m3fn", 25: "Float8_e5m2fnuz", 26: "Float8_e4m3fnuz", 27: "UInt16", 28: "UInt32", 29: "UInt64",
}


class TensorInfo:
    """Shape, dtype (a ScalarType code), planning and size of one tensor slot."""

    def __init__(self, info: Dict[str, Any]):
        self._sizes = tuple(info["shape"])
        self._dtype = int(info["dtype_code"])
        self._planned = bool(info["planned"])
        self._nbytes = int(info["nbytes"])

    def sizes(self) -> Tuple[int, ...]:
        return self._sizes

    def dtype(self) -> int:
        return self._dtype

    def is_memory_planned(self) -> bool:
        return self._planned

    def nbytes(self) -> int:
        return self._nbytes

    def __repr__(self) -> str:
        name = _SCALAR_NAMES.get(self._dtype, str(self._dtype))
        return (f"TensorInfo(sizes={list(self._sizes)}, dtype={name}, "
                f"is_memory_planned={self._planned}, nbytes={self._nbytes})")


class MethodMeta:
    """Metadata of a method, read without loading it; it outlives its program."""

    def __init__(self, info: Dict[str, Any]):
        self._name = info["name"]
        self._inputs = info["inputs"]
        self._outputs = info["outputs"]
        self._attributes = [slot for _, slot in info.get("attributes", [])]

    def name(self) -> str:
        return self._name

    def num_inputs(self) -> int:
        return len(self._inputs)

    def num_outputs(self) -> int:
        return len(self._outputs)

    @staticmethod
    def _meta(slots: List[Dict[str, Any]], index: int, what: str) -> TensorInfo:
        if not 0 <= index < len(slots):
            raise IndexError(f"{what} index {index} out of range (the method has {len(slots)})")
        if slots[index]["kind"] != "Tensor":
            raise Error(f"{what} {index} is a {slots[index]['kind']}, not a tensor")
        return TensorInfo(slots[index])

    def input_tensor_meta(self, index: int) -> TensorInfo:
        return self._meta(self._inputs, index, "input")

    def output_tensor_meta(self, index: int) -> TensorInfo:
        return self._meta(self._outputs, index, "output")

    def num_attributes(self) -> int:
        """Tensors of the method that carry a name (e.g. mutable buffers
        exported with emit_mutable_buffer_names)."""
        return len(self._attributes)

    def attribute_tensor_meta(self, index: int) -> TensorInfo:
        return self._meta(self._attributes, index, "attribute")

    def __repr__(self) -> str:
        def metas(slots: List[Dict[str, Any]]) -> List[str]:
            return [repr(TensorInfo(s)) if s["kind"] == "Tensor" else s["kind"] for s in slots]
        return (f"MethodMeta(name={self._name!r}, num_inputs={self.num_inputs()}, "
                f"input_tensor_meta={metas(self._inputs)}, num_outputs={self.num_outputs()}, "
                f"output_tensor_meta={metas(self._outputs)})")


def _as_inputs(inputs: Any) -> Sequence[Any]:
    # ExecuTorch takes a lone tensor as the only input
    if isinstance(inputs, (list, tuple)):
        return inputs
    return (inputs,)


def _convert_inputs(inputs: Any) -> List[Any]:
    return [_convert.to_input(x, i, sequences=False) for i, x in enumerate(_as_inputs(inputs))]


def _outputs(raw: List[Any]) -> List[Any]:
    want_torch = _convert.torch_or_none() is not None
    return [_convert.from_output(o, want_torch) for o in raw]


class _ETDump:
    """The recorder behind `enable_etdump=True`, shared by every method of
    one program (or module), as ExecuTorch's is."""

    def __init__(self, debug_buffer_size: int):
        if debug_buffer_size < 0:
            raise ValueError(f"debug_buffer_size must be >= 0, not {debug_buffer_size}")
        try:
            from . import _profiler  # the etdump component's glue
        except ImportError as e:
            raise Error("enable_etdump needs the etdump component, which this build of pterun lacks") from e
        self.debug_buffer_size = int(debug_buffer_size)
        self.profiler = _profiler.Profiler(0, self.debug_buffer_size)

    def write(self, path: Any, debug_buffer_path: Any) -> None:
        # ExecuTorch writes the debug buffer only when one was asked for at load
        if debug_buffer_path is None or self.debug_buffer_size == 0:
            self.profiler.save_etdump(os.fspath(path))
        else:
            self.profiler.save_etdump(os.fspath(path), os.fspath(debug_buffer_path))


def _etdump(enable_etdump: bool, debug_buffer_size: int) -> Optional[_ETDump]:
    return _ETDump(debug_buffer_size) if enable_etdump else None


def _write_etdump(etdump: Optional[_ETDump], path: Any, debug_buffer_path: Any) -> None:
    if etdump is None:
        raise Error("No etdump found: load with enable_etdump=True")
    etdump.write(path, debug_buffer_path)


class ExecuTorchMethod:
    """A loaded method: call(inputs), or set_inputs / execute / get_outputs."""

    def __init__(self, program: "ExecuTorchProgram", name: str):
        # _m first: attributes are released in order, so the method goes
        # before the program, whose recorder it may point at
        etdump = program._etdump
        # the recorder is given at load, so the file has the load events too
        self._m = program._p.load_method(name, None if etdump is None else etdump.profiler.tracer())
        self._program = program  # keeps the program (and its recorder) alive
        self._name = name
        self._last: Optional[List[Any]] = None

    def set_inputs(self, inputs: Sequence[Any]) -> None:
        self._m.set_inputs(_convert_inputs(inputs))

    def execute(self) -> None:
        self._last = self._m.run()

    def get_outputs(self, clone_outputs: bool = True) -> List[Any]:
        if self._last is None:
            raise Error(f"method '{self._name}' has not been executed")
        return _outputs(self._last)

    def call(self, inputs: Sequence[Any] = (), clone_outputs: bool = True) -> List[Any]:
        self._last = self._m.execute(_convert_inputs(inputs))
        return _outputs(self._last)

    __call__ = call

    def method_meta(self) -> MethodMeta:
        return self._program.method_meta(self._name)

    def get_attribute(self, name: str) -> Any:
        """The named attribute tensor as the method holds it now (after the last run)."""
        raw = self._m.attribute(name)
        if raw is None:
            raise Error(f"method '{self._name}' has no attribute '{name}'")
        return _outputs([raw])[0]


class ExecuTorchProgram:
    """A loaded, verified program."""

    def __init__(self, p: Any, etdump: Optional[_ETDump] = None):
        self._p = p
        self._names: List[str] = p.method_names()
        self._etdump = etdump

    def num_methods(self) -> int:
        return len(self._names)

    def get_method_name(self, method_index: int) -> str:
        if not 0 <= method_index < len(self._names):
            raise Error(f"method index {method_index} out of range (the program has {len(self._names)})")
        return self._names[method_index]

    def load_method(self, method_name: str) -> ExecuTorchMethod:
        return ExecuTorchMethod(self, method_name)

    def method_meta(self, method_name: str) -> MethodMeta:
        return MethodMeta(self._p.method_info(method_name))

    def has_etdump(self) -> bool:
        return self._etdump is not None

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: Optional[str] = None) -> None:
        """Write what the methods recorded; the debug buffer (the captured
        intermediate outputs) too when `debug_buffer_size` was given."""
        _write_etdump(self._etdump, path, debug_buffer_path)


class ExecuTorchModule:
    """A program and its methods, loaded on first use and kept.

    As with ExecuTorch's Module, external data that does not load (a bad .ptd)
    is reported when a method is first loaded, not by the load call."""

    def __init__(self, program: Optional[ExecuTorchProgram], deferred: Optional[BaseException] = None):
        self._program = program
        self._deferred = deferred
        self._methods: Dict[str, ExecuTorchMethod] = {}

    def _prog(self) -> ExecuTorchProgram:
        if self._program is None:
            assert self._deferred is not None
            raise Error(str(self._deferred)) from self._deferred
        return self._program

    def _method(self, name: str) -> ExecuTorchMethod:
        m = self._methods.get(name)
        if m is None:
            m = self._methods[name] = self._prog().load_method(name)
        return m

    def run_method(self, method_name: str, inputs: Sequence[Any] = (), clone_outputs: bool = True) -> List[Any]:
        return self._method(method_name).call(inputs, clone_outputs)

    def forward(self, inputs: Sequence[Any] = (), clone_outputs: bool = True) -> List[Any]:
        return self.run_method("forward", inputs, clone_outputs)

    __call__ = forward

    def plan_execute(self, method_name: str, clone_outputs: bool = True) -> List[Any]:
        """Run with the inputs already set (e.g. by load_bundled_input)."""
        m = self._method(method_name)
        m.execute()
        return m.get_outputs(clone_outputs)

    def method_meta(self, method_name: str) -> MethodMeta:
        return self._prog().method_meta(method_name)

    def load_bundled_input(self, bundle: "BundledModule", method_name: str, testset_idx: int) -> None:
        """Make test case `testset_idx` of the bundle's suite for `method_name` the method's inputs."""
        m = self._method(method_name)
        m._m.bundled_set_inputs(bundle._b, testset_idx)
        m._last = None

    def verify_result_with_bundled_expected_output(self, bundle: "BundledModule", method_name: str,
                                                   testset_idx: int, rtol: float = 1e-5,
                                                   atol: float = 1e-8) -> List[Any]:
        """Check the outputs of the last run against the case's expected ones:
        raises (naming the worst element) if any is off by more than
        atol + rtol * |expected|; returns the outputs."""
        m = self._method(method_name)
        m._m.bundled_check(bundle._b, testset_idx, float(rtol), float(atol))
        return m.get_outputs() if m._last is not None else []

    def method_names(self) -> List[str]:
        return list(self._prog()._names)

    def has_etdump(self) -> bool:
        return self._program is not None and self._program.has_etdump()

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: Optional[str] = None) -> None:
        _write_etdump(self._prog()._etdump, path, debug_buffer_path)


class BundledModule:
    """A loaded BundledProgram (.bpte): a program and test cases per method."""

    def __init__(self, b: Any):
        self._b = b
        self._mod: Optional[ExecuTorchModule] = None

    def verify_result_with_bundled_expected_output(self, method_name: str, testset_idx: int,
                                                   rtol: float = 1e-5, atol: float = 1e-8) -> List[Any]:
        """Run case `testset_idx` of `method_name` and check it (raises on a mismatch)."""
        if self._mod is None:
            self._mod = _load_for_executorch_from_bundled_program(self)
        self._mod.load_bundled_input(self, method_name, testset_idx)
        self._mod.plan_execute(method_name)
        return self._mod.verify_result_with_bundled_expected_output(self, method_name, testset_idx, rtol, atol)

    @property
    def method_test_suites(self) -> Dict[str, int]:
        """{method name: number of test cases} (pterun's addition)."""
        return dict(self._b.suites())


def _load_bundled_program_from_buffer(buffer: Any, non_const_pool_size: int = 0) -> BundledModule:
    """Load a .bpte from bytes; `non_const_pool_size` is accepted and unused
    (pterun sizes memory from the program)."""
    if not hasattr(_pterun, "load_bundled"):
        raise Error("this build of pterun has no bundled_program component")
    return BundledModule(_pterun.load_bundled(buffer))


def _load_for_executorch_from_bundled_program(module: BundledModule, data_map_buffer: Any = None,
                                              enable_etdump: bool = False,
                                              debug_buffer_size: int = 0) -> ExecuTorchModule:
    """The bundle's program as a module; `data_map_buffer` is .ptd bytes or a path."""
    return _module(_pterun.load_buffer, module._b.program_bytes(), data_map_buffer,
                   _etdump(enable_etdump, debug_buffer_size))


def _data_list(data: Any) -> Optional[List[Any]]:
    if data is None:
        return None
    if isinstance(data, (str, os.PathLike)):
        return [os.fspath(data)]
    return [data]  # a buffer


def _module(load: Any, program: Any, data: Any, etdump: Optional[_ETDump] = None) -> ExecuTorchModule:
    """Load with `data`; if only the data fails, load without it and defer
    the data's error to the first method load (a program that needs no data
    then still works, as in ExecuTorch)."""
    try:
        return ExecuTorchModule(ExecuTorchProgram(load(program, _data_list(data)), etdump))
    except Error as e:
        if data is None:
            raise
        ExecuTorchProgram(load(program, None))  # raises if the program itself is bad
        return ExecuTorchModule(None, e)


def _load_for_executorch(program_path: str, data_path: Optional[str] = None, enable_etdump: bool = False,
                         debug_buffer_size: int = 0,
                         program_verification: Verification = Verification.InternalConsistency) -> ExecuTorchModule:
    return _module(_pterun.load, os.fspath(program_path), data_path, _etdump(enable_etdump, debug_buffer_size))


def _load_for_executorch_from_buffer(buffer: Any, data_map_buffer: Any = None, enable_etdump: bool = False,
                                     debug_buffer_size: int = 0,
                                     program_verification: Verification = Verification.InternalConsistency
                                     ) -> ExecuTorchModule:
    return _module(_pterun.load_buffer, buffer, data_map_buffer, _etdump(enable_etdump, debug_buffer_size))


def _load_program(path: str, enable_etdump: bool = False, debug_buffer_size: int = 0,
                  program_verification: Verification = Verification.Minimal,
                  data_path: Optional[str] = None) -> ExecuTorchProgram:
    return ExecuTorchProgram(_pterun.load(os.fspath(path), _data_list(data_path)),
                             _etdump(enable_etdump, debug_buffer_size))


def _load_program_from_buffer(buffer: Any, enable_etdump: bool = False, debug_buffer_size: int = 0,
                              program_verification: Verification = Verification.Minimal,
                              data_path: Optional[str] = None) -> ExecuTorchProgram:
    return ExecuTorchProgram(_pterun.load_buffer(buffer, _data_list(data_path)),
                             _etdump(enable_etdump, debug_buffer_size))


def _get_registered_backend_names() -> List[str]:
    return _pterun.registered_backends()


def _is_available(backend_name: str) -> bool:
    return _pterun.backend_available(backend_name)


def _get_operator_names() -> List[str]:
    return _pterun.registered_operators()


def _unsafe_reset_threadpool(num_threads: int) -> None:
    """Resize the process thread pool (pterun's is shared by kernels and delegates)."""
    _pterun.set_num_threads(num_threads)


def _threadpool_get_thread_count() -> int:
    return _pterun.num_threads()
