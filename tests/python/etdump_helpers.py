"""Shared paths and helpers for the etdump Python tests.

The C build is found through $PTERUN_BUILD_DIR (default: <repo>/build); a
test that needs a missing build output fails saying so.
"""
import json
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PTERUN_BUILD_DIR", os.path.join(REPO, "build"))
PROGRAMS = os.path.join(REPO, "tests", "etdump", "programs")


def build_file(*parts):
    path = os.path.join(BUILD, *parts)
    if not os.path.exists(path):
        pytest.fail(f"{path} is not built (build first, or set PTERUN_BUILD_DIR)")
    return path


def pterun():
    return build_file("cli", "pterun")


def delegate_lib():
    return build_file("tests", "etdump", "libtest_delegate.so")


def buggy_kernels_lib():
    return build_file("tests", "etdump", "libtest_buggy_kernels.so")


def run(*args, check=True):
    proc = subprocess.run([pterun(), *map(str, args)], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"pterun {' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def program_info(path):
    return json.loads(run("info", path, "--json").stdout)["methods"][0]


def make_case(dirname, program, inputs, expected=None, method="forward"):
    """A folder in the zoo layout around one of the test programs."""
    import numpy as np

    os.makedirs(os.path.join(dirname, "inputs"), exist_ok=True)
    with open(program, "rb") as src, open(os.path.join(dirname, "model.pte"), "wb") as dst:
        dst.write(src.read())
    for i, a in enumerate(inputs):
        np.save(os.path.join(dirname, "inputs", f"{i}.npy"), a)
    if expected is not None:
        os.makedirs(os.path.join(dirname, "expected"), exist_ok=True)
        for i, a in enumerate(expected):
            np.save(os.path.join(dirname, "expected", f"{i}.npy"), a)
    with open(os.path.join(dirname, "case.json"), "w") as f:
        json.dump({"method": method, "rtol": 1e-4, "atol": 1e-5, "description": "etdump test case"}, f)
    return dirname
