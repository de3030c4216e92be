"""scripts/check_parity.py's pure helpers: ours -> AllenNLP's parameter layout, for the gradient comparison."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import numpy as np
import pytest

from hf_elmo.configuration_elmo import ElmoConfig
from hf_elmo.convert import allennlp_datasets
from hf_elmo.modeling_elmo import ElmoModel
from tests.conftest import REPO

TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 4]], lstm_dim=8, projection_dim=4, n_layers=1)


@pytest.fixture(scope="module")
def check_parity() -> ModuleType:
    sys.path.insert(0, str(REPO / "scripts"))  # check_parity imports shared_data as the scripts run
    try:
        spec = importlib.util.spec_from_file_location("check_parity", REPO / "scripts" / "check_parity.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["check_parity"] = module  # its dataclass looks its module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "scripts"))


def test_allennlp_gate_order_swaps_the_j_and_f_blocks_and_is_its_own_inverse(check_parity: ModuleType) -> None:
    rows = np.arange(8 * 3).reshape(8, 3)  # four gate blocks of 2 rows: i, j, f, o
    reordered = check_parity.allennlp_gate_order(rows)
    i, j, f, o = np.split(rows, 4)
    np.testing.assert_array_equal(reordered, np.concatenate([i, f, j, o]))
    np.testing.assert_array_equal(check_parity.allennlp_gate_order(reordered), rows)


def test_allennlp_parameter_table_builds_allennlps_layout_from_ours(check_parity: ModuleType) -> None:
    """Through the weight file's datasets (hf_elmo.convert), our parameters land where AllenNLP's
    loader puts them: highway [transform; -gate], LSTM gate blocks i, f, j, o with B on
    state_linearity, scalar mix split into (1,) parameters."""
    config = ElmoConfig(**TINY)
    ours = {k: v.detach().numpy() for k, v in ElmoModel(config).state_dict().items()}
    mix = {"scalar_mix_0.scalar_parameters": np.array([0.1, 0.2], np.float32), "scalar_mix_0.gamma": np.array(2.0)}
    sources = {**allennlp_datasets(ours, config), **mix}
    table = check_parity.allennlp_parameter_table(config, 1)
    built = {row.name: row.build(*(sources[name] for name in row.sources)) for row in table}
    assert len(built) == len(table)  # every row a different parameter

    def blocks(array: np.ndarray) -> np.ndarray:
        i, j, f, o = np.split(array, 4)
        return np.concatenate([i, f, j, o])

    cnn, lstm = "_elmo_lstm._token_embedder", "_elmo_lstm._elmo_lstm.backward_layer_0"
    expected = {
        f"{cnn}._char_embedding_weights": ours["char_cnn.char_embedding.weight"],
        f"{cnn}.char_conv_1.weight": ours["char_cnn.convolutions.1.weight"],
        f"{cnn}._highways._layers.0.weight": np.concatenate(
            [ours["char_cnn.highways.0.transform.weight"], -ours["char_cnn.highways.0.gate.weight"]]
        ),
        f"{cnn}._highways._layers.0.bias": np.concatenate(
            [ours["char_cnn.highways.0.transform.bias"], -ours["char_cnn.highways.0.gate.bias"]]
        ),
        f"{cnn}._projection.weight": ours["char_cnn.projection.weight"],
        f"{lstm}.input_linearity.weight": blocks(ours["bilm.backward_layers.0.input_linear.weight"]),
        f"{lstm}.state_linearity.weight": blocks(ours["bilm.backward_layers.0.state_linear.weight"]),
        f"{lstm}.state_linearity.bias": blocks(ours["bilm.backward_layers.0.input_linear.bias"]),
        f"{lstm}.state_projection.weight": ours["bilm.backward_layers.0.projection.weight"],
        "scalar_mix_0.gamma": np.array([2.0]),
        "scalar_mix_0.scalar_parameters.1": np.array([0.2], np.float32),
    }
    for name, value in expected.items():
        np.testing.assert_array_equal(built[name], value, err_msg=name)
