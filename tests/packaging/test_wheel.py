"""The wheel as users get it: installed into a new virtual environment and
used from a folder with no checkout. Mirrors the checks of the seeds' test
plans (ExecuTorch's test_shared_libraries and test_cpp_sdk) for pterun's
components, plus the gaps they leave open (third-party exports, hidden
duplicates, pkg-config, CMake < 3.28)."""
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from conftest import REPO, clean_env, run, wheel_modes

THIRD_PARTY = ("xnn_", "pthreadpool_", "cpuinfo_", "cblas_", "sgemm_", "clog_")


def readelf_dynamic(path):
    out = run(["readelf", "-d", path], cwd="/").stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
    soname = re.findall(r"\(SONAME\)\s+Library soname: \[(.+?)\]", out)
    runpath = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.+?)\]", out)
    return needed, (soname[0] if soname else None), [p for r in runpath for p in r.split(":")]


def defined_symbols(path):
    out = run(["nm", "-D", "--defined-only", path], cwd="/").stdout
    syms = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TDBRVWiu":
            syms.add(parts[2].split("@")[0])
    return syms


def check_versioned(path):
    """A shipped library must be lib<name>.so.<N> with exactly that soname."""
    name = os.path.basename(path)
    if not re.fullmatch(r"lib[A-Za-z0-9_+-]+\.so\.\d+(\.\d+)*", name):
        raise AssertionError(f"{name}: not a versioned library file name")
    _n, soname, _r = readelf_dynamic(path)
    if soname != name:
        raise AssertionError(f"{name}: soname {soname!r} does not match the file name")


def component_of_symbol(sym, components):
    """The component whose symbol patterns match `sym` most specifically."""
    best, best_len = None, -1
    for c in components:
        for pat in c["symbols"]:
            if fnmatch.fnmatchcase(sym, pat) and len(pat) > best_len:
                best, best_len = c["name"], len(pat)
    return best


def lib_file(c):
    return f"lib{c['library']}.so.0"


# ---------------------------------------------------------------- libraries


def test_every_required_component_ships(installed):
    for c in installed.components:
        path = os.path.join(installed.lib, lib_file(c))
        if not c["optional"]:
            assert os.path.isfile(path), f"required component {c['name']} missing: {path}"
        if os.path.isfile(path):
            assert os.path.isfile(os.path.join(installed.pkg, "include", c["header"])), c["header"]
    table_files = {lib_file(c) for c in installed.components}
    for lib in installed.shipped_libraries():
        assert os.path.basename(lib) in table_files, f"{lib} is not in the component table"


def test_third_party_libraries_are_vendored_privately(installed):
    """XNNPACK, pthreadpool and cpuinfo ship renamed (auditwheel style), wired
    to each other by their new names, and no pterun library links them by
    DT_NEEDED: the components open them RTLD_LOCAL|RTLD_DEEPBIND, so another
    copy in the process (torch's) can neither capture nor be captured."""
    if not os.path.isfile(os.path.join(installed.lib, "libpterun_backend_xnnpack.so.0")):
        pytest.fail("this wheel has no XNNPACK backend")
    vendored = {re.sub(r"-[0-9a-f]{8}\.so\.\d+$", "", os.path.basename(p)): p for p in installed.vendored()}
    assert set(vendored) == {"libXNNPACK", "libpthreadpool", "libcpuinfo"}, vendored
    needed, soname, runpath = readelf_dynamic(vendored["libXNNPACK"])
    assert soname == os.path.basename(vendored["libXNNPACK"])
    assert os.path.basename(vendored["libpthreadpool"]) in needed and os.path.basename(vendored["libcpuinfo"]) in needed
    assert "libpthreadpool.so.0" not in needed and runpath == ["$ORIGIN"], (needed, runpath)
    for lib in installed.shipped_libraries() + installed.extensions():
        n, _s, _r = readelf_dynamic(lib)
        assert not [x for x in n if re.match(r"lib(XNNPACK|pthreadpool|cpuinfo)", x)], (lib, n)
    r = installed.py("from pterun import _pterun; import ctypes, os\n"
                     "lib = ctypes.CDLL(os.path.join(os.path.dirname(_pterun.__file__), 'lib', 'libpterun_threadpool.so.0'))\n"
                     "lib.pte_threadpool_provider.restype = ctypes.c_char_p\n"
                     "print(lib.pte_threadpool_provider().decode())")
    assert os.path.basename(vendored["libpthreadpool"]) in r.stdout and "DEEPBIND" in r.stdout, r.stdout


def test_libraries_are_versioned_with_matching_soname(installed, tmp_path):
    libs = installed.shipped_libraries()
    assert libs
    for lib in libs + installed.vendored():
        check_versioned(lib)
    # the check itself rejects an unversioned leftover
    bad = tmp_path / "libpterun.so"
    shutil.copy(libs[0], bad)
    with pytest.raises(AssertionError):
        check_versioned(str(bad))


def test_extension_holds_nothing_the_libraries_own(installed):
    exts = installed.extensions()
    assert exts, "no Python extension found"
    shipped = {os.path.basename(p) for p in installed.shipped_libraries()}
    for ext in exts:
        syms = defined_symbols(ext)
        owned = {s for s in syms if not s.startswith("PyInit_")}
        assert not owned, f"{os.path.basename(ext)} defines {sorted(owned)[:10]}"
        needed, _s, runpath = readelf_dynamic(ext)
        if os.path.basename(ext).startswith("_pterun."):
            missing = shipped - set(needed)
            assert not missing, f"{os.path.basename(ext)} does not record a dependency on {missing}"
        size = os.path.getsize(ext)
        print(f"\n{os.path.basename(ext)}: {size} bytes")
        assert size < 200 * 1024, f"{ext} is {size} bytes"


def test_each_symbol_group_has_exactly_its_owner(installed):
    objects = installed.shipped_libraries() + installed.extensions() + [os.path.join(installed.pkg, "bin", "pterun")]
    by_file = {os.path.basename(o): o for o in objects}
    owner_file = {c["name"]: lib_file(c) for c in installed.components}
    definers = {}
    for name, path in by_file.items():
        for sym in defined_symbols(path):
            if sym.startswith("PyInit_") or sym in ("_init", "_fini"):
                continue
            if name == "pterun" and not sym.startswith("pte_"):
                continue  # an executable carries copy-relocated libc data (stdout, ...)
            comp = component_of_symbol(sym, installed.components)
            assert comp is not None, f"{name} exports {sym}, which no component owns"
            assert owner_file[comp] == name, f"{sym} belongs to {comp} ({owner_file[comp]}) but {name} defines it"
            definers.setdefault(sym, []).append(name)
    for c in installed.components:
        if not os.path.isfile(os.path.join(installed.lib, lib_file(c))):
            continue
        for s in c["sentinels"]:
            assert definers.get(s) == [lib_file(c)], f"sentinel {s}: defined by {definers.get(s)}"


def test_no_library_exports_third_party_symbols(installed):
    for path in installed.shipped_libraries() + installed.extensions():
        bad = sorted(s for s in defined_symbols(path) if s.startswith(THIRD_PARTY))
        assert not bad, f"{os.path.basename(path)} exports {bad[:8]}"


def test_one_registry_in_process(installed, tmp_path):
    """nm cannot see hidden duplicates: count registries in one process. The
    extension, libpterun opened directly, and a C library compiled against the
    installed package must all see the same registry object."""
    probe = tmp_path / "probe.c"
    probe.write_text("#include <pterun/runtime.h>\n"
                     "const void *probe_registry(void) { return pte_registry_identity(); }\n"
                     "int probe_operators(void) { return pte_operator_count(); }\n")
    so = tmp_path / "libprobe.so"
    run(["cc", "-shared", "-fPIC", "-o", str(so), str(probe), f"-I{installed.pkg}/include", f"-L{installed.lib}",
         "-l:libpterun.so.0", f"-Wl,-rpath,{installed.lib}"], cwd=str(tmp_path))
    code = textwrap.dedent(f"""
        import ctypes, pterun
        from pterun import _pterun
        ext = _pterun.registry_identity()
        lib = ctypes.CDLL({os.path.join(installed.lib, 'libpterun.so.0')!r})
        lib.pte_registry_identity.restype = ctypes.c_void_p
        probe = ctypes.CDLL({str(so)!r})
        probe.probe_registry.restype = ctypes.c_void_p
        assert ext == lib.pte_registry_identity() == probe.probe_registry(), (ext, lib.pte_registry_identity(), probe.probe_registry())
        assert probe.probe_operators() == len(pterun.registered_operators())
        print("one registry", hex(ext))
    """)
    installed.py(code)


def test_libraries_resolve_and_relocate(installed, tmp_path):
    objects = installed.shipped_libraries() + installed.extensions() + installed.vendored()
    for path in objects:
        r = run(["ldd", "-r", path], cwd=installed.root, check=False)
        bad = [l for l in (r.stdout + r.stderr).splitlines()
               if "not found" in l or ("undefined symbol" in l and not re.search(r"undefined symbol: _?Py", l))]
        assert not bad, f"{os.path.basename(path)}: {bad}"
        _n, _s, runpath = readelf_dynamic(path)
        for entry in runpath:
            assert entry.startswith("$ORIGIN"), f"{os.path.basename(path)} has RUNPATH entry {entry!r}"
    # a copy of the installed tree elsewhere still resolves, from the copy
    moved = tmp_path / "moved" / "site-packages"
    shutil.copytree(installed.pkg, moved / "pterun", symlinks=True)
    libs_dir = os.path.join(os.path.dirname(installed.pkg), "pterun.libs")
    if os.path.isdir(libs_dir):
        shutil.copytree(libs_dir, moved / "pterun.libs", symlinks=True)
    for path in glob.glob(str(moved / "pterun" / "lib" / "*.so*")) + glob.glob(str(moved / "pterun" / "*.so")):
        r = run(["ldd", path], cwd=installed.root)
        for line in r.stdout.splitlines():
            assert "not found" not in line, f"{path}: {line}"
            m = re.search(r"=> (\S+)", line)
            if m and ("libpterun" in line or "pterun.libs" in m.group(1)):
                assert m.group(1).startswith(str(moved)), f"{path} resolved {line.strip()} outside the copy"


def test_every_extension_imports_in_a_clean_environment(installed):
    exts = installed.extensions()
    site = os.path.dirname(installed.pkg)
    for ext in exts:
        rel = os.path.relpath(ext, site)
        module = rel.split(".abi3.so")[0].replace(os.sep, ".")
        installed.py(f"import importlib; importlib.import_module({module!r})")


def test_read_only_outputs_ship_as_0755(installed):
    modes = wheel_modes(installed.wheel)
    for name, mode in modes.items():
        assert not mode & 0o002, f"{name} is world-writable ({oct(mode)})"
        if name.endswith(".so") or ".so." in name or name.endswith("/bin/pterun"):
            assert mode == 0o755, f"{name} has mode {oct(mode)}"


def test_every_shipped_elf_file_loads_on_glibc_2_28(installed):
    """manylinux_2_28: no library, extension or program in the wheel, ours or
    vendored, references a glibc symbol version newer than 2.28."""
    sys.path.insert(0, os.path.join(REPO, "cmake"))
    import glibc_baseline as gb

    files = list(gb._elf_files([installed.pkg]))
    assert len(files) >= len(installed.shipped_libraries()) + len(installed.extensions()) + 3, files
    late = {f: [f"{s}@{v}" for _i, s, v, _l in gb.Elf(f).too_new((2, 28))] for f in files}
    assert not any(late.values()), {f: v for f, v in late.items() if v}
    r = run([sys.executable, "-m", "auditwheel", "show", installed.wheel], cwd=installed.root)
    assert re.findall(r'"(manylinux_\d+_\d+_\w+)"', r.stdout)[0].startswith("manylinux_2_28_"), r.stdout


def test_platform_tag_is_what_auditwheel_reports(installed):
    r = run([sys.executable, "-m", "auditwheel", "show", installed.wheel], cwd=installed.root)
    tags = re.findall(r'"((?:many|musl)linux_\d+_\d+_\w+)"', r.stdout)
    assert tags, r.stdout
    wheel_tags = os.path.basename(installed.wheel)[:-4].split("-")[-1].split(".")
    assert tags[0] in wheel_tags, f"wheel tagged {wheel_tags}, auditwheel says {tags[0]}"
    print(f"\nplatform tag: {tags[0]}")


def test_wheel_is_one_abi3_build_that_abi3audit_accepts(installed):
    """One wheel for every CPython from 3.9: tagged cp39-abi3, its extensions
    named .abi3.so, and abi3audit finds no symbol outside the 3.9 stable ABI."""
    name = os.path.basename(installed.wheel)
    assert name.split("-")[2:4] == ["cp39", "abi3"], name
    exts = installed.extensions()
    assert {os.path.basename(e).split(".")[0] for e in exts} >= {"_pterun", "_profiler", "_training", "_llm"}, exts
    with zipfile.ZipFile(installed.wheel) as z:
        modules = [n for n in z.namelist() if n.endswith(".so") and not n.startswith("pterun/lib/")]
    assert modules and all(n.endswith(".abi3.so") for n in modules), modules
    abi3audit = os.path.join(os.path.dirname(sys.executable), "abi3audit")
    r = run([abi3audit, "--strict", "--assume-minimum-abi3", "3.9", "--report", installed.wheel], cwd=installed.root,
            check=False)
    assert r.returncode == 0, f"abi3audit failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    report = json.loads(r.stdout)
    results = [e["result"] for spec in report["specs"].values() for e in spec["wheel"]]
    assert len(results) == len(modules), report
    assert all(x["is_abi3"] and not x["non_abi3_symbols"] and x["computed"] == "3.9" for x in results), report


def _other_pythons():
    """CPython 3.9+ interpreters other than this one: PTERUN_EXTRA_PYTHONS
    (os.pathsep-separated), else every version under `pyenv root`."""
    listed = os.environ.get("PTERUN_EXTRA_PYTHONS")
    if listed:
        cands = [p for p in listed.split(os.pathsep) if p]
    else:
        # make runs tests on a PATH of system folders: pyenv's own default
        # root stands in for `pyenv root` there.
        try:
            root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
        except OSError:
            root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
        cands = sorted(glob.glob(os.path.join(root, "versions", "*", "bin", "python3"))) if root else []
    found = {}
    for exe in cands:
        r = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True)
        ver = r.stdout.strip()
        if r.returncode == 0 and tuple(map(int, ver.split("."))) >= (3, 9) and ver != "%d.%d" % sys.version_info[:2]:
            found.setdefault(ver, exe)
    # The oldest and the newest: what the stable ABI could get wrong shows at
    # either end (and each costs a venv with numpy from PyPI).
    keep = sorted(found, key=lambda v: tuple(map(int, v.split("."))))
    return {v: found[v] for v in {keep[0], keep[-1]}} if keep else {}


def test_the_abi3_wheel_runs_on_every_other_cpython(installed, zoo_copy):
    """The one wheel installs and runs on the other CPythons 3.9+ here: the mlp
    zoo case through pterun.runtime and pterun.portable_lib, and one SGD step
    on a parameter view (_training's __array_interface__). CI must have 3.9."""
    pythons = _other_pythons()
    if os.environ.get("CI") == "true":
        assert "3.9" in pythons, f"CI needs CPython 3.9 (pyenv or PTERUN_EXTRA_PYTHONS); found {pythons}"
    if not pythons:
        pytest.skip("no other CPython 3.9+ found (pyenv root or PTERUN_EXTRA_PYTHONS)")
    mlp = os.path.join(zoo_copy, "models", "mlp")
    code = textwrap.dedent(f"""
        import os, sys, numpy as np
        import pterun.runtime, pterun.portable_lib, pterun.training
        case = {mlp!r}
        x = np.load(os.path.join(case, "inputs", "0.npy"))
        e = np.load(os.path.join(case, "expected", "0.npy"))
        m = pterun.runtime.Runtime.get().load_program(os.path.join(case, "model.pte")).load_method("forward")
        np.testing.assert_allclose(np.asarray(m.execute((x,))[0]), e, rtol=1e-4, atol=1e-5)
        with open(os.path.join(case, "model.pte"), "rb") as f:
            mod = pterun.portable_lib._load_for_executorch_from_buffer(memoryview(f.read()))
        np.testing.assert_allclose(np.asarray(mod.forward([x])[0]), e, rtol=1e-4, atol=1e-5)
        p = np.ones(4, np.float32)
        pterun.training.SGD([p], lr=0.5).step([np.full(4, 2.0, np.float32)])
        assert (p == 0).all(), p
        print(sys.version.split()[0])
    """)
    for ver, exe in sorted(pythons.items()):
        venv = os.path.join(installed.root, f"venv-{ver}")
        run([exe, "-m", "venv", venv], cwd=installed.root)
        run([os.path.join(venv, "bin", "pip"), "install", "-q", installed.wheel, "numpy"], cwd=installed.root)
        r = run([os.path.join(venv, "bin", "python"), "-c", code], cwd=installed.root)
        assert r.stdout.strip().startswith(ver), (ver, r.stdout)
    print(f"\nran on CPython {sorted(pythons)}")


# ---------------------------------------------------------------- Python


def test_python_sdk_locations(installed):
    for flag, must in (("--cmake-dir", "pterunConfig.cmake"), ("--pkg-config-path", "pterun.pc"),
                       ("--include-dir", "pterun/runtime.h"), ("--lib-dir", "libpterun.so.0")):
        out = run([installed.python, "-m", "pterun", flag], cwd=installed.root).stdout.strip()
        assert os.path.exists(os.path.join(out, must)), (flag, out)
    r = run([os.path.join(installed.venv, "bin", "pterun"), "version"], cwd=installed.root)
    with open(os.path.join(REPO, "components.json")) as f:
        version = json.load(f)["version"]
    assert r.stdout.strip() == f"pterun {version}", r.stdout
    # the one version: wheel metadata, Python package and installed header agree
    r = run([installed.python, "-c", "import importlib.metadata as m, pterun; print(m.version('pterun'), pterun.__version__)"],
            cwd=installed.root)
    assert r.stdout.split() == [version, version], r.stdout
    with open(os.path.join(installed.pkg, "include", "pterun", "version.h")) as f:
        assert f'#define PTE_VERSION_STRING "{version}"' in f.read()
    assert os.path.isfile(os.path.join(installed.pkg, "_pterun.pyi"))
    assert os.path.isfile(os.path.join(installed.pkg, "py.typed"))


def _case_io(case):
    ins = [np.load(p) for p in sorted(glob.glob(os.path.join(case, "inputs", "*.npy")),
                                      key=lambda p: int(os.path.basename(p)[:-4]))]
    outs = [np.load(p) for p in sorted(glob.glob(os.path.join(case, "expected", "*.npy")),
                                       key=lambda p: int(os.path.basename(p)[:-4]))]
    return ins, outs


def test_zoo_models_through_the_bindings(installed, zoo_copy):
    code = textwrap.dedent(f"""
        import glob, json, os, sys
        import numpy as np, pterun
        root = {zoo_copy!r}
        n = 0
        for case in sorted(glob.glob(os.path.join(root, "models", "*"))):
            meta = json.load(open(os.path.join(case, "case.json")))
            data = os.path.join(case, meta["data"]) if meta.get("data") else None
            prog = pterun.load(os.path.join(case, "model.pte"), data=data)
            m = prog.method(meta.get("method", "forward"))
            ins = [np.load(p) for p in sorted(glob.glob(os.path.join(case, "inputs", "*.npy")), key=lambda p: int(os.path.basename(p)[:-4]))]
            exp = [np.load(p) for p in sorted(glob.glob(os.path.join(case, "expected", "*.npy")), key=lambda p: int(os.path.basename(p)[:-4]))]
            outs = m.execute(ins)
            for o, e in zip(outs, exp):
                np.testing.assert_allclose(o, e, rtol=meta["rtol"], atol=meta["atol"], err_msg=case)
            n += 1
        print("cases", n)
        assert n >= 3
    """)
    installed.py(code)


def test_python_api_and_errors(installed, zoo_copy):
    mlp = os.path.join(zoo_copy, "models", "mlp")
    code = textwrap.dedent(f"""
        import os, numpy as np, torch, pterun
        case = {mlp!r}
        prog = pterun.load(os.path.join(case, "model.pte"))
        assert prog.method_names == ["forward"], prog.method_names
        m = prog.method("forward")
        x = np.load(os.path.join(case, "inputs", "0.npy"))
        e = np.load(os.path.join(case, "expected", "0.npy"))
        assert m.inputs[0].shape == x.shape and m.inputs[0].dtype == x.dtype
        np.testing.assert_allclose(m(x), e, rtol=1e-4, atol=1e-5)                      # numpy
        np.testing.assert_allclose(m(torch.from_numpy(x)), e, rtol=1e-4, atol=1e-5)    # DLPack
        np.testing.assert_allclose(m.execute([memoryview(x)])[0], e, rtol=1e-4, atol=1e-5)  # buffer protocol
        xt = torch.from_numpy(np.asfortranarray(x))                                    # non-contiguous
        np.testing.assert_allclose(m(xt), e, rtol=1e-4, atol=1e-5)
        try:
            m(np.zeros((1,) * x.ndim, np.float32))
            raise SystemExit("wrong shape accepted")
        except pterun.Error as err:
            assert "input 0" in str(err) and err.status == "PTE_ERR_INVALID_ARGUMENT", (str(err), err.status)
        try:
            pterun.load("/nonexistent.pte")
            raise SystemExit("missing file accepted")
        except pterun.Error as err:
            assert "/nonexistent.pte" in str(err)
        assert "aten::addmm.out" in pterun.registered_operators()
        print("ok")
    """)
    installed.py(code)


@pytest.mark.parametrize("torch_first", [True, False])
@pytest.mark.parametrize("torch_global", [False, True])
def test_torch_loaded_first_or_last(installed, zoo_copy, torch_first, torch_global):
    """torch carries its own pthreadpool, cpuinfo (and XNNPACK) symbols; with
    TORCH_USE_RTLD_GLOBAL=1 they are even global. pterun must neither use
    them nor disturb torch, whatever the import order."""
    case = os.path.join(zoo_copy, "models", "small_cnn")
    if not os.path.isdir(case):
        case = os.path.join(zoo_copy, "models", "mlp")
    imports = "import torch\nimport pterun" if torch_first else "import pterun\nimport torch"
    code = imports + textwrap.dedent(f"""
        import glob, os, numpy as np
        for c in [{case!r}] + sorted(glob.glob(os.path.join({zoo_copy!r}, "xnnpack", "*"))):
            if "xnnpack" in c and "XnnpackBackend" not in pterun.registered_backends():
                continue
            x = np.load(os.path.join(c, "inputs", "0.npy"))
            e = np.load(os.path.join(c, "expected", "0.npy"))
            out = pterun.load(os.path.join(c, "model.pte")).method("forward")(torch.from_numpy(x))
            np.testing.assert_allclose(out, e, rtol=1e-4, atol=1e-5, err_msg=c)
        y = torch.nn.functional.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3))
        assert float(y.sum()) == 36.0   # torch still works too
        print("ok")
    """)
    installed.py(code, env=clean_env({"TORCH_USE_RTLD_GLOBAL": "1"}) if torch_global else None)


# ---------------------------------------------------------------- C SDK

def _readme_blocks():
    text = open(os.path.join(REPO, "README.md")).read()
    c_block = re.search(r"```c\n(.*?)```", text, re.S).group(1)
    cmake_block = re.search(r"```cmake\n(.*?)```", text, re.S).group(1)
    return c_block, cmake_block


def _check_app(installed, exe, zoo_copy, cwd):
    add = os.path.join(zoo_copy, "models", "add", "model.pte")
    r = run([exe, add], cwd=cwd)
    import torch
    want = (torch.tensor([[1., 2.], [3., 4.]]) + torch.tensor([[10., 20.], [30., 40.]])).flatten().tolist()
    got = [float(v) for v in r.stdout.strip().splitlines()[-1].split()]
    assert got == want, (got, want)
    assert "method: forward" in r.stdout
    needed, _s, runpath = readelf_dynamic(exe)
    assert "libpterun.so.0" in needed, needed
    assert any(p.startswith("$ORIGIN") for p in runpath), runpath
    return runpath


def test_readme_example_with_cmake(installed, zoo_copy, tmp_path):
    c_block, cmake_block = _readme_blocks()
    (tmp_path / "run_model.c").write_text(c_block)
    (tmp_path / "CMakeLists.txt").write_text(cmake_block)
    cmake_dir = run([installed.python, "-m", "pterun", "--cmake-dir"], cwd=installed.root).stdout.strip()
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "build"), f"-Dpterun_DIR={cmake_dir}"], cwd=str(tmp_path))
    run(["cmake", "--build", str(tmp_path / "build")], cwd=str(tmp_path))
    exe = str(tmp_path / "build" / "run_model")
    _check_app(installed, exe, zoo_copy, str(tmp_path))
    # relocatable: the app copied beside the libraries ($ORIGIN/../lib) with
    # the package itself out of reach still runs
    app = tmp_path / "app"
    (app / "bin").mkdir(parents=True)
    shutil.copytree(installed.lib, app / "lib", ignore=shutil.ignore_patterns("cmake", "pkgconfig"))
    for v in installed.vendored():
        shutil.copy(v, app / "lib")
    shutil.copy(exe, app / "bin" / "run_model")
    hidden = installed.pkg + ".hidden"
    os.rename(installed.pkg, hidden)
    try:
        _check_app(installed, str(app / "bin" / "run_model"), zoo_copy, str(tmp_path))
    finally:
        os.rename(hidden, installed.pkg)


def test_readme_example_with_pkg_config(installed, zoo_copy, tmp_path):
    c_block, _ = _readme_blocks()
    src = tmp_path / "run_model.c"
    src.write_text(c_block)
    pc = run([installed.python, "-m", "pterun", "--pkg-config-path"], cwd=installed.root).stdout.strip()
    env = clean_env({"PKG_CONFIG_PATH": pc})
    flags = run(["pkg-config", "--cflags", "--libs", "pterun", "pterun-kernels-portable"], cwd=str(tmp_path),
                env=env).stdout.split()
    exe = str(tmp_path / "run_model")
    run(["cc", str(src), "-o", exe, "-Wl,-rpath,$ORIGIN/../lib"] + flags, cwd=str(tmp_path))
    _check_app(installed, exe, zoo_copy, str(tmp_path))


def _configure(installed, tmp_path, body, cmake="cmake", check=True):
    proj = tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    (proj / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(t C)\n" + body)
    (proj / "main.c").write_text("#include <pterun/runtime.h>\nint main(void){return pte_backend_count() < 0;}\n")
    cmake_dir = run([installed.python, "-m", "pterun", "--cmake-dir"], cwd=installed.root).stdout.strip()
    shutil.rmtree(tmp_path / "b", ignore_errors=True)
    return run([cmake, "-S", str(proj), "-B", str(tmp_path / "b"), f"-Dpterun_DIR={cmake_dir}"], cwd=str(tmp_path),
               check=check)


def test_missing_component_and_wrong_major_fail_at_configure(installed, tmp_path):
    r = _configure(installed, tmp_path, "find_package(pterun REQUIRED COMPONENTS no_such_thing)\n", check=False)
    assert r.returncode != 0 and "no_such_thing" in r.stderr, r.stderr
    r = _configure(installed, tmp_path, "find_package(pterun 1.0 REQUIRED)\n", check=False)
    assert r.returncode != 0, "a different major version was accepted"
    r = _configure(installed, tmp_path, "find_package(pterun 0.1 REQUIRED COMPONENTS runtime kernels_portable)\n"
                   "add_executable(m main.c)\ntarget_link_libraries(m PRIVATE pterun::runtime)\n")
    # a table component this installation lacks: remove it from a copy
    copy = tmp_path / "partial"
    shutil.copytree(installed.pkg, copy / "pterun", symlinks=True)
    os.remove(copy / "pterun" / "lib" / "libpterun_kernels_portable.so.0")
    proj = tmp_path / "proj"
    r = run(["cmake", "-S", str(proj), "-B", str(tmp_path / "b2"),
             f"-Dpterun_DIR={copy / 'pterun' / 'lib' / 'cmake' / 'pterun'}"], cwd=str(tmp_path), check=False)
    assert r.returncode != 0 and "kernels_portable" in r.stderr, r.stderr


def test_cmake_3_20(installed, tmp_path):
    venv = tmp_path / "cmake320"
    run([sys.executable, "-m", "venv", str(venv)], cwd=str(tmp_path))
    r = run([str(venv / "bin" / "pip"), "install", "-q", "cmake==3.20.*"], cwd=str(tmp_path), check=False)
    if r.returncode != 0:
        pytest.fail(f"cannot install CMake 3.20 to test it: {r.stderr[-500:]}")
    cmake = str(venv / "bin" / "cmake")
    assert "3.20" in run([cmake, "--version"], cwd=str(tmp_path)).stdout
    _configure(installed, tmp_path, "find_package(pterun 0.1 REQUIRED COMPONENTS runtime kernels_portable)\n"
               "add_executable(m main.c)\ntarget_link_libraries(m PRIVATE pterun::runtime pterun::kernels_portable)\n",
               cmake=cmake)
    run([cmake, "--build", str(tmp_path / "b")], cwd=str(tmp_path))
    run([str(tmp_path / "b" / "m")], cwd=str(tmp_path))


def test_runtime_only_program_loads_components_at_run_time(installed, tmp_path):
    src = tmp_path / "loader.c"
    src.write_text(textwrap.dedent("""
        #include <pterun/runtime.h>
        #include <stdio.h>
        #include <string.h>
        int main(int argc, char **argv) {
          if (pte_operator_registered("aten::add.out")) { printf("registered before loading\\n"); return 1; }
          const void *reg = pte_registry_identity();
          if (pte_library_load(argv[1]) != PTE_OK) { printf("load: %s\\n", pte_last_error()); return 1; }
          if (pte_library_load(argv[1]) != PTE_OK) { printf("second load: %s\\n", pte_last_error()); return 1; }
          if (!pte_operator_registered("aten::add.out")) { printf("not registered after loading\\n"); return 1; }
          int32_t n = 0;
          if (pte_library_load_all(&n) != PTE_OK || n < 1) { printf("load_all: %d %s\\n", (int)n, pte_last_error()); return 1; }
          if (reg != pte_registry_identity()) return 1;
          printf("ok %d operators, %d components, %d backends\\n", (int)pte_operator_count(), (int)n, (int)pte_backend_count());
          return 0;
        }
    """))
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(l C)\n"
                                             "find_package(pterun REQUIRED COMPONENTS runtime)\n"
                                             "add_executable(loader loader.c)\n"
                                             "target_link_libraries(loader PRIVATE pterun::runtime)\n")
    cmake_dir = run([installed.python, "-m", "pterun", "--cmake-dir"], cwd=installed.root).stdout.strip()
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b"), f"-Dpterun_DIR={cmake_dir}"], cwd=str(tmp_path))
    run(["cmake", "--build", str(tmp_path / "b")], cwd=str(tmp_path))
    exe = str(tmp_path / "b" / "loader")
    needed, _s, _r = readelf_dynamic(exe)
    assert not any("kernels" in n for n in needed), needed
    r = run([exe, os.path.join(installed.lib, "libpterun_kernels_portable.so.0")], cwd=str(tmp_path))
    assert r.stdout.startswith("ok"), r.stdout



QUANT_APP_C = r"""
/* Runs a quantized program (int8 PT2E CNN) on a raw float32 input file and
 * prints its float32 output. */
#include <pterun/kernels_quantized.h>
#include <pterun/runtime.h>
#include <stdio.h>

int main(int argc, char **argv) {
  static float in[3 * 8 * 8];
  FILE *f = argc > 2 ? fopen(argv[2], "rb") : NULL;
  if (!f || fread(in, sizeof in, 1, f) != 1) return 2;
  fclose(f);
  pte_program *p = NULL;
  pte_method *m = NULL;
  int64_t sizes[4] = {1, 3, 8, 8};
  pte_tensor t;
  pte_tensor_init(&t, PTE_FLOAT32, 4, sizes, in);
  if (pte_program_load_file(argv[1], NULL, &p) || pte_method_load(p, "forward", NULL, &m) ||
      pte_method_set_input_tensor(m, 0, &t) || pte_method_execute(m)) {
    fprintf(stderr, "failed: %s\n", pte_last_error());
    return 1;
  }
  const pte_tensor *out = pte_method_output(m, 0)->u.tensor;
  printf("%d quantized operators\n", (int)pte_kernels_quantized_count());
  for (int64_t i = 0; i < pte_tensor_numel(out); i++) printf("%.9g ", ((const float *)out->data)[i]);
  printf("\n");
  pte_method_free(m);
  pte_program_free(p);
  return 0;
}
"""


def test_quantized_program_links_kernels_quantized(installed, zoo_copy, tmp_path):
    """A C program that links pterun::kernels_quantized (no register call:
    the library is kept on the link line and registers itself) runs a
    quantized zoo case; pkg-config knows the library too."""
    case = os.path.join(zoo_copy, "quantized", "pt2e_static_cnn")
    (tmp_path / "q.c").write_text(QUANT_APP_C)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(q C)\n"
        "find_package(pterun 0.1 REQUIRED COMPONENTS runtime kernels_portable kernels_quantized)\n"
        "add_executable(q q.c)\n"
        "target_link_libraries(q PRIVATE pterun::runtime pterun::kernels_portable pterun::kernels_quantized)\n")
    cmake_dir = run([installed.python, "-m", "pterun", "--cmake-dir"], cwd=installed.root).stdout.strip()
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b"), f"-Dpterun_DIR={cmake_dir}"], cwd=str(tmp_path))
    run(["cmake", "--build", str(tmp_path / "b")], cwd=str(tmp_path))
    exe = str(tmp_path / "b" / "q")
    needed, _s, _r = readelf_dynamic(exe)
    assert "libpterun_kernels_quantized.so.0" in needed, needed
    x = np.load(os.path.join(case, "inputs", "0.npy"))
    x.astype(np.float32).tofile(str(tmp_path / "x.bin"))
    r = run([exe, os.path.join(case, "model.pte"), str(tmp_path / "x.bin")], cwd=str(tmp_path))
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "19 quantized operators", r.stdout
    got = np.array([float(v) for v in lines[1].split()], dtype=np.float32)
    meta = json.load(open(os.path.join(case, "case.json")))
    want = np.load(os.path.join(case, "expected", "0.npy")).reshape(-1)
    np.testing.assert_allclose(got, want, rtol=0, atol=meta["atol"])
    pc = run([installed.python, "-m", "pterun", "--pkg-config-path"], cwd=installed.root).stdout.strip()
    libs = run(["pkg-config", "--libs", "pterun-kernels-quantized"], cwd=str(tmp_path),
               env=clean_env({"PKG_CONFIG_PATH": pc})).stdout
    assert "pterun_kernels_quantized" in libs, libs

CUSTOM_OP_C = r"""
/* A custom operator library built out of tree against the installed pterun. */
#include <pterun/runtime.h>

static pte_status double_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  if (nargs != 3 || args[0]->tag != PTE_TAG_TENSOR || args[1]->tag != PTE_TAG_TENSOR)
    return pte_kernel_fail(ctx, PTE_ERR_KERNEL, "bad arguments");
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[1]->u.tensor;
  if (x->dtype != PTE_FLOAT32 || out->dtype != PTE_FLOAT32) return pte_kernel_fail(ctx, PTE_ERR_KERNEL, "float32 only");
  pte_status st = pte_tensor_resize(out, x->dim, x->sizes);
  if (st) return st;
  for (int64_t i = 0; i < pte_tensor_numel(x); i++) ((float *)out->data)[i] = 2.0f * ((const float *)x->data)[i];
  return PTE_OK;
}

static const pte_kernel kernels[] = {{"pterun_test::custom_double.out", double_out, 0, 0}};
static const pte_kernel_library library = PTE_KERNEL_LIBRARY_INIT("custom_ops", 0, kernels, 1);

__attribute__((visibility("default"))) pte_status pte_custom_ops_register(void) { return pte_register_kernels(&library); }
"""

CUSTOM_OP_EXPORT = r"""
import sys, numpy as np, torch
from torch.library import Library, impl
lib = Library("pterun_test", "DEF")
lib.define("custom_double(Tensor x) -> Tensor")
lib.define("custom_double.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
@impl(lib, "custom_double", "CompositeExplicitAutograd")
def custom_double(x):
    return x * 2
@impl(lib, "custom_double", "Meta")
def custom_double_meta(x):
    return torch.empty_like(x)
@impl(lib, "custom_double.out", "CompositeExplicitAutograd")
def custom_double_out(x, *, out):
    out.copy_(x * 2)
    return out
class M(torch.nn.Module):
    def forward(self, x):
        return torch.ops.pterun_test.custom_double(x) + 1.0
from executorch.exir import to_edge_transform_and_lower, EdgeCompileConfig
x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
ep = torch.export.export(M(), (x,))
prog = to_edge_transform_and_lower(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
open(sys.argv[1], "wb").write(prog.buffer)
np.save(sys.argv[2], x.numpy())
np.save(sys.argv[3], (x * 2 + 1).numpy())
"""


def test_custom_operator_library(installed, tmp_path):
    (tmp_path / "custom_ops.c").write_text(CUSTOM_OP_C)
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(c C)\n"
                                             "find_package(pterun REQUIRED COMPONENTS runtime)\n"
                                             "add_library(custom_ops SHARED custom_ops.c)\n"
                                             "target_link_libraries(custom_ops PRIVATE pterun::runtime)\n")
    cmake_dir = run([installed.python, "-m", "pterun", "--cmake-dir"], cwd=installed.root).stdout.strip()
    run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b"), f"-Dpterun_DIR={cmake_dir}"], cwd=str(tmp_path))
    run(["cmake", "--build", str(tmp_path / "b")], cwd=str(tmp_path))
    so = str(tmp_path / "b" / "libcustom_ops.so")
    pte, x, want = (str(tmp_path / n) for n in ("custom.pte", "x.npy", "want.npy"))
    # the exporter runs in the development environment (it has executorch)
    run([sys.executable, "-c", CUSTOM_OP_EXPORT, pte, x, want], cwd=str(tmp_path), timeout=600)
    code = textwrap.dedent(f"""
        import numpy as np, pterun
        try:
            pterun.load({pte!r}).method("forward")(np.load({x!r}))
        except pterun.Error as e:
            assert "pterun_test::custom_double.out" in str(e), str(e)
        else:
            raise SystemExit("ran without the custom operator")
        pterun.load_library({so!r})
        assert "pterun_test::custom_double.out" in pterun.registered_operators()
        out = pterun.load({pte!r}).method("forward")(np.load({x!r}))
        np.testing.assert_array_equal(out, np.load({want!r}))
        print("ok")
    """)
    installed.py(code)
    cli = os.path.join(installed.pkg, "bin", "pterun")
    out_dir = str(tmp_path / "out")
    run([cli, "run", pte, "--library", so, "--input", x, "--output-dir", out_dir], cwd=str(tmp_path))
    np.testing.assert_array_equal(np.load(os.path.join(out_dir, "output_0.npy")), np.load(want))


def test_two_extensions_share_one_registry_and_one_pool(installed, zoo_copy):
    """Both extensions see one registry; the kernels and the delegate run on
    one pool, the one libpterun_threadpool owns, and nothing made a second."""
    case = os.path.join(zoo_copy, "xnnpack", "small_cnn")
    plain = os.path.join(zoo_copy, "models", "small_cnn")
    installed.py(textwrap.dedent(f"""
        import ctypes, os, numpy as np, pterun
        from pterun import _pterun, _profiler
        assert _pterun.registry_identity() == _profiler.registry_identity()
        pool = ctypes.CDLL(os.path.join(os.path.dirname(_pterun.__file__), "lib", "libpterun_threadpool.so.0"))
        pool.pte_threadpool_identity.restype = ctypes.c_void_p
        pool.pte_threadpool_pools_created.restype = ctypes.c_uint64
        assert pool.pte_threadpool_identity() == _pterun.threadpool_identity()
        pterun.set_num_threads(2)
        assert pterun.num_threads() == 2
        x = np.load(os.path.join({plain!r}, "inputs", "0.npy"))
        pterun.load(os.path.join({plain!r}, "model.pte")).method()(x)       # kernels use the pool
        created = pool.pte_threadpool_pools_created()
        assert created >= 1
        with pterun.profile():
            pterun.load(os.path.join({plain!r}, "model.pte")).method()(x)   # optimized kernels
            pterun.load(os.path.join({case!r}, "model.pte")).method()(x)    # XNNPACK delegate
        assert pool.pte_threadpool_pools_created() == created, "a second pool was made"
        print("one registry, one pool")
    """))


def test_python_profiler(installed, zoo_copy, tmp_path):
    case = os.path.join(zoo_copy, "models", "mlp")
    etdp, trace = str(tmp_path / "run.etdp"), str(tmp_path / "run.json")
    code = textwrap.dedent(f"""
        import os, json, numpy as np, pterun
        m = pterun.load(os.path.join({case!r}, "model.pte")).method("forward")
        x = np.load(os.path.join({case!r}, "inputs", "0.npy"))
        m(x)                                  # not profiled
        with pterun.profile() as p:
            for _ in range(3):
                m(x)
        m(x)                                  # not profiled either
        t = p.table()
        assert "aten::addmm.out" in t and "3 execute" in t, t
        assert p.stats()["executes"] == 3, p.stats()
        p.save_etdump({etdp!r}); p.save_trace({trace!r})
        json.load(open({trace!r}))
        print(t)
    """)
    installed.py(code)
    from executorch.devtools import Inspector
    insp = Inspector(etdump_path=etdp)
    names = {e.name for b in insp.event_blocks for e in b.events}
    assert "aten::addmm.out" in names, names
    execute_blocks = [b for b in insp.event_blocks if b.name == "Execute"]
    assert execute_blocks and all(len(e.perf_data.raw) == 3 for e in execute_blocks[0].events if e.perf_data), \
        [(e.name, len(e.perf_data.raw)) for e in execute_blocks[0].events if e.perf_data]


def test_delegated_models_through_the_bindings(installed, zoo_copy):
    """The XNNPACK-delegated zoo models from Python: each really holds an
    XnnpackBackend delegate and really ran through it (its execution counter),
    since a partitioner that claimed nothing would still match on portable
    kernels."""
    code = textwrap.dedent(f"""
        import ctypes, glob, json, os
        import numpy as np, pterun
        from pterun import _pterun
        assert "XnnpackBackend" in pterun.registered_backends(), pterun.registered_backends()
        lib = ctypes.CDLL(os.path.join(os.path.dirname(_pterun.__file__), "lib", "libpterun_backend_xnnpack.so.0"))
        lib.pte_backend_xnnpack_executions.restype = ctypes.c_uint64
        n = 0
        for case in sorted(glob.glob(os.path.join({zoo_copy!r}, "xnnpack", "*"))):
            meta = json.load(open(os.path.join(case, "case.json")))
            m = pterun.load(os.path.join(case, "model.pte")).method(meta.get("method", "forward"))
            assert "XnnpackBackend" in m.delegates, (case, m.delegates)
            ins = [np.load(p) for p in sorted(glob.glob(os.path.join(case, "inputs", "*.npy")))]
            before = lib.pte_backend_xnnpack_executions()
            outs = m.execute(ins)
            assert lib.pte_backend_xnnpack_executions() > before, case
            exp = np.load(os.path.join(case, "expected", "0.npy"))
            np.testing.assert_allclose(outs[0], exp, rtol=meta["rtol"], atol=meta["atol"], err_msg=case)
            n += 1
        assert n >= 2, n
        print("delegated cases", n)
    """)
    installed.py(code)
