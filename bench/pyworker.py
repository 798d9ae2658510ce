#!/usr/bin/env python3
"""Python side of the benchmark driver protocol (driver/bench_driver.h).

    python3 bench/pyworker.py {pterun|executorch|eager|onnxruntime} [--threads N]

One process per runtime, driven by bench/run.py over stdin/stdout exactly
like the C drivers, so the orchestrator treats every runtime the same way.
Each `run` iteration is one Python call as an application makes it:

* pterun:     method.execute([numpy arrays])        (pterun's bindings)
* executorch: method.execute([torch tensors])       (executorch.runtime)
* eager:      module(*torch tensors) under torch.inference_mode()
* onnxruntime: session.run(None, {name: numpy array}) (`load` takes the .onnx)

The eager module is rebuilt from tools/zoo/zoo_models.py with the exporter's
seeds, or for a real-size case from bench/realsize.py (see zoo_eager.py); `load` takes the case's model.pte only to find its
case.json. Heap allocations are not counted here (reported as -1).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

DTYPES = {"uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
          "float16": np.float16, "float32": np.float32, "float64": np.float64, "bool": np.bool_}


def read_mem() -> Tuple[int, int]:
    """(VmHWM, VmRSS) of this process in kB."""
    hwm = rss = -1
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return hwm, rss


def parse_input(spec: str) -> np.ndarray:
    dtype, shape, path = spec.split("|", 2)
    dims = tuple(int(d) for d in shape.split(",") if d)
    return np.fromfile(path, dtype=DTYPES[dtype]).reshape(dims)


class Loaded:
    """A loaded program/method (or eager module) and its inputs, ready to call."""

    def __init__(self, call: Callable[[], List[Any]], keep: Any) -> None:
        self.call = call
        self.keep = keep  # keeps the program (and its method) alive
        self.last: List[Any] = []


class Runtime:
    name = ""

    def info(self) -> Dict[str, Any]:
        raise NotImplementedError

    def load(self, pte: str, ptd: Optional[str], method: str, inputs: List[np.ndarray]) -> Tuple[Loaded, float, float]:
        """Returns the loaded method and (program load ms, method load ms)."""
        raise NotImplementedError


class PterunRuntime(Runtime):
    name = "pterun-py"

    def __init__(self, threads: int) -> None:
        import pterun  # noqa: F401  (PTERUN_NUM_THREADS is set by the caller)

        self.pterun = pterun

    def info(self) -> Dict[str, Any]:
        p = self.pterun
        return {"runtime": "pterun-py", "version": p.__version__, "module": p.__file__,
                "backends": p.registered_backends(), "operators": len(p.registered_operators())}

    def load(self, pte, ptd, method, inputs):
        t0 = time.perf_counter()
        prog = self.pterun.load(pte, data=ptd)
        t1 = time.perf_counter()
        m = prog.method(method)
        t2 = time.perf_counter()
        execute = m.execute
        return Loaded(lambda: execute(inputs), (prog, m)), (t1 - t0) * 1e3, (t2 - t1) * 1e3


class ExecutorchRuntime(Runtime):
    name = "executorch-py"

    def __init__(self, threads: int) -> None:
        import torch

        from executorch.runtime import Runtime as EtRuntime

        self.torch = torch
        self.rt = EtRuntime.get()
        self.lib = self.rt._legacy_module
        if threads > 0:
            self.lib._unsafe_reset_threadpool(threads)

    def info(self) -> Dict[str, Any]:
        from importlib.metadata import version

        return {"runtime": "executorch-py", "version": version("executorch"),
                "threadpool_threads": int(self.lib._threadpool_get_thread_count()),
                "backends": sorted(self.rt.backend_registry.registered_backend_names)}

    def load(self, pte, ptd, method, inputs):
        tins = [self.torch.from_numpy(x) for x in inputs]
        t0 = time.perf_counter()
        prog = self.rt.load_program(pte, data_path=ptd)
        t1 = time.perf_counter()
        m = prog.load_method(method)
        t2 = time.perf_counter()
        execute = m.execute
        return Loaded(lambda: execute(tins), (prog, m)), (t1 - t0) * 1e3, (t2 - t1) * 1e3


class EagerRuntime(Runtime):
    name = "eager"

    def __init__(self, threads: int) -> None:
        import torch

        self.torch = torch
        if threads > 0:
            torch.set_num_threads(threads)
        sys.path.insert(0, HERE)
        import zoo_eager

        self.zoo_eager = zoo_eager

    def info(self) -> Dict[str, Any]:
        return {"runtime": "eager", "version": self.torch.__version__, "threads": self.torch.get_num_threads()}

    def load(self, pte, ptd, method, inputs):
        torch = self.torch
        tins = [torch.from_numpy(x) for x in inputs]
        t0 = time.perf_counter()
        module = self.zoo_eager.build_module(os.path.dirname(os.path.abspath(pte)), method)
        t1 = time.perf_counter()

        def call() -> List[Any]:
            with torch.inference_mode():
                out = module(*tins)
            return list(out) if isinstance(out, (tuple, list)) else [out]

        return Loaded(call, module), (t1 - t0) * 1e3, 0.0

    def flops(self, lm: Loaded) -> int:
        """Floating-point operations of one call (matrix products and
        convolutions, 2 per multiply-add), counted by torch's FlopCounterMode.
        A module with torch.cond counts 0: cond cannot run under a dispatch
        mode in eager, and a failed attempt leaves torch unable to run it
        afterwards in this process."""
        import inspect

        from torch.utils.flop_counter import FlopCounterMode

        try:
            if "torch.cond" in inspect.getsource(type(lm.keep).forward):
                return 0
        except (OSError, TypeError):
            pass
        counter = FlopCounterMode(display=False)
        with counter:
            lm.call()
        return int(counter.get_total_flops())


class OnnxRuntime(Runtime):
    """ONNX Runtime's CPU provider on the .onnx exported from the same eager
    module (bench/realsize.py); N intra-op threads, one inter-op thread."""

    name = "onnxruntime"

    def __init__(self, threads: int) -> None:
        import onnxruntime

        self.ort = onnxruntime
        self.threads = threads

    def info(self) -> Dict[str, Any]:
        return {"runtime": "onnxruntime", "version": self.ort.__version__, "intra_op_threads": self.threads,
                "providers": self.ort.get_available_providers()}

    def load(self, pte, ptd, method, inputs):
        so = self.ort.SessionOptions()
        if self.threads > 0:
            so.intra_op_num_threads = self.threads
        so.inter_op_num_threads = 1
        so.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
        t0 = time.perf_counter()
        sess = self.ort.InferenceSession(pte, so, providers=["CPUExecutionProvider"])
        t1 = time.perf_counter()
        feed = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
        run = sess.run
        return Loaded(lambda: run(None, feed), sess), (t1 - t0) * 1e3, 0.0


RUNTIMES = {"pterun": PterunRuntime, "executorch": ExecutorchRuntime, "eager": EagerRuntime,
            "onnxruntime": OnnxRuntime}


def to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().cpu().contiguous().numpy()
    return np.ascontiguousarray(x)


def serve(rt: Runtime) -> None:
    loaded: Dict[str, Loaded] = {}
    out = sys.stdout

    def reply(*fields: Any) -> None:
        out.write("\t".join(str(f) for f in fields) + "\n")
        out.flush()

    for line in sys.stdin:
        f = line.rstrip("\r\n").split("\t")
        cmd = f[0]
        try:
            if cmd == "quit":
                break
            elif cmd == "info":
                reply("ok", json.dumps(rt.info()))
            elif cmd == "load":
                if f[1] in loaded:
                    raise ValueError(f"model '{f[1]}' is already loaded")
                inputs = [parse_input(s) for s in f[5:]]
                lm, pms, mms = rt.load(f[2], None if f[3] == "-" else f[3], f[4], inputs)
                loaded[f[1]] = lm
                reply("ok", f"{pms:.6f}", f"{mms:.6f}")
            elif cmd == "run":
                lm = loaded[f[1]]
                warmup, iters = int(f[2]), int(f[3])
                call = lm.call
                cpu0 = time.process_time_ns()  # every thread of the process
                for _ in range(warmup):
                    call()
                times = [0] * iters
                clock = time.perf_counter_ns
                for i in range(iters):
                    t0 = clock()
                    call()
                    times[i] = clock() - t0
                reply("ok", -1, ",".join(map(str, times)), time.process_time_ns() - cpu0)
            elif cmd == "outputs":
                outs = [to_numpy(o) for o in loaded[f[1]].call()]
                descs = []
                for i, o in enumerate(outs):
                    o.tofile(os.path.join(f[2], f"{i}.bin"))
                    descs.append(f"{o.dtype.name}|{','.join(map(str, o.shape))}")
                reply("ok", len(outs), *descs)
            elif cmd == "loadtime":
                reps = int(f[1])
                pt, mt = [], []
                for _ in range(reps):
                    lm, pms, mms = rt.load(f[2], None if f[3] == "-" else f[3], f[4], [])
                    del lm
                    pt.append(f"{pms * 1e6:.0f}")
                    mt.append(f"{mms * 1e6:.0f}")
                reply("ok", ",".join(pt), ",".join(mt))
            elif cmd == "flops":
                if not isinstance(rt, EagerRuntime):
                    raise ValueError("flops: eager worker only")
                reply("ok", rt.flops(loaded[f[1]]))
            elif cmd == "mem":
                reply("ok", *read_mem())
            elif cmd == "free":
                del loaded[f[1]]
                reply("ok")
            else:
                reply("err", f"unknown command '{cmd}'")
        except Exception as e:  # noqa: BLE001  (reported to the orchestrator)
            # pterun.Error and ExecuTorch's RuntimeError carry the runtime's own message.
            msg = str(e) if type(e).__name__ in ("Error", "RuntimeError") else f"{type(e).__name__}: {e}"
            reply("err", msg.replace("\n", " ").replace("\t", " "))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("runtime", choices=sorted(RUNTIMES))
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    try:
        rt = RUNTIMES[args.runtime](args.threads)
    except Exception as e:  # noqa: BLE001
        print(f"{args.runtime}: not available: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(3)
    serve(rt)


if __name__ == "__main__":
    main()
