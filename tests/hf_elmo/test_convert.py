"""The converter and `elmo convert`: outputs, provenance, and clear errors on bad files."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch
from huggingface_hub import ModelCard

from hf_elmo import Elmo, ElmoModel, batch_to_ids
from hf_elmo.cli import main
from hf_elmo.convert import ElmoWeightsError, allennlp_datasets, elmo_state_dict, save_allennlp, weight_table
from tests.numpy_elmo import small_options, write_random_original

SENTENCES = [["The", "cat", "sat", "."], ["Über", "naïve"]]


@pytest.fixture()
def original(tmp_path):
    folder = tmp_path / "original"
    write_random_original(folder, small_options(), seed=3)
    return folder


def _outputs(model):
    with torch.inference_mode():
        return torch.stack(model(input_ids=batch_to_ids(SENTENCES)).hidden_states)


def test_elmo_convert_writes_a_hugging_face_folder_with_identical_outputs(original, tmp_path):
    out = tmp_path / "converted"
    assert main(["convert", str(original / "options.json"), str(original / "weights.hdf5"), str(out)]) == 0
    assert {"config.json", "model.safetensors", "tokenizer_config.json", "README.md"} <= {p.name for p in out.iterdir()}
    assert not list(out.glob("*.bin")), "no pickle files"
    card = (out / "README.md").read_text()
    assert "weights.hdf5 (sha256" in card and "options.json (sha256" in card
    direct = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    assert torch.equal(_outputs(ElmoModel.from_pretrained(out)), _outputs(direct))


def test_the_card_of_a_converted_model_claims_no_licence(original, tmp_path):
    """The converter cannot know the original files' licence (was: apache-2.0 on every converted
    model's card, someone else's bilm-tf model included)."""
    out = tmp_path / "converted"
    assert main(["convert", str(original / "options.json"), str(original / "weights.hdf5"), str(out)]) == 0
    card = ModelCard.load(out / "README.md")
    assert card.data.license is None
    assert "add it to this card's metadata (`license:`) before sharing" in card.text


def test_export_to_the_original_format_round_trips_exactly(original, tmp_path):
    model = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    save_allennlp(model, tmp_path / "options.json", tmp_path / "again.hdf5")
    with h5py.File(original / "weights.hdf5") as a, h5py.File(tmp_path / "again.hdf5") as b:
        names = []
        a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        for name in names:
            np.testing.assert_array_equal(a[name][...], b[name][...], err_msg=name)


@pytest.mark.parametrize("compression", [None, "gzip"])
def test_weight_files_the_converter_writes_load_as_written_also_gzip_compressed(compression, original, tmp_path):
    """What ``save_allennlp`` writes (contiguous datasets), and the same gzip-compressed in h5py's
    chunks, an all-zero matrix among them (compressed beyond 100x: a weight whose shape the options
    fix may), load the model they hold: the check that refuses datasets the file does not store
    (unwritten) passes them."""
    model = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    with torch.no_grad():
        model.char_cnn.highways[0].transform.weight.zero_()
    save_allennlp(model, tmp_path / "options.json", tmp_path / "weights.hdf5")
    if compression:
        with h5py.File(tmp_path / "weights.hdf5") as handle, h5py.File(tmp_path / "gzip.hdf5", "w") as out:
            names: list[str] = []
            handle.visititems(lambda name, item: names.append(name) if isinstance(item, h5py.Dataset) else None)
            for name in names:
                out.create_dataset(name, data=handle[name][...], compression=compression)
            zeros = out["CNN_high_0/W_transform"]
            assert zeros.nbytes > 100 * zeros.id.get_storage_size()
        (tmp_path / "gzip.hdf5").replace(tmp_path / "weights.hdf5")
    again = ElmoModel.from_allennlp(tmp_path / "options.json", tmp_path / "weights.hdf5")
    for key, value in model.state_dict().items():
        assert torch.equal(again.state_dict()[key], value), key


def test_the_conversion_table_covers_every_parameter_once_and_inverts_exactly(original):
    model = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    rows = [row.ours for row in weight_table(model.config)]
    assert sorted(rows) == sorted(k for k in model.state_dict() if k not in ("warm_h", "warm_c"))
    state = elmo_state_dict(original / "weights.hdf5", model.config)
    datasets = allennlp_datasets({k: v.numpy() for k, v in state.items()}, model.config)
    with h5py.File(original / "weights.hdf5") as handle:
        names = []
        handle.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        assert sorted(datasets) == sorted(names)
        for name, array in datasets.items():
            np.testing.assert_array_equal(array, handle[name][...], err_msg=name)


def test_a_folder_of_original_files_converts_on_load(original):
    loaded = ElmoModel.from_pretrained(original)
    direct = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    assert torch.equal(_outputs(loaded), _outputs(direct))


def test_training_time_files_with_261_characters_are_accepted(tmp_path):
    write_random_original(tmp_path, small_options(n_characters=261), seed=4)
    model = ElmoModel.from_allennlp(tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert model.config.n_characters == 262
    assert model.char_cnn.char_embedding.weight[0].abs().sum() == 0


def test_a_char_embed_of_262_rows_is_read_as_allennlp_reads_it(original, tmp_path):
    """AllenNLP and bilm-tf put a zero row before whatever rows the file has, so id k reads file row
    k - 1 and a 262nd row (a model trained with n_characters 262) is never read."""
    model = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    longer = tmp_path / "longer.hdf5"
    with h5py.File(original / "weights.hdf5") as source, h5py.File(longer, "w") as target:
        for name in source:
            source.copy(source[name], target, name=name)
        rows = source["char_embed"][...]
        del target["char_embed"]
        target.create_dataset("char_embed", data=np.concatenate([rows, np.full((1, rows.shape[1]), 7.0, np.float32)]))
    assert torch.equal(_outputs(ElmoModel.from_allennlp(original / "options.json", longer)), _outputs(model))


def test_an_options_file_with_a_byte_order_mark_is_read(original):
    options, weights = original / "options.json", original / "weights.hdf5"
    expected = _outputs(ElmoModel.from_allennlp(options, weights))
    options.write_bytes(b"\xef\xbb\xbf" + options.read_bytes())
    assert torch.equal(_outputs(ElmoModel.from_allennlp(options, weights)), expected)


def _edit(path, fn):
    with h5py.File(path, "a") as handle:
        fn(handle)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda h: h.__delitem__("CNN_proj/W_proj"), "missing dataset 'CNN_proj/W_proj'"),
        (
            lambda h: (h.__delitem__("CNN/b_cnn_1"), h.create_dataset("CNN/b_cnn_1", data=np.zeros(5, np.float32))),
            r"dataset 'CNN/b_cnn_1' has shape \(5,\), options imply \(8,\)",
        ),
        (lambda h: h.__delitem__("char_embed"), "missing dataset 'char_embed'"),
        (lambda h: h.__delitem__("RNN_1/RNN/MultiRNNCell/Cell1/LSTMCell/W_P_0"), "Cell1/LSTMCell/W_P_0"),
    ],
)
def test_damaged_weight_files_name_the_problem(original, damage, message):
    _edit(original / "weights.hdf5", damage)
    with pytest.raises(ElmoWeightsError, match=message):
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")


def test_options_that_do_not_match_the_weights_are_one_line_and_list_every_mismatch_in_the_notes(original):
    """Was one line per mismatch (13 lines) in the message, and so on the command line."""
    (original / "options.json").write_text(json.dumps(small_options(dim=64, proj=8)))
    with pytest.raises(ElmoWeightsError) as err:
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{original / 'weights.hdf5'} does not match its options (12 problems): dataset ")
    assert "W_0' has shape (16, 128), options imply (16, 256)" in message
    assert message.count("has shape") == 3 and " and 9 more; give the options file that was written with" in message
    (note,) = err.value.__notes__
    assert note.startswith("every problem:\n  ")
    assert note.count("has shape") == 12  # W_0, B, W_P_0 for 2 directions x 2 layers


def test_elmo_convert_says_a_mismatch_of_options_and_weights_in_one_line(original, tmp_path, capsys):
    (original / "options.json").write_text(json.dumps(small_options(dim=64, proj=8)))
    out = tmp_path / "converted"
    assert main(["convert", str(original / "options.json"), str(original / "weights.hdf5"), str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not match its options (12 problems): " in err
    assert "every problem" not in err and not out.exists()


@pytest.mark.parametrize(
    "fewer, unused, count",
    [
        (
            {"n_highway": 1},
            "CNN_high_1/W_carry, CNN_high_1/W_transform, CNN_high_1/b_carry, CNN_high_1/b_transform",
            "1 problem",
        ),
        ({"n_layers": 1}, "RNN_0/RNN/MultiRNNCell/Cell1/LSTMCell/B, ", "1 problem"),
        ({"filters": ((1, 4), (2, 8))}, "CNN/W_cnn_2, CNN/b_cnn_2", "10 problems"),
    ],
)
def test_weights_of_layers_the_options_do_not_have_are_refused_naming_them(tmp_path, capsys, fewer, unused, count):
    """Were dropped without a word: a model of fewer layers than the file's, and other outputs."""
    write_random_original(tmp_path, small_options(n_highway=2), seed=5)
    (tmp_path / "options.json").write_text(json.dumps(small_options(**{"n_highway": 2, **fewer})))
    out = tmp_path / "converted"
    assert main(["convert", str(tmp_path / "options.json"), str(tmp_path / "weights.hdf5"), str(out)]) == 2
    err = capsys.readouterr().err
    assert f"does not match its options ({count}): datasets the options do not use: {unused}" in err
    assert "(does the file have more highway layers, LSTM layers or filters than the options say?)" in err
    assert not out.exists()


def test_a_truncated_weight_file_is_reported_as_such(original):
    data = (original / "weights.hdf5").read_bytes()
    (original / "weights.hdf5").write_bytes(data[: len(data) // 2])
    with pytest.raises(ElmoWeightsError, match="truncated"):
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")


def test_a_failed_convert_leaves_no_output_folder(original, tmp_path, capsys):
    _edit(original / "weights.hdf5", lambda h: h.__delitem__("CNN_proj/b_proj"))
    out = tmp_path / "out" / "model"
    code = main(["convert", str(original / "options.json"), str(original / "weights.hdf5"), str(out)])
    assert code == 2
    assert "missing dataset 'CNN_proj/b_proj'" in capsys.readouterr().err
    assert not out.exists()
    assert not list(out.parent.glob(".model.*")), "no staging folder left behind"


def test_convert_replaces_an_earlier_output_only_when_asked(original, tmp_path, capsys):
    out = tmp_path / "out"
    args = ["convert", str(original / "options.json"), str(original / "weights.hdf5"), str(out)]
    assert main(args) == 0
    (out / "training.json").write_text("{}")  # left by an earlier elmo pretrain into the folder
    assert main(args) == 2 and "--overwrite" in capsys.readouterr().err
    assert (out / "training.json").exists()
    assert main(args + ["--overwrite"]) == 0
    assert not (out / "training.json").exists() and (out / "config.json").exists()


def test_bad_options_json_is_named(original):
    (original / "options.json").write_text("{not json")
    with pytest.raises(ValueError, match="options.json is not valid JSON"):
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")


def test_missing_files_are_named(original):
    (original / "weights.hdf5").unlink()
    with pytest.raises(FileNotFoundError, match="weight file not found"):
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")


@pytest.mark.parametrize("kind", ["pipe", "device"])
def test_a_weight_path_that_is_a_pipe_or_device_is_named_as_such_not_as_missing(kind, original, tmp_path):
    """`elmo convert options.json <(zcat weights.hdf5.gz) OUT`, or /dev/null. Was "weight file not
    found: /dev/fd/63" of a path that is there."""
    import os

    weights = tmp_path / "weights-pipe"
    if kind == "pipe":
        os.mkfifo(weights)
    else:
        weights = Path(os.devnull)
    with pytest.raises(ValueError) as caught:
        ElmoModel.from_allennlp(original / "options.json", weights)
    assert str(caught.value) == (
        f"the weight path {weights} is not a regular file (a pipe or a device?), and HDF5 is read from a file: "
        "save the weights to a file and give that"
    )


def _write_hdf5(path, datasets: dict) -> Path:
    with h5py.File(path, "w") as handle:
        for name, value in datasets.items():
            handle[name] = value
    return path


@pytest.mark.parametrize(
    "datasets, kind",
    [
        (
            {**{str(i): np.zeros((3, 2, 4), "f4") for i in range(3000)}, "sentence_to_index": ["{}"]},
            "an output of elmo embed (or allennlp elmo): embeddings, not weights",
        ),
        (
            {"softmax/W": np.zeros((5, 4), "f4"), "softmax/b": np.zeros(5, "f4")},
            "the LM's softmax, which elmo perplexity takes as --softmax-weights",
        ),
        ({"embedding": np.zeros((5, 4), "f4")}, "a dump of token embeddings (dump_token_embeddings)"),
        ({"a": np.zeros(3, "f4"), "b/c": np.zeros(3, "f4")}, "not an ELMo biLM's weight file (its datasets: a, b/c)"),
        ({}, "an HDF5 file of no datasets"),
    ],
)
def test_an_hdf5_file_of_none_of_the_weights_is_one_line_saying_what_it_is(datasets, kind, original, tmp_path):
    """An embeddings output, the softmax or token embeddings dump, given as the weight file (the
    released models' folders hold all three side by side). Was: a line for every missing dataset and
    one listing every dataset the file holds (200 KB for 20,000 embedded lines)."""
    weights = _write_hdf5(tmp_path / "other.hdf5", datasets)
    with pytest.raises(ElmoWeightsError) as caught:
        ElmoModel.from_allennlp(original / "options.json", weights)
    assert str(caught.value) == (
        f"{weights} holds none of the biLM's weights (e.g. dataset 'char_embed'): it is {kind}; give the biLM's "
        "weight file (AllenNLP's NAME_weights.hdf5, bilm-tf's dump_weights output)"
    )


def test_a_weight_file_with_many_unused_datasets_names_the_first_ones(original, tmp_path):
    """Was: every one of them, in one line."""
    with h5py.File(original / "weights.hdf5", "a") as handle:
        for i in range(100):
            handle[f"extra/{i:03d}"] = np.zeros(2, "f4")
    with pytest.raises(ElmoWeightsError) as caught:
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    names = ", ".join(f"extra/{i:03d}" for i in range(10))
    assert f"datasets the options do not use: {names} and 90 more (does the file have" in str(caught.value)


ALLENNLP_URL = (
    "https://allennlp.s3.amazonaws.com/models/elmo/2x1024_128_2048cnn_1xhighway/elmo_2x1024_128_2048cnn_1xhighway_"
)


def test_allennlps_urls_are_named_as_urls_that_nothing_downloads(original):
    """Elmo(options_file=URL, weight_file=URL), as AllenNLP's docs have it. Was "options file not
    found: https://..." (and for the weights "weight file not found: https:/allennlp...", its // folded)."""
    with pytest.raises(FileNotFoundError, match=rf"^the options file {ALLENNLP_URL}options.json is a URL, .*downloads"):
        Elmo(ALLENNLP_URL + "options.json", ALLENNLP_URL + "weights.hdf5", 1)
    with pytest.raises(
        FileNotFoundError, match=rf"^the weight file {ALLENNLP_URL}weights.hdf5 is a URL, .*local path$"
    ):
        ElmoModel.from_allennlp(original / "options.json", ALLENNLP_URL + "weights.hdf5")


def test_a_weight_file_in_the_options_files_place_is_named(original):
    """The two files swapped. Was "weights.hdf5 is not valid JSON: 'utf-8' codec can't decode byte 0x89"."""
    with pytest.raises(ValueError, match=r"weights.hdf5 is an HDF5 file \(a weight file\?\), .*options file first"):
        ElmoModel.from_allennlp(original / "weights.hdf5", original / "options.json")


def test_an_elmoformanylangs_config_given_as_the_options_file_is_named_as_that_format(tmp_path, capsys):
    """`elmo convert config.json encoder.pkl OUT` of an ELMoForManyLangs model, which README says is
    refused as that format. Was "options.json is missing the required key 'lstm'"."""
    config = {"token_embedder": {"name": "cnn", "char_dim": 50}, "encoder": {"name": "elmo", "dim": 4096}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "encoder.pkl").write_bytes(b"")
    out = tmp_path / "out"
    assert main(["convert", str(tmp_path / "config.json"), str(tmp_path / "encoder.pkl"), str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "config.json is the config.json of an ELMoForManyLangs model" in err and "cannot load or convert" in err
    assert not out.exists()
