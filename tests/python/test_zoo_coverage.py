"""Every operator the installed pterun registers (all its kernel libraries and
the runtime's prim ops) runs in at least one zoo program, so no kernel ships
untested. The exceptions are listed with the reason no zoo program reaches
them yet; an entry must go once a case covers it."""

import glob
import json
import os

import pterun

# Replaced or removed by executorch 1.5.1's export before a program is written.
_REWRITTEN = {
    "aten::_to_copy.out": "becomes dim_order_ops::_to_dim_order_copy",
    "aten::clone.out": "becomes dim_order_ops::_clone_dim_order",
    "aten::empty.out": "becomes memory-planned buffers (or _empty_dim_order)",
    "dim_order_ops::_empty_dim_order.out": "empty tensors are memory-planned, the op is dropped",
    "aten::alias_copy.out": "aliases are removed by export",
    "aten::detach_copy.out": "detach is removed by export",
    "aten::lift_fresh_copy.out": "lifted constants are folded by export",
    "aten::ones.out": "becomes aten::full.out",
    "aten::zeros.out": "becomes aten::full.out",
    "aten::arange.out": "becomes aten::arange.start_out",
    "aten::index_put_": "in-place; functionalized to aten::index_put.out",
    "aten::upsample_bilinear2d.out": "becomes the .vec overload, or is decomposed even when preserved",
}
# Output sizes that depend on the data (unbacked symbolic sizes): no zoo
# program exports one yet.
_DATA_DEPENDENT = {
    "aten::masked_select.out": "", "aten::nonzero.out": "", "aten::repeat_interleave.Tensor_out": "",
}
# Scalar ops on symbolic sizes that zoo/models/dynamic_arith does not produce:
# the exporter emits the .Scalar overloads for sizes; comparisons and
# sym_ite/sym_not come from guards kept in the program, sym_max/sym_min fail
# the 1.5.1 edge verifier (et_copy_index and eq.Scalar, a loop's, run in
# zoo/models/dynamic_scan).
_SYMBOLIC = {
    f"executorch_prim::{n}": "" for n in (
        "add.int", "sub.int", "mul.int", "floordiv.int", "mod.int", "neg.Scalar", "trunc.Scalar",
        "ge.Scalar", "gt.Scalar", "le.Scalar", "lt.Scalar", "sym_float.Scalar", "sym_int.Scalar", "sym_ite.Scalar",
        "sym_max.Scalar", "sym_min.Scalar", "sym_not.Scalar")
}
_SYMBOLIC["aten::sym_numel"] = "numel of a dynamic tensor"

# Random: no eager reference to compare a zoo program with; its eval and
# deterministic (p = 0, p = 1) forms and its training draws are checked in
# tests/python/test_et_portable_lib.py (test_native_dropout_*).
_RANDOM = {"aten::native_dropout.out": "random draws"}

NOT_IN_ZOO = {**_REWRITTEN, **_DATA_DEPENDENT, **_SYMBOLIC, **_RANDOM}


def _zoo_operators(zoo):
    ops = set()
    for f in glob.glob(os.path.join(zoo, "*", "*", "case.json")):
        with open(f) as fh:
            ops |= set(json.load(fh).get("operators", []))
    return ops


def test_every_registered_operator_runs_in_the_zoo(zoo):
    registered = set(pterun.registered_operators())
    assert len(registered) > 200, "the installed pterun registers few operators: a kernel library is missing"
    missing = sorted(registered - _zoo_operators(zoo) - NOT_IN_ZOO.keys())
    assert not missing, f"registered operators no zoo program runs (add cases in tools/zoo): {missing}"


def test_exceptions_are_current(zoo):
    registered = set(pterun.registered_operators())
    covered = _zoo_operators(zoo)
    assert not NOT_IN_ZOO.keys() - registered, f"listed but not registered: {sorted(NOT_IN_ZOO.keys() - registered)}"
    stale = sorted(NOT_IN_ZOO.keys() & covered)
    assert not stale, f"now covered by zoo cases, drop them from NOT_IN_ZOO: {stale}"
