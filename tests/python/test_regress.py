"""Programs that once found a bug (fuzz/regress/program/, kept as the fuzz
gate's seeds) are refused with a clear error by the release CLI too: not run
on memory a hostile plan made overlap, not crashed."""
import glob
import os
import subprocess

import pytest

from conftest import REPO

PROGRAMS = sorted(glob.glob(os.path.join(REPO, "fuzz", "regress", "program", "*.pte")))
# What each must be refused with (the file names say what they do).
WHY = {
    "conv2d_padding_2e62_overflow.pte": "convolution parameters are too large",
    "cat_out_overlaps_input.pte": "out must not share memory with an input",
    # (method, message) where the hostile part is not in forward
    "unnamed_operator_loads_without_kernel.pte": ("twice", "operator is not registered: (unnamed)"),
}


def test_every_regress_program_has_an_expected_error():
    assert PROGRAMS and {os.path.basename(p) for p in PROGRAMS} == set(WHY)


@pytest.mark.parametrize("program", PROGRAMS, ids=os.path.basename)
@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_regress_program_is_refused(pterun_cli, program, kernels):
    extra = ["--disable", "kernels_optimized"] if kernels == "portable" else []
    why = WHY[os.path.basename(program)]
    method, why = why if isinstance(why, tuple) else (None, why)
    if method:
        extra += ["--method", method]
    r = subprocess.run([pterun_cli, "run", program, *extra], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    if kernels == "optimized":
        assert why in r.stderr, r.stderr
    else:
        assert r.stderr.startswith("pterun: "), r.stderr
