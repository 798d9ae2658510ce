"""The version is written once, in components.json; every other place derives
it. Fails when a copy appears (a literal version in the sources) or when a
derived one disagrees (the generated header, the CLI, the wheel metadata
rule, the Python package)."""
import json
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version():
    with open(os.path.join(REPO, "components.json")) as f:
        return json.load(f)["version"]


def _pyproject():
    with open(os.path.join(REPO, "pyproject.toml")) as f:
        return f.read()


def test_no_other_copy_in_the_sources():
    v = _version()
    literal = re.compile(r"(?<![\d.])" + re.escape(v) + r"(?![\d.])")
    places = ["include", "cmake", "cli", "runtime", "python", "CMakeLists.txt", "pyproject.toml"]
    found = []
    for place in places:
        root = os.path.join(REPO, place)
        files = [root] if os.path.isfile(root) else [
            os.path.join(d, n) for d, _, names in os.walk(root) for n in names]
        for path in files:
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            if literal.search(text):
                found.append(os.path.relpath(path, REPO))
    assert not found, f"version {v} is copied into {found}: derive it from components.json"
    # the parts as C literals would be a copy too
    runtime_h = open(os.path.join(REPO, "include", "pterun", "runtime.h")).read()
    assert not re.search(r"#define\s+PTE_VERSION_(MAJOR|MINOR|PATCH)\s+\d", runtime_h)


def test_wheel_metadata_reads_components_json():
    text = _pyproject()
    assert not re.search(r"^version\s*=", text, re.M), "pyproject.toml has its own version"
    assert re.search(r'^dynamic\s*=\s*\[[^\]]*"version"', text, re.M)
    assert 'metadata.version.provider = "scikit_build_core.metadata.regex"' in text
    assert re.search(r'^metadata\.version\.input\s*=\s*"components.json"', text, re.M)
    m = re.search(r"^metadata\.version\.regex\s*=\s*'(.*)'$", text, re.M)
    assert m, "no version regex"
    with open(os.path.join(REPO, "components.json")) as f:
        got = re.search(m.group(1), f.read())
    assert got and got.group("value") == _version()


def test_generated_header_and_cli_agree(pterun_cli):
    v = _version()
    build = os.path.dirname(os.path.dirname(os.path.abspath(pterun_cli)))
    with open(os.path.join(build, "include", "pterun", "version.h")) as f:
        header = f.read()
    parts = [re.search(rf"#define PTE_VERSION_{k} (\d+)", header).group(1) for k in ("MAJOR", "MINOR", "PATCH")]
    assert ".".join(parts) == v
    assert f'#define PTE_VERSION_STRING "{v}"' in header
    out = subprocess.run([pterun_cli, "version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"pterun {v}"


def test_python_package_version():
    try:
        import pterun
    except ImportError:
        pytest.skip("the pterun bindings are not installed (tests/packaging checks the wheel)")
    assert pterun.__version__ == _version()
    assert pterun._pterun.runtime_version() == _version()
