"""scripts/check_parity.py's gradient comparison: ours mapped onto AllenNLP's parameters
(hf_elmo.allennlp_state's table) against AllenNLP's loader arithmetic (tests/numpy_elmo.py)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import numpy as np
import pytest

from hf_elmo import Elmo, batch_to_ids
from hf_elmo.convert import allennlp_datasets
from tests.conftest import REPO
from tests.numpy_elmo import allennlp_bilm_parameters, allennlp_scalar_mix, small_options, write_random_original


@pytest.fixture(scope="module")
def check_parity() -> ModuleType:
    sys.path.insert(0, str(REPO / "scripts"))  # check_parity imports shared_data as the scripts run
    try:
        spec = importlib.util.spec_from_file_location("check_parity", REPO / "scripts" / "check_parity.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["check_parity"] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "scripts"))


def test_gradient_differences_lays_our_gradients_out_as_allennlps_loader_does(check_parity, tmp_path) -> None:
    """Our gradients, laid out by AllenNLP's loader arithmetic (the forget bias aside: a constant
    shifts no gradient), differ by 0 from what gradient_differences maps them to, in every group;
    a parameter name that the table has not is refused."""
    options = small_options(n_highway=2, n_layers=2)
    write_random_original(tmp_path, options, seed=0)
    elmo = Elmo(tmp_path / "options.json", tmp_path / "weights.hdf5", 1, requires_grad=True, dropout=0.0)
    out = elmo(batch_to_ids([["A", "tiny", "sentence"], ["Hi"]]))["elmo_representations"][0]
    out.pow(2).sum().backward()
    grads = {name: p.grad.numpy() for name, p in elmo.named_parameters() if p.grad is not None}
    bilm = {name.removeprefix("model."): grad for name, grad in grads.items() if name.startswith("model.")}
    theirs = allennlp_bilm_parameters(allennlp_datasets(bilm, elmo.model.config), options, forget_bias=0.0)
    mix = elmo.scalar_mixes[0]
    theirs.update(allennlp_scalar_mix(0, mix.scalar_parameters.grad.tolist(), float(mix.gamma.grad)))
    differences = check_parity.gradient_differences(elmo, theirs)
    assert set(differences) == {
        "char embedding",
        "char CNN",
        "highways",
        "char projection",
        "LSTM",
        "scalar mixes",
        "overall",
    }
    assert all(worst == 0.0 and largest > 0.0 for worst, largest in differences.values()), differences
    with pytest.raises(ValueError, match="differ on"):
        check_parity.gradient_differences(elmo, {**theirs, "_elmo_lstm.extra": np.zeros(1)})
