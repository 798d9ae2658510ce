"""The benchmark's C driver protocol (bench/driver/bench_driver.h): `run`
replies with the per-call times and the process's own CPU count, which the
real-size tables report beside wall time."""
import os
import subprocess
import time

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PTERUN_BUILD_DIR", os.path.join(REPO, "build"))


def test_run_reports_process_cpu_time(tmp_path):
    drv = os.path.join(BUILD, "bench", "pterun_bench")
    if not os.path.isfile(drv):
        pytest.fail(f"{drv} is not built (cmake --build {BUILD})")
    case = os.path.join(REPO, "zoo", "models", "add")
    specs = []
    for i in range(2):
        x = np.load(os.path.join(case, "inputs", f"{i}.npy"))
        path = tmp_path / f"{i}.bin"
        x.tofile(path)
        specs.append(f"{x.dtype.name}|{','.join(map(str, x.shape))}|{path}")
    p = subprocess.Popen([drv, "--threads", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def cmd(*f):
        p.stdin.write("\t".join(map(str, f)) + "\n")
        p.stdin.flush()
        return p.stdout.readline().rstrip("\n").split("\t")

    try:
        assert cmd("load", "m", os.path.join(case, "model.pte"), "-", "forward", *specs)[0] == "ok"
        iters = 20000
        t0 = time.perf_counter_ns()
        reply = cmd("run", "m", 10, iters)
        wall = time.perf_counter_ns() - t0
        assert reply[0] == "ok" and len(reply) == 4, reply
        times = [int(t) for t in reply[2].split(",")]
        cpu = int(reply[3])
        assert len(times) == iters
        # One thread: the CPU count covers the calls and cannot exceed the
        # command's wall time (a count in clock ticks would be 0 or 10 ms).
        assert 0 < cpu <= wall, (cpu, wall)
        assert cpu % 10_000_000 != 0
    finally:
        cmd("quit")
        p.wait(timeout=30)
