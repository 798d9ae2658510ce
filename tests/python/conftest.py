import os
import shutil

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
