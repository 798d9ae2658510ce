#!/usr/bin/env python3
"""Write the hand-built XNNPACK payloads of tests/backend_xnnpack/payloads/.

    python3 tests/backend_xnnpack/gen_payloads.py [--out DIR]

The exporter never emits some of what the delegate must handle: ELU (its
partitioner config is disabled), ArgMaxPooling2d (max.dim with indices is not
delegated), Copy, fp32 Convert, weights in the payload's own constant region
or in the legacy XNNGraph.constant_buffer (pre-XNNHeader payloads), non-constant
fully-connected weights, 1x1 pooling, degenerate clamps, dead nodes, and
static int8 with inline per-channel scales and int8 slices/concatenations. These
payloads are written from JSON with the flatc and schema.fbs of the installed
executorch package; expected outputs come from numpy/torch.

Each folder holds payload.bin and args/<k>_in.npy / args/<k>_out.npy: the
delegate argument with external id k (an input, or the expected output).
"""
import argparse
import importlib.resources
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

INVALID = 0xFFFFFFFF


def flatc_binary(graph, identifier):
    pkg = importlib.resources.files("executorch")
    flatc = str(pkg / "data" / "bin" / "flatc")
    schema = str(pkg / "backends" / "xnnpack" / "serialization" / "schema.fbs")
    with tempfile.TemporaryDirectory() as td:
        src = os.path.join(td, "schema.fbs")
        with open(schema) as f:
            text = f.read()
        # The legacy runtime schema calls itself XN00 and keeps constant_buffer;
        # write those payloads with a schema that does the same.
        if identifier == "XN00":
            text = text.replace('file_identifier "XN01";', 'file_identifier "XN00";')
            text = text.replace("storage:[ubyte] (deprecated, force_align: 16);", "storage:[ubyte] (force_align: 16);")
            text = text.replace("constant_buffer:[Buffer] (deprecated);", "constant_buffer:[Buffer];")
        with open(src, "w") as f:
            f.write(text)
        js = os.path.join(td, "g.json")
        with open(js, "w") as f:
            json.dump(graph, f)
        subprocess.run([flatc, "--binary", "-o", td, src, js], check=True, capture_output=True)
        with open(os.path.join(td, "g.bin"), "rb") as f:
            return f.read()


def pad16(b):
    return b + b"\0" * (-len(b) % 16)


def with_header(fb, constants):
    fb_off = 32
    c_off = fb_off + len(pad16(fb))
    header = b"\0\0\0\0XH00" + struct.pack("<HIIIQ", 30, fb_off, len(fb), c_off, len(constants))
    return pad16(header.ljust(32, b"\0")) + pad16(fb) + constants


class Graph:
    def __init__(self):
        self.values = []
        self.nodes = []
        self.constants = bytearray()
        self.constant_data = [{"offset": 0, "size": 0}]
        self.buffers = [{"storage": []}]
        self.externs = 0

    def value(self, dims, ext=None, flags=0, data=None, legacy=False, dt="xnn_datatype_fp32"):
        idx = 0
        if data is not None:
            raw = data if isinstance(data, bytes) else np.ascontiguousarray(
                data, dtype=np.float16 if dt == "xnn_datatype_fp16" else np.float32).tobytes()
            if legacy:
                idx = len(self.buffers)
                self.buffers.append({"storage": list(raw)})
            else:
                idx = len(self.constant_data)
                off = len(self.constants)
                self.constants += raw + b"\0" * (-len(raw) % 16)
                self.constant_data.append({"offset": off, "size": len(raw)})
        vid = len(self.values)
        self.values.append({"xvalue_union_type": "XNNTensorValue", "xvalue_union": {
            "datatype": dt, "num_dims": len(dims), "dims": list(dims),
            "constant_buffer_idx": idx, "external_id": INVALID if ext is None else ext, "flags": flags, "id_out": vid}})
        if ext is not None:
            self.externs = max(self.externs, ext + 1)
        return vid

    def qvalue(self, dims, datatype, params, data=None, ext=None, flags=0):
        """A quantized value: params is ("PerTensorQuant", {...}) or ("PerChannelQuant", {...})."""
        idx = 0
        if data is not None:
            raw = np.ascontiguousarray(data).tobytes()
            idx = len(self.constant_data)
            off = len(self.constants)
            self.constants += raw + b"\0" * (-len(raw) % 16)
            self.constant_data.append({"offset": off, "size": len(raw)})
        vid = len(self.values)
        self.values.append({"xvalue_union_type": "XNNQuantizedTensorValue", "xvalue_union": {
            "tensor_value": {"datatype": datatype, "num_dims": len(dims), "dims": list(dims),
                             "constant_buffer_idx": idx, "external_id": INVALID if ext is None else ext,
                             "flags": flags, "id_out": vid},
            "quant_params_type": params[0], "quant_params": params[1]}})
        if ext is not None:
            self.externs = max(self.externs, ext + 1)
        return vid

    def node(self, kind, fields, min_max=None, handle=0):
        n = {"xnode_union_type": kind, "xnode_union": fields, "debug_handle": handle}
        if min_max is not None:
            n["output_min_max"] = {"output_min": min_max[0], "output_max": min_max[1]}
        self.nodes.append(n)

    def payload(self, legacy=False):
        g = {"version": "0", "xnodes": self.nodes, "xvalues": self.values, "num_externs": self.externs,
             "input_ids": [], "output_ids": []}
        if legacy:
            g["constant_buffer"] = self.buffers
            return flatc_binary(g, "XN00")
        g["constant_data"] = self.constant_data
        return with_header(flatc_binary(g, "XN01"), bytes(self.constants))


def write(out, name, blob, args, expect_error=None):
    d = os.path.join(out, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "args"))
    with open(os.path.join(d, "payload.bin"), "wb") as f:
        f.write(blob)
    if expect_error:
        with open(os.path.join(d, "expect_error.txt"), "w") as f:
            f.write(expect_error)
    for k, (kind, arr) in args.items():
        np.save(os.path.join(d, "args", f"{k}_{kind}.npy"), np.ascontiguousarray(arr))
    print(name, len(blob), "bytes")


def rn(*shape):
    return np.random.randn(*shape).astype(np.float32)


def elu_argmax_copy(out):
    """ELU, ArgMaxPooling2d (values and int64 indices), Copy."""
    g = Graph()
    x = g.value([1, 4, 6, 3], ext=0, flags=1)
    e = g.value([1, 4, 6, 3])
    pv = g.value([1, 2, 2, 3], ext=1, flags=2)
    pi = g.value([1, 2, 2, 3], ext=2, flags=2)
    c = g.value([1, 4, 6, 3], ext=3, flags=2)
    g.node("XNNELU", {"alpha": 0.7, "input_id": x, "output_id": e, "flags": 0})
    g.node("XNNArgMaxPooling2d", {"pooling_height": 2, "pooling_width": 3, "input_id": e, "output_value_id": pv,
                                  "output_index_id": pi, "flags": 0})
    g.node("XNNCopy", {"input_id": e, "output_id": c, "flags": 0})
    xv = rn(1, 4, 6, 3)
    ev = F.elu(torch.from_numpy(xv), 0.7).numpy()
    win = ev.reshape(1, 2, 2, 2, 3, 3).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 2, 6, 3)  # [n, oy, ox, k, c]
    write(out, "elu_argmax_copy", g.payload(), {
        0: ("in", xv), 1: ("out", win.max(axis=3)), 2: ("out", win.argmax(axis=3).astype(np.int64)), 3: ("out", ev)})


def inline_constants(out):
    """Weights in the payload's constant region (offset-based), a constant
    operand XNNPACK reads at run time, a per-channel PReLU slope."""
    g = Graph()
    w, b = rn(5, 8), rn(5)
    k, slope = rn(5), np.array([0.1, -0.2, 0.3, 0.25, 0.5], np.float32)
    x = g.value([3, 8], ext=0, flags=1)
    wv = g.value([5, 8], data=w)
    bv = g.value([5], data=b)
    h = g.value([3, 5])
    kv = g.value([5], data=k)
    s = g.value([3, 5])
    sv = g.value([5], data=slope)
    y = g.value([3, 5], ext=1, flags=2)
    g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wv, "bias_id": bv, "output_id": h, "flags": 0})
    g.node("XNNAdd", {"input1_id": h, "input2_id": kv, "output_id": s, "flags": 0}, min_max=(-1.5, 1.5))
    g.node("XNNPReLU", {"input1_id": s, "input2_id": sv, "output_id": y, "flags": 0})
    xv = rn(3, 8)
    sv_ = np.clip(xv @ w.T + b + k, -1.5, 1.5)
    write(out, "inline_constants", g.payload(), {0: ("in", xv), 1: ("out", np.where(sv_ > 0, sv_, sv_ * slope))})


def legacy_constant_buffer(out):
    """A pre-XNNHeader payload: identifier XN00, weights in constant_buffer,
    FC with a transposed ([in, out]) filter, a clamp."""
    g = Graph()
    w, b = rn(6, 4), rn(4)
    x = g.value([2, 6], ext=0, flags=1)
    wv = g.value([6, 4], data=w, legacy=True)
    bv = g.value([4], data=b, legacy=True)
    h = g.value([2, 4])
    y = g.value([2, 4], ext=1, flags=2)
    g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wv, "bias_id": bv, "output_id": h, "flags": 1})
    g.node("XNNClamp", {"input_id": h, "output_id": y, "flags": 0}, min_max=(-0.5, 2.0))
    xv = rn(2, 6)
    write(out, "legacy_constant_buffer", g.payload(legacy=True), {0: ("in", xv), 1: ("out", np.clip(xv @ w + b, -0.5, 2.0))})


def native_fallbacks(out):
    """Nodes 2022 XNNPACK refuses that pterun runs itself: FC with a weight
    that is an input, 1x1 max/avg pooling, a clamp with min == max, an fp32
    Convert; and a dead node (output unused) that must not run at all."""
    g = Graph()
    x = g.value([2, 3], ext=0, flags=1)
    wt = g.value([4, 3], ext=1, flags=1)
    fc = g.value([2, 4], ext=2, flags=2)
    img = g.value([1, 4, 4, 2], ext=3, flags=1)
    mp = g.value([1, 2, 2, 2], ext=4, flags=2)
    ap = g.value([1, 4, 4, 2])
    cv = g.value([1, 4, 4, 2], ext=5, flags=2)
    flat = g.value([1, 4, 4, 2], ext=6, flags=2)
    dead = g.value([2, 4])
    g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wt, "bias_id": INVALID, "output_id": fc, "flags": 0},
           min_max=(-1.0, 1.0))
    g.node("XNNMaxPooling2d", {"pooling_height": 1, "pooling_width": 1, "stride_height": 2, "stride_width": 2,
                               "dilation_height": 1, "dilation_width": 1, "input_id": img, "output_id": mp, "flags": 0})
    g.node("XNNAvgPooling2d", {"pooling_height": 1, "pooling_width": 1, "stride_height": 1, "stride_width": 1,
                               "input_id": img, "output_id": ap, "flags": 0})
    g.node("XNNConvert", {"input_id": ap, "output_id": cv, "flags": 0})
    g.node("XNNClamp", {"input_id": img, "output_id": flat, "flags": 0}, min_max=(0.25, 0.25))
    g.node("XNNSigmoid", {"input_id": fc, "output_id": dead, "flags": 0})
    xv, wv, iv = rn(2, 3), rn(4, 3), rn(1, 4, 4, 2)
    write(out, "native_fallbacks", g.payload(), {
        0: ("in", xv), 1: ("in", wv), 2: ("out", np.clip(xv @ wv.T, -1, 1)), 3: ("in", iv),
        4: ("out", iv[:, ::2, ::2, :]), 5: ("out", iv), 6: ("out", np.full_like(iv, 0.25))})


def quant_bytes(out):
    """Static int8 the exporter does not write: per-channel scales inline in
    the flatbuffer (not in a scale buffer), int8 slices and concatenations
    (pterun copies the bytes), and a per-channel fully connected node (a 1x1
    convolution on 2022 XNNPACK). Scales are powers of two and inputs sit
    0.3 steps off the grid, so the int8 arithmetic is exact here."""
    g = Graph()
    sx, zx, sw, sy, zy = 0.0625, 3, 0.5, 0.03125, -2
    pt = lambda s, z: ("PerTensorQuant", {"scale": s, "zero_point": z})
    pc = lambda s, n: ("PerChannelQuant", {"scale": [s] * n, "channel_dim": 0})
    x = g.value([2, 6], ext=0, flags=1)
    q = g.qvalue([2, 6], "xnn_datatype_qint8", pt(sx, zx))
    qs = g.qvalue([2, 4], "xnn_datatype_qint8", pt(sx, zx))
    qc = g.qvalue([2, 8], "xnn_datatype_qint8", pt(sx, zx))
    yc = g.value([2, 8], ext=1, flags=2)
    w = np.random.randint(-3, 4, size=(4, 8)).astype(np.int8)
    b = np.random.randint(-20, 21, size=(4,)).astype(np.int32)
    wv = g.qvalue([4, 8], "xnn_datatype_qcint8", pc(sw, 4), data=w)
    bv = g.qvalue([4], "xnn_datatype_qcint32", pc(sx * sw, 4), data=b)
    qy = g.qvalue([2, 4], "xnn_datatype_qint8", pt(sy, zy))
    y = g.value([2, 4], ext=2, flags=2)
    g.node("XNNConvert", {"input_id": x, "output_id": q, "flags": 0})
    g.node("XNNStaticSlice", {"num_dims": 2, "offsets": [0, 1], "sizes": [2, 4], "input_id": q, "output_id": qs,
                              "flags": 0})
    g.node("XNNConcatenate2", {"axis": 1, "input1_id": qs, "input2_id": qs, "input3_id": INVALID,
                               "input4_id": INVALID, "input5_id": INVALID, "output_id": qc, "flags": 0})
    g.node("XNNConvert", {"input_id": qc, "output_id": yc, "flags": 0})
    g.node("XNNFullyConnected", {"input1_id": qc, "filter_id": wv, "bias_id": bv, "output_id": qy, "flags": 0})
    g.node("XNNConvert", {"input_id": qy, "output_id": y, "flags": 0})
    k = np.random.randint(-20, 21, size=(2, 6))
    xv = ((k + 0.3) * sx).astype(np.float32)
    qk = np.concatenate([k[:, 1:5], k[:, 1:5]], axis=1)  # quantized minus zero point
    acc = qk @ w.astype(np.int64).T + b
    yq = np.clip(acc + zy, -128, 127)
    write(out, "quant_bytes", g.payload(), {0: ("in", xv), 1: ("out", (qk * sx).astype(np.float32)),
                                            2: ("out", ((yq - zy) * sy).astype(np.float32))})


def quant_args(out):
    """qint8 delegate arguments (ExecuTorch passes the raw int8 data): an
    int8 input through a per-channel fully connected node to an int8 output,
    an int8 concatenation to an int8 output, a convert to fp32; built for
    [3, 4, 6] and also run at [3, 4, 6], [1, 4, 6] (contiguous rows) and
    [2, 3, 6] (rows spread into the built layout). Scales as quant_bytes:
    exact."""
    sx, zx, sw, sy, zy = 0.0625, 3, 0.5, 0.03125, -2
    pt = lambda s, z: ("PerTensorQuant", {"scale": s, "zero_point": z})
    pc = lambda s, n: ("PerChannelQuant", {"scale": [s] * n, "channel_dim": 0})
    w = np.random.randint(-3, 4, size=(4, 6)).astype(np.int8)
    b = np.random.randint(-20, 21, size=(4,)).astype(np.int32)
    for name, shape in (("quant_args", (3, 4, 6)), ("quant_args_batch_shrunk", (1, 4, 6)),
                        ("quant_args_seq_shrunk", (2, 3, 6))):
        g = Graph()
        x = g.qvalue([3, 4, 6], "xnn_datatype_qint8", pt(sx, zx), ext=0, flags=1)
        wv = g.qvalue([4, 6], "xnn_datatype_qcint8", pc(sw, 4), data=w)
        bv = g.qvalue([4], "xnn_datatype_qcint32", pc(sx * sw, 4), data=b)
        qy = g.qvalue([3, 4, 4], "xnn_datatype_qint8", pt(sy, zy), ext=1, flags=2)
        qc = g.qvalue([3, 4, 12], "xnn_datatype_qint8", pt(sx, zx), ext=2, flags=2)
        f = g.value([3, 4, 6], ext=3, flags=2)
        g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wv, "bias_id": bv, "output_id": qy, "flags": 0})
        g.node("XNNConcatenate2", {"axis": 2, "input1_id": x, "input2_id": x, "input3_id": INVALID,
                                   "input4_id": INVALID, "input5_id": INVALID, "output_id": qc, "flags": 0})
        g.node("XNNConvert", {"input_id": x, "output_id": f, "flags": 0})
        k = np.random.randint(-40, 41, size=shape)
        acc = k @ w.astype(np.int64).T + b
        yq = np.clip(acc + zy, -128, 127).astype(np.int8)
        xq = (k + zx).astype(np.int8)
        write(out, name, g.payload(), {0: ("in", xq), 1: ("out", yq), 2: ("out", np.concatenate([xq, xq], axis=2)),
                                       3: ("out", (k * sx).astype(np.float32))})


def quant_args_native_shapes(out):
    """qint8 arguments without independent rows (transposes around a copy),
    run smaller: every node natively at the real shapes, on int8 bytes."""
    pt = ("PerTensorQuant", {"scale": 0.25, "zero_point": -1})
    g = Graph()
    x = g.qvalue([4, 6], "xnn_datatype_qint8", pt, ext=0, flags=1)
    t = g.qvalue([6, 4], "xnn_datatype_qint8", pt)
    c = g.qvalue([6, 4], "xnn_datatype_qint8", pt)
    y = g.qvalue([4, 6], "xnn_datatype_qint8", pt, ext=1, flags=2)
    g.node("XNNStaticTranspose", {"num_dims": 2, "perm": [1, 0], "input_id": x, "output_id": t, "flags": 0})
    g.node("XNNCopy", {"input_id": t, "output_id": c, "flags": 0})
    g.node("XNNStaticTranspose", {"num_dims": 2, "perm": [1, 0], "input_id": c, "output_id": y, "flags": 0})
    xv = np.random.randint(-128, 128, size=(3, 6)).astype(np.int8)
    write(out, "quant_args_native_shapes", g.payload(), {0: ("in", xv), 1: ("out", xv)})


def fp16_args(out):
    """fp16 values, constants and arguments (a half model's payload), run in
    fp32: a fully connected node with fp16 weights and an add of an fp16
    constant, built for [3, 4, 8] and run at that shape, at [1, 4, 8]
    (contiguous rows) and [2, 3, 8] (rows spread); small integers, so every
    sum is exact in fp32 and fp16 and the outputs are exact."""
    h = "xnn_datatype_fp16"
    w = np.random.randint(-3, 4, size=(6, 8)).astype(np.float16)
    b = np.random.randint(-8, 9, size=(6,)).astype(np.float16)
    k = np.random.randint(-8, 9, size=(8,)).astype(np.float16)
    for name, shape in (("fp16_args", (3, 4, 8)), ("fp16_args_batch_shrunk", (1, 4, 8)),
                        ("fp16_args_seq_shrunk", (2, 3, 8))):
        g = Graph()
        x = g.value([3, 4, 8], ext=0, flags=1, dt=h)
        wv = g.value([6, 8], data=w, dt=h)
        bv = g.value([6], data=b, dt=h)
        y = g.value([3, 4, 6], ext=1, flags=2, dt=h)
        kv = g.value([8], data=k, dt=h)
        z = g.value([3, 4, 8], ext=2, flags=2, dt=h)
        g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wv, "bias_id": bv, "output_id": y, "flags": 0})
        g.node("XNNAdd", {"input1_id": x, "input2_id": kv, "output_id": z, "flags": 0})
        xv = np.random.randint(-4, 5, size=shape).astype(np.float16)
        xf = xv.astype(np.float32)
        write(out, name, g.payload(), {0: ("in", xv), 1: ("out", (xf @ w.astype(np.float32).T + b).astype(np.float16)),
                                       2: ("out", (xf + k.astype(np.float32)).astype(np.float16))})


def fp16_native_shapes(out):
    """fp16 arguments without independent rows, run smaller: natively at the
    real shapes, on the fp32 side of the arguments."""
    h = "xnn_datatype_fp16"
    k = np.array([[0.5], [-2], [1.25], [3], [-0.75], [4]], np.float16)
    g = Graph()
    x = g.value([4, 6], ext=0, flags=1, dt=h)
    t = g.value([6, 4], dt=h)
    kv = g.value([6, 1], data=k, dt=h)
    m = g.value([6, 4], dt=h)
    y = g.value([4, 6], ext=1, flags=2, dt=h)
    g.node("XNNStaticTranspose", {"num_dims": 2, "perm": [1, 0], "input_id": x, "output_id": t, "flags": 0})
    g.node("XNNMultiply", {"input1_id": t, "input2_id": kv, "output_id": m, "flags": 0})
    g.node("XNNStaticTranspose", {"num_dims": 2, "perm": [1, 0], "input_id": m, "output_id": y, "flags": 0})
    xv = np.random.randint(-16, 17, size=(2, 6)).astype(np.float16)
    write(out, "fp16_native_shapes", g.payload(), {0: ("in", xv), 1: ("out", (xv.astype(np.float32) * k.T.astype(np.float32)).astype(np.float16))})


def half_refused(out):
    """Refused at load, with a clear message: an fp16 constant one element
    short, and a bf16 graph (no bf16 path)."""
    g = Graph()
    x = g.value([2, 4], ext=0, flags=1, dt="xnn_datatype_fp16")
    kv = g.value([4], data=np.ones(4, np.float16).tobytes()[:6], dt="xnn_datatype_fp16")
    y = g.value([2, 4], ext=1, flags=2, dt="xnn_datatype_fp16")
    g.node("XNNAdd", {"input1_id": x, "input2_id": kv, "output_id": y, "flags": 0})
    write(out, "fp16_short_constant", g.payload(), {}, expect_error="needs 8 bytes of constant data")
    g = Graph()
    x = g.value([2, 4], ext=0, flags=1, dt="xnn_datatype_bf16")
    y = g.value([2, 4], ext=1, flags=2, dt="xnn_datatype_bf16")
    g.node("XNNSigmoid", {"input_id": x, "output_id": y, "flags": 0})
    write(out, "bf16_refused", g.payload(), {}, expect_error="bf16 graphs are not supported")


def rows_shrunk(out):
    """Rows over the leading two dims, built for [3, 5, 8], run smaller with
    the caller's tensors of the real sizes (staging): only dim 0 smaller
    (contiguous rows), and dim 1 smaller (rows spread into the built
    layout)."""
    w, b = rn(6, 8), rn(6)
    for name, shape in (("rows_batch_shrunk", (1, 5, 8)), ("rows_seq_shrunk", (2, 3, 8))):
        g = Graph()
        x = g.value([3, 5, 8], ext=0, flags=1)
        wv = g.value([6, 8], data=w)
        bv = g.value([6], data=b)
        h = g.value([3, 5, 6])
        y = g.value([3, 5, 6], ext=1, flags=2)
        g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wv, "bias_id": bv, "output_id": h, "flags": 0})
        g.node("XNNTanh", {"input_id": h, "output_id": y, "flags": 0})
        xv = rn(*shape)
        write(out, name, g.payload(), {0: ("in", xv), 1: ("out", np.tanh(xv @ w.T + b))})


def native_shapes_shrunk(out):
    """No independent rows (the batch moves to the last dim and back), run
    smaller: every node natively at the real shapes."""
    g = Graph()
    k = rn(6, 1)
    x = g.value([4, 6], ext=0, flags=1)
    t = g.value([6, 4])
    kv = g.value([6, 1], data=k)
    m = g.value([6, 4])
    y = g.value([4, 6], ext=1, flags=2)
    g.node("XNNStaticTranspose", {"num_dims": 2, "perm": [1, 0], "input_id": x, "output_id": t, "flags": 0})
    g.node("XNNMultiply", {"input1_id": t, "input2_id": kv, "output_id": m, "flags": 0})
    g.node("XNNStaticTranspose", {"num_dims": 2, "perm": [1, 0], "input_id": m, "output_id": y, "flags": 0})
    xv = rn(2, 6)
    write(out, "native_shapes_shrunk", g.payload(), {0: ("in", xv), 1: ("out", (xv.T * k).T)})


def rows_few(out):
    """Rows built for [3, 5, 8], run with one of the fifteen (a decode step
    of a graph built for a prompt): every node natively at the real shape,
    no runtime computing the fourteen others."""
    w, b = rn(6, 8), rn(6)
    g = Graph()
    x = g.value([3, 5, 8], ext=0, flags=1)
    wv = g.value([6, 8], data=w)
    bv = g.value([6], data=b)
    h = g.value([3, 5, 6])
    y = g.value([3, 5, 6], ext=1, flags=2)
    g.node("XNNFullyConnected", {"input1_id": x, "filter_id": wv, "bias_id": bv, "output_id": h, "flags": 0})
    g.node("XNNTanh", {"input_id": h, "output_id": y, "flags": 0})
    xv = rn(1, 1, 8)
    write(out, "rows_few", g.payload(), {0: ("in", xv), 1: ("out", np.tanh(xv @ w.T + b))})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "payloads"))
    a = ap.parse_args()
    np.random.seed(1234)
    for fn in (elu_argmax_copy, inline_constants, legacy_constant_buffer, native_fallbacks, quant_bytes, rows_shrunk,
               native_shapes_shrunk, quant_args, quant_args_native_shapes, fp16_args, fp16_native_shapes,
               half_refused, rows_few):
        fn(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
