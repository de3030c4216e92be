"""hf_elmo.allennlp_state: AllenNLP's Elmo parameters built from ours (the table) and ours from
AllenNLP's (its builds inverted)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hf_elmo.allennlp_state import allennlp_gate_order, allennlp_parameter_table, elmo_parameters_from_allennlp
from hf_elmo.configuration_elmo import ElmoConfig
from hf_elmo.convert import ElmoWeightsError, allennlp_datasets
from hf_elmo.modeling_elmo import ElmoModel

TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 4]], lstm_dim=8, projection_dim=4, n_layers=1)


def random_bilm(config: ElmoConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """ElmoModel parameters for ``config``, random (the padding row of the char embedding zero)."""
    rng = np.random.default_rng(seed)
    ours = {k: rng.normal(size=v.shape).astype(np.float32) for k, v in ElmoModel(config).state_dict().items()}
    ours["char_cnn.char_embedding.weight"][0] = 0.0
    return {k: v for k, v in ours.items() if not k.startswith("warm_")}


def test_allennlp_gate_order_swaps_the_j_and_f_blocks_and_is_its_own_inverse() -> None:
    rows = np.arange(8 * 3).reshape(8, 3)  # four gate blocks of 2 rows: i, j, f, o
    reordered = allennlp_gate_order(rows)
    i, j, f, o = np.split(rows, 4)
    np.testing.assert_array_equal(reordered, np.concatenate([i, f, j, o]))
    np.testing.assert_array_equal(allennlp_gate_order(reordered), rows)


def test_allennlp_parameter_table_builds_allennlps_layout_from_ours() -> None:
    """Through the weight file's datasets (hf_elmo.convert), our parameters land where AllenNLP's
    loader puts them: highway [transform; -gate], LSTM gate blocks i, f, j, o with B on
    state_linearity (and the forget bias +1 the loader adds there), scalar mix split into (1,)
    parameters."""
    config = ElmoConfig(**TINY)
    ours = {k: v.detach().numpy() for k, v in ElmoModel(config).state_dict().items()}
    mix = {"scalar_mix_0.scalar_parameters": np.array([0.1, 0.2], np.float32), "scalar_mix_0.gamma": np.array(2.0)}
    sources = {**allennlp_datasets(ours, config), **mix}
    table = allennlp_parameter_table(config, 1)
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
    (bias,) = [row for row in table if row.name == f"{lstm}.state_linearity.bias"]
    assert bias.loader_adds is not None
    np.testing.assert_array_equal(bias.loader_adds, blocks(np.repeat(np.array([0, 0, 1, 0], np.float32), 8)))


@pytest.mark.parametrize("file_rows", [261, 262])
def test_elmo_parameters_from_allennlp_inverts_the_table_every_element_back_in_place(file_rows: int) -> None:
    """ours -> AllenNLP's (the table, the loader's forget bias included) -> ours gives ours back, the
    cached vocabulary and mixes too; AllenNLP's char embedding has the file's rows + 1 (263 from a
    file of 262 rows, whose last row no id reaches)."""
    config = ElmoConfig(**TINY, n_highway=2)
    ours = random_bilm(config)
    own = {
        "scalar_mix_0.scalar_parameters": np.array([0.1, -0.2], np.float32),
        "scalar_mix_0.gamma": np.array(1.5, np.float32),
        "word_embedding.weight": np.arange(20, dtype=np.float32).reshape(5, 4),
    }
    datasets = allennlp_datasets(ours, config)
    if file_rows == 262:
        datasets["char_embed"] = np.concatenate([datasets["char_embed"], np.full((1, 4), 7.0, np.float32)])
    table = allennlp_parameter_table(config, 1, cached_vocabulary=True)
    theirs = {}
    for row in table:
        theirs[row.name] = row.build(*({**datasets, **own}[name] for name in row.sources))
        theirs[row.name] = theirs[row.name] + (0 if row.loader_adds is None else row.loader_adds)
    assert theirs["_elmo_lstm._token_embedder._char_embedding_weights"].shape == (file_rows + 1, 4)
    shapes = {name: value.shape for name, value in own.items()}
    bilm, mine, used = elmo_parameters_from_allennlp(theirs, config, shapes, 1)
    assert used == set(theirs) and bilm.keys() == ours.keys() and mine.keys() == own.keys()
    assert all(array.flags.c_contiguous for array in bilm.values()), "load_state_dict(assign=True) keeps them"
    for name, value in {**ours, **own}.items():
        np.testing.assert_allclose({**bilm, **mine}[name], value, atol=1e-6, rtol=0, err_msg=name)


def test_elmo_parameters_from_allennlp_names_a_parameter_of_the_wrong_shape_in_one_line() -> None:
    config = ElmoConfig(**TINY)
    theirs = {"_elmo_lstm._token_embedder._projection.weight": np.zeros((5, 6), np.float32)}
    with pytest.raises(
        ElmoWeightsError,
        match=re.escape(
            "AllenNLP state_dict: parameters of other shapes than this Elmo's: "
            "m._elmo_lstm._token_embedder._projection.weight (5, 6) (this Elmo's: (4, 8)): build"
        ),
    ):
        elmo_parameters_from_allennlp(theirs, config, {}, 0, prefix="m.")
