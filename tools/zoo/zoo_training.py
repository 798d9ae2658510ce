"""Training cases: the backward operators that the joint forward-backward
export (`torch.export.experimental._export_forward_backward`) emits, one
small program per operator (group `ops`), against eager. Kept apart from
zoo_ops.py so operator cases and training cases grow without conflicts."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

import torch

from zoo_common import F64, TOL_DEFAULT, Built, CaseIO, FnModule, Spec, rn

aten = torch.ops.aten

_SPECS: List[Spec] = []


def _case(name: str, fn: Callable[..., Any], inputs: Callable[[], Tuple[torch.Tensor, ...]], op: str, desc: str) -> None:
    def build() -> Built:
        ins = tuple(inputs())
        sig = ", ".join(f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}" for t in ins)
        return Built(
            methods={"forward": (FnModule(fn), ins, None)},
            cases=[CaseIO(name, "forward", ins, f"{desc} | inputs: {sig}")],
        )

    rtol, atol, reason = TOL_DEFAULT
    _SPECS.append(Spec(group="ops", name=name, build=build, description=desc, op=op, rtol=rtol, atol=atol,
                       tolerance_reason=reason))


def _conv_bw(stride, padding, dilation, groups, mask):
    def f(go, x, w):
        return tuple(t for t, m in zip(aten.convolution_backward(go, x, w, [w.shape[0]], stride, padding, dilation,
                                                                  False, [0] * len(stride), groups, mask), mask) if m)
    return f


def _conv_inputs(n, c, spatial, oc, groups, k, stride, padding, dilation, dt=torch.float32):
    def make():
        x = rn(n, c, *spatial, dt=dt)
        w = rn(oc, c // groups, *k, dt=dt)
        y = torch.nn.functional.conv2d(x, w, None, stride, padding, dilation, groups) if len(k) == 2 else \
            torch.nn.functional.conv1d(x, w, None, stride, padding, dilation, groups)
        return (rn(*y.shape, dt=dt), x, w)
    return make


def _backward_ops() -> None:
    op = "aten::convolution_backward.out"
    _case("convolution_backward_f32", _conv_bw([1, 1], [1, 1], [1, 1], 1, [True, True, True]),
          _conv_inputs(2, 3, (6, 5), 4, 1, (3, 3), [1, 1], [1, 1], [1, 1]), op,
          "convolution_backward of a 3x3 conv2d, padding 1: grad input, weight, bias")
    _case("convolution_backward_stride_dil_f32", _conv_bw([2, 1], [0, 2], [1, 2], 1, [True, True, True]),
          _conv_inputs(1, 2, (7, 6), 3, 1, (3, 2), [2, 1], [0, 2], [1, 2]), op,
          "convolution_backward with stride [2,1], padding [0,2], dilation [1,2]")
    _case("convolution_backward_grouped_f32", _conv_bw([1, 1], [0, 0], [1, 1], 2, [True, True, False]),
          _conv_inputs(2, 4, (5, 5), 6, 2, (2, 2), [1, 1], [0, 0], [1, 1]), op,
          "convolution_backward with 2 groups, no bias gradient")
    _case("convolution_backward_weight_only_f32", _conv_bw([1, 1], [1, 1], [1, 1], 1, [False, True, True]),
          _conv_inputs(2, 2, (4, 4), 3, 1, (3, 3), [1, 1], [1, 1], [1, 1]), op,
          "convolution_backward without the input gradient (a first layer)")
    _case("convolution_backward_1d_f64", _conv_bw([2], [1], [1], 1, [True, True, True]),
          _conv_inputs(2, 3, (9,), 2, 1, (3,), [2], [1], [1], dt=F64), op,
          "convolution_backward of a conv1d, stride 2, float64")

    op = "aten::max_pool2d_with_indices_backward.grad_input"

    def mp(k, s, p, d, ceil):
        def f(go, x):
            _, ind = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
            return aten.max_pool2d_with_indices_backward(go, x, k, s, p, d, ceil, ind)
        return f

    def mp_in(shape, k, s, p, d, ceil, dt=torch.float32):
        def make():
            x = rn(*shape, dt=dt)
            y, _ = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
            return (rn(*y.shape, dt=dt), x)
        return make

    _case("max_pool2d_backward_f32", mp([2, 2], [2, 2], [0, 0], [1, 1], False),
          mp_in((2, 3, 6, 6), [2, 2], [2, 2], [0, 0], [1, 1], False), op, "max_pool2d 2x2 backward")
    _case("max_pool2d_backward_overlap_f32", mp([3, 3], [1, 2], [1, 1], [1, 1], True),
          mp_in((1, 2, 5, 7), [3, 3], [1, 2], [1, 1], [1, 1], True), op,
          "max_pool2d 3x3 backward, overlapping windows, padding, ceil_mode")
    _case("max_pool2d_backward_3d_f64", mp([2, 2], [1, 1], [0, 0], [2, 1], False),
          mp_in((2, 5, 4), [2, 2], [1, 1], [0, 0], [2, 1], False, dt=F64), op,
          "max_pool2d backward, unbatched, dilation [2,1], float64")

    op = "aten::avg_pool2d_backward.grad_input"

    def ap(k, s, p, ceil, incl, div):
        def f(go, x):
            return aten.avg_pool2d_backward(go, x, k, s, p, ceil, incl, div)
        return f

    def ap_in(shape, k, s, p, ceil, incl, div, dt=torch.float32):
        def make():
            x = rn(*shape, dt=dt)
            y = aten.avg_pool2d(x, k, s, p, ceil, incl, div)
            return (rn(*y.shape, dt=dt), x)
        return make

    _case("avg_pool2d_backward_f32", ap([2, 2], [2, 2], [0, 0], False, True, None),
          ap_in((2, 3, 4, 6), [2, 2], [2, 2], [0, 0], False, True, None), op, "avg_pool2d 2x2 backward")
    _case("avg_pool2d_backward_pad_f32", ap([3, 3], [2, 2], [1, 1], True, False, None),
          ap_in((1, 2, 5, 6), [3, 3], [2, 2], [1, 1], True, False, None), op,
          "avg_pool2d 3x3 backward, padding, ceil_mode, count_include_pad=False")
    _case("avg_pool2d_backward_divisor_f64", ap([2, 3], [1, 2], [1, 0], False, True, 5),
          ap_in((2, 4, 5), [2, 3], [1, 2], [1, 0], False, True, 5, dt=F64), op,
          "avg_pool2d backward, unbatched, padding, divisor_override 5, float64")


def build_training_specs() -> List[Spec]:
    if not _SPECS:
        _backward_ops()
    return list(_SPECS)
