"""Benchmark machinery: worker processes, cases, statistics, interleaved timing.

Every runtime runs in its own process (a "worker") that speaks the line
protocol of driver/bench_driver.h: the C drivers (pterun_bench,
executorch_bench) and pyworker.py (pterun's Python bindings, ExecuTorch's
Python runtime, eager PyTorch). The orchestrator loads the same program and
inputs into each, checks their outputs against the case's expected outputs,
and then times them round-robin: in every round each (runtime, program) gets
a short warm-up and a batch of timed iterations, and the rounds rotate the
order. A runtime's latency is the median of its per-round medians; ratios
are taken per round (same round, so drift cancels) and summarised by their
median and min-max.
"""
from __future__ import annotations

import json
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Runtime keys, in table order.
PTERUN_C = "pterun-c"
PTERUN_CLI = "pterun-cli"
PTERUN_PY = "pterun-py"
ET_C = "executorch-c"
ET_PY = "executorch-py"
EAGER = "eager"
ORT = "onnxruntime"
RUNTIME_LABELS = {
    PTERUN_C: "pterun C",
    PTERUN_CLI: "pterun CLI",
    PTERUN_PY: "pterun Python",
    ET_C: "ExecuTorch C++",
    ET_PY: "ExecuTorch Python",
    EAGER: "PyTorch eager",
    ORT: "ONNX Runtime",
}
FORMS = ("nondelegated", "delegated")


class BenchError(RuntimeError):
    """Something that must fail the benchmark (wrong output, crashed worker)."""


class CommandError(RuntimeError):
    """A worker answered `err` (e.g. an operator or backend is not registered)."""


_T0 = time.time()


def log(msg: str) -> None:
    print(f"bench [{time.time() - _T0:5.1f} s]: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------


class Worker:
    """A runtime process driven over stdin/stdout; its stderr goes to a log file."""

    def __init__(self, key: str, argv: Sequence[str], env: Dict[str, str], log_dir: str, tag: str = "") -> None:
        self.key = key
        self.argv = list(argv)
        self.log_path = os.path.join(log_dir, f"{key}{tag}.log")
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                     env=env, text=True, bufsize=1, cwd=REPO)
        self.info: Dict[str, Any] = {}

    def log_tail(self, n: int = 6) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                lines = [ln.strip() for ln in f if ln.strip() and "cpuinfo" not in ln]
            return " | ".join(lines[-n:])
        except OSError:
            return ""

    def cmd(self, *fields: Any, timeout: float = 900.0) -> List[str]:
        line = "\t".join(str(f) for f in fields) + "\n"
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise BenchError(f"{self.key} exited (status {self.proc.poll()}): {self.log_tail()}") from None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        reply = self.proc.stdout.readline() if ready else None
        if reply is None:
            self.kill()
            raise BenchError(f"{self.key} did not answer '{fields[0]}' within {timeout:.0f} s")
        if not reply:
            status = self.proc.wait()
            raise BenchError(f"{self.key} exited (status {status}) during '{fields[0]}': {self.log_tail()}")
        parts = reply.rstrip("\n").split("\t")
        if parts[0] == "err":
            raise CommandError(parts[1] if len(parts) > 1 else "error")
        if parts[0] != "ok":
            raise BenchError(f"{self.key}: unexpected reply {reply!r}")
        return parts[1:]

    def start_info(self, timeout: float = 300.0) -> Dict[str, Any]:
        """First command: waits for start-up (imports) and returns the runtime's info."""
        try:
            self.info = json.loads(self.cmd("info", timeout=timeout)[0])
        except (BenchError, CommandError) as e:
            self.close()
            raise CommandError(f"{e}") from None
        return self.info

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._log.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def read_status_kb(field_name: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return -1


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass
class Program:
    """One .pte of a case (a form) with what is needed to run and check it."""

    form: str
    dir: str
    pte: str
    ptd: Optional[str]
    method: str
    rtol: float
    atol: float
    expected: List[np.ndarray]


@dataclass
class Case:
    name: str
    inputs: List[np.ndarray]
    input_specs: List[str]  # dtype|shape|path of the raw copies the workers read
    input_npys: List[str]
    forms: Dict[str, Program] = field(default_factory=dict)

    def eager_program(self) -> Program:
        return self.forms["nondelegated"]


def _npys(d: str) -> List[str]:
    if not os.path.isdir(d):
        return []
    files = sorted((f for f in os.listdir(d) if f.endswith(".npy")), key=lambda f: int(f[:-4]))
    return [os.path.join(d, f) for f in files]


def raw_specs(arrays: Sequence[np.ndarray], prefix: str, tmp: str) -> List[str]:
    specs = []
    for i, a in enumerate(arrays):
        path = os.path.join(tmp, f"{prefix}.in{i}.bin")
        np.ascontiguousarray(a).tofile(path)
        specs.append(f"{a.dtype.name}|{','.join(map(str, a.shape))}|{path}")
    return specs


def load_case(zoo: str, name: str, tmp: str) -> Case:
    plain = os.path.join(zoo, "models", name)
    if not os.path.isfile(os.path.join(plain, "case.json")):
        raise BenchError(f"no zoo model '{name}' under {zoo}/models")
    npys = _npys(os.path.join(plain, "inputs"))
    inputs = [np.load(p) for p in npys]
    case = Case(name, inputs, raw_specs(inputs, name, tmp), npys)
    # "quantized": bench/realsize.py's int8 XNNPACK form (real-size models only).
    for form, group in (("nondelegated", "models"), ("delegated", "xnnpack"), ("quantized", "xnnpack_int8")):
        d = os.path.join(zoo, group, name)
        if not os.path.isfile(os.path.join(d, "case.json")):
            continue
        with open(os.path.join(d, "case.json")) as f:
            meta = json.load(f)
        ptd = os.path.join(d, meta["data"]) if meta.get("data") else None
        case.forms[form] = Program(form, d, os.path.join(d, "model.pte"), ptd, meta.get("method", "forward"),
                                   float(meta.get("rtol", 1e-4)), float(meta.get("atol", 1e-5)),
                                   [np.load(p) for p in _npys(os.path.join(d, "expected"))])
    return case


def compare(got: Sequence[np.ndarray], want: Sequence[np.ndarray], rtol: float, atol: float) -> Optional[str]:
    """None when the outputs match the expected ones within tolerance, else why not."""
    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"output {i}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if w.dtype.kind in "biu":
            if not np.array_equal(g, w):
                return f"output {i}: values differ"
        elif not np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True):
            d = np.nanmax(np.abs(g.astype(np.float64) - w.astype(np.float64)))
            return f"output {i}: max abs diff {d:.3g} (rtol {rtol}, atol {atol})"
    return None


def fetch_outputs(w: Worker, mid: str, tmp: str) -> List[np.ndarray]:
    d = tempfile.mkdtemp(prefix="out-", dir=tmp)
    reply = w.cmd("outputs", mid, d)
    outs = []
    for i, desc in enumerate(reply[1:]):
        dtype, shape = desc.split("|")
        dims = tuple(int(s) for s in shape.split(",") if s)
        outs.append(np.fromfile(os.path.join(d, f"{i}.bin"), dtype=np.dtype(dtype)).reshape(dims))
    shutil.rmtree(d, ignore_errors=True)
    return outs


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------


def process_cpu_ns(pid: int) -> Optional[int]:
    """User + system CPU time of a process, all its threads (Linux /proc; clock-tick resolution)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def quantiles(xs: Sequence[float]) -> Dict[str, float]:
    s = sorted(xs)
    q = np.percentile(s, [25, 50, 75]) if len(s) > 1 else [s[0]] * 3
    return {"median": float(q[1]), "q1": float(q[0]), "q3": float(q[2]), "min": float(s[0]), "max": float(s[-1]),
            "n": len(s)}


def summarize_latency(round_medians_ns: Sequence[float]) -> Dict[str, Any]:
    """Latency in microseconds from per-round medians in nanoseconds."""
    us = [x / 1e3 for x in round_medians_ns]
    return {"median_us": statistics.median(us), "round_medians_us": [round(x, 4) for x in us],
            "spread_us": quantiles(us)}


def paired_ratio(a: Sequence[float], b: Sequence[float]) -> Optional[Dict[str, Any]]:
    """Per-round ratios a/b (rounds where both ran), summarised."""
    rs = [x / y for x, y in zip(a, b) if x is not None and y is not None and y > 0]
    if not rs:
        return None
    q = quantiles(rs)
    return {"median": q["median"], "min": q["min"], "max": q["max"], "q1": q["q1"], "q3": q["q3"], "rounds": len(rs)}


# ---------------------------------------------------------------------------
# Interleaved timing
# ---------------------------------------------------------------------------


@dataclass
class Entry:
    """One (runtime, program) timed in the round-robin."""

    runtime: str
    form: str  # "nondelegated", "delegated" or "eager"
    worker: Optional[Worker]  # None for the CLI (one process per round)
    mid: str = ""
    cli_argv: Optional[List[str]] = None
    iters: int = 10
    warmup: int = 2
    round_medians: List[Optional[float]] = field(default_factory=list)
    allocs: List[int] = field(default_factory=list)
    # The worker process's CPU time (every thread) over the timed rounds (warm-ups
    # included) and the calls made in them: CPU per call beside wall time,
    # which on a shared machine says what the runtime itself spent.
    cpu_ns: int = 0
    calls: int = 0

    def cpu_per_call_us(self) -> Optional[float]:
        return self.cpu_ns / self.calls / 1e3 if self.calls else None

    def run_round(self, env: Dict[str, str]) -> None:
        if self.worker is not None:
            c0 = process_cpu_ns(self.worker.proc.pid)
            reply = self.worker.cmd("run", self.mid, self.warmup, self.iters)
            c1 = process_cpu_ns(self.worker.proc.pid)
            # The worker's own count (ns) when it gives one; /proc's is in clock ticks.
            cpu = int(reply[2]) if len(reply) > 2 else (c1 - c0 if c0 is not None and c1 is not None else None)
            if cpu is not None:
                self.cpu_ns += cpu
                self.calls += self.warmup + self.iters
            times = [int(t) for t in reply[1].split(",")]
            self.round_medians.append(float(statistics.median(times)))
            if int(reply[0]) >= 0:
                self.allocs.append(int(reply[0]))
            return
        argv = self.cli_argv + ["--warmup", str(self.warmup), "--iterations", str(self.iters)]
        p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO)
        m = re.search(r"median ([\d.]+) ms", p.stdout)
        if p.returncode != 0 or not m:
            raise BenchError(f"pterun CLI failed ({p.returncode}): {' '.join(argv)}: {p.stderr.strip()[-400:]}")
        self.round_medians.append(float(m.group(1)) * 1e6)

    def calibrate(self, target_ns: float, env: Dict[str, str], min_iters: int, max_iters: int,
                  probe: Tuple[int, int] = (3, 5), min_warmup: int = 2) -> None:
        """Warms up and picks the iteration count that fills about target_ns per round."""
        if self.worker is not None:
            reply = self.worker.cmd("run", self.mid, *probe)
            t = statistics.median(int(x) for x in reply[1].split(","))
        else:
            self.iters, self.warmup = 5, 1
            self.run_round(env)
            t = self.round_medians.pop()
        self.iters = int(min(max_iters, max(min_iters, target_ns / max(t, 1.0))))
        self.warmup = max(min_warmup, self.iters // 10)


def workers_cpu_ns(entries: Sequence[Entry]) -> int:
    pids = {e.worker.proc.pid for e in entries if e.worker is not None}
    return sum(process_cpu_ns(p) or 0 for p in pids)


def quiesce(entries: Sequence[Entry], step_s: float = 0.02, most_s: float = 0.5) -> None:
    """Waits until no worker process gains CPU time over a step (at most most_s).
    A runtime whose pool spins after a call (ONNX Runtime's workers do, by
    default) otherwise runs on into the next runtime's round: 20-40 ms of its
    CPU inside a 25 ms round of pterun's at 2 threads on 2 cores, measured."""
    t_end = time.monotonic() + most_s
    before = workers_cpu_ns(entries)
    while time.monotonic() < t_end:
        time.sleep(step_s)
        now = workers_cpu_ns(entries)
        if now == before:
            return
        before = now


def round_robin(entries: List[Entry], rounds: int, env: Dict[str, str], settle: bool = False) -> None:
    """Runs `rounds` rounds; round r starts at entry r (mod n) so no runtime always goes first.
    settle: before each entry, wait for every worker to go idle (see quiesce)."""
    n = len(entries)
    for r in range(rounds):
        for k in range(n):
            if settle:
                quiesce(entries)
            entries[(r + k) % n].run_round(env)
