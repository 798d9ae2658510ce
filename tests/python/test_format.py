"""The format check of make test (tools/format.sh --check, which make
test-format runs on the tree) passes on files as .clang-format has them and
names a file that is not."""
import os
import subprocess

from conftest import REPO

FORMAT = os.path.join(REPO, "tools", "format.sh")


def check(*files):
    return subprocess.run([FORMAT, "--check", *map(str, files)], cwd=REPO, capture_output=True, text=True)


def test_format_check_names_a_misformatted_file(tmp_path):
    good = tmp_path / "good.c"
    good.write_text("int add(int a, int b) { return a + b; }\n")
    bad = tmp_path / "bad.c"
    bad.write_text("int   add(int a,int b){\nreturn a+b;}\n")
    r = check(good)
    assert r.returncode == 0, r.stderr
    r = check(good, bad)
    assert r.returncode == 1 and str(bad) in r.stderr and str(good) not in r.stderr, r.stderr

