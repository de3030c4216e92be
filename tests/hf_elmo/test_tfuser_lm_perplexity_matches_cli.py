"""A transformers user's perplexity: the shipped ``ElmoForBidirectionalLM``, loaded with
``from_pretrained`` (or ``AutoModelForPreTraining`` of the folder), run on a batch of
``collate_sentences`` (README, "Perplexity in Python"), gives the figures ``elmo perplexity --json``
gives for the same sentences, the word not in its vocabulary (<UNK>) included."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
import torch
from transformers import AutoModelForPreTraining

from hf_elmo import ElmoForBidirectionalLM
from hf_elmo.cli import main as elmo_main
from hf_elmo.loading import resolve_model
from hf_elmo.pretrained import DEFAULT_MODEL
from hf_elmo.training.data import collate_sentences
from hf_elmo.training.vocab import Vocabulary

SENTENCES = [
    ["The", "river", "flows", "into", "the", "sea", "."],
    ["Qwxzyv", "is", "not", "a", "word", "."],
    ["It", "rained", "."],
]


@pytest.fixture(scope="module")
def cli_figures(tmp_path_factory) -> dict[str, float]:
    text = tmp_path_factory.mktemp("ppl") / "text.txt"
    text.write_text("".join(" ".join(tokens) + "\n" for tokens in SENTENCES))

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert elmo_main(["perplexity", str(text), "--json", "--no-progress"]) == 0
    return json.loads(printed.getvalue().strip().splitlines()[-1])


@pytest.mark.parametrize(
    "load",
    [ElmoForBidirectionalLM.from_pretrained, lambda model: AutoModelForPreTraining.from_pretrained(str(model))],
    ids=["ElmoForBidirectionalLM", "AutoModelForPreTraining"],
)
def test_the_forward_of_a_collated_batch_gives_elmo_perplexitys_figures(load, cli_figures):
    lm = load(DEFAULT_MODEL)
    assert isinstance(lm, ElmoForBidirectionalLM) and not lm.training  # eval mode: the full softmax
    vocabulary = Vocabulary.from_file(DEFAULT_MODEL / "vocab.txt")
    assert vocabulary.unk_id in vocabulary.encode(SENTENCES[1])
    batch = collate_sentences(SENTENCES, vocabulary)
    with torch.no_grad():
        out = lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
    assert int(out.n_targets) == cli_figures["predictions"] == sum(len(tokens) + 1 for tokens in SENTENCES)
    assert float(out.forward_loss.exp()) == pytest.approx(cli_figures["forward"], rel=1e-5)
    assert float(out.backward_loss.exp()) == pytest.approx(cli_figures["backward"], rel=1e-5)
    assert float(out.loss.exp()) == pytest.approx(cli_figures["average"], rel=1e-5)


def test_a_line_of_more_than_100_tokens_is_scored_as_elmo_perplexity_cuts_it(tmp_path, capsys):
    """README: elmo perplexity cuts such a line into pieces of 100 tokens, each scored from the initial
    state, so the forward gives its figure on the pieces, not on the whole line."""
    tokens = ("the river flows into the sea and the sea flows into the river .".split() * 12)[:150]
    text = tmp_path / "long.txt"
    text.write_text(" ".join(tokens) + "\n")
    assert elmo_main(["perplexity", str(text), "--json", "--no-progress"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    lm = ElmoForBidirectionalLM.from_pretrained(DEFAULT_MODEL)
    vocabulary = Vocabulary.from_file(resolve_model("hf-elmo:elmo-2x1024-en").path / "vocab.txt")
    batch = collate_sentences([tokens[:100], tokens[100:]], vocabulary)
    with torch.no_grad():
        out = lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
    assert int(out.n_targets) == figures["predictions"] == 152
    assert float(out.loss.exp()) == pytest.approx(figures["average"], rel=1e-5)
