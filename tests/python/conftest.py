import os
import shutil
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
import toolchain  # noqa: E402

# Subprocesses (the benchmark's cmake, the CLI) find the tools
# tools/toolchain.py resolved, not whatever the caller's PATH holds.
if toolchain.main(["--quiet"]) != 0:
    pytest.exit("the project's tools are missing or too old (see above): run tools/deps.sh", returncode=2)
os.environ["PATH"] = toolchain.env_path(REPO)
ZOO = os.path.join(REPO, "zoo")


@pytest.fixture(scope="session")
def pterun_cli():
    for cand in (os.environ.get("PTERUN"), os.path.join(REPO, "build", "cli", "pterun")):
        if cand and os.path.isfile(cand):
            return cand
    pytest.fail("the pterun CLI is not built (run cmake --build build, or set PTERUN)")


@pytest.fixture(scope="session")
def zoo():
    assert os.path.isdir(os.path.join(ZOO, "models")), "zoo/ is missing"
    return ZOO
