"""ElmoConfig: fields from options.json and validation on construction."""

from __future__ import annotations

import json
import re

import pytest
import torch

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer, batch_to_ids
from hf_elmo.char_ids import token_to_char_ids
from hf_elmo.configuration_elmo import ElmoConfigError
from hf_elmo.convert import read_options


def test_real_released_options_files_map_to_config_fields(shared):
    folder = shared / "fixtures" / "elmo-options"
    options = json.loads((folder / "elmo_2x4096_512_2048cnn_2xhighway_options.json").read_text())
    original = ElmoConfig.from_allennlp_options(options)
    assert (original.lstm_dim, original.projection_dim, original.n_layers, original.n_highway) == (4096, 512, 2, 2)
    assert original.n_filters == 2048 and original.output_dim == 1024 and original.use_skip_connections
    small = ElmoConfig.from_allennlp_options(
        json.loads((folder / "elmo_2x1024_128_2048cnn_1xhighway_options.json").read_text())
    )
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
        ({"filters": [[60, 4]]}, r"filters\[0\] width must be in 1\.\.50 \(at most max_characters_per_token\), got 60"),
        ({"lstm_dim": 0}, r"lstm_dim must be in 1\.\.16384, got 0"),
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


TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 4]], lstm_dim=8, projection_dim=4, n_layers=1)


@pytest.mark.parametrize(
    "fields, message",
    [
        (
            {"max_characters_per_token": 1_000_000},
            r"ElmoConfig\.max_characters_per_token must be in 3\.\.256, got 1000000",
        ),
        ({"max_characters_per_token": 2}, r"max_characters_per_token must be in 3\.\.256, got 2"),
        ({"char_embedding_dim": 100_000}, r"char_embedding_dim must be in 1\.\.1024, got 100000"),
        ({"lstm_dim": 10**7}, r"lstm_dim must be in 1\.\.16384"),
        ({"projection_dim": 10**6}, r"projection_dim must be in 1\.\.8192"),
        ({"n_layers": 100}, r"n_layers must be in 1\.\.16, got 100"),
        ({"n_highway": -1}, r"n_highway must be in 0\.\.16, got -1"),
        ({"filters": [[1, 10**6]]}, r"filters\[0\] n_channels must be in 1\.\.8192, got 1000000"),
        ({"filters": [[1, 8192], [2, 8192], [3, 8]]}, r"filters add up to 16392 channels; at most 16384"),
        ({"filters": [[w, 1] for w in range(1, 50)] * 2}, r"filters may list at most 64 filters, got 98"),
        ({"vocab_size": 10**9}, r"vocab_size must be in 4\.\.10000000"),
        ({"num_sampled": 0}, r"num_sampled must be in 1\.\.1000000, got 0"),
    ],
)
def test_every_size_field_is_bounded_with_an_error_naming_field_value_and_range(fields, message):
    with pytest.raises(ElmoConfigError, match=message):
        ElmoConfig(**{**TINY, **fields})


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"lstm_dim": "abc"}, r"ElmoConfig\.lstm_dim must be an integer in 1\.\.16384, got the str 'abc'"),
        ({"projection_dim": 64.7}, r"projection_dim must be an integer in 1\.\.8192, got the float 64\.7"),
        ({"n_layers": True}, r"n_layers must be an integer .* got the bool True"),
        (
            {"filters": [[1]]},
            r"filters must be a list of \[width, n_channels\] pairs, e\.g\. .*; filter 0 is the list \[1\]",
        ),
        ({"filters": "[[1, 4]]"}, r"filters must be a list of \[width, n_channels\] pairs"),
        ({"filters": [[1, "4"]]}, r"filters\[0\] n_channels must be an integer .* got the str '4'"),
        ({"filters": [[0, 5]]}, r"filters\[0\] width must be in 1\.\.50"),
        ({"stateful": "false"}, r"stateful must be true or false, got the str 'false'"),
        ({"use_skip_connections": 1}, r"use_skip_connections must be true or false"),
        ({"cell_clip": float("nan")}, r"cell_clip must be a positive finite number, or null"),
        ({"proj_clip": "3"}, r"proj_clip must be a positive finite number"),
        ({"dropout": "0.1"}, r"dropout must be a number in \[0, 1\), got the str '0\.1'"),
        ({"dropout": float("nan")}, r"dropout must be a number in \[0, 1\)"),
        ({"activation": ["relu"]}, r"activation must be one of"),
        ({"n_characters": "262"}, r"n_characters must be 261 or 262"),
    ],
)
def test_fields_of_the_wrong_type_are_refused_naming_the_field(fields, message):
    with pytest.raises(ElmoConfigError, match=message):
        ElmoConfig(**{**TINY, **fields})


@pytest.mark.parametrize("value", ["spaces", "spacy:e-n", 3])
def test_pre_tokenizer_is_a_known_rule_or_none(tmp_path, value):
    assert ElmoConfig(**TINY).pre_tokenizer is None  # not known: not written to config.json
    assert ElmoConfig(**TINY, pre_tokenizer="spacy").pre_tokenizer == "spacy:en"
    with pytest.raises(ElmoConfigError, match=r"pre_tokenizer must be 'whitespace' or 'spacy:LANG' .*, or null"):
        ElmoConfig(**TINY, pre_tokenizer=value)
    ElmoModel(ElmoConfig(**TINY, pre_tokenizer="spacy:de")).save_pretrained(tmp_path)
    assert ElmoConfig.from_pretrained(tmp_path).pre_tokenizer == "spacy:de"


def test_integral_floats_are_stored_as_ints():
    config = ElmoConfig(**{**TINY, "lstm_dim": 8.0, "filters": [[1.0, 4.0]]})
    assert config.lstm_dim == 8 and type(config.lstm_dim) is int
    assert config.filters == [[1, 4]] and type(config.filters[0][0]) is int


def _saved_config_with(folder, **fields):
    """A saved model folder (config.json + model.safetensors) whose config.json then gets ``fields``."""
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(folder)
    data = json.loads((folder / "config.json").read_text())
    data.update(fields)
    (folder / "config.json").write_text(json.dumps(data))


@pytest.mark.parametrize("load", [ElmoConfig.from_pretrained, ElmoModel.from_pretrained])
def test_a_config_json_with_a_bad_field_is_refused_naming_the_file_and_field(tmp_path, load):
    _saved_config_with(tmp_path, max_characters_per_token=1_000_000)
    expected = f"{tmp_path / 'config.json'}: field max_characters_per_token must be in 3..256, got 1000000"
    with pytest.raises(ElmoConfigError) as caught:
        load(tmp_path)
    assert str(caught.value) == expected


def test_a_config_json_path_given_directly_is_named(tmp_path):
    _saved_config_with(tmp_path, filters=[[1]])
    with pytest.raises(ElmoConfigError, match=rf"^{re.escape(str(tmp_path / 'config.json'))}: field filters must be"):
        ElmoConfig.from_pretrained(tmp_path / "config.json")


@pytest.mark.parametrize(
    "text, kind",
    [("[1, 2, 3]", "the list [1, 2, 3]"), ("5", "the int 5"), ('"elmo"', "the str 'elmo'"), ("null", "None")],
)
@pytest.mark.parametrize("load", [ElmoConfig.from_pretrained, ElmoModel.from_pretrained])
def test_a_config_json_that_is_not_an_object_is_refused_naming_the_file(tmp_path, load, text, kind):
    """Was a TypeError (or AttributeError) traceback from inside transformers."""
    _saved_config_with(tmp_path)
    (tmp_path / "config.json").write_text(text)
    with pytest.raises(OSError) as caught:
        load(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'config.json'}: expected a JSON object of config fields, got {kind}"


@pytest.mark.parametrize("load", [ElmoConfig.from_pretrained, ElmoModel.from_pretrained, ElmoConfig.from_json_file])
def test_a_config_json_of_another_model_type_is_refused_naming_the_field(tmp_path, load):
    """transformers only warns, then builds the ELMo model from a BERT config's fields."""
    _saved_config_with(tmp_path, model_type="bert")
    with pytest.raises(ElmoConfigError) as caught:
        load(tmp_path / "config.json" if load == ElmoConfig.from_json_file else tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'config.json'}: field model_type must be 'elmo', got the str 'bert': the config of a bert model, "
        "not of an ELMo one"
    )


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda o: o.update(lstm="x"), "options field lstm must be an object of its fields, got the str 'x'"),
        (lambda o: o.update(char_cnn=[]), "options field char_cnn must be an object of its fields, got the list []"),
        (
            lambda o: o["char_cnn"].update(embedding=4),
            "options field char_cnn.embedding must be an object of its fields, got the int 4",
        ),
    ],
)
def test_an_options_json_section_that_is_not_an_object_is_named(tmp_path, edit, message):
    """Was "options.json is missing the required key string indices must be integers"."""
    options = ElmoConfig(**TINY).to_allennlp_options()
    edit(options)
    path = tmp_path / "options.json"
    path.write_text(json.dumps(options))
    with pytest.raises(ValueError) as caught:
        read_options(path)
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    "section, key, value, message",
    [
        ("lstm", "dim", "abc", r"options field lstm\.dim must be an integer in 1\.\.16384, got the str 'abc'"),
        ("lstm", "dim", 64.7, r"options field lstm\.dim must be an integer .* got the float 64\.7"),
        (
            "char_cnn",
            "filters",
            [[1]],
            r"options field char_cnn\.filters must be a list of \[width, n_channels\] pairs",
        ),
        ("char_cnn", "filters", [[1, 4], [0, 5]], r"options field char_cnn\.filters\[1\] width must be in 1\.\.50"),
        (
            "char_cnn",
            "max_characters_per_token",
            1_000_000,
            r"options field char_cnn\.max_characters_per_token must be in 3\.\.256",
        ),
    ],
)
def test_a_bad_options_json_field_is_named_by_its_options_key_and_file(tmp_path, section, key, value, message):
    options = ElmoConfig(**TINY).to_allennlp_options()
    options[section][key] = value
    path = tmp_path / "options.json"
    path.write_text(json.dumps(options))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: {message}"):
        read_options(path)


@pytest.mark.parametrize(
    "make",
    [
        lambda width: batch_to_ids([["a"]], width),
        lambda width: token_to_char_ids("a", width),
        lambda width: ElmoTokenizer(max_characters_per_token=width),
    ],
)
@pytest.mark.parametrize("width", [2, 0, 1_000_000, "50"])
def test_char_ids_refuse_the_widths_the_config_refuses(make, width):
    with pytest.raises(ElmoConfigError, match=r"^max_characters_per_token must be (an integer )?in 3\.\.256"):
        make(width)
    with pytest.raises(ElmoConfigError):
        ElmoConfig(max_characters_per_token=width)


def test_char_ids_accept_every_width_the_config_accepts():
    for width in (3, 256):
        ElmoConfig(**{**TINY, "max_characters_per_token": width})
        assert batch_to_ids([["ab"]], width).shape == (1, 1, width)
        assert ElmoTokenizer(max_characters_per_token=width)("ab")["input_ids"][0][:2] == [259, 98]


# -- the LM fields --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fields, message",
    [
        (
            {"softmax": "hierarchical"},
            r"^ElmoConfig\.softmax must be one of \('sampled', 'full'\), got the str 'hierarchical'",
        ),
        (
            {"token_embedding": "bpe"},
            r"^ElmoConfig\.token_embedding must be one of \('char_cnn', 'word'\), got the str 'bpe'",
        ),
        ({"token_embedding": "word"}, r"^ElmoConfig\.vocab_size must be set for token_embedding='word'"),
        ({"vocab_size": 3}, r"^ElmoConfig\.vocab_size must be in 4\.\.10000000, got 3"),
        ({"vocab_size": "100"}, r"^ElmoConfig\.vocab_size must be an integer in 4\.\.10000000, got the str '100'"),
        ({"num_sampled": 2.5}, r"^ElmoConfig\.num_sampled must be an integer in 1\.\.1000000, got the float 2\.5"),
        ({"initializer_range": 0}, r"^ElmoConfig\.initializer_range must be a positive finite number, got the int 0"),
        ({"initializer_range": "0.1"}, r"^ElmoConfig\.initializer_range must be a positive finite number"),
    ],
)
def test_the_lm_fields_are_checked_naming_the_field_and_range(fields, message):
    with pytest.raises(ElmoConfigError, match=message):
        ElmoConfig(**{**TINY, **fields})


def test_the_lm_fields_have_one_default_each_and_none_for_num_sampled_means_the_default():
    from hf_elmo.configuration_elmo import DEFAULT_NUM_SAMPLED

    config = ElmoConfig(**TINY)
    assert (
        config.vocab_size,
        config.softmax,
        config.num_sampled,
        config.token_embedding,
        config.initializer_range,
    ) == (None, "sampled", DEFAULT_NUM_SAMPLED, "char_cnn", 0.05)
    assert ElmoConfig(**TINY, num_sampled=None).num_sampled == DEFAULT_NUM_SAMPLED


def test_the_lm_fields_round_trip_through_config_json(tmp_path):
    fields = dict(vocab_size=123, softmax="full", num_sampled=77, token_embedding="word", initializer_range=0.125)
    ElmoConfig(**TINY, **fields).save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert {k: saved[k] for k in fields} == fields
    loaded = ElmoConfig.from_pretrained(tmp_path)
    assert {k: getattr(loaded, k) for k in fields} == fields


def test_a_bad_lm_field_in_config_json_is_named_with_the_file(tmp_path):
    _saved_config_with(tmp_path, softmax="hierarchical")
    with pytest.raises(ElmoConfigError, match=rf"^{re.escape(str(tmp_path / 'config.json'))}: field softmax must be"):
        ElmoConfig.from_pretrained(tmp_path)


def test_initializer_range_bounds_the_fresh_linear_and_convolution_weights():
    import torch

    torch.manual_seed(0)
    model = ElmoModel(ElmoConfig(**TINY, initializer_range=0.01))
    weights = [m.weight for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv1d))]
    assert max(float(w.detach().abs().max()) for w in weights) <= 0.01
    assert max(float(w.detach().abs().max()) for w in weights) > 0.009  # drawn from the whole range, not a smaller one


def _saved_tiny(folder, **fields) -> str:
    ElmoModel(ElmoConfig(**TINY, **fields)).save_pretrained(folder)
    return str(folder)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"stateful": "false"}, r"^from_pretrained argument stateful must be true or false, got the str 'false'$"),
        ({"bilm_implementation": "cuda"}, r"^from_pretrained argument bilm_implementation must be one of"),
        ({"cell_clip": -3.0}, r"^from_pretrained argument cell_clip must be a positive finite number"),
        ({"max_characters_per_token": 1000}, r"^from_pretrained argument max_characters_per_token must be in 3\.\.256"),
    ],
)
def test_overrides_passed_to_from_pretrained_are_checked_and_named_as_arguments(tmp_path, override, message):
    folder = _saved_tiny(tmp_path)
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained):
        with pytest.raises(ElmoConfigError, match=message):
            load(folder, **override)


def test_overrides_through_the_auto_classes_and_by_hand_are_checked(tmp_path):
    from transformers import AutoConfig, AutoModel

    folder = _saved_tiny(tmp_path)
    for load in (AutoConfig.from_pretrained, AutoModel.from_pretrained):
        with pytest.raises(ElmoConfigError, match=r"^ElmoConfig\.stateful must be true or false, got the str 'false'"):
            load(folder, stateful="false")
    config = ElmoConfig(**TINY)
    with pytest.raises(ElmoConfigError, match=r"^ElmoConfig\.dropout must be a number in \[0, 1\), got the int 2"):
        config.dropout = 2
    assert config.dropout == 0.0


def test_valid_overrides_take_effect_and_fields_that_depend_on_each_other_are_checked_with_them(tmp_path):
    model = ElmoModel.from_pretrained(_saved_tiny(tmp_path / "clip"), stateful=True, dropout=0.25)
    assert model.config.stateful is True and model.config.dropout == 0.25
    with pytest.raises(ValueError, match="bilm_implementation='fused' needs cell_clip and proj_clip None"):
        ElmoModel.from_pretrained(str(tmp_path / "clip"), bilm_implementation="fused")
    with pytest.raises(
        ElmoConfigError, match=r"^from_pretrained argument filters\[1\] width must be in 1\.\.3 \(at most max_char"
    ):
        ElmoModel.from_pretrained(str(tmp_path / "clip"), max_characters_per_token=3, filters=[[1, 4], [4, 4]])
    unclipped = _saved_tiny(tmp_path / "free", cell_clip=None, proj_clip=None)
    assert ElmoModel.from_pretrained(unclipped, bilm_implementation="fused").config.bilm_implementation == "fused"


def test_hidden_size_and_num_hidden_layers_follow_the_shape_and_refuse_other_values(tmp_path):
    """Libraries size layers from config.hidden_size: it must be the output width, 2P."""
    config = ElmoConfig(projection_dim=16, lstm_dim=32, n_layers=3)
    assert (config.hidden_size, config.num_hidden_layers) == (32, 3)
    config.projection_dim, config.n_layers = 8, 1
    assert (config.hidden_size, config.num_hidden_layers) == (16, 1)
    assert ElmoModel(config)(input_ids=batch_to_ids([["a"]])).last_hidden_state.shape[-1] == config.hidden_size
    config.save_pretrained(tmp_path)
    assert ElmoConfig.from_pretrained(tmp_path, projection_dim=4).hidden_size == 8
    with pytest.raises(
        ElmoConfigError, match=r"ElmoConfig.hidden_size is 2 \* projection_dim \(16\) for this config, got the int 999"
    ):
        ElmoConfig(projection_dim=8, lstm_dim=32, hidden_size=999)
    with pytest.raises(
        ElmoConfigError,
        match="from_pretrained argument num_hidden_layers is n_layers .1. for this config, got the int 7",
    ):
        ElmoConfig.from_pretrained(tmp_path, num_hidden_layers=7)
    edited = json.loads((tmp_path / "config.json").read_text())  # a file's own values follow its shape
    (tmp_path / "config.json").write_text(json.dumps({**edited, "n_layers": 2, "hidden_size": 10}))
    assert (
        ElmoConfig.from_pretrained(tmp_path).hidden_size,
        ElmoConfig.from_pretrained(tmp_path).num_hidden_layers,
    ) == (16, 2)


@pytest.mark.parametrize("value", ["bogus", "int64", 5])
def test_a_config_json_dtype_that_is_no_floating_point_dtype_is_one_line_naming_the_file(value, tmp_path):
    """Was: "AttributeError: module 'torch' has no attribute 'bogus'" from inside transformers, or
    "ElmoModel cannot be instantiated under dtype=torch.int64" with dtype='auto', naming no file."""
    ElmoConfig().save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "dtype": value}))
    with pytest.raises(ElmoConfigError) as refused:
        ElmoConfig.from_pretrained(tmp_path)
    assert str(refused.value) == (
        f"{tmp_path / 'config.json'}: field dtype must be a floating-point dtype (float32, float16, bfloat16, "
        f"float64), got the {type(value).__name__} {value!r}"
    )
    assert ElmoConfig(dtype="bfloat16").dtype == torch.bfloat16


@pytest.mark.parametrize("saved", [ElmoConfig, ElmoTokenizer], ids=["config", "tokenizer"])
def test_saving_a_config_or_tokenizer_into_a_file_is_one_line_and_leaves_the_file(saved, tmp_path):
    """Was an AssertionError for the config, and for the tokenizer a logged error and nothing written."""
    (tmp_path / "file").write_text("mine")
    with pytest.raises(
        NotADirectoryError, match=r"file is a file, but save_pretrained writes a folder: give a folder's path$"
    ):
        saved().save_pretrained(tmp_path / "file")
    assert (tmp_path / "file").read_text() == "mine"
