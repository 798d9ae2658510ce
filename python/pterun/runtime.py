"""ExecuTorch's `executorch.runtime`, on pterun: change the import and keep the code.

    from pterun.runtime import Runtime         # was: from executorch.runtime import Runtime
    program = Runtime.get().load_program("model.pte")   # a path, bytes, bytearray,
                                                        # memoryview or file object
    method = program.load_method("forward")
    outputs = method.execute((x, y))           # a list of torch.Tensor

Outputs are torch tensors when torch imports, numpy arrays otherwise. See
pterun.portable_lib for what differs from ExecuTorch.
"""
from __future__ import annotations

import functools
import os
from typing import Any, Dict, List, Optional, Sequence, Set, Union

from . import portable_lib as _lib
from .portable_lib import MethodMeta, TensorInfo, Verification

__all__ = ["Runtime", "Program", "Method", "BackendRegistry", "OperatorRegistry", "Verification", "MethodMeta",
           "TensorInfo"]


class Method:
    """A loaded method."""

    def __init__(self, method: _lib.ExecuTorchMethod):
        self._method = method

    def execute(self, inputs: Sequence[Any] = ()) -> Sequence[Any]:
        return self._method(inputs)

    @property
    def metadata(self) -> MethodMeta:
        return self._method.method_meta()


class Program:
    """A loaded program; methods are loaded on demand and kept."""

    def __init__(self, program: _lib.ExecuTorchProgram):
        self._program = program
        self._methods: Dict[str, Method] = {}

    @property
    def method_names(self) -> Set[str]:
        return {self._program.get_method_name(i) for i in range(self._program.num_methods())}

    def load_method(self, name: str) -> Optional[Method]:
        m = self._methods.get(name)
        if m is None:
            m = self._methods[name] = Method(self._program.load_method(name))
        return m

    def metadata(self, method_name: str) -> MethodMeta:
        return self._program.method_meta(method_name)

    def write_etdump_result_to_file(self, etdump_path: str, debug_buffer_path: str) -> None:
        self._program.write_etdump_result_to_file(etdump_path, debug_buffer_path)


class BackendRegistry:
    """The backends registered in this process."""

    @property
    def registered_backend_names(self) -> List[str]:
        return _lib._get_registered_backend_names()

    def is_available(self, backend_name: str) -> bool:
        return _lib._is_available(backend_name)


class OperatorRegistry:
    """The operators registered in this process."""

    @property
    def operator_names(self) -> Set[str]:
        return set(_lib._get_operator_names())


class Runtime:
    """The process's runtime (one registry, one thread pool): Runtime.get()."""

    @staticmethod
    @functools.lru_cache(maxsize=1)
    def get() -> "Runtime":
        return Runtime()

    def __init__(self) -> None:
        self.backend_registry = BackendRegistry()
        self.operator_registry = OperatorRegistry()

    def load_program(self, data: Union[bytes, bytearray, memoryview, Any, "os.PathLike[str]", str], *,
                     verification: Verification = Verification.InternalConsistency, enable_etdump: bool = False,
                     debug_buffer_size: int = 0,
                     data_path: Optional[Union["os.PathLike[str]", str]] = None) -> Program:
        """Load from a path, a bytes-like object or anything with read()."""
        dp = None if data_path is None else os.fspath(data_path)
        if isinstance(data, (str, os.PathLike)):
            return Program(_lib._load_program(os.fspath(data), enable_etdump, debug_buffer_size, verification, dp))
        if isinstance(data, (bytes, bytearray, memoryview)):
            buf = data
        elif hasattr(data, "read"):
            buf = data.read()
        else:
            raise TypeError(f"load_program takes a path, bytes, a bytearray, a memoryview or a file object, "
                            f"not {type(data).__name__}")
        # the extension copies the bytes, so the caller's buffer may change after
        return Program(_lib._load_program_from_buffer(buf, enable_etdump, debug_buffer_size, verification, dp))
