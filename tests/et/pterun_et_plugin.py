"""pytest plugin for running ExecuTorch's own test files.

Loaded with ``-p pterun_et_plugin`` (tests/et on sys.path), so it acts before
collection imports any test module.

--et-runtime=pterun   redirects ExecuTorch's runtime modules to pterun's
                      through sys.modules; the exporter stays ExecuTorch's.
--et-record=FILE      appends one JSON line per test phase: a "start" line
                      before a test runs (so a crash names the test it
                      happened in) and its outcome after.
--et-sample=N,M       keeps about one test in N of every file, one in M of
                      XNNPACK's operator test files (by a hash of the test's
                      id, so the choice is the same on every machine), and at
                      least the first test of every file.
--et-slow=FILE,S      leaves out of a sample the tests FILE (JSON: id -> seconds
                      on ExecuTorch's runtime) records as slower than S
                      seconds; a file left with none keeps its fastest.
--et-timeout=S        fails a test that runs longer than S seconds instead
                      of hanging the run.
"""
import json
import os
import signal
import sys
import zlib

import pytest

# Every module name under which ExecuTorch's bindings can be imported.
REDIRECTED = (
    "executorch.extension.pybindings.portable_lib",
    "executorch.extension.pybindings._portable_lib",
    "executorch.extension.pybindings._C",
)

_CONFIG = []

SAMPLED_DIR = os.path.join("backends", "xnnpack", "test", "ops") + os.sep


def pytest_addoption(parser):
    g = parser.getgroup("pterun-et")
    g.addoption("--et-runtime", choices=("executorch", "pterun"), default="executorch")
    g.addoption("--et-record", default=None)
    g.addoption("--et-sample", default="1,1")
    g.addoption("--et-timeout", type=float, default=0)
    g.addoption("--et-slow", default=None)


def _redirect():
    import pterun.portable_lib
    import pterun.runtime
    import executorch.extension.pybindings as pybindings

    for name in REDIRECTED:
        sys.modules[name] = pterun.portable_lib
        setattr(pybindings, name.rsplit(".", 1)[1], pterun.portable_lib)
    sys.modules["executorch.runtime"] = pterun.runtime
    import executorch

    executorch.runtime = pterun.runtime


def _preload():
    # What ExecuTorch's test build links into every test: the quantized
    # operators' and the LLM custom operators' registrations with torch (the
    # exporter needs their out variants). On pterun the redirect is already in
    # place, so what these imports load never becomes the runtime.
    import executorch.kernels.quantized  # noqa: F401
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401


def pytest_configure(config):
    if config.getoption("--et-runtime") == "pterun":
        _redirect()
    _preload()
    _CONFIG[:] = [config]
    path = config.getoption("--et-record")
    config._et_record = open(path, "a", buffering=1) if path else None
    # Which module the tests' runtime imports resolve to: the runner refuses
    # a run whose redirect did not take.
    import importlib

    lib = importlib.import_module("executorch.extension.pybindings.portable_lib")
    rt = importlib.import_module("executorch.runtime")
    _write(config, id="", phase="runtime", portable_lib=lib.__name__, runtime=rt.__name__)


def pytest_unconfigure(config):
    if getattr(config, "_et_record", None):
        config._et_record.close()


def sampled(nodeid, n):
    return zlib.crc32(nodeid.encode()) % n == 0


def pytest_collection_modifyitems(session, config, items):
    n, _, m = config.getoption("--et-sample").partition(",")
    n, m = int(n), int(m or n)
    if n <= 1 and m <= 1:
        return
    seconds, limit = {}, float("inf")
    if config.getoption("--et-slow"):
        path, _, limit = config.getoption("--et-slow").rpartition(",")
        limit = float(limit)
        with open(path) as f:
            seconds = json.load(f)
    by_file = {}
    for item in items:
        by_file.setdefault(str(item.fspath), []).append(item)
    keep = set()
    for f, group in by_file.items():
        rate = m if SAMPLED_DIR in f else n
        chosen = [i for k, i in enumerate(group) if k == 0 or sampled(i.nodeid, rate)]
        fast = [i for i in chosen if seconds.get(i.nodeid, 0) <= limit]
        if not fast:
            fast = [min(group, key=lambda i: seconds.get(i.nodeid, float("inf")))]
        keep.update(id(i) for i in fast)
    dropped = [i for i in items if id(i) not in keep]
    items[:] = [i for i in items if id(i) in keep]
    config.hook.pytest_deselected(items=dropped)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    _write(session.config, id="", phase="selected", ids=[i.nodeid for i in session.items])


def _failure(report):
    """A failure's one line: pytest's crash message, else its report's last line."""
    crash = getattr(report.longrepr, "reprcrash", None)
    msg = crash.message if crash else str(report.longrepr).strip().splitlines()[-1]
    return " ".join(msg.split())[:300]


def pytest_collectreport(report):
    # A file that does not import counts as one failed test named after it.
    if report.failed and _CONFIG:
        _write(_CONFIG[0], id=report.nodeid, phase="collect", outcome="failed", msg=_failure(report),
               seconds=0)


def _write(config, **rec):
    if config._et_record:
        config._et_record.write(json.dumps(rec) + "\n")


class TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise TestTimeout("the test ran past --et-timeout")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _write(item.config, id=item.nodeid, phase="start")
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = item.config.getoption("--et-timeout")
    if limit > 0:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        if limit > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def pytest_runtest_logreport(report):
    # One outcome per test: the first phase that did not pass, else the call.
    config = _CONFIG[0]
    if report.when == "call" or report.outcome != "passed":
        msg = ""
        if report.outcome == "failed" and report.longrepr:
            msg = _failure(report)
        elif report.outcome == "skipped" and isinstance(report.longrepr, tuple):
            msg = str(report.longrepr[2])[:300]
        _write(config, id=report.nodeid, phase=report.when, outcome=report.outcome, msg=msg,
               seconds=round(report.duration, 2))
