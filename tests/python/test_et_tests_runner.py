"""tests/et/run_et_tests.py (ExecuTorch's own tests on pterun): its parsing,
its verdicts and its redirect, on made-up outcomes and one tiny test file."""
import os
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "et"))
import pterun_et_plugin  # noqa: E402
import run_et_tests as et  # noqa: E402


def test_exception_lines_are_parsed_and_bad_ones_refused(tmp_path):
    f = tmp_path / "ex.txt"
    f.write_text("# comment\n\nskip executorch/backends/arm/  # needs FVP\n"
                 "fail executorch/a.py::T::t  # a demo backend\n")
    assert et.read_exceptions(str(f)) == [("executorch/backends/arm/", "skip", "needs FVP"),
                                          ("executorch/a.py::T::t", "fail", "a demo backend")]
    for bad in ("fail executorch/a.py::T::t\n", "drop x  # why\n", "fail a b  # why\n",
                "fail x  #   \n"):
        f.write_text(bad)
        with pytest.raises(SystemExit, match="ex.txt:1"):
            et.read_exceptions(str(f))


def test_patterns_match_folders_files_tests_and_prefixes():
    assert et.matches("executorch/b/", "executorch/b/x.py::T::t")
    assert not et.matches("executorch/b/", "executorch/bb/x.py::T::t")
    assert et.matches("executorch/x.py", "executorch/x.py::T::t")
    assert not et.matches("executorch/x.py", "executorch/x.pyc")
    assert et.matches("executorch/x.py::T::t", "executorch/x.py::T::t")
    assert not et.matches("executorch/x.py::T::t", "executorch/x.py::T::t2")
    assert et.matches("executorch/x.py::T::t_*", "executorch/x.py::T::t_fp16")


def _r(outcome):
    return {"outcome": outcome, "msg": "why"}


def test_verdicts_regressions_accepted_stale_and_extra():
    results = {
        "executorch": {"f::a": _r("passed"), "f::b": _r("passed"), "f::c": _r("passed"),
                       "f::d": _r("failed"), "f::e": _r("passed"), "f::g": _r("failed")},
        "pterun": {"f::a": _r("passed"), "f::b": _r("failed"), "f::c": _r("crashed"),
                   "f::d": _r("passed"), "f::g": _r("failed")},
    }
    ex = [("f::c", "fail", "demo backend"), ("f::a", "fail", "was broken"),
          ("f::g", "fail", "ET fails it too")]
    r = et.compare(results, ex, ["f"])
    assert r["executorch_passed"] == 4
    # f::e never ran on pterun: that is a failure, not a pass
    assert [x["id"] for x in r["regressions"]] == ["f::b", "f::e"]
    assert r["regressions"][1]["outcome"] == "not run"
    assert [(x["id"], x["reason"]) for x in r["accepted"]] == [("f::c", "demo backend")]
    assert r["pterun_passed_of_those"] == 1
    assert {s["pattern"] for s in r["stale_exceptions"]} == {"f::a", "f::g"}
    assert r["pterun_only_passed"] == ["f::d"]


def test_sampling_is_a_fixed_choice():
    ids = [f"executorch/backends/xnnpack/test/ops/test_add.py::TestAdd::test_{k}" for k in range(600)]
    kept = [i for i in ids if pterun_et_plugin.sampled(i, 6)]
    assert 60 < len(kept) < 140
    assert kept == [i for i in ids if pterun_et_plugin.sampled(i, 6)]


def test_every_skipped_folder_exists_in_the_installed_wheel():
    site = os.path.dirname(et.et_dir())
    for pattern, kind, _ in et.read_exceptions():
        if kind == "skip":
            assert os.path.exists(os.path.join(site, pattern.split("::")[0].rstrip("*"))), pattern


def test_the_plugin_redirects_the_runtime_and_records_outcomes(tmp_path):
    (tmp_path / "test_probe.py").write_text(textwrap.dedent("""
        import sys
        from executorch.extension.pybindings import portable_lib
        from executorch.extension.pybindings.portable_lib import _load_for_executorch_from_buffer
        from executorch.runtime import Runtime
        import pterun.portable_lib, pterun.runtime

        def test_redirected():
            assert portable_lib is pterun.portable_lib
            assert sys.modules["executorch.extension.pybindings._portable_lib"] is pterun.portable_lib
            assert _load_for_executorch_from_buffer is pterun.portable_lib._load_for_executorch_from_buffer
            assert Runtime is pterun.runtime.Runtime

        def test_fails():
            assert False, "on purpose"
    """))
    record = tmp_path / "r.jsonl"
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "tests", "et"))
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "pterun_et_plugin", "-p", "no:cacheprovider",
                        "-q", "--rootdir", str(tmp_path), "--et-runtime=pterun", f"--et-record={record}",
                        str(tmp_path / "test_probe.py")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    started, outcomes = et.read_record(str(record))
    assert started == ["test_probe.py::test_redirected", "test_probe.py::test_fails"]
    assert outcomes["test_probe.py::test_redirected"]["outcome"] == "passed"
    assert outcomes["test_probe.py::test_fails"]["outcome"] == "failed"
    assert "on purpose" in outcomes["test_probe.py::test_fails"]["msg"]
    assert '"portable_lib": "pterun.portable_lib"' in record.read_text()
