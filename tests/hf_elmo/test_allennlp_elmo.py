"""hf_elmo.Elmo, the drop-in for AllenNLP's ``allennlp.modules.elmo.Elmo``: its numbers against
AllenNLP's (the fixture's reference layers, and an independent NumPy version of AllenNLP's scalar
mix, layer norm, boundary removal and mask), its arguments and its errors, and AllenNLP's
``state_dict`` loading into it (built here by AllenNLP's loader arithmetic, tests/numpy_elmo.py).

scripts/check_parity.py --allennlp-python compares it with AllenNLP's own module when its venv exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch

from hf_elmo import Elmo, ElmoModel, batch_to_ids
from hf_elmo.convert import ElmoWeightsError
from tests.numpy_elmo import (
    NumpyElmo,
    allennlp_bilm_parameters,
    allennlp_scalar_mix,
    char_ids,
    read_datasets,
    write_random_original,
)

TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def files(allennlp_fixture: Path) -> tuple[Path, Path]:
    return allennlp_fixture / "options.json", allennlp_fixture / "lm_weights.hdf5"


@pytest.fixture(scope="module")
def batches(allennlp_fixture: Path) -> list[list[list[str]]]:
    """The fixture's 10 reference batches of 3 sentences (sentence k of batch i: sentences[k][i])."""
    sentences = json.loads((allennlp_fixture / "sentences.json").read_text())
    return [[sentences[k][i].split() for k in range(len(sentences))] for i in range(len(sentences[0]))]


def allennlp_elmo(
    layers: list[np.ndarray], s: list[float], gamma: float, do_layer_norm: bool, keep_sentence_boundaries: bool
) -> tuple[np.ndarray, np.ndarray]:
    """AllenNLP's Elmo representation and mask, in NumPy, from each sentence's layers (L+1, n+2, D)
    with markers: ScalarMix over the padded batch with the markers (layer norm over every unmasked
    element), then remove_sentence_boundaries (positions 1..n to 0..n-1, zero after)."""
    lengths = [x.shape[1] for x in layers]
    stacked = np.zeros((layers[0].shape[0], len(layers), max(lengths), layers[0].shape[2]))
    mask = np.zeros((len(layers), max(lengths)), dtype=bool)
    for row, x in enumerate(layers):
        stacked[:, row, : x.shape[1]] = x
        mask[row, : x.shape[1]] = True
    if do_layer_norm:
        m = mask[..., None]
        count = mask.sum() * stacked.shape[-1]
        for j, x in enumerate(stacked):
            mean = (x * m).sum() / count
            variance = (((x * m - mean) * m) ** 2).sum() / count
            stacked[j] = (x - mean) / np.sqrt(variance + 1e-13)
    weights = np.exp(s) / np.exp(s).sum()
    mixed = gamma * np.einsum("j,jbtd->btd", weights, stacked)
    if keep_sentence_boundaries:
        return mixed, mask
    removed = np.zeros((len(layers), max(lengths) - 2, mixed.shape[-1]))
    new_mask = np.zeros(removed.shape[:2], dtype=bool)
    for row, n in enumerate(lengths):
        removed[row, : n - 2] = mixed[row, 1 : n - 1]
        new_mask[row, : n - 2] = True
    return removed, new_mask


@pytest.mark.parametrize("do_layer_norm", [False, True])
@pytest.mark.parametrize("keep_sentence_boundaries", [False, True])
def test_representations_are_allennlps_mix_norm_and_boundary_removal(
    files, batches, do_layer_norm, keep_sentence_boundaries
):
    mixes = [([0.3, -0.2, 0.5], 1.7), ([-1.0, 0.4, 0.1], 0.6)]
    elmo = Elmo(
        *files,
        num_output_representations=2,
        do_layer_norm=do_layer_norm,
        dropout=0.0,
        keep_sentence_boundaries=keep_sentence_boundaries,
        stateful=False,
    )
    with torch.no_grad():
        for mix, (s, gamma) in zip(elmo.scalar_mixes, mixes):
            mix.scalar_parameters.copy_(torch.tensor(s))
            mix.gamma.fill_(gamma)
    batch = [sentence[:9] for sentence in batches[0]][:2] + [batches[0][2][:4]]  # 9, 9 and 4 tokens
    reference = NumpyElmo(*files)
    layers = [reference.with_markers(sentence) for sentence in batch]
    with torch.no_grad():
        out = elmo(batch_to_ids(batch))
    for representation, (s, gamma) in zip(out["elmo_representations"], mixes):
        expected, mask = allennlp_elmo(layers, s, gamma, do_layer_norm, keep_sentence_boundaries)
        assert representation.shape == expected.shape
        np.testing.assert_allclose(representation.numpy(), expected, atol=TOLERANCE, rtol=0)
        assert np.array_equal(out["mask"].numpy(), mask)


def test_stateful_by_default_the_top_layer_replays_allennlps_ten_reference_batches(files, batches, allennlp_fixture):
    """AllenNLP's numbers: the biLM carries the state from batch to batch, as AllenNLP's does."""
    elmo = Elmo(*files, num_output_representations=1, scalar_mix_parameters=[-9e10, -9e10, 1.0], dropout=0.0)
    worst = 0.0
    with torch.no_grad():
        for i, batch in enumerate(batches):
            top = elmo(batch_to_ids(batch))["elmo_representations"][0]
            for k, tokens in enumerate(batch):
                with h5py.File(allennlp_fixture / f"lm_embeddings_{k}.hdf5", "r") as handle:
                    expected = np.concatenate(handle[str(i)][...], axis=-1)
                worst = max(worst, float(np.abs(top[k, : len(tokens)].numpy() - expected).max()))
    assert worst < TOLERANCE, f"max abs diff {worst:.2e}"


def test_stateless_elmo_gives_a_sentence_the_same_vectors_in_any_batch_and_reset_states_forgets(files, batches):
    sentence = batches[1][0]
    alone_ids = batch_to_ids([sentence])
    stateless = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False)
    stateful = Elmo(*files, num_output_representations=1, dropout=0.0)
    with torch.no_grad():
        first = stateless(alone_ids)["elmo_representations"][0]
        stateless(batch_to_ids(batches[0]))
        again = stateless(alone_ids)["elmo_representations"][0]
        stateful(batch_to_ids(batches[0]))
        carried = stateful(alone_ids)["elmo_representations"][0]
        stateful.reset_states()
        after_reset = stateful(alone_ids)["elmo_representations"][0]
    torch.testing.assert_close(again, first, rtol=0, atol=0)
    assert (carried - first).abs().max() > 1e-3, "the state carried from the previous batch must count"
    torch.testing.assert_close(after_reset, first, rtol=0, atol=1e-6)


def test_word_inputs_of_a_cached_vocabulary_give_the_char_ids_vectors(files, batches):
    batch = [sentence[:6] for sentence in batches[0][:2]] + [batches[0][2][:3]]
    vocabulary = ["@@PADDING@@", "@@UNKNOWN@@", *sorted({word for sentence in batch for word in sentence})]
    words = torch.tensor([[vocabulary.index(w) for w in s] + [0] * (6 - len(s)) for s in batch])
    chars = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False)
    cached = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False, vocab_to_cache=vocabulary)
    assert cached.word_embedding is not None and not cached.word_embedding.weight[0].any(), "id 0 is padding"
    with torch.no_grad():
        expected = chars(batch_to_ids(batch))
        got = cached(batch_to_ids(batch), words)
        unknown_id = cached(batch_to_ids(batch), torch.where(words > 0, len(vocabulary), 0))  # AllenNLP: chars
    for out in (got, unknown_id):
        torch.testing.assert_close(
            out["elmo_representations"][0], expected["elmo_representations"][0], atol=1e-6, rtol=0
        )
        assert torch.equal(out["mask"], expected["mask"])


def test_word_inputs_without_a_cached_vocabulary_are_ignored_with_a_warning(files, batches, caplog):
    elmo = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False)
    ids = batch_to_ids(batches[0])
    with torch.no_grad():
        expected = elmo(ids)["elmo_representations"][0]
        got = elmo(ids, torch.ones(ids.shape[:2], dtype=torch.long))["elmo_representations"][0]
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
    assert "does not have a cached vocab" in caplog.text


def test_extra_leading_dimensions_are_flattened_and_restored(files, batches):
    elmo = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False)
    ids = batch_to_ids([s[:5] for s in batches[0][:2]] + [s[:5] for s in batches[1][:2]])  # (4, 5, 50)
    with torch.no_grad():
        flat = elmo(ids)
        nested = elmo(ids.view(2, 2, 5, 50))
    assert nested["elmo_representations"][0].shape == (2, 2, 5, elmo.get_output_dim())
    assert nested["mask"].shape == (2, 2, 5)
    torch.testing.assert_close(nested["elmo_representations"][0].reshape(4, 5, -1), flat["elmo_representations"][0])


def test_requires_grad_and_fixed_scalar_mix_parameters_decide_what_trains(files):
    frozen = Elmo(*files, num_output_representations=2)
    assert not any(p.requires_grad for p in frozen.model.parameters())
    assert all(p.requires_grad for mix in frozen.scalar_mixes for p in mix.parameters())
    tuned = Elmo(*files, num_output_representations=1, requires_grad=True, scalar_mix_parameters=[0.0, 1.0, 0.0])
    assert all(p.requires_grad for p in tuned.model.parameters())
    assert not any(p.requires_grad for p in tuned.scalar_mixes[0].parameters()), "AllenNLP: fixed, not trainable"
    out = tuned(batch_to_ids([["A", "sentence"]]))["elmo_representations"][0]
    out.sum().backward()
    assert tuned.model.char_cnn.projection.weight.grad is not None


def test_dropout_acts_in_training_mode_only_and_the_bilm_stays_in_eval_mode(files, batches):
    elmo = Elmo(*files, num_output_representations=1, dropout=0.5, stateful=False)
    assert elmo.training and not elmo.model.training
    ids = batch_to_ids(batches[0])
    with torch.no_grad():
        trained = elmo(ids)["elmo_representations"][0]
        elmo.eval()
        evaluated = elmo(ids)["elmo_representations"][0]
    assert (trained == 0).float().mean() > (evaluated == 0).float().mean() + 0.3
    dropped = trained != 0
    torch.testing.assert_close(trained[dropped], 2 * evaluated[dropped])


def test_a_model_name_with_weight_file_none_or_an_elmo_model_as_module_loads_it(files, tmp_path):
    model = ElmoModel.from_allennlp(*files)
    model.save_pretrained(tmp_path)
    ids = batch_to_ids([["A", "sentence"]])
    with torch.no_grad():
        expected = Elmo(*files, 1, dropout=0.0)(ids)["elmo_representations"][0]
        for elmo in (Elmo(str(tmp_path), None, 1, dropout=0.0), Elmo(None, None, 1, dropout=0.0, module=model)):
            torch.testing.assert_close(elmo(ids)["elmo_representations"][0], expected, rtol=0, atol=1e-6)
    assert Elmo(None, None, 1, module=model, requires_grad=False).model is model
    assert all(p.requires_grad for p in model.parameters()), "AllenNLP: requires_grad is ignored with module"


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"num_output_representations": 0}, ValueError, "num_output_representations must be at least 1, got 0"),
        ({"scalar_mix_parameters": [1.0, 0.0]}, ValueError, "scalar_mix_parameters has 2 values, but this biLM has 3"),
        ({"vocab_to_cache": []}, ValueError, "vocab_to_cache is empty"),
        ({"vocab_to_cache": "words"}, TypeError, "vocab_to_cache must be a list of words"),
        ({"module": torch.nn.Linear(2, 2)}, ValueError, "takes no options_file or weight_file"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(files, arguments, error, message):
    arguments = {"num_output_representations": 1, **arguments}
    with pytest.raises(error, match=re.escape(message)):
        Elmo(*files, **arguments)


def test_missing_files_or_a_foreign_module_are_refused_in_one_line():
    with pytest.raises(ValueError, match=re.escape("Elmo needs options_file and weight_file")):
        Elmo(None, None, 1)
    with pytest.raises(TypeError, match=re.escape("Elmo(module=...) takes an hf_elmo ElmoModel")):
        Elmo(None, None, 1, module=torch.nn.Linear(2, 2))  # type: ignore[arg-type]


def test_an_empty_sentence_is_refused_naming_allow_empty_which_gives_it_allennlps_zeros_and_false_mask(files, batches):
    sentences = [batches[0][0], [], batches[0][1]]
    with pytest.raises(ValueError, match=re.escape("sentence 1 of the batch is empty") + ".*allow_empty=True"):
        batch_to_ids(sentences)
    elmo = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False)
    with torch.no_grad():
        out = elmo(batch_to_ids(sentences, allow_empty=True))
        alone = elmo(batch_to_ids([sentences[0], sentences[2]]))
    vectors = out["elmo_representations"][0]
    assert not out["mask"][1].any() and not vectors[1].any()
    torch.testing.assert_close(out["mask"][[0, 2]], alone["mask"])
    torch.testing.assert_close(vectors[[0, 2]], alone["elmo_representations"][0], rtol=0, atol=1e-6)


def test_a_batch_of_only_empty_sentences_gives_no_vectors_with_extra_leading_dimensions_or_word_inputs(files):
    elmo = Elmo(*files, num_output_representations=1, dropout=0.0, stateful=False, vocab_to_cache=["@@PADDING@@", "a"])
    chars = batch_to_ids([[], [], []], allow_empty=True)  # (3, 0, 50): T is 0
    for inputs, words in [
        (chars.view(1, 3, 0, 50), None),
        (chars.view(1, 3, 0, 50), torch.zeros(1, 3, 0, dtype=torch.long)),
        (chars, torch.zeros(3, 0, dtype=torch.long)),
    ]:
        with torch.no_grad():
            out = elmo(inputs, words)
        lead = tuple(inputs.shape[:-2])
        assert out["elmo_representations"][0].shape == (*lead, 0, elmo.get_output_dim())
        assert out["mask"].shape == (*lead, 0)


MIXES = [([0.3, -0.2, 0.5], 1.7), ([-1.0, 0.4, 0.1], 0.6)]


class Tagger(torch.nn.Module):
    """A user's model holding an Elmo, as AllenNLP's models do (the Elmo's keys under ``elmo.``)."""

    def __init__(self, elmo: Elmo) -> None:
        super().__init__()
        self.elmo = elmo
        self.tag = torch.nn.Linear(elmo.get_output_dim(), 3)


def allennlp_state(files: tuple[Path, Path], mixes=MIXES, **tensors: np.ndarray) -> dict[str, torch.Tensor]:
    """A Tagger's state_dict as AllenNLP saves it, its Elmo built from ``files`` (numpy_elmo's
    AllenNLP loader arithmetic) with ``mixes`` and ``tensors`` (AllenNLP's names)."""
    options = json.loads(files[0].read_text())
    theirs = allennlp_bilm_parameters(read_datasets(files[1]), options)
    for k, (s, gamma) in enumerate(mixes):
        theirs.update(allennlp_scalar_mix(k, s, gamma))
    theirs.update(tensors)
    state = {f"elmo.{name}": torch.from_numpy(value) for name, value in theirs.items()}
    return {**state, "tag.weight": torch.ones(3, 32), "tag.bias": torch.zeros(3)}


def with_mixes(elmo: Elmo, mixes=MIXES) -> Elmo:
    with torch.no_grad():
        for mix, (s, gamma) in zip(elmo.scalar_mixes, mixes):
            mix.scalar_parameters.copy_(torch.tensor(s))
            mix.gamma.fill_(gamma)
    return elmo


def representations(elmo: Elmo, batches: list[list[list[str]]], words=None) -> list[torch.Tensor]:
    """Every representation of ``batches``, run statefully from a reset state."""
    elmo.reset_states()
    with torch.no_grad():
        return [r for batch in batches for r in elmo(batch_to_ids(batch), words)["elmo_representations"]]


@pytest.fixture
def other_files(files, tmp_path) -> tuple[Path, Path]:
    """Random weights of the fixture's options: an Elmo built from them holds none of the fixture's."""
    write_random_original(tmp_path / "other", json.loads(files[0].read_text()), seed=3)
    return tmp_path / "other" / "options.json", tmp_path / "other" / "weights.hdf5"


def test_an_allennlp_state_dict_loads_under_its_prefix_strictly_and_gives_the_elmo_of_its_weights(
    files, other_files, batches
):
    """AllenNLP's names, highway [transform; -carry], gate blocks i, f, j, o with the forget +1 in
    state_linearity.bias, (1,) mix parameters: all rewritten into ours, inside a module."""
    state = allennlp_state(files)
    kept = dict(state)
    tagger = Tagger(Elmo(*other_files, 2, dropout=0.0))
    tagger.load_state_dict(state)  # strict
    assert state.keys() == kept.keys(), "the caller's dict is not changed"
    expected = representations(with_mixes(Elmo(*files, 2, dropout=0.0)), batches[:3])
    got = representations(tagger.elmo, batches[:3])
    for ours, theirs in zip(got, expected, strict=True):
        torch.testing.assert_close(ours, theirs, atol=1e-6, rtol=0)
    again = Tagger(Elmo(*other_files, 2, dropout=0.0))
    again.load_state_dict(tagger.state_dict())  # our own layout loads as before
    for ours, theirs in zip(representations(again.elmo, batches[:3]), expected, strict=True):
        torch.testing.assert_close(ours, theirs, atol=1e-6, rtol=0)


def test_an_allennlp_state_dict_with_vocab_to_cache_loads_its_trained_rows_keeps_the_built_markers_and_zero_state(
    files, batches, tmp_path
):
    """As AllenNLP's Elmo after loading it: the word rows (trained) are the state_dict's, but for the
    padding row (zero, as built); <S> / </S> are the rows computed from the weight file when built
    (AllenNLP saves them not); the biLM starts from zero state (AllenNLP has no warm state)."""
    batch = [sentence[:6] for sentence in batches[0]]
    vocabulary = ["@@PADDING@@", "@@UNKNOWN@@", *sorted({word for sentence in batch for word in sentence})]
    words = torch.tensor([[vocabulary.index(w) for w in s] + [0] * (6 - len(s)) for s in batch])
    numpy_elmo = NumpyElmo(*files)
    rows = np.stack([numpy_elmo.token_layer(char_ids(word)) for word in vocabulary]).astype(np.float32)
    rows += np.random.default_rng(0).normal(0, 0.05, rows.shape).astype(np.float32)  # as if trained
    datasets = read_datasets(files[1])
    datasets["RNN_1/RNN/MultiRNNCell/Cell0/LSTMCell/W_0"] *= 1.2  # a biLM changed by training too
    (tmp_path / "trained").mkdir()
    with h5py.File(tmp_path / "trained" / "weights.hdf5", "w") as handle:
        for name, value in datasets.items():
            handle.create_dataset(name, data=value)
    trained = files[0], tmp_path / "trained" / "weights.hdf5"
    state = allennlp_state(trained, MIXES[:1], **{"_elmo_lstm._word_embedding.weight": rows})
    built = Elmo(*files, 1, dropout=0.0, vocab_to_cache=vocabulary)
    markers = built.bos_embedding.clone(), built.eos_embedding.clone()
    with torch.no_grad():
        built.model.warm_h.fill_(0.5)
    tagger = Tagger(built)
    tagger.load_state_dict(state)
    expected = with_mixes(Elmo(*trained, 1, dropout=0.0, vocab_to_cache=vocabulary), MIXES[:1])
    with torch.no_grad():
        expected.word_embedding.weight[1:] = torch.from_numpy(rows[1:])
    assert not built.model.warm_h.any() and not built.model.warm_c.any()
    assert torch.equal(built.bos_embedding, markers[0]) and torch.equal(built.eos_embedding, markers[1])
    assert not built.word_embedding.weight[0].any()
    for inputs in (words, None):  # the trained rows, and the char CNN with the trained biLM
        for ours, theirs in zip(representations(built, [batch], inputs), representations(expected, [batch], inputs)):
            torch.testing.assert_close(ours, theirs, atol=1e-6, rtol=0)


@pytest.mark.parametrize(
    "case, message",
    [
        (
            "projection_dim 8",
            "AllenNLP state_dict: parameters of other shapes than this Elmo's: "
            "elmo._elmo_lstm._token_embedder._projection.weight (16, 124) (this Elmo's: (8, 124)) and 13 more: build "
            "this Elmo as the AllenNLP one was built",
        ),
        (
            "one mix",
            "elmo.scalar_mix_1.scalar_parameters.0 and 3 more are not parameters of AllenNLP's Elmo with this "
            "Elmo's options, num_output_representations=1 and no vocab_to_cache",
        ),
        ("vocab_to_cache", "elmo._elmo_lstm._word_embedding.weight is not a parameter of AllenNLP's Elmo"),
        ("our warm state too", "elmo.model.warm_h is not a parameter of AllenNLP's Elmo"),
    ],
)
def test_an_allennlp_state_dict_that_does_not_fit_is_refused_in_one_line_before_anything_loads(
    files, other_files, tmp_path, case, message
):
    state = allennlp_state(files)
    if case == "projection_dim 8":
        options = json.loads(files[0].read_text())
        options["lstm"]["projection_dim"] = 8
        (tmp_path / "options.json").write_text(json.dumps(options))
        write_random_original(tmp_path / "small", options, seed=4)
        elmo = Elmo(tmp_path / "small" / "options.json", tmp_path / "small" / "weights.hdf5", 2)
    else:
        elmo = Elmo(*other_files, 1 if case == "one mix" else 2)
    if case == "vocab_to_cache":
        state["elmo._elmo_lstm._word_embedding.weight"] = torch.zeros(5, 16)
    if case == "our warm state too":
        state["elmo.model.warm_h"] = torch.zeros(2, 2, 16)
    before = {name: value.clone() for name, value in elmo.state_dict().items()}
    with pytest.raises(ElmoWeightsError, match=re.escape(message)) as error:
        Tagger(elmo).load_state_dict(state, strict=False)
    assert "\n" not in str(error.value)
    for name, value in elmo.state_dict().items():
        assert torch.equal(value, before[name]), f"{name} changed"


def test_strict_false_loads_what_an_allennlp_state_dict_holds_and_reports_the_rest(files, other_files):
    """torch's strict=False: what is absent is reported (ours missing), and AllenNLP's parameters
    that cannot be converted alone (input_linearity without state_linearity: both are W_0) are
    reported unexpected; strict=True refuses the same dict."""
    state = allennlp_state(files)
    lstm = "elmo._elmo_lstm._elmo_lstm.forward_layer_1"
    del state[f"{lstm}.state_linearity.weight"]
    for name in [name for name in state if name.startswith("elmo.scalar_mix_1.")]:
        del state[name]
    tagger = Tagger(Elmo(*other_files, 2, dropout=0.0))
    with pytest.raises(RuntimeError, match="Missing key"):
        Tagger(Elmo(*other_files, 2)).load_state_dict(state)
    missing, unexpected = tagger.load_state_dict(state, strict=False)
    layer = "elmo.model.bilm.forward_layers.1"
    assert sorted(missing) == sorted(
        [f"{layer}.input_linear.weight", f"{layer}.state_linear.weight"]
        + ["elmo.scalar_mix_1.scalar_parameters", "elmo.scalar_mix_1.gamma"]
    )
    assert unexpected == [f"{lstm}.input_linearity.weight"]
    absent = {name.removeprefix("elmo.model.") for name in missing}
    for name, value in Elmo(*files, 2).model.state_dict().items():
        if name not in absent:
            # atol: the forget bias is added by AllenNLP's loader and taken off here, in float32
            torch.testing.assert_close(tagger.elmo.model.state_dict()[name], value, atol=1e-6, rtol=0, msg=name)
    torch.testing.assert_close(tagger.elmo.scalar_mixes[0].gamma, torch.tensor(MIXES[0][1]))


def test_elmo_given_a_word_baseline_names_its_folder_and_says_it_reads_word_ids(word_baseline_folder):
    """Was: "this biLM embeds word ids (...), not char ids: Elmo runs a char-CNN biLM", naming no folder."""
    with pytest.raises(ValueError) as refused:
        Elmo(str(word_baseline_folder), None, num_output_representations=1)
    assert str(refused.value) == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; Elmo needs a char-CNN biLM"
    )
