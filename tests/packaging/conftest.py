"""Fixtures for the packaging tests: build the wheel once, repair it the way
auditwheel does, install it into a new virtual environment, and run
everything from a folder that holds no checkout, with a clean environment."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

# auditwheel-style names of vendored third-party libraries: lib<name>-<8 hex>.so.N
VENDORED = re.compile(r"lib[A-Za-z0-9_+]+-[0-9a-f]{8}\.so\.\d+")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
import toolchain  # noqa: E402

# Every tool these tests start (auditwheel and the patchelf it looks up, cmake,
# cc, pkg-config, readelf) is the one tools/toolchain.py resolved, whatever the
# caller's PATH holds (tests/python/test_toolchain.py puts stale ones first).
if toolchain.main(["--quiet"]) != 0:
    pytest.exit("the project's tools are missing or too old (see above): run tools/deps.sh", returncode=2)


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "CMAKE_PREFIX_PATH",
                        "PKG_CONFIG_PATH", "VIRTUAL_ENV") and not k.startswith("DYLD_")}
    env["PATH"] = toolchain.env_path(REPO)
    if extra:
        env.update(extra)
    return env


def run(cmd, cwd, env=None, check=True, timeout=900):
    r = subprocess.run(cmd, cwd=cwd, env=env or clean_env(), capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"command failed ({r.returncode}): {' '.join(map(str, cmd))}\n"
                             f"--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-4000:]}")
    return r


class Installed:
    """An installed wheel in its own virtual environment."""

    def __init__(self, root, wheel, venv, pkg, components):
        self.root = root            # scratch folder, no checkout
        self.wheel = wheel          # the installed (repaired) wheel file
        self.venv = venv
        self.python = os.path.join(venv, "bin", "python")
        self.pkg = pkg              # site-packages/pterun
        self.lib = os.path.join(pkg, "lib")
        self.components = components  # the component table, read from the installed package

    def py(self, code, check=True, env=None):
        return run([self.python, "-c", code], cwd=self.root, env=env, check=check)

    def shipped_libraries(self):
        """pterun's own libraries (the component table's)."""
        return sorted(p for p in glob.glob(os.path.join(self.lib, "*.so*"))
                      if os.path.isfile(p) and not VENDORED.fullmatch(os.path.basename(p)))

    def extensions(self):
        out = []
        for dirpath, _d, files in os.walk(self.pkg):
            out += [os.path.join(dirpath, f) for f in files if f.endswith(".abi3.so")]
        return sorted(out)

    def vendored(self):
        """Third-party libraries shipped under auditwheel-style hashed names."""
        return sorted(p for p in glob.glob(os.path.join(self.lib, "*.so*")) if VENDORED.fullmatch(os.path.basename(p)))


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("nocheckout"))
    wheelhouse = os.path.join(root, "wheelhouse")
    # Build outputs are made read-only by the umask: the wheel must still ship
    # its libraries and programs as 0755 (and nothing world-writable).
    env = clean_env({"SKBUILD_BUILD_DIR": os.path.join(root, "skbuild")})
    old = os.umask(0o222)
    try:
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheelhouse, REPO],
            cwd=root, env=env, timeout=1800)
    finally:
        os.umask(old)
    built = glob.glob(os.path.join(wheelhouse, "pterun-*.whl"))
    assert len(built) == 1, built
    repaired_dir = os.path.join(root, "repaired")
    run([sys.executable, "-m", "auditwheel", "repair", "-w", repaired_dir, built[0]], cwd=root)
    repaired = glob.glob(os.path.join(repaired_dir, "pterun-*.whl"))
    assert len(repaired) == 1, repaired
    venv = os.path.join(root, "venv")
    run([sys.executable, "-m", "venv", venv], cwd=root)
    pip = os.path.join(venv, "bin", "pip")
    run([pip, "install", "-q", repaired[0], "numpy", "torch==2.13.0"], cwd=root, timeout=1800)
    r = run([os.path.join(venv, "bin", "python"), "-c", "import pterun, os; print(os.path.dirname(pterun.__file__))"],
            cwd=root)
    pkg = r.stdout.strip().splitlines()[-1]
    assert REPO not in pkg, "the tests must use the installed package, not the checkout"
    with open(os.path.join(pkg, "lib", "cmake", "pterun", "components.json")) as f:
        components = json.load(f)["components"]
    return Installed(root, repaired[0], venv, pkg, components)


@pytest.fixture(scope="session")
def zoo_copy(installed):
    """A few zoo cases copied next to the tests (not read from the checkout at run time)."""
    dst = os.path.join(installed.root, "zoo")
    if not os.path.isdir(dst):
        for case in ("models/add", "models/mlp", "models/small_cnn", "models/transformer_tiny",
                     "models/external_weights", "xnnpack/mlp", "xnnpack/small_cnn", "quantized/pt2e_static_cnn"):
            src = os.path.join(REPO, "zoo", case)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(dst, case))
    return dst


def wheel_modes(wheel):
    with zipfile.ZipFile(wheel) as z:
        return {i.filename: (i.external_attr >> 16) & 0o7777 for i in z.infolist()}
