#!/usr/bin/env python3
"""pterun vs ExecuTorch vs PyTorch eager, on the zoo's models, in one run.

    python3 bench/run.py [--quick] [--models mlp,small_cnn,...] [--repeat N]
                         [--threads 1,2] [--out bench/] [--build build]
                         [--python PY] [--no-build]

Runs every zoo model (zoo/models/<m>, and its XNNPACK-delegated twin
zoo/xnnpack/<m>) through

  pterun C            build/bench/pterun_bench: load once, time execute only
  pterun CLI          `pterun run --warmup --iterations` (its printed median)
  pterun Python       pterun's bindings (pip install . into --python)
  ExecuTorch C++      build/bench-executorch/executorch_bench: the wheel's
                      libexecutorch + optimized kernels + XNNPACK delegate
  ExecuTorch Python   executorch.runtime, same .pte file
  PyTorch eager       the same nn.Module rebuilt from tools/zoo/zoo_models.py

interleaved round-robin with warm-up and repetitions, and also measures load
time, peak memory, heap allocations during execute, library sizes, Python
per-call overhead, per-instruction overhead and the fraction of this
machine's sgemm peak. Writes results.md, results.json and results.png into
--out. A runtime or form that cannot run yet (an operator or backend not
registered) is reported as not available; a wrong output, a crash or a
failed execute is an error: the run still writes its results, then exits 1.

--quick (for CI): mlp only, one thread setting, two short rounds, small
sgemm; writes into build/bench-quick unless --out is given. Nothing here is a
timed test: slowness never fails it. See bench/README.md for the method.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import harness as H  # noqa: E402
import report  # noqa: E402
from harness import (EAGER, ET_C, ET_PY, FORMS, ORT, PTERUN_C, PTERUN_CLI, PTERUN_PY, BenchError,  # noqa: E402
                     CommandError, Entry, Worker, log)

REPO = H.REPO
MAIN_MODELS = ["mlp", "small_cnn", "mobilenet_v2_tiny", "resnet_tiny", "transformer_tiny"]
# Models whose time goes mostly into matrix products / convolutions.
GEMM_HEAVY = {"mlp", "transformer_tiny", "small_cnn", "mobilenet_v2_tiny", "resnet_tiny"}
LOADED_RUNTIMES = (PTERUN_C, PTERUN_PY, ET_C, ET_PY)  # runtimes that load .pte files
LOADAVG_START = list(os.getloadavg())


# ---------------------------------------------------------------------------
# Configuration and environment
# ---------------------------------------------------------------------------


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="CI smoke run: mlp, one thread setting, few repetitions")
    ap.add_argument("--models", help="comma-separated zoo model names (default: every zoo/models case)")
    ap.add_argument("--repeat", type=int, help="interleaved rounds per model (default 12; --quick 2)")
    ap.add_argument("--threads", help="thread settings, e.g. 1,2 (default: 1 and all cores; --quick 1)")
    ap.add_argument("--out", help="output folder (default bench/; --quick: build/bench-quick)")
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="pterun CMake build folder")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter for the Python runtimes (needs pterun installed, torch, executorch)")
    ap.add_argument("--zoo", default=os.path.join(REPO, "zoo"))
    ap.add_argument("--no-build", action="store_true", help="do not (re)build the drivers")
    ap.add_argument("--round-ms", type=float, help="target time per runtime per round (default 25; --quick 3)")
    ap.add_argument("--realsize", default=os.path.join(REPO, "build", "realsize"),
                    help="real-size models written by bench/realsize.py (make realsize); skipped when absent")
    ap.add_argument("--real-models", help="comma-separated real-size models (default: every one in --realsize)")
    ap.add_argument("--real-python", default=os.path.join(REPO, ".venv-real", "bin", "python"),
                    help="interpreter with transformers and onnxruntime (tools/deps_real.sh) for the real-size "
                         "models' eager and ONNX Runtime peers")
    ap.add_argument("--real-repeat", type=int, default=8, help="interleaved rounds per real-size model")
    ap.add_argument("--real-slow-ms", type=float, default=1500.0,
                    help="a real-size form slower than this per call is timed once, not in the rounds")
    ap.add_argument("--no-real", action="store_true", help="skip the real-size models")
    ap.add_argument("--no-zoo", action="store_true",
                    help="real-size models only; the zoo figures are kept from the results.json already in --out")
    args = ap.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    if args.threads:
        args.thread_list = [int(t) for t in args.threads.split(",")]
    else:
        args.thread_list = [1] if args.quick else sorted({1, cores})
    args.rounds = args.repeat or (2 if args.quick else 12)
    args.round_ns = (args.round_ms or (3.0 if args.quick else 25.0)) * 1e6
    args.out = os.path.abspath(args.out or (os.path.join(args.build, "bench-quick") if args.quick else HERE))
    return args


def run(argv: List[str], **kw: Any) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, cwd=REPO, **kw)


def build(args: argparse.Namespace, avail: Dict[str, str]) -> Dict[str, str]:
    """Builds pterun (everything, so new components are picked up) and the
    ExecuTorch driver; returns the paths of the executables."""
    b = args.build
    paths = {"pterun_bench": os.path.join(b, "bench", "pterun_bench"), "cli": os.path.join(b, "cli", "pterun"),
             "bare": os.path.join(b, "bench", "bench_bare"),
             "sgemm_xnnpack": os.path.join(b, "bench", "bench_sgemm_xnnpack"),
             "executorch_bench": os.path.join(b, "bench-executorch", "executorch_bench")}
    if not args.no_build:
        if not os.path.isfile(os.path.join(b, "CMakeCache.txt")):
            log(f"configuring {b}")
            p = run(["cmake", "-S", REPO, "-B", b, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
            if p.returncode:
                raise BenchError(f"cmake configure failed:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        log(f"building {b}")
        p = run(["cmake", "--build", b])
        if p.returncode:
            raise BenchError(f"building pterun failed:\n{p.stdout[-3000:]}{p.stderr[-2000:]}")
        et = executorch_dir(args.python)
        if et is None:
            avail[ET_C] = "not available: the executorch package is not installed for " + args.python
        else:
            eb = os.path.join(b, "bench-executorch")
            p = run(["cmake", "-S", os.path.join(HERE, "executorch"), "-B", eb, "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=Release", f"-Dexecutorch_DIR={os.path.join(et, 'share', 'cmake')}"])
            if p.returncode == 0:
                p = run(["cmake", "--build", eb])
            if p.returncode:
                avail[ET_C] = "not available: building the ExecuTorch driver failed: " + (p.stderr or p.stdout)[-300:]
    for key, rt in (("pterun_bench", PTERUN_C), ("cli", PTERUN_CLI), ("executorch_bench", ET_C)):
        if not os.path.isfile(paths[key]) and rt not in avail:
            avail[rt] = f"not available: {paths[key]} is not built"
    if not os.path.isfile(paths["pterun_bench"]):
        raise BenchError(f"{paths['pterun_bench']} is missing: build pterun first (cmake --build {b})")
    return paths


def executorch_dir(python: str) -> Optional[str]:
    p = run([python, "-c", "import executorch, os; print(list(executorch.__path__)[0])"])
    d = p.stdout.strip()
    return d if p.returncode == 0 and os.path.isdir(os.path.join(d, "share", "cmake")) else None


def runtime_env(threads: int) -> Dict[str, str]:
    env = dict(os.environ)
    env.update({"PTERUN_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads),
                "MKL_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads),
                "PYTHONWARNINGS": "ignore", "TORCH_CPP_LOG_LEVEL": "ERROR"})
    return env


def worker_argv(rt: str, paths: Dict[str, str], python: str, threads: int) -> List[str]:
    if rt == PTERUN_C:
        return [paths["pterun_bench"], "--threads", str(threads)]
    if rt == ET_C:
        return [paths["executorch_bench"], "--threads", str(threads)]
    name = {PTERUN_PY: "pterun", ET_PY: "executorch", EAGER: "eager"}[rt]
    return [python, os.path.join(HERE, "pyworker.py"), name, "--threads", str(threads)]


def start_workers(runtimes: List[str], paths: Dict[str, str], args: argparse.Namespace, threads: int,
                  avail: Dict[str, str], log_dir: str, tag: str = "") -> Dict[str, Worker]:
    """Starts the workers together (Python imports overlap), returns the ones that came up."""
    env = runtime_env(threads)
    started = {rt: Worker(rt, worker_argv(rt, paths, args.python, threads), env, log_dir, tag)
               for rt in runtimes if rt not in avail}
    up: Dict[str, Worker] = {}
    for rt, w in started.items():
        try:
            w.start_info()
            up[rt] = w
        except CommandError as e:
            avail[rt] = f"not available: {e}"
            log(f"{H.RUNTIME_LABELS[rt]}: {avail[rt]}")
    return up


def cpu_info() -> Tuple[str, List[str]]:
    """The CPU's name and the vector extensions the kernels choose by."""
    cpu, flags = "unknown", []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and cpu == "unknown":
                cpu = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                have = set(line.split(":", 1)[1].split())
                flags = [x for x in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni",
                                     "avx_vnni", "avx512_bf16", "avx512_fp16", "amx_int8") if x in have]
    return cpu, flags


def git_commit() -> str:
    git = run(["git", "rev-parse", "--short", "HEAD"]).stdout.strip()
    # the results this run rewrites (a second run over the first's files) say nothing of the code
    changed = [line for line in run(["git", "status", "--porcelain", "--untracked-files=no"]).stdout.splitlines()
               if not line[3:].startswith("bench/results.")]
    return git + ("-dirty" if changed else "")


def machine_info(args: argparse.Namespace, infos: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    cpu, flags = cpu_info()
    cc = run(["cc", "--version"]).stdout.splitlines()
    vers = run([args.python, "-c", "import importlib.metadata as m, platform\n"
                "for p in ('torch', 'executorch', 'numpy'):\n"
                "    try: print(p, m.version(p))\n"
                "    except Exception: print(p, 'not installed')\n"
                "print('python', platform.python_version())"]).stdout.split("\n")
    versions = dict(line.split(" ", 1) for line in vers if " " in line)
    pt = infos.get(PTERUN_C, {})
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu, "cpu_flags": flags, "cores": os.cpu_count(), "cores_available": len(os.sched_getaffinity(0)),
        "kernel": platform.release(), "compiler": cc[0] if cc else "unknown",
        "git_commit": git_commit(),
        "pterun_version": pt.get("version"), "pterun_components": pt.get("components"),
        "pterun_backends": pt.get("backends"), "pterun_operators": pt.get("operators"),
        "load_average": {"start": LOADAVG_START, "end": list(os.getloadavg())},
        "versions": versions, "thread_settings": args.thread_list, "rounds": args.rounds,
        "round_ms": args.round_ns / 1e6, "command": " ".join(["bench/run.py"] + sys.argv[1:]),
    }


# ---------------------------------------------------------------------------
# Latency (and, on the first thread setting, load time)
# ---------------------------------------------------------------------------


def load_model(w: Worker, mid: str, prog: H.Program, case: H.Case, tmp: str, errors: List[str]) -> str:
    """Loads and checks one program in a worker; returns "ok", "not available: ..." or "error: ..."."""
    try:
        w.cmd("load", mid, prog.pte, prog.ptd or "-", prog.method, *case.input_specs)
    except CommandError as e:
        return f"not available: {e}"
    try:
        outs = H.fetch_outputs(w, mid, tmp)
    except CommandError as e:
        errors.append(f"{case.name} ({prog.form}) on {H.RUNTIME_LABELS[w.key]}: execute failed: {e}")
        return f"error: execute failed: {e}"
    bad = H.compare(outs, prog.expected, prog.rtol, prog.atol)
    if bad:
        errors.append(f"{case.name} ({prog.form}) on {H.RUNTIME_LABELS[w.key]}: wrong output: {bad}")
        return f"error: wrong output: {bad}"
    return "ok"


def measure_case(case: H.Case, workers: Dict[str, Worker], paths: Dict[str, str], args: argparse.Namespace,
                 threads: int, avail: Dict[str, str], tmp: str, errors: List[str],
                 with_load_times: bool) -> Dict[str, Any]:
    env = runtime_env(threads)
    status: Dict[str, Dict[str, str]] = {f: {} for f in FORMS}
    status["eager"] = {}
    entries: List[Entry] = []
    loaded: List[Tuple[Worker, str]] = []
    for form in FORMS:
        prog = case.forms.get(form)
        for rt in LOADED_RUNTIMES:
            if prog is None:
                status[form][rt] = "not available: no such program in the zoo"
                continue
            w = workers.get(rt)
            if w is None:
                status[form][rt] = avail.get(rt, "not available")
                continue
            mid = f"{case.name}:{form}"
            status[form][rt] = load_model(w, mid, prog, case, tmp, errors)
            if status[form][rt] == "ok" or status[form][rt].startswith("error: wrong"):
                loaded.append((w, mid))
            if status[form][rt] == "ok":
                entries.append(Entry(rt, form, w, mid))
        # The CLI runs whatever pterun's C driver could load.
        if prog is not None and status[form].get(PTERUN_C) == "ok" and PTERUN_CLI not in avail:
            argv = [paths["cli"], "run", prog.pte, "--method", prog.method]
            if prog.ptd:
                argv += ["--data", prog.ptd]
            for npy in case.input_npys:
                argv += ["--input", npy]
            entries.append(Entry(PTERUN_CLI, form, None, cli_argv=argv))
            status[form][PTERUN_CLI] = "ok"
        elif prog is not None:
            status[form][PTERUN_CLI] = avail.get(PTERUN_CLI) or status[form].get(PTERUN_C, "not available")
    flops = None
    if EAGER in workers:
        w, mid = workers[EAGER], f"{case.name}:eager"
        status["eager"][EAGER] = load_model(w, mid, case.eager_program(), case, tmp, errors)
        if status["eager"][EAGER] == "ok":
            entries.append(Entry(EAGER, "eager", w, mid))
            loaded.append((w, mid))
            flops = int(w.cmd("flops", mid)[0])
    else:
        status["eager"][EAGER] = avail.get(EAGER, "not available")

    max_iters = 300 if args.quick else 5000
    for e in entries:
        e.calibrate(args.round_ns, env, 3, max_iters)
    t0 = time.time()
    H.round_robin(entries, args.rounds, env)
    log(f"  {case.name}: {len(entries)} timed entries x {args.rounds} rounds in {time.time() - t0:.1f} s")

    result: Dict[str, Any] = {"status": status, "flops": flops, "latency": {}}
    for e in entries:
        result["latency"].setdefault(e.form, {})[e.runtime] = dict(
            H.summarize_latency(e.round_medians), iterations_per_round=e.iters,
            round_medians_ns=e.round_medians)
        if e.allocs:
            result["latency"][e.form][e.runtime]["allocs_in_timed_iterations"] = sum(e.allocs)
    if with_load_times:
        result["load"] = measure_load_times(case, workers, status, 3 if args.quick else 8)
    result["allocations"] = measure_allocations(case, workers, status, tmp, 20 if args.quick else 200)
    for w, mid in loaded:
        w.cmd("free", mid)
    return result


def measure_load_times(case: H.Case, workers: Dict[str, Worker], status: Dict[str, Dict[str, str]],
                       rounds: int, forms: Tuple[str, ...] = FORMS) -> Dict[str, Any]:
    """Program + method load, interleaved between runtimes (3 loads per runtime per round)."""
    out: Dict[str, Any] = {}
    for form in forms:
        prog = case.forms.get(form)
        if prog is None:
            continue
        rts = [rt for rt in LOADED_RUNTIMES if status[form].get(rt) == "ok"]
        samples: Dict[str, Tuple[List[float], List[float]]] = {rt: ([], []) for rt in rts}
        for r in range(rounds):
            for k in range(len(rts)):
                rt = rts[(r + k) % len(rts)]
                reply = workers[rt].cmd("loadtime", 3, prog.pte, prog.ptd or "-", prog.method)
                samples[rt][0].extend(float(x) / 1e6 for x in reply[0].split(","))
                samples[rt][1].extend(float(x) / 1e6 for x in reply[1].split(","))
        for rt, (p, m) in samples.items():
            out.setdefault(form, {})[rt] = {
                "program_ms": statistics.median(p), "method_ms": statistics.median(m),
                "total_ms": statistics.median(a + b for a, b in zip(p, m)), "loads": len(p)}
    return out


def measure_allocations(case: H.Case, workers: Dict[str, Worker], status: Dict[str, Dict[str, str]], tmp: str,
                        executions: int) -> Dict[str, Any]:
    """Heap allocations over `executions` executes right after a fresh load
    (the first execute included), counted by the C drivers' malloc shim."""
    out: Dict[str, Any] = {}
    for form in FORMS:
        prog = case.forms.get(form)
        for rt in (PTERUN_C, ET_C):
            if status[form].get(rt) != "ok":
                continue
            w, mid = workers[rt], f"{case.name}:{form}:alloc"
            w.cmd("load", mid, prog.pte, prog.ptd or "-", prog.method, *case.input_specs)
            allocs = int(w.cmd("run", mid, 0, executions)[0])
            w.cmd("free", mid)
            out.setdefault(form, {})[rt] = {"executions": executions, "allocations": allocs,
                                            "per_execute": allocs / executions}
    return out


# ---------------------------------------------------------------------------
# Python per-call overhead, per-instruction overhead
# ---------------------------------------------------------------------------


def timed_programs(progs: List[Tuple[str, str, List[str], Optional[List[float]]]], runtimes: List[str],
                   workers: Dict[str, Worker], args: argparse.Namespace, env: Dict[str, str],
                   errors: List[str], tmp: str) -> Dict[Tuple[str, str], Entry]:
    """Loads (name, pte, input specs, expected values) into each runtime, checks
    the outputs, times them all interleaved; returns the entries by (runtime, name)."""
    import numpy as np

    entries: Dict[Tuple[str, str], Entry] = {}
    for name, pte, specs, expected in progs:
        for rt in runtimes:
            w = workers.get(rt)
            if w is None:
                continue
            mid = f"prog:{name}"
            try:
                w.cmd("load", mid, pte, "-", "forward", *specs)
            except CommandError as e:
                log(f"{H.RUNTIME_LABELS[rt]} cannot load {name}: {e}")
                continue
            out = H.fetch_outputs(w, mid, tmp)
            if expected is not None and not np.allclose(out[0].ravel(), expected, rtol=1e-6, atol=1e-6):
                errors.append(f"{name} on {H.RUNTIME_LABELS[rt]}: wrong output {out[0].ravel()[:4]}")
                continue
            entries[(rt, name)] = Entry(rt, name, w, mid)
    lst = list(entries.values())
    for e in lst:
        e.calibrate(args.round_ns, env, 3, 300 if args.quick else 20000)
    H.round_robin(lst, max(args.rounds, 3), env)
    for e in lst:
        e.worker.cmd("free", e.mid)
    return entries


def measure_call_overhead(workers: Dict[str, Worker], args: argparse.Namespace, env: Dict[str, str],
                          errors: List[str], tmp: str) -> Dict[str, Any]:
    """Python per-call overhead on the one-operator program zoo/models/add:
    the Python call's latency minus the same runtime's C-level execute, per round."""
    case = H.load_case(args.zoo, "add", tmp)
    prog = case.forms["nondelegated"]
    expected = prog.expected[0].ravel().astype("float64")
    ent = timed_programs([("add", prog.pte, case.input_specs, expected)], [PTERUN_C, PTERUN_PY, ET_C, ET_PY],
                         workers, args, env, errors, tmp)
    out: Dict[str, Any] = {"program": os.path.relpath(prog.pte, REPO), "latency_us": {}}
    for (rt, _), e in ent.items():
        out["latency_us"][rt] = H.summarize_latency(e.round_medians)
    for py, c, key in ((PTERUN_PY, PTERUN_C, "pterun"), (ET_PY, ET_C, "executorch")):
        if (py, "add") in ent and (c, "add") in ent:
            diffs = [(a - b) / 1e3 for a, b in zip(ent[(py, "add")].round_medians, ent[(c, "add")].round_medians)]
            out[f"{key}_overhead_us"] = H.quantiles(diffs)
        if (py, "add") in ent:
            out[f"{key}_call_us"] = H.quantiles([x / 1e3 for x in ent[(py, "add")].round_medians])
    po, eo = out.get("pterun_call_us"), out.get("executorch_call_us")
    out["call_ratio_pterun_vs_executorch"] = po["median"] / eo["median"] if po and eo else None
    po, eo = out.get("pterun_overhead_us"), out.get("executorch_overhead_us")
    out["overhead_ratio_pterun_vs_executorch"] = po["median"] / eo["median"] if po and eo and eo["median"] > 0 else None
    return out


def measure_instruction_overhead(workers: Dict[str, Worker], args: argparse.Namespace, env: Dict[str, str],
                                 errors: List[str], tmp: str) -> Dict[str, Any]:
    """Per-instruction cost: the slope of latency between two chain lengths."""
    from programs.make_chains import DEFAULT_LENGTHS, ensure_chains
    import numpy as np

    paths = ensure_chains()
    x, y = np.load(os.path.join(HERE, "programs", "inputs", "0.npy")), np.load(os.path.join(HERE, "programs", "inputs", "1.npy"))
    specs = H.raw_specs([x, y], "chain", tmp)
    progs = [(f"chain_{n}", p, specs, (x + n * y).astype("float64")) for n, p in zip(DEFAULT_LENGTHS, paths)]
    ent = timed_programs(progs, [PTERUN_C, ET_C, PTERUN_PY, ET_PY], workers, args, env, errors, tmp)
    short, long_ = DEFAULT_LENGTHS
    out: Dict[str, Any] = {"lengths": list(DEFAULT_LENGTHS), "operator": "aten::add.out on float32[4]",
                           "programs": [os.path.relpath(p, REPO) for p in paths]}
    for rt in (PTERUN_C, ET_C, PTERUN_PY, ET_PY):
        a, b = ent.get((rt, f"chain_{short}")), ent.get((rt, f"chain_{long_}"))
        if not a or not b:
            continue
        slopes = [(tl - ts) / (long_ - short) for ts, tl in zip(a.round_medians, b.round_medians)]
        ns = statistics.median(slopes)
        out[rt] = {"ns_per_instruction": ns, "spread": H.quantiles(slopes),
                   "fixed_us": (statistics.median(a.round_medians) - short * ns) / 1e3,
                   f"chain_{short}_us": statistics.median(a.round_medians) / 1e3,
                   f"chain_{long_}_us": statistics.median(b.round_medians) / 1e3}
    for sfx, p, e in (("c", PTERUN_C, ET_C), ("python", PTERUN_PY, ET_PY)):
        if p in out and e in out:
            out[f"ratio_{sfx}"] = out[p]["ns_per_instruction"] / out[e]["ns_per_instruction"]
    return out


def cli_median_ms(cli: str, pte: str, inputs: List[str], iterations: int, profile: bool) -> float:
    argv = [cli, "run", pte, "--iterations", str(iterations), "--warmup", str(max(1, iterations // 10))]
    for i in inputs:
        argv += ["--input", i]
    if profile:
        argv.append("--profile")
    p = run(argv)
    m = re.search(r"median ([\d.]+) ms", p.stdout)
    if p.returncode or not m:
        raise BenchError(f"{' '.join(argv)} failed or printed no latency:\n{p.stdout[-800:]}{p.stderr[-800:]}")
    return float(m.group(1))


def measure_tracer_overhead(paths: Dict[str, str], args: argparse.Namespace) -> Dict[str, Any]:
    """What profiling costs per instruction: the chain programs through the
    pterun CLI with no tracer attached and with the etdump profiler recording
    every instruction (--profile), interleaved; per instruction = slope
    between the two chain lengths, per round, as for the interpreter figure."""
    from programs.make_chains import DEFAULT_LENGTHS, ensure_chains

    chains = ensure_chains()
    inputs = [os.path.join(HERE, "programs", "inputs", f"{i}.npy") for i in (0, 1)]
    short, long_ = DEFAULT_LENGTHS
    iterations = 200 if args.quick else 2000
    rounds = 2 if args.quick else max(args.rounds // 2, 3)
    slopes: Dict[str, List[float]] = {"off": [], "on": []}
    for _ in range(rounds):
        for mode in ("off", "on"):
            ts = [cli_median_ms(paths["cli"], c, inputs, iterations, mode == "on") for c in chains]
            slopes[mode].append((ts[1] - ts[0]) * 1e6 / (long_ - short))
    out: Dict[str, Any] = {"tool": "pterun CLI, --profile for on", "lengths": [short, long_],
                           "iterations": iterations, "rounds": rounds}
    for mode, v in slopes.items():
        out[mode] = {"ns_per_instruction": statistics.median(v), "spread": H.quantiles(v)}
    out["traced_instruction_ns"] = out["on"]["ns_per_instruction"] - out["off"]["ns_per_instruction"]
    return out


# ---------------------------------------------------------------------------
# Memory, sizes, roofline
# ---------------------------------------------------------------------------


def bare_baselines(paths: Dict[str, str], python: str) -> Dict[str, int]:
    c = run([paths["bare"]])
    py = run([python, "-c", "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])"])
    return {"c_kb": int(c.stdout.split()[0]) if c.returncode == 0 else -1,
            "python_kb": int(py.stdout.strip()) if py.returncode == 0 else -1}


def memory_one(rt: str, case: H.Case, form: str, paths: Dict[str, str], args: argparse.Namespace,
               log_dir: str) -> Dict[str, Any]:
    """A fresh process: VmHWM after start-up, then after loading and 10 executes."""
    threads = args.thread_list[0]
    w = Worker(rt, worker_argv(rt, paths, args.python, threads), runtime_env(threads), log_dir, f".mem.{case.name}.{form}")
    try:
        w.start_info()
        start = int(w.cmd("mem")[0])
        prog = case.eager_program() if form == "eager" else case.forms[form]
        w.cmd("load", "m", prog.pte, prog.ptd or "-", prog.method, *case.input_specs)
        w.cmd("run", "m", 0, 10)
        peak = int(w.cmd("mem")[0])
        return {"startup_kb": start, "peak_kb": peak}
    finally:
        w.close()


def measure_memory(cases: List[H.Case], results: Dict[str, Any], paths: Dict[str, str], args: argparse.Namespace,
                   log_dir: str, errors: List[str]) -> Dict[str, Any]:
    base = bare_baselines(paths, args.python)
    jobs = []
    t1 = str(args.thread_list[0])
    for case in cases:
        if case.name not in MAIN_MODELS:
            continue
        st = results["models"][case.name]["threads"][t1]["status"]
        # --quick skips the runtimes that import torch (start-up takes seconds).
        rts = [rt for rt in LOADED_RUNTIMES if not (args.quick and rt == ET_PY)]
        for form in FORMS:
            for rt in rts:
                if st[form].get(rt) == "ok":
                    jobs.append((rt, case, form))
        if st["eager"].get(EAGER) == "ok" and not args.quick:
            jobs.append((EAGER, case, "eager"))
    out: Dict[str, Any] = {"baseline_kb": base, "models": {}}
    # Peak RSS does not depend on timing, so these processes may run side by side.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        futs = {pool.submit(memory_one, rt, case, form, paths, args, log_dir): (rt, case.name, form)
                for rt, case, form in jobs}
        for fut in concurrent.futures.as_completed(futs):
            rt, name, form = futs[fut]
            try:
                r = fut.result()
            except (BenchError, CommandError) as e:
                errors.append(f"memory of {name} ({form}) on {H.RUNTIME_LABELS[rt]}: {e}")
                continue
            bare = base["c_kb"] if rt in (PTERUN_C, ET_C) else base["python_kb"]
            r.update(over_bare_kb=r["peak_kb"] - bare, model_kb=r["peak_kb"] - r["startup_kb"],
                     startup_over_bare_kb=r["startup_kb"] - bare)
            out["models"].setdefault(name, {}).setdefault(form, {})[rt] = r
    return out


def strip_size(path: str, tmp: str) -> Dict[str, Any]:
    """File size, stripped size and text/data/bss (from `size`) of a stripped copy."""
    dst = os.path.join(tmp, "strip-" + os.path.basename(path))
    shutil.copyfile(path, dst)
    stripped = run(["strip", "--strip-unneeded", dst]).returncode == 0
    r: Dict[str, Any] = {"path": path, "file_bytes": os.path.getsize(path),
                         "stripped_bytes": os.path.getsize(dst) if stripped else None}
    s = run(["size", dst])
    if s.returncode == 0 and len(s.stdout.splitlines()) > 1:
        text, data, bss = (int(x) for x in s.stdout.splitlines()[1].split()[:3])
        r.update(text=text, data=data, bss=bss)
    os.unlink(dst)
    return r


def library_sizes(args: argparse.Namespace, tmp: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {"pterun": {}, "pterun_python": {}, "executorch": {}, "executorch_python": {}}
    for root, _dirs, files in os.walk(args.build):
        if os.path.relpath(root, args.build).split(os.sep)[0].startswith("bench"):
            continue
        for f in sorted(files):
            p = os.path.join(root, f)
            if f.startswith("libpterun") and ".so" in f and not os.path.islink(p):
                out["pterun"][f.split(".so")[0]] = strip_size(p, tmp)
    pkg = run([args.python, "-c", "import pterun, os; print(os.path.dirname(pterun.__file__))"]).stdout.strip()
    if pkg and os.path.isdir(pkg):
        for root, _dirs, files in os.walk(pkg):
            for f in sorted(files):
                if ".so" in f and not os.path.islink(os.path.join(root, f)):
                    out["pterun_python"][f.split(".")[0]] = strip_size(os.path.join(root, f), tmp)
    et = executorch_dir(args.python)
    if et:
        libdir = os.path.join(et, "lib")
        for f in sorted(os.listdir(libdir)) if os.path.isdir(libdir) else []:
            if f.endswith(".so"):
                out["executorch"][f[:-3]] = strip_size(os.path.join(libdir, f), tmp)
        pyb = os.path.join(et, "extension", "pybindings")
        for f in sorted(os.listdir(pyb)) if os.path.isdir(pyb) else []:
            if f.startswith("_C") and ".so" in f:
                out["executorch_python"]["_C"] = strip_size(os.path.join(pyb, f), tmp)
        torch_lib = run([args.python, "-c", "import importlib.util, os; s = importlib.util.find_spec('torch'); "
                         "print(os.path.join(os.path.dirname(s.origin), 'lib'))"]).stdout.strip()
        deps = {}
        for f in ("libtorch_cpu.so", "libtorch_python.so", "libc10.so"):
            p = os.path.join(torch_lib, f)
            if os.path.isfile(p):
                deps[f] = os.path.getsize(p)
        out["executorch_python_needs"] = deps
    return out


def sgemm_peaks(paths: Dict[str, str], args: argparse.Namespace) -> Dict[str, Any]:
    """This machine's fp32 GEMM rate for each thread setting: numpy's BLAS
    (np.matmul on float32) and XNNPACK's fully-connected operator, each on
    several square sizes, best of 10 repetitions. The peak is the best rate
    seen: on a shared machine a lower one only means another process ran."""
    sizes = [256] if args.quick else [512, 1024, 2048]
    reps = 3 if args.quick else 10
    code = ("import json, sys, time, numpy as np\n"
            f"reps = {reps}\n"
            "rng = np.random.default_rng(0)\n"
            "cfg = np.show_config(mode='dicts')['Build Dependencies']['blas']\n"
            "lib = 'numpy ' + np.__version__ + ' matmul (' + cfg.get('name', '?') + ' ' + str(cfg.get('version', '')) + ')'\n"
            "for n in map(int, sys.argv[1:]):\n"
            "    a = rng.standard_normal((n, n), dtype=np.float32); b = rng.standard_normal((n, n), dtype=np.float32)\n"
            "    c = np.empty((n, n), dtype=np.float32); np.matmul(a, b, out=c)\n"
            "    g = []\n"
            "    for _ in range(reps):\n"
            "        t = time.perf_counter(); np.matmul(a, b, out=c); g.append(2 * n**3 / (time.perf_counter() - t) / 1e9)\n"
            "    g.sort()\n"
            "    print(json.dumps({'library': lib, 'n': n, 'best_gflops': g[-1], 'median_gflops': g[len(g) // 2]}))\n")
    out: Dict[str, Any] = {}
    for t in args.thread_list:
        res: Dict[str, Any] = {"numpy": [], "xnnpack": []}
        p = run([args.python, "-c", code] + [str(n) for n in sizes], env=runtime_env(t))
        if p.returncode == 0:
            res["numpy"] = [json.loads(line) for line in p.stdout.strip().splitlines()]
        else:
            res["numpy"] = [{"error": p.stderr.strip()[-300:]}]
        for n in sizes:
            if not os.path.isfile(paths["sgemm_xnnpack"]):
                res["xnnpack"] = [{"error": "bench_sgemm_xnnpack not built (no libxnnpack-dev)"}]
                break
            p = run([paths["sgemm_xnnpack"], str(n), str(t), str(reps)])
            res["xnnpack"].append(json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr.strip()[-300:]})
        best = [(x["best_gflops"], k, x["n"]) for k in ("numpy", "xnnpack") for x in res[k] if "best_gflops" in x]
        if best:
            g, k, n = max(best)
            res.update(peak_gflops=g, peak_source=f"{k}, n={n}")
        else:
            res.update(peak_gflops=None, peak_source=None)
        out[str(t)] = res
    # More threads cannot make the machine slower: when a setting measured a
    # lower rate than one with fewer threads (other processes held the
    # cores), its peak is the best rate seen with at most that many threads.
    best: Optional[Tuple[float, str]] = None
    for t in sorted(args.thread_list):
        res = out[str(t)]
        if res["peak_gflops"] is not None and (best is None or res["peak_gflops"] > best[0]):
            best = (res["peak_gflops"], f"{res['peak_source']}, {t} thread(s)")
        if best is not None and (res["peak_gflops"] is None or res["peak_gflops"] < best[0]):
            res["measured_peak_gflops"] = res["peak_gflops"]
            res["peak_gflops"], res["peak_source"] = best
    return out


# ---------------------------------------------------------------------------
# Derived figures
# ---------------------------------------------------------------------------


def lat(model_t: Dict[str, Any], form: str, rt: str) -> Optional[Dict[str, Any]]:
    return model_t.get("latency", {}).get(form, {}).get(rt)


def derive_ratios(model_t: Dict[str, Any]) -> Dict[str, Any]:
    """Per-round paired ratios for one model at one thread setting."""
    r: Dict[str, Any] = {}

    def rounds(form: str, rt: str) -> Optional[List[float]]:
        x = lat(model_t, form, rt)
        return x["round_medians_ns"] if x else None

    for form, key in (("nondelegated", "nondelegated"), ("delegated", "delegated")):
        for sfx, p, e in (("c", PTERUN_C, ET_C), ("python", PTERUN_PY, ET_PY)):
            a, b = rounds(form, p), rounds(form, e)
            r[f"{key}_vs_executorch_{sfx}"] = H.paired_ratio(a, b) if a and b else None
    eager = rounds("eager", EAGER)
    for sfx, p in (("python", PTERUN_PY), ("c", PTERUN_C)):
        cands = [(lat(model_t, f, p)["median_us"], f) for f in FORMS if lat(model_t, f, p)]
        if cands and eager:
            best_form = min(cands)[1]
            r[f"best_vs_eager_{sfx}"] = dict(H.paired_ratio(rounds(best_form, p), eager), form=best_form)
        else:
            r[f"best_vs_eager_{sfx}"] = None
    return r


def median_of(models: Dict[str, Any], t: str, key: str) -> Optional[float]:
    xs = [m["threads"][t]["ratios"][key]["median"] for m in models.values()
          if t in m["threads"] and m["threads"][t]["ratios"].get(key)]
    return statistics.median(xs) if xs else None


def roofline(results: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for name, m in results["models"].items():
        flops = m.get("flops")
        if not flops:
            continue
        for t, mt in m["threads"].items():
            peak = results["sgemm"].get(t, {}).get("peak_gflops")
            if not peak:
                continue
            row: Dict[str, Any] = {"flops": flops, "gemm_heavy": name in GEMM_HEAVY, "peak_gflops": peak}
            for label, rts in (("pterun", (PTERUN_C,)), ("executorch", (ET_C,)), ("eager", (EAGER,))):
                cands = [(lat(mt, f, rt)["median_us"], f) for rt in rts for f in FORMS + ("eager",) if lat(mt, f, rt)]
                if cands:
                    us, form = min(cands)
                    gflops = flops / (us * 1e-6) / 1e9
                    row[label] = {"form": form, "latency_us": us, "gflops": gflops, "fraction_of_peak": gflops / peak}
            out.setdefault(name, {})[t] = row
    return out


# ---------------------------------------------------------------------------
# Real-size models (bench/realsize.py): pterun vs ExecuTorch, ONNX Runtime, eager
# ---------------------------------------------------------------------------

REAL_PEERS = (PTERUN_C, ET_C, EAGER, ORT)
# The int8 form (bench/realsize.py's xnnpack_int8/) is timed beside the fp32
# ones but kept out of "best form": int8 against fp32 is its own ratio.
QUANT_FORM = "quantized"
REAL_FORMS = FORMS + (QUANT_FORM,)


def real_workers(paths: Dict[str, str], args: argparse.Namespace, threads: int, avail: Dict[str, str],
                 log_dir: str) -> Dict[str, Worker]:
    """The native drivers and, in the transformers environment, eager and ONNX Runtime."""
    env = runtime_env(threads)
    argvs = {PTERUN_C: worker_argv(PTERUN_C, paths, args.python, threads),
             ET_C: worker_argv(ET_C, paths, args.python, threads),
             EAGER: [args.real_python, os.path.join(HERE, "pyworker.py"), "eager", "--threads", str(threads)],
             ORT: [args.real_python, os.path.join(HERE, "pyworker.py"), "onnxruntime", "--threads", str(threads)]}
    up: Dict[str, Worker] = {}
    for rt, argv in argvs.items():
        if rt in avail:
            continue
        if rt in (EAGER, ORT) and not os.path.isfile(args.real_python):
            avail[rt] = f"not available: no {args.real_python} (tools/deps_real.sh)"
            continue
        w = Worker(rt, argv, env, log_dir, f".real.t{threads}")
        try:
            w.start_info()
            up[rt] = w
        except CommandError as e:
            avail[rt] = f"not available: {e}"
            log(f"{H.RUNTIME_LABELS[rt]}: {avail[rt]}")
    return up


def measure_real_case(case: H.Case, onnx: Optional[str], workers: Dict[str, Worker], args: argparse.Namespace,
                      threads: int, avail: Dict[str, str], tmp: str, errors: List[str]) -> Dict[str, Any]:
    """One real-size model at one thread setting: every peer loaded and checked
    against eager's expected output, then timed interleaved; wall time per call
    and the worker process's CPU time per call."""
    env = runtime_env(threads)
    status: Dict[str, Dict[str, str]] = {f: {} for f in REAL_FORMS + ("eager", "onnx")}
    entries: List[Entry] = []
    loaded: List[Tuple[Worker, str]] = []

    def add(rt: str, form: str, prog: Optional[H.Program]) -> None:
        w = workers.get(rt)
        if prog is None:
            status[form][rt] = "not available: not generated"
        elif w is None:
            status[form][rt] = avail.get(rt, "not available")
        else:
            mid = f"{case.name}:{form}"
            status[form][rt] = load_model(w, mid, prog, case, tmp, errors)
            if status[form][rt] == "ok" or status[form][rt].startswith("error: wrong"):
                loaded.append((w, mid))
            if status[form][rt] == "ok":
                # A form that takes seconds a call (ExecuTorch's portable
                # convolution on a 224x224 CNN) would take the run's whole
                # budget: timed once, reported, left out of the rounds.
                t_ns = statistics.median(int(x) for x in w.cmd("run", mid, 0, 1)[1].split(","))
                if t_ns > args.real_slow_ms * 1e6:
                    status[form][rt] = f"not timed: one call took {t_ns / 1e9:.1f} s (over {args.real_slow_ms:.0f} ms)"
                    single.setdefault(form, {})[rt] = t_ns / 1e3
                else:
                    entries.append(Entry(rt, form, w, mid))

    single: Dict[str, Dict[str, float]] = {}
    for form in REAL_FORMS:
        for rt in (PTERUN_C, ET_C):
            add(rt, form, case.forms.get(form))
    plain = case.forms.get("nondelegated")
    add(EAGER, "eager", plain)
    if onnx and plain:
        add(ORT, "onnx", H.Program("onnx", os.path.dirname(onnx), onnx, None, "forward", plain.rtol, plain.atol,
                                   plain.expected))
    else:
        status["onnx"][ORT] = "not available: no model.onnx"
    flops = int(workers[EAGER].cmd("flops", f"{case.name}:eager")[0]) if status["eager"].get(EAGER) == "ok" else None
    # Real layers take tens of ms a call, on a machine others share: few calls
    # per round (one warm-up, at least two timed), the rounds give the spread.
    for e in entries:
        e.calibrate(args.round_ns, env, 2, 1000, probe=(1, 2), min_warmup=1)
    t0 = time.time()
    H.round_robin(entries, args.real_repeat, env, settle=True)
    log(f"  {case.name}: {len(entries)} timed entries x {args.real_repeat} rounds in {time.time() - t0:.1f} s")
    result: Dict[str, Any] = {"status": status, "flops": flops, "latency": {}, "single_call_us": single}
    for e in entries:
        result["latency"].setdefault(e.form, {})[e.runtime] = dict(
            H.summarize_latency(e.round_medians), iterations_per_round=e.iters, round_medians_ns=e.round_medians,
            cpu_per_call_us=e.cpu_per_call_us(), calls=e.calls)
    for w, mid in loaded:
        w.cmd("free", mid)
    return result


def real_best(mt: Dict[str, Any], rt: str) -> Optional[Tuple[str, Dict[str, Any]]]:
    """A runtime's fastest fp32 form (by median) at one thread setting."""
    cands = [(x["median_us"], f, x) for f, by in mt.get("latency", {}).items() for r, x in by.items()
             if r == rt and f != QUANT_FORM]
    if not cands:
        return None
    _, form, x = min(cands, key=lambda c: c[0])
    return form, x


def derive_real_ratios(mt: Dict[str, Any]) -> Dict[str, Any]:
    """pterun's best form against each peer's best, and the delegated form
    against ExecuTorch's delegated form on the same file, per round."""
    r: Dict[str, Any] = {}
    p = real_best(mt, PTERUN_C)
    for key, rt in (("executorch", ET_C), ("onnxruntime", ORT), ("eager", EAGER)):
        o = real_best(mt, rt)
        pr = H.paired_ratio(p[1]["round_medians_ns"], o[1]["round_medians_ns"]) if p and o else None
        r[f"best_vs_{key}"] = dict(pr, pterun_form=p[0], peer_form=o[0]) if pr else None
    a, b = lat(mt, "delegated", PTERUN_C), lat(mt, "delegated", ET_C)
    r["delegated_vs_executorch_delegated"] = H.paired_ratio(a["round_medians_ns"], b["round_medians_ns"]) \
        if a and b else None
    a, b = lat(mt, "nondelegated", PTERUN_C), lat(mt, "nondelegated", ET_C)
    r["nondelegated_vs_executorch_nondelegated"] = H.paired_ratio(a["round_medians_ns"], b["round_medians_ns"]) \
        if a and b else None
    # int8: against ExecuTorch's int8 XNNPACK on the same file, and against
    # pterun's own fastest fp32 form of the same model (the ">= 2x" target).
    q, e = lat(mt, QUANT_FORM, PTERUN_C), lat(mt, QUANT_FORM, ET_C)
    r["quantized_vs_executorch_quantized"] = H.paired_ratio(q["round_medians_ns"], e["round_medians_ns"]) \
        if q and e else None
    pr = H.paired_ratio(q["round_medians_ns"], p[1]["round_medians_ns"]) if q and p else None
    r["quantized_vs_pterun_fp32"] = dict(pr, fp32_form=p[0]) if pr else None
    return r


def real_memory_and_load(case: H.Case, status: Dict[str, Dict[str, str]], workers: Dict[str, Worker],
                         paths: Dict[str, str], args: argparse.Namespace, log_dir: str,
                         errors: List[str]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Load time (interleaved, as for the zoo) and peak resident memory (a
    fresh process each), pterun C vs ExecuTorch C++, both forms."""
    # Loading executes nothing: a form too slow to time still has a load time.
    loadable = {f: {rt: "ok" if v.startswith("not timed") else v for rt, v in by.items()} for f, by in status.items()}
    load = measure_load_times(case, workers, loadable, 4, REAL_FORMS)
    mem: Dict[str, Any] = {}
    for form in REAL_FORMS:
        for rt in (PTERUN_C, ET_C):
            if status[form].get(rt) != "ok":
                continue
            try:
                mem.setdefault(form, {})[rt] = memory_one(rt, case, form, paths, args, log_dir)
            except (BenchError, CommandError) as e:
                errors.append(f"memory of {case.name} ({form}) on {H.RUNTIME_LABELS[rt]}: {e}")
    return load, mem


def measure_realsize(paths: Dict[str, str], args: argparse.Namespace, avail: Dict[str, str], tmp: str,
                     log_dir: str, errors: List[str]) -> Optional[Dict[str, Any]]:
    """The real-size section of results.json (None when no models were generated)."""
    index_path = os.path.join(args.realsize, "index.json")
    if args.no_real or args.quick or not os.path.isfile(index_path):
        if not args.no_real and not args.quick:
            log(f"no real-size models in {args.realsize} (make realsize): skipped")
        return None
    with open(index_path) as f:
        index = json.load(f)
    names = args.real_models.split(",") if args.real_models else list(index["models"])
    cases = {n: H.load_case(args.realsize, n, tmp) for n in names}
    onnx = {n: os.path.join(args.realsize, "onnx", n, "model.onnx") for n in names}
    onnx = {n: p if os.path.isfile(p) else None for n, p in onnx.items()}
    real_avail = {k: v for k, v in avail.items() if k in (PTERUN_C, ET_C)}
    cpu, flags = cpu_info()
    # The real-size section is often re-measured alone, on another machine than the zoo's: it names its own.
    out: Dict[str, Any] = {"generator": {k: index.get(k) for k in ("transformers", "torch")},
                           "cpu": cpu, "cpu_flags": flags, "git_commit": git_commit(),
                           "loadavg_start": list(os.getloadavg()), "rounds": args.real_repeat, "models": {}}
    for n in names:
        out["models"][n] = {"description": index["models"][n]["description"], "bound": index["models"][n]["bound"],
                            "small": index["models"][n].get("small", False), "threads": {}}
    for ti, threads in enumerate(args.thread_list):
        log(f"== real-size models, {threads} thread(s)")
        workers = real_workers(paths, args, threads, real_avail, log_dir)
        try:
            for rt, w in workers.items():
                out.setdefault("runtime_info", {}).setdefault(str(threads), {})[rt] = w.info
            for n in names:
                m = measure_real_case(cases[n], onnx[n], workers, args, threads, real_avail, tmp, errors)
                out["models"][n]["flops"] = m.pop("flops") or out["models"][n].get("flops")
                m["ratios"] = derive_real_ratios(m)
                out["models"][n]["threads"][str(threads)] = m
                if ti == 0:
                    log(f"  {n}: load time and peak memory")
                    out["models"][n]["load"], out["models"][n]["memory"] = real_memory_and_load(
                        cases[n], m["status"], workers, paths, args, log_dir, errors)
        finally:
            for w in workers.values():
                w.close()
    out["memory_baseline_kb"] = bare_baselines(paths, args.python)
    log("sgemm peak (for the real-size models)")
    out["sgemm"] = sgemm_peaks(paths, args)
    out["availability"] = {rt: real_avail.get(rt, "ok") for rt in REAL_PEERS}
    out["loadavg_end"] = list(os.getloadavg())
    real_roofline(out)
    return out


def real_roofline(out: Dict[str, Any]) -> None:
    """Each peer's rate on its fastest form as a fraction of the measured sgemm peak."""
    for n, m in out["models"].items():
        flops = m.get("flops")
        for t, mt in m["threads"].items():
            peak = out["sgemm"].get(t, {}).get("peak_gflops")
            row: Dict[str, Any] = {"peak_gflops": peak}
            for rt in REAL_PEERS:
                b = real_best(mt, rt)
                if b and flops and peak:
                    g = flops / (b[1]["median_us"] * 1e-6) / 1e9
                    row[rt] = {"form": b[0], "gflops": g, "fraction_of_peak": g / peak}
            mt["roofline"] = row
        ts = sorted(m["threads"], key=int)
        if len(ts) > 1:
            a, b = real_best(m["threads"][ts[0]], PTERUN_C), real_best(m["threads"][ts[-1]], PTERUN_C)
            m["pterun_speedup"] = {"threads": [int(ts[0]), int(ts[-1])],
                                   "best": a[1]["median_us"] / b[1]["median_us"] if a and b else None}


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def default_models(zoo: str) -> List[str]:
    """Every zoo model case: the five main models first, then the rest by name."""
    names = [n for n in os.listdir(os.path.join(zoo, "models"))
             if os.path.isfile(os.path.join(zoo, "models", n, "case.json"))]
    return [n for n in MAIN_MODELS if n in names] + sorted(n for n in names if n not in MAIN_MODELS)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    t_start = time.time()
    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="pterun-bench-")
    log_dir = os.path.join(tmp, "logs")
    os.makedirs(log_dir)
    errors: List[str] = []
    warnings_: List[str] = []
    avail: Dict[str, str] = {}
    try:
        paths = build(args, avail)
        # Real-size models first: they are what the report leads with.
        realsize = measure_realsize(paths, args, avail, tmp, log_dir, errors)
        if args.no_zoo:
            return write_realsize_only(args, realsize, errors, t_start)
        names = args.models.split(",") if args.models else ["mlp"] if args.quick else default_models(args.zoo)
        cases = [H.load_case(args.zoo, n, tmp) for n in names]
        results: Dict[str, Any] = {"schema": 1, "models": {c.name: {"threads": {}} for c in cases}}
        infos: Dict[str, Dict[str, Any]] = {}
        primary = str(args.thread_list[0])
        for ti, threads in enumerate(args.thread_list):
            log(f"== {threads} thread(s): starting runtimes")
            workers = start_workers([PTERUN_C, ET_C, PTERUN_PY, ET_PY, EAGER], paths, args, threads, avail, log_dir,
                                    f".t{threads}")
            try:
                for rt, w in workers.items():
                    infos.setdefault(rt, w.info)
                    results.setdefault("runtime_info", {}).setdefault(str(threads), {})[rt] = w.info
                check_pterun_python(workers, warnings_)
                for case in cases:
                    m = measure_case(case, workers, paths, args, threads, avail, tmp, errors, with_load_times=ti == 0)
                    if "load" in m:
                        results["models"][case.name]["load"] = m.pop("load")
                    results["models"][case.name]["flops"] = m.pop("flops") or results["models"][case.name].get("flops")
                    m["ratios"] = derive_ratios(m)
                    results["models"][case.name]["threads"][str(threads)] = m
                if ti == 0:
                    env = runtime_env(threads)
                    log("python per-call overhead (zoo/models/add)")
                    results["python_call_overhead"] = measure_call_overhead(workers, args, env, errors, tmp)
                    log("per-instruction overhead (bench/programs/chain_*.pte)")
                    results["instruction_overhead"] = measure_instruction_overhead(workers, args, env, errors, tmp)
                    log("profiler cost: tracer off vs on (pterun CLI, same chain programs)")
                    results["tracer_overhead"] = measure_tracer_overhead(paths, args)
            finally:
                for w in workers.values():
                    w.close()
        log("peak memory (one fresh process per runtime and program)")
        results["memory"] = measure_memory(cases, results, paths, args, log_dir, errors)
        log("library sizes")
        results["library_sizes"] = library_sizes(args, tmp)
        log("sgemm peak")
        results["sgemm"] = sgemm_peaks(paths, args)
        results["roofline"] = roofline(results)
        results["machine"] = machine_info(args, infos)
        results["availability"] = {rt: avail.get(rt, "ok") for rt in H.RUNTIME_LABELS}
        results["by_threads"] = {
            t: {k: median_of(results["models"], t, k) for k in (
                "nondelegated_vs_executorch_c", "delegated_vs_executorch_c", "nondelegated_vs_executorch_python",
                "delegated_vs_executorch_python", "best_vs_eager_python", "best_vs_eager_c")}
            for t in map(str, args.thread_list)}
        head = results["by_threads"][primary]
        # The three headline medians (pterun / other latency), at the first thread setting.
        results["headline_threads"] = int(primary)
        results["nondelegated_vs_executorch"] = head["nondelegated_vs_executorch_c"]
        results["delegated_vs_executorch"] = head["delegated_vs_executorch_c"]
        results["best_vs_eager"] = head["best_vs_eager_python"]
        if realsize is not None:
            results["realsize"] = realsize
        # Measured by bench/selective_size.py --record, not here: kept across runs.
        prev = os.path.join(args.out, "results.json")
        if os.path.isfile(prev):
            with open(prev) as f:
                kept = json.load(f).get("selective_build")
            if kept:
                results["selective_build"] = kept
        results["errors"] = errors
        results["warnings"] = warnings_
        results["elapsed_s"] = round(time.time() - t_start, 1)
        report.write_all(results, args.out)
        log(f"wrote {args.out}/results.md, results.json, results.png in {results['elapsed_s']} s")
    except BenchError as e:
        errors.append(str(e))
        log(f"ERROR: {e}")
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for w in warnings_:
        log(f"WARNING: {w}")
    if errors:
        for e in errors:
            log(f"ERROR: {e}")
        return 1
    return 0


def write_realsize_only(args: argparse.Namespace, realsize: Optional[Dict[str, Any]], errors: List[str],
                        t_start: float) -> int:
    """--no-zoo: the real-size section replaces the one in --out's results.json,
    whose zoo figures stay as they were (and say when they were measured)."""
    path = os.path.join(args.out, "results.json")
    if realsize is None or not os.path.isfile(path):
        log(f"--no-zoo needs real-size models and an earlier {path}")
        return 1
    with open(path) as f:
        results = json.load(f)
    results["realsize"] = realsize
    results["realsize"]["elapsed_s"] = round(time.time() - t_start, 1)
    results["realsize"]["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    results["realsize"]["errors"] = errors
    results.setdefault("warnings", [])
    report.write_all(results, args.out)
    log(f"wrote the real-size section into {args.out}/results.md, results.json")
    for e in errors:
        log(f"ERROR: {e}")
    return 1 if errors else 0


def check_pterun_python(workers: Dict[str, Worker], warnings_: List[str]) -> None:
    """The Python package must run the same components as the build it is compared with."""
    c, py = workers.get(PTERUN_C), workers.get(PTERUN_PY)
    if c and py and (c.info.get("operators") != py.info.get("operators")
                     or sorted(c.info.get("backends", [])) != sorted(py.info.get("backends", []))):
        msg = (f"the pterun Python package ({py.info.get('module')}) registers {py.info.get('operators')} operators "
               f"and backends {py.info.get('backends')}, the build {c.info.get('operators')} and "
               f"{c.info.get('backends')}: reinstall it (pip install .)")
        if msg not in warnings_:
            warnings_.append(msg)


if __name__ == "__main__":
    sys.exit(main())
