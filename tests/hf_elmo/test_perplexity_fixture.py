"""The fixture biLM with its softmax dump: loading, and a finite, stable perplexity."""

from __future__ import annotations

import json
import math

import pytest
import torch

from hf_elmo.cli import main as elmo_main
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.training.data import collate_sentences
from hf_elmo.training.evaluation import perplexity
from hf_elmo.training.vocab import Vocabulary


@pytest.fixture(scope="module")
def fixture_lm(allennlp_fixture):
    return ElmoForBidirectionalLM.from_allennlp_with_softmax(
        allennlp_fixture / "options.json",
        allennlp_fixture / "lm_weights.hdf5",
        allennlp_fixture / "elmo_softmax_weights.hdf5",
    )


@pytest.fixture(scope="module")
def fixture_sentences(allennlp_fixture):
    return [
        " ".join(s) if isinstance(s, list) else s
        for s in json.loads((allennlp_fixture / "sentences.json").read_text())[0]
    ]


def test_softmax_dump_loads_into_the_lm_with_the_biLM_unchanged(fixture_lm, allennlp_model, allennlp_fixture):
    import h5py

    with h5py.File(allennlp_fixture / "elmo_softmax_weights.hdf5", "r") as f:
        torch.testing.assert_close(fixture_lm.softmax.weight, torch.from_numpy(f["softmax/W"][...]))
        torch.testing.assert_close(fixture_lm.softmax.bias, torch.from_numpy(f["softmax/b"][...]))
    for name, value in allennlp_model.state_dict().items():
        torch.testing.assert_close(fixture_lm.elmo.state_dict()[name], value, rtol=0, atol=0)
    assert fixture_lm.config.vocab_size == len(Vocabulary.from_file(allennlp_fixture / "vocab_test.txt"))


def test_fixture_perplexity_is_finite_and_independent_of_batching(fixture_lm, fixture_sentences, allennlp_fixture):
    vocab = Vocabulary.from_file(allennlp_fixture / "vocab_test.txt")
    big = perplexity(fixture_lm, vocab, fixture_sentences, tokens_per_batch=4096)
    small = perplexity(fixture_lm, vocab, fixture_sentences, tokens_per_batch=40)
    again = perplexity(fixture_lm, vocab, fixture_sentences, tokens_per_batch=4096)
    for key in ("forward", "backward", "average"):
        assert math.isfinite(big[key]) and big[key] > 1.0  # the fixture is an untrained test model
        assert abs(big[key] - small[key]) <= 1e-4 * big[key]
        assert big[key] == again[key]
    # the perplexity is exp(mean CE) over every prediction, here recomputed one sentence at a time
    total, count = 0.0, 0
    for sentence in fixture_sentences:
        batch = collate_sentences([sentence.split()], vocab)
        with torch.no_grad():
            out = fixture_lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
        total += float(out.forward_loss) * int(out.n_targets)
        count += int(out.n_targets)
    assert count == big["predictions"]
    assert abs(math.exp(total / count) - big["forward"]) <= 1e-4 * big["forward"]


def test_perplexity_command_on_the_fixture(allennlp_fixture, fixture_sentences, tmp_path, capsys):
    text = tmp_path / "s.txt"
    text.write_text("\n".join(fixture_sentences) + "\n")
    code = elmo_main(
        [
            "perplexity",
            str(allennlp_fixture),
            str(text),
            "--json",
            "--softmax-weights",
            str(allennlp_fixture / "elmo_softmax_weights.hdf5"),
            "--vocab",
            str(allennlp_fixture / "vocab_test.txt"),
        ]
    )
    assert code == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert math.isfinite(figures["average"])
    assert figures["average"] == pytest.approx(math.sqrt(figures["forward"] * figures["backward"]))


def test_perplexity_command_refuses_a_model_without_softmax(allennlp_fixture, tmp_path, capsys):
    text = tmp_path / "s.txt"
    text.write_text("a b\n")
    assert elmo_main(["perplexity", str(allennlp_fixture), str(text)]) == 2
    assert "softmax" in capsys.readouterr().err
