"""hf_elmo.Elmo, the drop-in for AllenNLP's ``allennlp.modules.elmo.Elmo``: its numbers against
AllenNLP's (the fixture's reference layers, and an independent NumPy version of AllenNLP's scalar
mix, layer norm, boundary removal and mask), its arguments and its errors.

scripts/check_parity.py --allennlp-python compares it with AllenNLP's own module when its venv exists.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch

from hf_elmo import Elmo, ElmoModel, batch_to_ids
from tests.numpy_elmo import NumpyElmo

TOLERANCE = 1e-5
README = Path(__file__).resolve().parents[2] / "README.md"


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


def test_the_readme_snippet_coming_from_allennlp_runs(files, tmp_path, monkeypatch):
    text = README.read_text()
    section = text[text.index("### Coming from AllenNLP") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    (tmp_path / "options.json").symlink_to(files[0])
    (tmp_path / "weights.hdf5").symlink_to(files[1])
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)  # noqa: S102
    assert len(namespace["out"]["elmo_representations"]) == 2
    assert [v.shape[:2] for v in namespace["vectors"]] == [(3, 3), (3, 2)]
    assert os.fspath(tmp_path) == os.getcwd()


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
