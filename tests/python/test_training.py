"""pterun.training: the training bindings (their own extension over the
shared libraries) against the zoo's training cases and eager PyTorch."""
import ctypes
import glob
import json
import os
import sys

import numpy as np
import pytest

import pterun
from pterun import training

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = sorted(glob.glob(os.path.join(REPO, "zoo", "training", "*", "training.json")))


def _case(path):
    with open(path) as f:
        meta = json.load(f)
    d = os.path.dirname(path)
    ins = [np.load(os.path.join(d, "inputs", f"{i}.npy")) for i in range(len(glob.glob(os.path.join(d, "inputs", "*.npy"))))]
    return d, meta, ins


def test_one_registry_with_pterun():
    """_training links libpterun like _pterun does: one registry, which the
    kernels _pterun loaded are in (the training programs run through it)."""
    from pterun import _pterun, _training

    assert _training.registry_identity() == _pterun.registry_identity()
    lib = ctypes.CDLL(os.path.join(os.path.dirname(_pterun.__file__), "lib", "libpterun.so.0"))
    lib.pte_registry_identity.restype = ctypes.c_void_p
    assert lib.pte_registry_identity() == _training.registry_identity()
    assert "aten::convolution_backward.out" in pterun.registered_operators()


@pytest.mark.parametrize("path", CASES, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_zoo_losses_match_eager_sgd(path):
    d, meta, ins = _case(path)
    m = training.load(os.path.join(d, "model.pte"))
    assert m.parameter_names == meta["parameters"]
    o = meta["optimizer"]
    opt = training.SGD(m.parameters, lr=o["lr"], momentum=o["momentum"], dampening=o["dampening"],
                       weight_decay=o["weight_decay"], nesterov=o["nesterov"])
    losses = []
    for _ in range(meta["steps"]):
        outs = m.forward_backward(*ins)
        losses.append(float(outs[0]))
        opt.step(m.gradients)
    np.testing.assert_allclose(losses, meta["losses"], rtol=meta["rtol"], atol=0)


def test_gradients_match_eager_autograd():
    sys.path.insert(0, os.path.join(REPO, "tools", "zoo"))
    torch = pytest.importorskip("torch")
    import zoo_training
    from zoo_common import seed_for

    torch.manual_seed(seed_for("mlp_sgd"))
    model = zoo_training.TrMLP().train()
    d, _meta, ins = _case(os.path.join(REPO, "zoo", "training", "mlp_sgd", "training.json"))
    m = training.load(os.path.join(d, "model.pte"))
    for name, p in model.named_parameters():  # the program holds the same initial weights
        np.testing.assert_array_equal(m.parameters[name], p.detach().numpy())
    loss, logits = m.forward_backward(*ins)
    eager_loss, eager_logits = model(*(torch.from_numpy(x) for x in ins))
    eager_loss.backward()
    np.testing.assert_allclose(loss, eager_loss.item(), rtol=1e-6)
    np.testing.assert_allclose(logits, eager_logits.numpy(), rtol=1e-5, atol=1e-6)
    for name, p in model.named_parameters():
        np.testing.assert_allclose(m.gradients[name], p.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_parameters_are_writable_views():
    d, _meta, ins = _case(os.path.join(REPO, "zoo", "training", "mlp_sgd", "training.json"))
    m = training.load(os.path.join(d, "model.pte"))
    w = m.parameters["fc2.bias"]
    before = float(m.forward_backward(*ins)[0])
    w[:] = [5.0, -5.0, 0.0]  # pushes every sample towards class 0
    after = float(m.forward_backward(*ins)[0])
    assert after != pytest.approx(before, rel=1e-3)
    # SGD updates the same memory the program reads
    opt = training.SGD(m.parameters, lr=0.5)
    g = m.gradients["fc2.bias"].copy()
    opt.step(m.gradients)
    np.testing.assert_allclose(m.parameters["fc2.bias"], np.array([5.0, -5.0, 0.0], np.float32) - 0.5 * g, rtol=1e-6)
    assert m.parameters["fc2.bias"] is w
    del m  # the arrays keep the module memory alive
    assert np.isfinite(w).all()


def test_save_loads_in_the_inference_program(tmp_path):
    d, meta, ins = _case(os.path.join(REPO, "zoo", "training", "mlp_sgd", "training.json"))
    m = training.load(os.path.join(d, "model.pte"))
    opt = training.SGD(m.parameters, lr=meta["optimizer"]["lr"])
    for _ in range(meta["steps"]):
        m.forward_backward(*ins)
        opt.step(m.gradients)
    ptd = tmp_path / "trained.ptd"
    m.save(ptd)
    prog = pterun.load(os.path.join(d, meta["inference"]), data=str(ptd))
    out = prog.method("forward")(ins[0])
    out = out[0] if isinstance(out, (list, tuple)) else out
    np.testing.assert_allclose(out, np.load(os.path.join(d, "expected", "inference.npy")), rtol=1e-4, atol=1e-5)


def test_errors(tmp_path):
    with pytest.raises(RuntimeError, match="not a training program"):
        training.load(os.path.join(REPO, "zoo", "models", "mlp", "model.pte"))
    d, _meta, ins = _case(os.path.join(REPO, "zoo", "training", "mlp_sgd", "training.json"))
    m = training.load(os.path.join(d, "model.pte"))
    with pytest.raises(ValueError, match="takes 2 inputs"):
        m.forward_backward(ins[0])
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        training.SGD([ro], lr=0.1)
    with pytest.raises(RuntimeError, match="nesterov"):
        training.SGD(m.parameters, lr=0.1, nesterov=True)
    opt = training.SGD(m.parameters, lr=0.1)
    with pytest.raises(KeyError):
        opt.step({})
    with pytest.raises(RuntimeError, match="does not match"):
        opt.step([np.zeros(1, np.float32)] * 4)
