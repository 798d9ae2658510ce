"""Rebuild the eager PyTorch module behind a zoo model case.

The zoo keeps programs, not nn.Modules. tools/zoo/zoo_models.py defines the
models and the exporter seeds torch, numpy and random with a CRC32 of the
spec's seed key ("model:<name>", shared by the plain and the XNNPACK twin)
before building it, so doing the same here gives the same weights. The
benchmark checks the rebuilt module's output against the case's
expected/N.npy before timing it.
"""
from __future__ import annotations

import json
import os
import random
import sys
from typing import Any, Dict, Tuple

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO_TOOLS = os.path.join(REPO, "tools", "zoo")
if ZOO_TOOLS not in sys.path:
    sys.path.insert(0, ZOO_TOOLS)

_CACHE: Dict[Tuple[str, str], torch.nn.Module] = {}


def _spec_for_case(case_name: str) -> Any:
    from zoo_models import build_model_specs

    for spec in build_model_specs():
        if spec.group == "models" and case_name in spec.case_names:
            return spec
    raise KeyError(f"no zoo model spec builds case '{case_name}'")


def build_module(case_dir: str, method: str) -> torch.nn.Module:
    """The eval-mode module that method `method` of the case's program was exported from."""
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    name = meta["name"]
    key = (name, method)
    if key not in _CACHE and meta.get("source") == "transformers":
        # A real-size case (bench/realsize.py): rebuilt from its transformers class.
        import realsize

        _CACHE[key] = realsize.build_module(name, bool(meta.get("small")))[0]
    if key not in _CACHE:
        from zoo_common import seed_for

        spec = _spec_for_case(name)
        seed = seed_for(spec.seed_key)
        torch.manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)
        built = spec.build()
        if method not in built.methods:
            raise KeyError(f"case '{name}' has no method '{method}'")
        _CACHE[key] = built.methods[method][0].eval()
    return _CACHE[key]
