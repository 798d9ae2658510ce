#!/usr/bin/env python3
"""ExecuTorch's own test files, run on pterun and compared with ExecuTorch's runtime.

The test files are the ones the installed `executorch` wheel ships (nothing is
copied into this tree). On pterun they run unmodified: pterun_et_plugin.py
points ExecuTorch's runtime modules at pterun's through sys.modules, and the
exporter stays ExecuTorch's. Every test ExecuTorch's runtime passes must pass
on pterun, except the ones exceptions.txt lists with a reason.

    run_et_tests.py          the subset `make test` runs: every selected file,
                             one test in 6 of each (one in 20 of XNNPACK's
                             operator files), the first of each file always;
                             ExecuTorch's outcomes come from
                             executorch_outcomes.json
    run_et_tests.py --full   every selected test, on both runtimes live
                             (`make test-et-full`; over an hour on 2 cores)
    --update-baseline        rewrites executorch_outcomes.json from a live run

Which files: every test_*.py of the wheel whose text names one of
RUNTIME_CALLS (it loads or runs a program), minus the folders and files
exceptions.txt skips. The sample is a hash of each test's id, so it is the
same on every machine. The recorded outcomes are used only while the
installed executorch and torch are the versions they were recorded with;
otherwise ExecuTorch's runtime runs live as well.

Exit status 0 when every test ExecuTorch passes also passes on pterun (or is
excepted) and no exception is stale; 1 otherwise; 2 when the run itself broke.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXCEPTIONS = os.path.join(HERE, "exceptions.txt")
# ExecuTorch's runtime's outcome of every selected test (written by
# --update-baseline from a live run; CI compares pterun against it instead of
# running ExecuTorch's runtime as well, which would halve what fits).
BASELINE = os.path.join(HERE, "executorch_outcomes.json")

# A test file that names one of these loads or runs a program.
RUNTIME_CALLS = re.compile(
    r"_load_for_executorch|executorch\.runtime|portable_lib|_load_bundled_program|Runtime\.get\b"
    r"|run_method_and_compare_outputs|\.run_method\(")

CI_SAMPLE = "6,20"  # one test in 6 of every file, one in 20 of XNNPACK's operator files
CI_TIMEOUT = 300  # seconds a test may take before it counts as failed (--full: 900)
CI_SLOW = 60  # the subset leaves out tests slower than this on ExecuTorch's runtime
CRASH_RETRIES = 20


def et_dir():
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("run_et_tests: the executorch package is not installed (tools/deps.sh --python)")
    # the installed package, not another folder named executorch on sys.path
    # (bench/executorch, when bench/ is on it)
    for d in spec.submodule_search_locations:
        if os.path.isdir(os.path.join(d, "exir")):
            return os.path.realpath(d)
    sys.exit("run_et_tests: no executorch package with exir/ on sys.path (tools/deps.sh --python)")


def read_exceptions(path=EXCEPTIONS):
    """[(pattern, kind, reason)]: kind "skip" (a file or folder not run) or "fail"
    (a test ExecuTorch passes and pterun may fail). Lines: `skip|fail PATTERN  # reason`."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            body, sep, reason = line.partition(" # ")
            parts = body.split()
            if len(parts) != 2 or parts[0] not in ("skip", "fail") or not sep or not reason.strip():
                raise SystemExit(f"{path}:{n}: expected `skip|fail PATTERN # reason`, got: {line}")
            out.append((parts[1], parts[0], reason.strip()))
    return out


def matches(pattern, nodeid):
    if pattern.endswith("/"):
        return nodeid.startswith(pattern)
    return nodeid == pattern or nodeid.startswith(pattern + "::") or \
        (pattern.endswith("*") and nodeid.startswith(pattern[:-1]))


def select_files(root, exceptions):
    skips = [p for p, kind, _ in exceptions if kind == "skip"]
    files = []
    for d, subdirs, names in os.walk(root):
        subdirs.sort()
        for name in sorted(names):
            if not (name.startswith("test_") and name.endswith(".py")):
                continue
            path = os.path.join(d, name)
            rel = "executorch/" + os.path.relpath(path, root)
            if any(matches(p, rel) for p in skips):
                continue
            with open(path, errors="replace") as f:
                if RUNTIME_CALLS.search(f.read()):
                    files.append(rel)
    return files


def shard(files, n):
    # XNNPACK's operator files are many and alike: deal them out round-robin.
    shards = [[] for _ in range(n)]
    for k, f in enumerate(files):
        shards[k % n].append(f)
    return [s for s in shards if s]


def pytest_cmd(py, runtime, record, files, sample, timeout, deselect, slow=None):
    cmd = [py, "-m", "pytest", "-p", "pterun_et_plugin", "-p", "no:cacheprovider", "-q", "-rN",
           "--continue-on-collection-errors", "--rootdir", ".", "-W", "ignore", f"--et-runtime={runtime}",
           f"--et-record={record}", f"--et-sample={sample}", f"--et-timeout={timeout}"]
    if slow:
        cmd.append(f"--et-slow={slow}")
    for d in deselect:
        cmd += ["--deselect", d]
    return cmd + files


def read_record(path, selected=None):
    started, outcomes = [], {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                if rec["phase"] == "selected":
                    if selected is not None:
                        selected.update(rec["ids"])
                    continue
                if rec["phase"] == "runtime":
                    continue
                if rec["phase"] == "start":
                    started.append(rec["id"])
                else:
                    # a test with subtests reports several times: the first
                    # failure decides, the longest report is its time
                    old = outcomes.get(rec["id"])
                    took = max(rec.get("seconds", 0), old.get("seconds", 0) if old else 0)
                    if old is None or (rec["outcome"] != "passed" and old["outcome"] == "passed"):
                        outcomes[rec["id"]] = rec
                    outcomes[rec["id"]]["seconds"] = took
    return started, outcomes


class Run:
    """One pytest process over a shard; restarted past a test that kills it."""

    def __init__(self, py, site, out, runtime, k, files, sample, timeout, resume=False, slow=None):
        self.py, self.site, self.runtime, self.files = py, site, runtime, files
        self.sample, self.timeout, self.slow = sample, timeout, slow
        self.record = os.path.join(out, f"{runtime}.{k}.jsonl")
        self.log = os.path.join(out, f"{runtime}.{k}.log")
        for p in (self.record, self.log):
            if os.path.exists(p) and not resume:
                os.unlink(p)
        self.crashed = {}
        self.retries = 0
        self.proc = None

    def start(self):
        _, outcomes = read_record(self.record)
        done = list(outcomes) + list(self.crashed)
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=HERE + os.pathsep + self.site,
                   PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONHOME", None)
        log = open(self.log, "a")
        # From the site folder, with it as pytest's rootdir: ids start at executorch/.
        self.proc = subprocess.Popen(
            pytest_cmd(self.py, self.runtime, self.record, self.files, self.sample, self.timeout,
                       done, self.slow),
            cwd=self.site, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.proc._log = log
        return self

    def poll(self):
        """None while running; True when finished."""
        rc = self.proc.poll()
        if rc is None:
            return None
        self.proc._log.close()
        if rc in (0, 1, 5):
            return True
        started, outcomes = read_record(self.record)
        victim = next((t for t in reversed(started) if t not in outcomes and t not in self.crashed),
                      None)
        if victim is None or self.retries >= CRASH_RETRIES:
            raise SystemExit(f"run_et_tests: pytest on {self.runtime} exited with {rc} outside any "
                             f"test: see {self.log}")
        self.crashed[victim] = {"id": victim, "outcome": "crashed",
                                "msg": f"the test process died (exit status {rc})"}
        self.retries += 1
        self.start()
        return None

    def check_runtime(self):
        """The modules the tests imported as ExecuTorch's runtime, every session."""
        want = "pterun." if self.runtime == "pterun" else "executorch."
        seen = 0
        with open(self.record) as f:
            for line in f:
                rec = json.loads(line) if '"runtime"' in line else {}
                if rec.get("phase") == "runtime":
                    seen += 1
                    got = (rec["portable_lib"], rec["runtime"])
                    if not all(m.startswith(want) for m in got):
                        raise SystemExit(f"run_et_tests: on {self.runtime} the tests imported "
                                         f"{got[0]} and {got[1]} as the runtime")
        if not seen:
            raise SystemExit(f"run_et_tests: the plugin did not run on {self.runtime}: see {self.log}")

    def results(self):
        self.check_runtime()
        selected = set()
        _, outcomes = read_record(self.record, selected)
        outcomes.update(self.crashed)
        for t in selected - set(outcomes):
            outcomes[t] = {"id": t, "outcome": "not run", "msg": "selected, never reported"}
        return outcomes


def run_all(py, site, out, runtimes, files, jobs, sample, timeout, resume=False, slow=None):
    per = max(1, jobs // len(runtimes))
    runs = [Run(py, site, out, rt, k, s, sample, timeout, resume, slow).start()
            for rt in runtimes for k, s in enumerate(shard(files, per))]
    pending = list(runs)
    while pending:
        time.sleep(2)
        pending = [r for r in pending if r.poll() is None]
    results = {rt: {} for rt in runtimes}
    for r in runs:
        results[r.runtime].update(r.results())
    return results


def compare(results, exceptions, files):
    et, pt = dict(results["executorch"]), results["pterun"]
    for t, r in pt.items():
        if r.get("phase") == "collect" and t not in et and any(k.startswith(t + "::") for k in et):
            et[t] = {"outcome": "passed"}  # a file ExecuTorch's runtime imports and pterun's not
    fails = [(p, reason) for p, kind, reason in exceptions if kind == "fail"]

    def excepted(t):
        return next((reason for p, reason in fails if matches(p, t)), None)

    et_pass = sorted(t for t, r in et.items() if r["outcome"] == "passed")
    regressions, accepted = [], []
    for t in et_pass:
        r = pt.get(t)
        if r is not None and r["outcome"] == "passed":
            continue
        why = excepted(t)
        got = r or {"outcome": "not run", "msg": ""}
        (accepted if why else regressions).append((t, got, why))
    stale = []
    for p, reason in fails:
        hit = [t for t in et_pass if matches(p, t)]
        if not hit and any(matches(p, t) for t in et):
            stale.append((p, "ExecuTorch's runtime does not pass it either"))
        elif hit and all(pt.get(t, {}).get("outcome") == "passed" for t in hit):
            stale.append((p, "pterun passes it now"))
    pt_only = sorted(t for t, r in pt.items() if r["outcome"] == "passed"
                     and et.get(t, {}).get("outcome") not in ("passed", None))
    return {
        "files": len(files),
        "tests": {rt: len(r) for rt, r in results.items()},
        "executorch_passed": len(et_pass),
        "pterun_passed_of_those": len(et_pass) - len(regressions) - len(accepted),
        "accepted": [{"id": t, "outcome": g["outcome"], "msg": g.get("msg", ""), "reason": w}
                     for t, g, w in accepted],
        "regressions": [{"id": t, "outcome": g["outcome"], "msg": g.get("msg", "")}
                        for t, g, _ in regressions],
        "stale_exceptions": [{"pattern": p, "why": w} for p, w in stale],
        "pterun_only_passed": pt_only,
    }


def load_baseline(path=BASELINE):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def write_baseline(et_results, versions, path=BASELINE):
    old = load_baseline(path)
    same = old and old.get("versions") == versions
    outcomes = dict(old["outcomes"]) if same else {}
    seconds = dict(old.get("seconds", {})) if same else {}
    for t, r in et_results.items():
        if r["outcome"] == "not run":
            continue
        outcomes[t] = r["outcome"]
        if r.get("seconds"):
            seconds[t] = r["seconds"]
    with open(path, "w") as f:
        json.dump({"versions": versions, "outcomes": dict(sorted(outcomes.items())),
                   "seconds": dict(sorted(seconds.items()))}, f, indent=0)
        f.write("\n")


def versions():
    import importlib.metadata as md

    return {p: md.version(p) for p in ("executorch", "torch")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true",
                    help="every test, on both runtimes (over an hour on 2 cores)")
    ap.add_argument("--sample", default=None,
                    help=f"N,M: one test in N of every file, one in M of XNNPACK's operator files "
                         f"(CI: {CI_SAMPLE}; --full: 1,1)")
    ap.add_argument("--live", action="store_true",
                    help="run ExecuTorch's runtime too, not its recorded outcomes")
    ap.add_argument("--update-baseline", action="store_true",
                    help=f"record ExecuTorch's outcomes of this run in {os.path.basename(BASELINE)}")
    ap.add_argument("--resume", action="store_true", help="go on from the records in --out")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--out", default=os.path.join(REPO, "build", "et-tests"))
    ap.add_argument("--files", nargs="*", help="only these test files (ids start at executorch/)")
    args = ap.parse_args(argv)
    sample = args.sample or ("1,1" if args.full else CI_SAMPLE)
    timeout = args.timeout or (900 if args.full else CI_TIMEOUT)

    root = et_dir()
    site = os.path.dirname(root)
    exceptions = read_exceptions()
    files = args.files or select_files(root, exceptions)
    baseline = load_baseline()
    vers = versions()
    live = args.live or args.full or args.update_baseline or not baseline or baseline["versions"] != vers
    runtimes = ("executorch", "pterun") if live else ("pterun",)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.monotonic()
    print(f"run_et_tests: {len(files)} test files of executorch {vers['executorch']} (torch "
          f"{vers['torch']}), one test in {sample.replace(',', ' (XNNPACK operators: one in ')}), on "
          + ("ExecuTorch's runtime and pterun's" if live else
             f"pterun's, against ExecuTorch's outcomes in {os.path.basename(BASELINE)}")
          + f", {args.jobs} processes", flush=True)
    slow = None
    if sample != "1,1" and baseline and baseline.get("seconds"):
        # the recorded times drop the slowest tests from a sample (CI's time)
        slow = os.path.join(args.out, "seconds.json")
        with open(slow, "w") as f:
            json.dump(baseline["seconds"], f)
        slow = f"{slow},{CI_SLOW}"
    results = run_all(sys.executable, site, args.out, runtimes, files, args.jobs, sample,
                      timeout, args.resume, slow)
    if not results["pterun"] or (live and not results["executorch"]):
        print("run_et_tests: no test ran (see the logs in " + args.out + ")")
        return 2
    if live:
        if args.update_baseline:
            write_baseline(results["executorch"], vers)
    else:
        known = baseline["outcomes"]
        missing = sorted(t for t, r in results["pterun"].items()
                         if t not in known and r.get("phase") != "collect")
        if missing:
            print(f"run_et_tests: {len(missing)} tests have no recorded outcome on ExecuTorch's "
                  f"runtime (first: {missing[0]}): run with --update-baseline")
            return 2
        broken = {t for t, r in results["pterun"].items() if r.get("phase") == "collect"}
        results["executorch"] = {t: {"outcome": o} for t, o in known.items()
                                 if t in results["pterun"] or t.split("::")[0] in broken}
    report = compare(results, exceptions, files)
    report.update(sample=sample, live=live, versions=vers, seconds=round(time.monotonic() - t0))
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"ExecuTorch's runtime passes {report['executorch_passed']} of "
          f"{report['tests']['executorch']} tests; pterun passes "
          f"{report['pterun_passed_of_those']} of those, {len(report['accepted'])} excepted "
          f"(exceptions.txt), {len(report['regressions'])} failing; pterun also passes "
          f"{len(report['pterun_only_passed'])} that ExecuTorch's runtime does not "
          f"({report['seconds']} s)")
    for r in report["accepted"]:
        print(f"  excepted ({r['outcome']}): {r['id']}: {r['reason']}")
    for r in report["regressions"]:
        print(f"  FAIL on pterun ({r['outcome']}): {r['id']}\n      {r['msg']}")
    for s in report["stale_exceptions"]:
        print(f"  STALE exception {s['pattern']}: {s['why']} (remove it from exceptions.txt)")
    return 1 if report["regressions"] or report["stale_exceptions"] else 0


if __name__ == "__main__":
    sys.exit(main())
