"""pterun.portable_lib against what ExecuTorch's own tests of
executorch.extension.pybindings.portable_lib check (1.5.1,
extension/pybindings/test/test_pybindings.py and test_backend_pybinding.py):
each test here names the one of theirs it stands for. Written afresh; only
the import differs from what an ExecuTorch user writes."""
import io
import sys

import pytest

import et_programs as P
from et_programs import torch

from pterun import portable_lib as rt

TENSOR_INFO = "TensorInfo(sizes=[2, 2], dtype=Float, is_memory_planned=True, nbytes=16)"


def _mod(builder=P.add):
    return rt._load_for_executorch_from_buffer(builder()[0])


def _method(builder=P.add, name="forward"):
    return rt._load_program_from_buffer(builder()[0]).load_method(name)


# --- the module (ExecuTorchModule) ---------------------------------------

def test_e2e():  # test_e2e
    _, (x, y) = P.add()
    out = _mod().forward((x, y))
    assert isinstance(out, list) and isinstance(out[0], torch.Tensor)
    assert str(out[0]) == str(x + y)


def test_multiple_entry():  # test_multiple_entry
    m = _mod(P.two_methods)
    x, y = P.two_methods()[1]
    assert torch.equal(m.forward((x, y))[0], torch.full((2, 2), 2.0))
    assert torch.equal(m.run_method("forward2", (x, y))[0], torch.full((2, 2), 3.0))


def test_output_lifespan():  # test_output_lifespan
    def run():
        return _mod(P.two_methods).forward(P.two_methods()[1])
    out = run()
    assert torch.equal(out[0], torch.full((2, 2), 2.0))


def test_outputs_are_copies():  # (ours) a later run does not change an earlier output
    m = _mod()
    a = m.forward((torch.ones(2, 2), torch.ones(2, 2)))[0]
    m.forward((torch.zeros(2, 2), torch.zeros(2, 2)))
    assert torch.equal(a, torch.full((2, 2), 2.0))


def test_module_callable():  # test_module_callable
    x, y = P.add()[1]
    assert str(_mod()((x, y))[0]) == str(x + y)


def test_module_single_input():  # test_module_single_input
    (x,) = P.double()[1]
    assert str(_mod(P.double)(x)[0]) == str(x + x)


def test_wrong_input_count_raises():  # test_stderr_redirect
    with pytest.raises(RuntimeError, match="takes 2 inputs, 3 given"):
        _mod()((*P.add()[1], 1))






@pytest.mark.parametrize("default_out", [False, True])
def test_channels_last(default_out):  # test_channels_last, test_channels_last_in_default_out
    buf, (x,), fn = P.channels_last(default_out)
    out = rt._load_for_executorch_from_buffer(buf)(x)[0]
    assert torch.allclose(out, fn(x))


def test_unsupported_dim_order():  # test_unsupported_dim_order
    buf = P.channels_last()[0]
    x5 = torch.randn(1, 2, 3, 4, 5).to(memory_format=torch.channels_last_3d)
    with pytest.raises(RuntimeError):
        rt._load_for_executorch_from_buffer(buf)(x5)


def _check_meta(meta):
    assert meta.name() == "forward" and meta.num_inputs() == 2 and meta.num_outputs() == 1
    assert str(meta) == ("MethodMeta(name='forward', num_inputs=2, "
                         f"input_tensor_meta=['{TENSOR_INFO}', '{TENSOR_INFO}'], "
                         f"num_outputs=1, output_tensor_meta=['{TENSOR_INFO}'])")
    ins = [meta.input_tensor_meta(i) for i in range(2)]
    out = meta.output_tensor_meta(0)
    with pytest.raises(IndexError):
        meta.input_tensor_meta(2)
    with pytest.raises(IndexError):
        meta.output_tensor_meta(1)
    del meta
    assert [t.sizes() for t in ins] == [(2, 2), (2, 2)]
    assert [t.dtype() for t in ins] == [6, 6]
    assert [t.is_memory_planned() for t in ins] == [True, True]
    assert [t.nbytes() for t in ins] == [16, 16]
    assert str(ins) == f"[{TENSOR_INFO}, {TENSOR_INFO}]"
    assert (out.sizes(), out.dtype(), out.is_memory_planned(), out.nbytes()) == ((2, 2), 6, True, 16)
    assert str(out) == TENSOR_INFO


def test_method_meta():  # test_method_meta
    m = _mod()
    meta = m.method_meta("forward")
    del m
    _check_meta(meta)


def test_bad_name():  # test_bad_name
    with pytest.raises(RuntimeError):
        _mod().run_method("not_a_real_method", P.add()[1])


@pytest.mark.parametrize("config", list(rt.Verification))
def test_verification_config(config):  # test_verification_config
    x, y = P.add()[1]
    m = rt._load_for_executorch_from_buffer(P.add()[0], enable_etdump=False, debug_buffer_size=0,
                                            program_verification=config)
    assert str(m.forward((x, y))[0]) == str(x + y)


def test_unsupported_input_type():  # test_unsupported_input_type
    with pytest.raises(RuntimeError):
        _mod()(([*P.add()[1]],))


# --- the program and its methods (ExecuTorchProgram, ExecuTorchMethod) ---

def test_program_methods_one():  # test_program_methods_one
    p = rt._load_program_from_buffer(P.add()[0])
    assert p.num_methods() == 1 and p.get_method_name(0) == "forward"


def test_program_methods_multi():  # test_program_methods_multi
    p = rt._load_program_from_buffer(P.two_methods()[0])
    assert p.num_methods() == 2
    assert [p.get_method_name(0), p.get_method_name(1)] == ["forward", "forward2"]


def test_program_method_index_out_of_bounds():  # test_program_method_index_out_of_bounds
    with pytest.raises(RuntimeError):
        rt._load_program_from_buffer(P.two_methods()[0]).get_method_name(2)


def test_method_e2e_and_callable():  # test_method_e2e, test_method_callable
    x, y = P.add()[1]
    m = _method()
    assert str(m.call((x, y))[0]) == str(x + y)
    assert str(m((x, y))[0]) == str(x + y)


def test_method_output_lifespan():  # test_method_output_lifespan
    def run():
        return _method(P.two_methods).call(P.two_methods()[1])
    assert torch.equal(run()[0], torch.full((2, 2), 2.0))


def test_method_multiple_entry():  # test_method_multiple_entry
    p = rt._load_program_from_buffer(P.two_methods()[0])
    x, y = P.two_methods()[1]
    assert torch.equal(p.load_method("forward").call((x, y))[0], torch.full((2, 2), 2.0))
    assert torch.equal(p.load_method("forward2").call((x, y))[0], torch.full((2, 2), 3.0))


def test_method_by_parts():  # test_method_by_parts
    m = _method()
    x = torch.arange(4.0).reshape(2, 2)
    m.set_inputs((x, x))
    m.execute()
    assert torch.equal(m.get_outputs()[0], x + x)


def test_method_single_input():  # test_method_single_input
    (x,) = P.double()[1]
    assert str(_method(P.double)(x)[0]) == str(x + x)


def test_method_wrong_input_count_raises():  # test_method_stderr_redirect
    with pytest.raises(RuntimeError, match="takes 2 inputs"):
        _method()((*P.add()[1], 1))






@pytest.mark.parametrize("default_out", [False, True])
def test_method_channels_last(default_out):  # test_method_channels_last, ..._in_default_out
    buf, (x,), fn = P.channels_last(default_out)
    out = rt._load_program_from_buffer(buf).load_method("forward")(x)[0]
    assert torch.allclose(out, fn(x))


def test_method_unsupported_dim_order():  # test_method_unsupported_dim_order
    m = rt._load_program_from_buffer(P.channels_last()[0]).load_method("forward")
    with pytest.raises(RuntimeError):
        m(torch.randn(1, 2, 3, 4, 5).to(memory_format=torch.channels_last_3d))


def test_method_bad_name():  # test_method_bad_name
    with pytest.raises(RuntimeError):
        rt._load_program_from_buffer(P.add()[0]).load_method("not_a_real_method")


@pytest.mark.parametrize("config", list(rt.Verification))
def test_program_verification_config(config):  # test_program_verification_config
    x, y = P.add()[1]
    p = rt._load_program_from_buffer(P.add()[0], enable_etdump=False, debug_buffer_size=0,
                                     program_verification=config)
    assert str(p.load_method("forward")((x, y))[0]) == str(x + y)


def test_method_unsupported_input_type():  # test_method_unsupported_input_type
    with pytest.raises(RuntimeError):
        _method()(([*P.add()[1]],))


def test_program_method_meta():  # test_program_method_meta (without its attribute part)
    p = rt._load_program_from_buffer(P.add()[0])
    meta = p.method_meta("forward")
    del p
    _check_meta(meta)


def test_method_method_meta():  # test_method_method_meta
    p = rt._load_program_from_buffer(P.add()[0])
    m = p.load_method("forward")
    meta = m.method_meta()
    del p, m
    _check_meta(meta)


def test_program_data_separation(tmp_path):  # test_program_data_separation (tests 1-4)
    pte, ptd, inputs, eager = P.linear_external()
    expected = eager(inputs[0])
    (tmp_path / "linear.pte").write_bytes(pte)
    (tmp_path / "linear.ptd").write_bytes(ptd)
    m = rt._load_for_executorch(str(tmp_path / "linear.pte"), str(tmp_path / "linear.ptd"))
    assert torch.allclose(m.forward(inputs)[0], expected)
    assert torch.allclose(rt._load_for_executorch_from_buffer(pte, ptd).forward(inputs)[0], expected)
    with pytest.raises(RuntimeError):
        rt._load_for_executorch_from_buffer(pte).forward(inputs)
    bad = rt._load_for_executorch_from_buffer(pte, b"invalid bytes")  # loads; the method cannot
    with pytest.raises(RuntimeError):
        bad.forward(inputs)


def test_a_bad_program_fails_at_load():  # (ours) only the data's failure is deferred
    with pytest.raises(RuntimeError):
        rt._load_for_executorch_from_buffer(b"not a program", b"invalid bytes")


def test_method_rejects_input_on_unrepresentable_device():  # test_method_rejects_input_on_unrepresentable_device
    x, y = P.add()[1]
    with pytest.raises(RuntimeError, match="is on device meta: only CPU and CUDA tensors"):
        _mod().forward([x.to("meta"), y])
    with pytest.raises(RuntimeError, match="is on device meta: only CPU and CUDA tensors"):  # ..._device
        _method().set_inputs([x.to("meta"), y])


def test_method_accepts_a_cpu_input_after_the_device_check():  # same name in theirs
    x, y = P.add()[1]
    assert torch.allclose(_mod().forward((x, y))[0], x + y)


# --- registries and the thread pool --------------------------------------

def test_backend_name_list():  # test_backend_pybinding.py: test_backend_name_list
    names = rt._get_registered_backend_names()
    assert names == pterun.registered_backends()
    assert "XnnpackBackend" in names


def test_backend_is_available():  # test_backend_pybinding.py: test_backend_is_available
    assert rt._is_available("XnnpackBackend")
    assert not rt._is_available("NonExistBackend")


def test_operator_names():  # (ours) the registry's names, with aten::add.out
    names = rt._get_operator_names()
    assert "aten::add.out" in names and names == pterun.registered_operators()


def test_threadpool():  # (ours) the process pool, resized and restored
    before = rt._threadpool_get_thread_count()
    try:
        rt._unsafe_reset_threadpool(1)
        assert rt._threadpool_get_thread_count() == 1
        assert pterun.num_threads() == 1
    finally:
        rt._unsafe_reset_threadpool(0)
    assert rt._threadpool_get_thread_count() == before


def test_numpy_out_without_torch(monkeypatch):  # (ours) the documented fallback
    import numpy as np
    from pterun import _convert
    monkeypatch.setattr(_convert, "torch_or_none", lambda: None)
    out = _mod()((np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)))
    assert isinstance(out[0], np.ndarray) and (out[0] == 2).all()


def test_etdump_enabled():  # (ours) enable_etdump records; tests in test_et_etdump.py
    assert rt._load_for_executorch_from_buffer(P.add()[0], enable_etdump=True).has_etdump()


# --- quantized kernels, unplanned outputs, device-planned memory -----------

def test_quantized_ops():  # test_quantized_ops
    buf, inputs = P.quantized_add()
    assert str(rt._load_for_executorch_from_buffer(buf).forward(inputs)[0]) == str(inputs[0] + inputs[1])


def test_method_quantized_ops():  # test_method_quantized_ops
    buf, inputs = P.quantized_add()
    out = rt._load_program_from_buffer(buf).load_method("forward")(inputs)[0]
    assert str(out) == str(inputs[0] + inputs[1])


# Outputs the plan leaves unallocated get the method's own memory at load
# (pte_method_set_output could lend the caller's).
def test_constant_output_not_memory_planned():  # test_constant_output_not_memory_planned
    buf, inputs = P.const_output_unplanned()
    out = rt._load_for_executorch_from_buffer(buf)(inputs)
    assert torch.allclose(out[0], torch.full((2, 2), 2.0)) and str(out[1]) == str(torch.ones(2, 2))


def test_method_constant_output_not_memory_planned():  # test_method_constant_output_not_memory_planned
    buf, inputs = P.const_output_unplanned()
    out = rt._load_program_from_buffer(buf).load_method("forward")(inputs)
    assert torch.allclose(out[0], torch.full((2, 2), 2.0)) and str(out[1]) == str(torch.ones(2, 2))


def test_program_loads_when_one_method_is_device_planned():  # test_program_loads_when_one_method_is_device_planned
    from executorch.exir.schema import DeviceType
    prog, inputs = P.one_method_device_planned()
    devices = {plan.name: [b.device_type for b in (plan.non_const_buffer_device or [])]
               for plan in prog.executorch_program.execution_plan}
    assert DeviceType.CUDA in devices["forward2"] and DeviceType.CUDA not in devices["forward"]
    p = rt._load_program_from_buffer(prog.buffer)
    assert p.num_methods() == 2
    m = p.load_method("forward")
    assert torch.allclose(m(inputs)[0], torch.full((2, 2), 2.0))
    with pytest.raises(RuntimeError, match="on device .*non-CPU device"):  # pterun has no device memory
        p.load_method("forward2")
    assert torch.allclose(m(inputs)[0], torch.full((2, 2), 2.0))  # the loaded method still runs


pterun = P.pterun


# --- bundled programs (.bpte) ---------------------------------------------

def _bundle(exec_prog, suites):
    from executorch.devtools.bundled_program.core import BundledProgram
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
    return serialize_from_bundled_program_to_flatbuffer(BundledProgram(exec_prog, suites))


class _TwoMethods(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", 2 * torch.ones(2, 2, dtype=torch.int32))

    def encode(self, x, q, a: int = 2):
        return torch.add(x * 3, self.b, alpha=a) + q

    def decode(self, x, q, a: int = 2):
        return torch.add(x * q, self.b, alpha=a)


def _sample_bundle(wrong=False):
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    m = _TwoMethods()
    torch.manual_seed(0)
    cases = {n: [[torch.randint(-5, 5, (2, 2), dtype=torch.int32), torch.randint(-5, 5, (2, 2), dtype=torch.int32), 2]
                 for _ in range(2)] for n in ("encode", "decode")}
    prog = P._lower({n: (getattr(m, n), tuple(cases[n][0])) for n in cases})
    suites = []
    for n, cs in cases.items():
        tcs = []
        for k, c in enumerate(cs):
            e = getattr(m, n)(*c)
            if wrong and n == "decode" and k == 1:
                e = e.clone()
                e[1, 0] += 7
            tcs.append(MethodTestCase(inputs=c, expected_outputs=[e]))
        suites.append(MethodTestSuite(method_name=n, test_cases=tcs))
    return _bundle(prog, suites)


def test_sample_model_e2e():  # devtools/bundled_program/test/test_end2end.py: test_sample_model_e2e
    b = rt._load_bundled_program_from_buffer(_sample_bundle())
    for name in ("encode", "decode"):
        for k in range(2):
            b.verify_result_with_bundled_expected_output(name, k)
    assert b.method_test_suites == {"encode": 2, "decode": 2}


def test_bundled_mismatch_names_the_element():  # (ours) a wrong expectation fails where it is wrong
    b = rt._load_bundled_program_from_buffer(_sample_bundle(wrong=True))
    b.verify_result_with_bundled_expected_output("decode", 0)
    with pytest.raises(RuntimeError, match=r"method 'decode' case 1: output 0 element 2 "):
        b.verify_result_with_bundled_expected_output("decode", 1)
    b.verify_result_with_bundled_expected_output("decode", 1, atol=7.5)  # the tolerance is applied


def test_bundled_module_api():  # (ours) load_bundled_input, plan_execute, verify on a module
    b = rt._load_bundled_program_from_buffer(_sample_bundle())
    m = rt._load_for_executorch_from_bundled_program(b)
    assert sorted(m.method_names()) == ["decode", "encode"]
    m.load_bundled_input(b, "encode", 1)
    out = m.plan_execute("encode")
    assert out[0].dtype == torch.int32
    assert m.verify_result_with_bundled_expected_output(b, "encode", 1)[0].equal(out[0])
    with pytest.raises(RuntimeError, match="out of range"):
        m.load_bundled_input(b, "encode", 2)


def test_bundled_hostile():  # (ours) clear errors for what is not a .bpte
    with pytest.raises(RuntimeError, match="BP08"):
        rt._load_bundled_program_from_buffer(P.add()[0])
    good = _sample_bundle()
    with pytest.raises(RuntimeError, match="bundled program"):
        rt._load_bundled_program_from_buffer(good[: len(good) // 2])


def test_program_data_separation_bundled(tmp_path):  # test_program_data_separation (tests 5 and 6)
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.exir import ExecutorchBackendConfig
    m = P._Linear()
    inputs = (torch.randn(3),)
    prog = P._lower({"forward": (m, inputs)}, ExecutorchBackendConfig(external_constants=True))
    data = bytes(prog._tensor_data["_default_external_constant"])
    expected = m(inputs[0])
    buf = _bundle(prog, [MethodTestSuite("forward", [MethodTestCase(inputs=list(inputs), expected_outputs=[expected])])])
    b = rt._load_bundled_program_from_buffer(buf)
    assert torch.allclose(rt._load_for_executorch_from_bundled_program(b, data).forward(inputs)[0], expected)
    (tmp_path / "l.ptd").write_bytes(data)
    mod = rt._load_for_executorch_from_bundled_program(b, str(tmp_path / "l.ptd"))
    assert torch.allclose(mod.forward(inputs)[0], expected)
    with pytest.raises(RuntimeError):
        rt._load_for_executorch_from_bundled_program(b).forward(inputs)


# --- attributes, programs without inputs, zeroed state, dropout ----------

def test_method_attribute():  # test_method_attribute
    buf, inputs = P.add_with_attribute()
    m = rt._load_program_from_buffer(buf).load_method("forward")
    m(inputs)
    assert str(m.get_attribute("state")) == str(torch.ones(2, 2))
    m(inputs)
    assert str(m.get_attribute("state")) == str(torch.full((2, 2), 2.0))
    with pytest.raises(RuntimeError, match="no attribute 'nope'"):
        m.get_attribute("nope")


def test_program_method_meta_attributes():  # test_program_method_meta (its attribute part)
    buf, _ = P.add_with_attribute()
    meta = rt._load_program_from_buffer(buf).method_meta("forward")
    assert meta.num_attributes() == 1
    assert str(meta.attribute_tensor_meta(0)) == TENSOR_INFO
    with pytest.raises(IndexError):
        meta.attribute_tensor_meta(1)
    assert rt._load_program_from_buffer(P.add()[0]).method_meta("forward").num_attributes() == 0


def test_forward_without_arguments_reads_zeroed_state():
    buf, _ = P.counter_no_inputs()
    mod = rt._load_for_executorch_from_buffer(buf)
    for _ in range(2):  # scribble over freed memory: a new method must still start at zero
        mod = rt._load_for_executorch_from_buffer(buf)
        assert torch.equal(mod.forward()[0], torch.full((3,), 2.0))  # planned memory starts at zero
        assert torch.equal(mod.forward()[0], torch.full((3,), 4.0))
        del mod
    m = rt._load_program_from_buffer(buf).load_method("forward")
    assert torch.equal(m()[0], torch.full((3,), 2.0))


@pytest.mark.parametrize("p,train", [(0.5, False), (0.0, True), (1.0, True)])
def test_native_dropout_deterministic(p, train):
    buf, (x,) = P.native_dropout(p, train)
    out, mask = rt._load_for_executorch_from_buffer(buf)((x,))
    keep = p < 1.0
    assert mask.dtype == torch.bool and bool(mask.all()) == keep and bool(mask.any()) == keep
    assert torch.equal(out, x if keep else torch.zeros_like(x))


def test_native_dropout_train_draws():
    # ExecuTorch's portable kernel: kept elements unscaled, dropped ones 0,
    # each kept with probability 1 - p; two runs draw differently
    buf, (x,) = P.native_dropout(0.5, True)
    mod = rt._load_for_executorch_from_buffer(buf)
    masks = []
    for _ in range(2):
        out, mask = mod((x,))
        assert torch.equal(out, torch.where(mask, x, torch.zeros_like(x)))
        assert 0 < int(mask.sum()) < mask.numel()
        masks.append(mask.clone())
    assert not torch.equal(masks[0], masks[1])
