"""`pterun run --trace` writes Chrome trace-event JSON that viewers accept."""
import json
import os

import pytest

from etdump_helpers import PROGRAMS, program_info, run, delegate_lib

ITERATIONS = 4

# The parts of the Trace Event Format (JSON Object Format) we emit.
SCHEMA = {
    "type": "object",
    "required": ["traceEvents"],
    "properties": {
        "displayTimeUnit": {"enum": ["ms", "ns"]},
        "traceEvents": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "ph", "pid", "tid"],
                "properties": {
                    "name": {"type": "string"},
                    "ph": {"enum": ["X", "M"]},
                    "pid": {"type": "integer"},
                    "tid": {"type": "integer"},
                    "cat": {"type": "string"},
                    "ts": {"type": "number", "minimum": 0},
                    "dur": {"type": "number", "minimum": 0},
                    "args": {"type": "object"},
                },
                "if": {"properties": {"ph": {"const": "X"}}},
                "then": {"required": ["ts", "dur", "cat"]},
            },
        },
    },
}


def trace_of(tmp_path, program, *extra):
    path = tmp_path / "trace.json"
    run("run", program, "--iterations", ITERATIONS, "--trace", path, "--quiet", *extra)
    return json.loads(path.read_text())


def check_structure(doc):
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema:
        jsonschema.validate(doc, SCHEMA)
    events = doc["traceEvents"]
    assert isinstance(events, list) and events
    for e in events:
        assert e["ph"] in ("X", "M") and isinstance(e["name"], str)
        if e["ph"] == "X":
            assert e["ts"] >= 0 and e["dur"] >= 0


def check_nesting(events):
    """On each (pid, tid) track complete events must nest: no partial overlaps."""
    tracks = {}
    for e in events:
        if e["ph"] == "X":
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    depth_max = 0
    for evs in tracks.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            end = e["ts"] + e["dur"]
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            if stack:
                assert end <= stack[-1] + 1e-9, f"{e['name']} at {e['ts']} overlaps its parent"
            stack.append(end)
            depth_max = max(depth_max, len(stack))
    return depth_max


def test_mlp_trace(tmp_path):
    program = os.path.join(PROGRAMS, "mlp.pte")
    doc = trace_of(tmp_path, program, "--input", os.path.join(PROGRAMS, "mlp_input.npy"))
    check_structure(doc)
    events = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    info = program_info(program)
    by_cat = {}
    for e in events:
        by_cat.setdefault(e["cat"], []).append(e)
    assert len(by_cat["EXECUTE"]) == ITERATIONS
    assert len(by_cat["OPERATOR"]) == ITERATIONS * info["instructions"]
    assert len(by_cat["PROGRAM_LOAD"]) == 1 and len(by_cat["METHOD_LOAD"]) == 1
    assert {e["name"] for e in by_cat["OPERATOR"]} == {o["name"] for o in info["operators"]}
    assert sorted({e["args"]["instruction"] for e in by_cat["OPERATOR"]}) == list(range(info["instructions"]))
    assert check_nesting(doc["traceEvents"]) == 2  # execute > operator
    # Each operator lies inside the execute it belongs to.
    for ex in by_cat["EXECUTE"]:
        run_i = ex["args"]["execute"]
        for op in by_cat["OPERATOR"]:
            if op["args"]["execute"] == run_i:
                assert ex["ts"] <= op["ts"] and op["ts"] + op["dur"] <= ex["ts"] + ex["dur"]
    meta = {e["name"] for e in doc["traceEvents"] if e["ph"] == "M"}
    assert {"process_name", "thread_name"} <= meta
    assert doc["otherData"]["dropped_events"] == 0


def test_delegated_trace_nests_three_deep(tmp_path):
    doc = trace_of(tmp_path, os.path.join(PROGRAMS, "delegated.pte"), "--library", delegate_lib())
    check_structure(doc)
    assert check_nesting(doc["traceEvents"]) == 3  # execute > delegate call > backend event
    backend = [e for e in doc["traceEvents"] if e.get("cat") == "BACKEND"]
    assert len(backend) == 2 * ITERATIONS
    assert sorted({e["args"]["debug_id"] for e in backend}) == [1, 3]
