"""ElmoConfig: fields from options.json and validation on construction."""

from __future__ import annotations

import json

import pytest

from hf_elmo import ElmoConfig


def test_real_released_options_files_map_to_config_fields(shared):
    folder = shared / "fixtures" / "elmo-options"
    original = ElmoConfig.from_allennlp_options(json.loads((folder / "elmo_2x4096_512_2048cnn_2xhighway_options.json").read_text()))
    assert (original.lstm_dim, original.projection_dim, original.n_layers, original.n_highway) == (4096, 512, 2, 2)
    assert original.n_filters == 2048 and original.output_dim == 1024 and original.use_skip_connections
    small = ElmoConfig.from_allennlp_options(json.loads((folder / "elmo_2x1024_128_2048cnn_1xhighway_options.json").read_text()))
    assert (small.lstm_dim, small.projection_dim, small.n_highway) == (1024, 128, 1)


def test_options_round_trip():
    config = ElmoConfig(lstm_dim=64, projection_dim=16, filters=[[1, 4], [2, 8]], use_skip_connections=False)
    again = ElmoConfig.from_allennlp_options(config.to_allennlp_options())
    assert again.to_dict() == config.to_dict()


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"activation": "gelu"}, "activation"),
        ({"n_characters": 300}, "n_characters must be 261 or 262"),
        ({"filters": []}, "at least one"),
        ({"filters": [[60, 4]]}, "exceeds max_characters_per_token"),
        ({"lstm_dim": 0}, "lstm_dim must be a positive"),
        ({"cell_clip": -1.0}, "cell_clip"),
        ({"dropout": 1.0}, "dropout"),
    ],
)
def test_invalid_fields_are_refused_on_construction(fields, message):
    with pytest.raises(ValueError, match=message):
        ElmoConfig(**fields)


def test_missing_options_key_is_named():
    with pytest.raises(ValueError, match="'lstm'"):
        ElmoConfig.from_allennlp_options({"char_cnn": {}})
