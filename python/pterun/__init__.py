"""pterun: run ExecuTorch programs (.pte) from Python.

    import pterun
    program = pterun.load("model.pte", data="model.ptd")   # data is optional
    method = program.method("forward")
    outputs = method(x)              # numpy arrays, buffers or torch tensors in,
                                     # numpy arrays out (torch tensors for dtypes
                                     # numpy cannot hold, such as bfloat16)
    pterun.registered_backends(), pterun.registered_operators()

The bindings are glue over the same shared libraries a C program links
(pterun/lib), so a process has one runtime, one operator registry, one
backend registry and one thread pool however many pieces it loads.
"""
from __future__ import annotations

import os as _os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as _np

from . import _convert, _pterun
from ._pterun import Error

__all__ = [
    "Error", "Program", "Method", "load", "registered_backends", "registered_operators",
    "load_library", "profile", "Profile", "num_threads", "set_num_threads", "__version__",
]

# The version of the libpterun these bindings run on, generated from
# components.json at build time (the wheel's metadata reads the same file).
__version__: str = _pterun.runtime_version()

_PKG_DIR = _os.path.dirname(_os.path.abspath(__file__))

_NP_DTYPES = _convert.NP_DTYPES


def _to_buffer(x: Any) -> Any:
    return _convert.to_input(x)


def _from_output(o: Any) -> Any:
    return _convert.from_output(o, want_torch=False)


class TensorSpec:
    """Metadata of one input or output slot of a method."""

    def __init__(self, info: Dict[str, Any]):
        self.kind: str = info["kind"]
        self.dtype: Optional[Any] = _NP_DTYPES.get(info["dtype_code"]) if self.kind == "Tensor" else None
        self.shape: tuple = tuple(info.get("shape", ()))
        self.dynamic: bool = bool(info.get("dynamic", False))
        self.planned: bool = bool(info.get("planned", False))
        self.nbytes: int = int(info.get("nbytes", 0))

    def __repr__(self) -> str:
        if self.kind != "Tensor":
            return f"TensorSpec({self.kind})"
        dt = _np.dtype(self.dtype).name if self.dtype is not None else "?"
        return f"TensorSpec({dt}{list(self.shape)}{', dynamic' if self.dynamic else ''})"


class Method:
    """A loaded method. Call it with inputs: method(x, y) or method.execute([x, y])."""

    def __init__(self, program: "Program", name: str):
        self._program = program
        self._m = program._p.load_method(name)
        info = program._p.method_info(name)
        self.name: str = name
        self.inputs: List[TensorSpec] = [TensorSpec(i) for i in info["inputs"]]
        self.outputs: List[TensorSpec] = [TensorSpec(o) for o in info["outputs"]]
        self.operators: List[str] = list(info["operators"])
        self.delegates: List[str] = list(info["delegates"])

    def execute(self, inputs: Sequence[Any]) -> List[Any]:
        if _ACTIVE_PROFILES:
            _ACTIVE_PROFILES[-1]._attach(self)
        return [_from_output(o) for o in self._m.execute([_convert.to_input(x, i) for i, x in enumerate(inputs)])]

    def __call__(self, *inputs: Any) -> Union[Any, List[Any]]:
        outs = self.execute(inputs)
        return outs[0] if len(outs) == 1 else outs

    @property
    def memory_used(self) -> int:
        return self._m.memory_used()

    def __repr__(self) -> str:
        return f"Method({self.name!r}, inputs={self.inputs}, outputs={self.outputs})"


class Program:
    """A loaded, verified program. Methods are loaded on demand and cached."""

    def __init__(self, path: Union[str, "_os.PathLike[str]"], data: Any = None):
        if data is not None and isinstance(data, (str, bytes, _os.PathLike)):
            data = [data]
        self.path = _os.fspath(path)
        self._p = _pterun.load(self.path, None if data is None else [_os.fspath(d) for d in data])
        self._methods: Dict[str, Method] = {}

    @property
    def method_names(self) -> List[str]:
        return self._p.method_names()

    def method_info(self, name: str) -> Dict[str, Any]:
        """Metadata of a method without loading it."""
        return self._p.method_info(name)

    def method(self, name: str = "forward") -> Method:
        m = self._methods.get(name)
        if m is None:
            m = self._methods[name] = Method(self, name)
        return m

    def __repr__(self) -> str:
        return f"Program({self.path!r}, methods={self.method_names})"


def load(path: Union[str, "_os.PathLike[str]"], data: Any = None) -> Program:
    """Load a .pte program; `data` is a .ptd path (or several) for external weights."""
    return Program(path, data)


def registered_backends() -> List[str]:
    return _pterun.registered_backends()


def registered_operators() -> List[str]:
    return _pterun.registered_operators()


def num_threads() -> int:
    """Threads of the process thread pool (shared by kernels and delegates)."""
    return _pterun.num_threads()


def set_num_threads(n: int) -> None:
    """Resize the process thread pool; 0 restores the default (one per core)."""
    _pterun.set_num_threads(n)


def load_library(path: Union[str, "_os.PathLike[str]"]) -> None:
    """Load a component or custom-operator library into the process's runtime."""
    _pterun.library_load(_os.fspath(path))


def _registry_identity() -> int:
    return _pterun.registry_identity()


_ACTIVE_PROFILES: List["Profile"] = []


class Profile:
    """Records every method run inside its `with` block (ETDump events).

        with pterun.profile() as p:
            method(x)
        print(p.table()); p.save_etdump("run.etdp"); p.save_trace("run.json")
    """

    def __init__(self, max_events: int = 0, debug_buffer_size: int = 0):
        from . import _profiler  # the profiler's own extension, over the same libraries
        self._p = _profiler.Profiler(max_events, debug_buffer_size)
        self._methods: List[Method] = []

    def _attach(self, method: Method) -> None:
        if not any(m is method for m in self._methods):
            self._p.attach(method._m._handle())
            self._methods.append(method)

    def __enter__(self) -> "Profile":
        _ACTIVE_PROFILES.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _ACTIVE_PROFILES.remove(self)
        for m in self._methods:
            self._p.detach(m._m._handle())
        self._methods.clear()

    def table(self) -> str:
        """Per-operator table: count, total, mean, share of the run, sorted."""
        return self._p.table()

    def summary(self) -> List[Dict[str, Any]]:
        return self._p.summary()

    def stats(self) -> Dict[str, int]:
        return self._p.stats()

    def save_etdump(self, path: Union[str, "_os.PathLike[str]"], debug_path: Any = None) -> None:
        """Write an ETDump file that executorch.devtools.Inspector opens."""
        if debug_path is None:
            self._p.save_etdump(_os.fspath(path))
        else:
            self._p.save_etdump(_os.fspath(path), _os.fspath(debug_path))

    def save_trace(self, path: Union[str, "_os.PathLike[str]"]) -> None:
        """Write Chrome trace-event JSON (Perfetto, chrome://tracing)."""
        self._p.save_trace(_os.fspath(path))


def profile(max_events: int = 0, debug_buffer_size: int = 0) -> Profile:
    """A profiling context: `with pterun.profile() as p: method(x)`."""
    return Profile(max_events, debug_buffer_size)


