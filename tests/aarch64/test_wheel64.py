"""The cross-built aarch64 wheel (make wheel-aarch64), checked on the build
host: there is no aarch64 Python to install it into, so it is unpacked and
read with the host's binutils (they read any ELF), its dependencies resolved
the way the loader would from the sysroot, and the README's C example is
cross-built against it and run under qemu-aarch64 (make test-aarch64 runs
this with PTERUN_AARCH64_WHEEL and PTERUN_AARCH64_BUILD set). It lives
outside tests/packaging so that make test-python does not collect it; it
shares that folder's helpers (the same checks as the x86_64 wheel's)."""
import glob
import json
import os
import re
import shutil
import sys
import zipfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "packaging"))
from conftest import REPO, VENDORED, run
from test_wheel import (THIRD_PARTY, _readme_blocks, check_versioned, component_of_symbol, defined_symbols, lib_file,
                        readelf_dynamic)

EM_AARCH64 = 183


class Unpacked:
    def __init__(self, wheel, root, build):
        self.wheel = wheel
        self.root = root
        self.pkg = os.path.join(root, "pterun")
        self.lib = os.path.join(self.pkg, "lib")
        self.build = build
        self.sysroot = os.path.join(build, "sysroot")
        with open(os.path.join(self.lib, "cmake", "pterun", "components.json")) as f:
            self.components = json.load(f)["components"]

    def shipped_libraries(self):
        return sorted(p for p in glob.glob(os.path.join(self.lib, "*.so*"))
                      if os.path.isfile(p) and not VENDORED.fullmatch(os.path.basename(p)))

    def vendored(self):
        return sorted(p for p in glob.glob(os.path.join(self.lib, "*.so*")) if VENDORED.fullmatch(os.path.basename(p)))

    def extensions(self):
        return sorted(glob.glob(os.path.join(self.pkg, "*.abi3.so")))

    def cli(self):
        return os.path.join(self.pkg, "bin", "pterun")


@pytest.fixture(scope="module")
def wheel64(tmp_path_factory):
    wheel, build = os.environ.get("PTERUN_AARCH64_WHEEL"), os.environ.get("PTERUN_AARCH64_BUILD")
    if not wheel or not os.path.isfile(wheel) or not build:
        pytest.fail("set PTERUN_AARCH64_WHEEL (make wheel-aarch64) and PTERUN_AARCH64_BUILD")
    root = str(tmp_path_factory.mktemp("wheel64"))
    with zipfile.ZipFile(wheel) as z:
        z.extractall(root)
        for info in z.infolist():  # zipfile drops the modes: restore them
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(os.path.join(root, info.filename), mode)
    return Unpacked(wheel, root, os.path.abspath(build))


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    assert head[:4] == b"\x7fELF", path
    return int.from_bytes(head[18:20], "little")


def test_tagged_and_built_for_aarch64(wheel64):
    name = os.path.basename(wheel64.wheel)
    plat = name[:-4].split("-")[-1]
    assert plat == "manylinux_2_28_aarch64", name
    info = glob.glob(os.path.join(wheel64.root, "pterun-*.dist-info", "WHEEL"))
    tags = re.findall(r"^Tag: (.+)$", open(info[0]).read(), re.M)
    assert tags and all(t.endswith("_aarch64") for t in tags), tags
    exts = wheel64.extensions()
    assert {os.path.basename(e).split(".")[0] for e in exts} >= {"_pterun", "_profiler"}, exts
    assert all(e.endswith(".abi3.so") for e in exts), exts
    assert tags == ["cp39-abi3-" + plat], tags
    elves = wheel64.shipped_libraries() + wheel64.vendored() + exts + [wheel64.cli()]
    for p in elves:
        assert elf_machine(p) == EM_AARCH64, f"{p} is not an aarch64 ELF"


def test_platform_tag_is_what_auditwheel_reports(wheel64):
    r = run([sys.executable, "-m", "auditwheel", "show", wheel64.wheel], cwd=wheel64.root)
    tags = re.findall(r'"(manylinux_\d+_\d+_aarch64)"', r.stdout)
    assert tags, r.stdout
    assert os.path.basename(wheel64.wheel)[:-4].split("-")[-1].split(".")[0] == tags[0], (wheel64.wheel, tags)
    # nothing grafted: the vendored copies are the build's own, in pterun/lib
    assert not glob.glob(os.path.join(wheel64.root, "pterun.libs")), os.listdir(wheel64.root)


def test_components_ship_versioned_with_matching_soname(wheel64, tmp_path):
    libs = wheel64.shipped_libraries()
    table = {lib_file(c) for c in wheel64.components}
    for c in wheel64.components:
        if not c["optional"]:
            assert os.path.isfile(os.path.join(wheel64.lib, lib_file(c))), c["name"]
    for lib in libs:
        assert os.path.basename(lib) in table, f"{lib} is not in the component table"
    for lib in libs + wheel64.vendored():
        check_versioned(lib)
    bad = tmp_path / "libpterun.so"
    shutil.copy(libs[0], bad)
    with pytest.raises(AssertionError):
        check_versioned(str(bad))


def test_arm64_third_party_vendored_renamed(wheel64):
    vendored = {re.sub(r"-[0-9a-f]{8}\.so\.\d+$", "", os.path.basename(p)): p for p in wheel64.vendored()}
    assert set(vendored) == {"libXNNPACK", "libpthreadpool", "libcpuinfo"}, vendored
    needed, _s, runpath = readelf_dynamic(vendored["libXNNPACK"])
    assert os.path.basename(vendored["libpthreadpool"]) in needed and os.path.basename(vendored["libcpuinfo"]) in needed
    assert "libpthreadpool.so.0" not in needed and runpath == ["$ORIGIN"], (needed, runpath)
    for lib in wheel64.shipped_libraries() + wheel64.extensions():
        n, _s, _r = readelf_dynamic(lib)
        assert not [x for x in n if re.match(r"lib(XNNPACK|pthreadpool|cpuinfo)", x)], (lib, n)
    # the components open the arm64 copies by their new names
    for lib, dep in (("libpterun_backend_xnnpack.so.0", "libXNNPACK"), ("libpterun_threadpool.so.0", "libpthreadpool")):
        data = open(os.path.join(wheel64.lib, lib), "rb").read()
        assert os.path.basename(vendored[dep]).encode() in data, (lib, dep)


def test_each_symbol_has_exactly_its_owner_and_no_third_party_exports(wheel64):
    owner_file = {c["name"]: lib_file(c) for c in wheel64.components}
    definers = {}
    for path in wheel64.shipped_libraries() + wheel64.extensions() + [wheel64.cli()]:
        name = os.path.basename(path)
        for sym in defined_symbols(path):
            assert not sym.startswith(THIRD_PARTY), f"{name} exports {sym}"
            if sym.startswith("PyInit_") or sym in ("_init", "_fini"):
                continue
            if name == "pterun" and not sym.startswith("pte_"):
                continue  # an executable carries copy-relocated libc data
            comp = component_of_symbol(sym, wheel64.components)
            assert comp is not None, f"{name} exports {sym}, which no component owns"
            assert owner_file[comp] == name, f"{sym} belongs to {comp} ({owner_file[comp]}) but {name} defines it"
            definers.setdefault(sym, []).append(name)
    for ext in wheel64.extensions():
        assert {s for s in defined_symbols(ext) if not s.startswith("PyInit_")} == set(), ext
    for c in wheel64.components:
        if os.path.isfile(os.path.join(wheel64.lib, lib_file(c))):
            for s in c["sentinels"]:
                assert definers.get(s) == [lib_file(c)], f"sentinel {s}: defined by {definers.get(s)}"


def undefined_symbols(path):
    out = run(["nm", "-D", "--undefined-only", path], cwd="/").stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.split() and line.split()[0] == "U"}


def resolve(path, sysroot):
    """The loader's search for one object's DT_NEEDED closure: RUNPATH
    ($ORIGIN expanded) first, then the sysroot's system folders; returns
    {soname: resolved path}, raising on anything not found."""
    system = [os.path.join(sysroot, d) for d in ("lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu", "lib", "usr/lib")]
    found, todo = {}, [path]
    while todo:
        obj = todo.pop()
        needed, _s, runpath = readelf_dynamic(obj)
        dirs = [r.replace("$ORIGIN", os.path.dirname(obj)) for r in runpath] + system
        for n in needed:
            if n in found:
                continue
            hit = next((os.path.join(d, n) for d in dirs if os.path.exists(os.path.join(d, n))), None)
            assert hit, f"{os.path.basename(obj)}: {n} not found (RUNPATH {runpath})"
            found[n] = os.path.realpath(hit)
            todo.append(found[n])
    return found


def test_runpath_and_relocation(wheel64, tmp_path):
    """Every RUNPATH is $ORIGIN-relative; a copy of the package elsewhere
    resolves pterun's libraries from the copy, and every undefined symbol
    (but CPython's, for the extensions) is defined in the closure."""
    moved = tmp_path / "moved" / "pterun"
    shutil.copytree(wheel64.pkg, moved, symlinks=True)
    objs = wheel64.shipped_libraries() + wheel64.extensions() + wheel64.vendored() + [wheel64.cli()]
    for path in objs:
        _n, _s, runpath = readelf_dynamic(path)
        assert all(r.startswith("$ORIGIN") for r in runpath), f"{os.path.basename(path)} has RUNPATH {runpath}"
        copy = str(moved / os.path.relpath(path, wheel64.pkg))
        found = resolve(copy, wheel64.sysroot)
        for soname, hit in found.items():
            if soname.startswith("libpterun") or VENDORED.fullmatch(soname):
                assert hit.startswith(str(moved)), f"{copy}: {soname} resolved outside the copy: {hit}"
        defined = set()
        for hit in found.values():
            defined |= defined_symbols(hit)
        missing = {s for s in undefined_symbols(copy) - defined if not re.match(r"_?Py", s)}
        # weak references (__gmon_start__, _ITM_*) are not listed by --undefined-only as U
        assert not missing, f"{os.path.basename(path)}: undefined {sorted(missing)[:10]}"


def qemu(wheel64, exe, *args, cwd):
    return run(["qemu-aarch64", "-L", wheel64.sysroot, exe, *args], cwd=cwd)


def check_app(wheel64, exe, cwd):
    add = os.path.join(REPO, "zoo", "models", "add", "model.pte")
    r = qemu(wheel64, exe, add, cwd=cwd)
    got = [float(v) for v in r.stdout.strip().splitlines()[-1].split()]
    assert got == [11.0, 22.0, 33.0, 44.0], r.stdout
    assert "method: forward" in r.stdout
    needed, _s, runpath = readelf_dynamic(exe)
    # the retention check: the app calls nothing of kernels_portable, which
    # registers itself when loaded; the CMake target must keep it linked
    assert "libpterun.so.0" in needed and "libpterun_kernels_portable.so.0" in needed, needed
    assert any(p.startswith("$ORIGIN") for p in runpath), runpath


def test_readme_example_cross_built_and_emulated(wheel64, tmp_path):
    c_block, cmake_block = _readme_blocks()
    (tmp_path / "run_model.c").write_text(c_block)
    (tmp_path / "CMakeLists.txt").write_text(cmake_block)
    cmake_dir = os.path.join(wheel64.lib, "cmake", "pterun")
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build"), "-G", "Ninja",
         f"-DCMAKE_TOOLCHAIN_FILE={os.path.join(REPO, 'cmake', 'toolchain-aarch64.cmake')}",
         f"-DPTERUN_AARCH64_SYSROOT={wheel64.sysroot}", f"-Dpterun_DIR={cmake_dir}",
         # as distributions that link --as-needed by default (Ubuntu's gcc)
         "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed"], cwd=str(tmp_path))
    run(["cmake", "--build", str(tmp_path / "build")], cwd=str(tmp_path))
    exe = str(tmp_path / "build" / "run_model")
    assert elf_machine(exe) == EM_AARCH64
    check_app(wheel64, exe, str(tmp_path))
    # relocatable: beside a copy of the libraries, the package out of reach
    app = tmp_path / "app"
    (app / "bin").mkdir(parents=True)
    shutil.copytree(wheel64.lib, app / "lib", ignore=shutil.ignore_patterns("cmake", "pkgconfig"))
    shutil.copy(exe, app / "bin" / "run_model")
    hidden = wheel64.pkg + ".hidden"
    os.rename(wheel64.pkg, hidden)
    try:
        check_app(wheel64, str(app / "bin" / "run_model"), str(tmp_path))
    finally:
        os.rename(hidden, wheel64.pkg)
