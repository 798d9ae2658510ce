"""pterun.training: train ExecuTorch joint forward-backward programs on device.

    from pterun import training
    m = training.load("model.pte")              # from _export_forward_backward
    opt = training.SGD(m.parameters, lr=0.1, momentum=0.9)
    for x, y in batches:
        loss, *outputs = m.forward_backward(x, y)
        opt.step(m.gradients)
    m.save("trained.ptd")                      # for the inference program

Glue over libpterun_training (its own extension, pterun._training, linking
the same shared libraries as pterun._pterun: one registry, one pool).
"""
from __future__ import annotations

import os as _os
from typing import Any, Dict, List, Mapping, Sequence, Union

import numpy as _np

from . import _NP_DTYPES, _to_buffer  # also loads _pterun, which registers the kernels
from . import _training

__all__ = ["TrainingModule", "SGD", "load"]

_DTYPE_CODES = {_np.dtype(v): k for k, v in _NP_DTYPES.items()}


def _spec(arr: Any) -> tuple:
    a = _to_buffer(arr)
    if not isinstance(a, _np.ndarray):
        a = _np.asarray(a)
    code = _DTYPE_CODES.get(a.dtype)
    if code is None:
        raise TypeError(f"unsupported dtype {a.dtype}")
    return (a, code, tuple(int(s) for s in a.shape))


def _array(spec: tuple, copy: bool) -> _np.ndarray:
    buf, code, shape = spec
    # bytes (copies) or the extension's view of module memory (numpy reads it
    # through __array_interface__, the array's base keeping the module alive)
    raw = _np.frombuffer(buf, _np.uint8) if isinstance(buf, bytes) else _np.asarray(buf)
    arr = raw.view(_NP_DTYPES[code]).reshape(shape)
    return arr.copy() if copy else arr


class TrainingModule:
    """A loaded training program.

    `parameters`: name -> array over the module's own parameter memory
    (writable: assigning into it changes the model). `gradients`: name ->
    array, the last forward_backward's gradients (copies)."""

    def __init__(self, path: Union[str, "_os.PathLike[str]"], method: str = "forward") -> None:
        self._m = _training.Module(_os.fspath(path), method)
        self._names: List[str] = self._m.parameter_names()
        self.parameters: Dict[str, _np.ndarray] = {
            n: _array(self._m.parameter(i), copy=False) for i, n in enumerate(self._names)
        }

    @property
    def parameter_names(self) -> List[str]:
        return list(self._names)

    @property
    def gradients(self) -> Dict[str, _np.ndarray]:
        return {n: _array(g, copy=False) for n, g in zip(self._names, self._m.gradients())}

    def forward_backward(self, *inputs: Any) -> List[_np.ndarray]:
        """Forward and backward on `inputs`: the outputs, loss first."""
        return [_array(o, copy=False) for o in self._m.forward_backward([_spec(x) for x in inputs])]

    def save(self, path: Union[str, "_os.PathLike[str]"]) -> None:
        """The parameters as a .ptd file, for the inference program exported
        with external constants."""
        self._m.save_ptd(_os.fspath(path))


def load(path: Union[str, "_os.PathLike[str]"], method: str = "forward") -> TrainingModule:
    return TrainingModule(path, method)


class SGD:
    """torch.optim.SGD, step for step, over float32/float64 arrays it updates
    in place (a TrainingModule's `parameters`, a dict or a list)."""

    def __init__(self, parameters: Union[Mapping[str, _np.ndarray], Sequence[_np.ndarray]], lr: float,
                 momentum: float = 0.0, dampening: float = 0.0, weight_decay: float = 0.0,
                 nesterov: bool = False) -> None:
        if isinstance(parameters, Mapping):
            self._names = list(parameters)
            arrays = [parameters[n] for n in self._names]
        else:
            self._names = None
            arrays = list(parameters)
        for a in arrays:
            if not isinstance(a, _np.ndarray) or not a.flags.c_contiguous or not a.flags.writeable:
                raise TypeError("parameters must be writable C-contiguous numpy arrays (updated in place)")
        self._params = arrays  # keeps the buffers alive with the optimizer
        self._sgd = _training.SGD([_spec(a) for a in arrays], float(lr), float(momentum), float(dampening),
                                  float(weight_decay), bool(nesterov))

    def step(self, gradients: Union[Mapping[str, Any], Sequence[Any]]) -> None:
        if isinstance(gradients, Mapping):
            if self._names is None:
                raise TypeError("parameters were a list: pass the gradients as a list")
            missing = [n for n in self._names if n not in gradients]
            if missing:
                raise KeyError(f"no gradient for {missing}")
            grads = [gradients[n] for n in self._names]
        else:
            grads = list(gradients)
        self._sgd.step([_spec(g) for g in grads])

    def set_lr(self, lr: float) -> None:
        self._sgd.set_lr(float(lr))
