"""A model continued with `elmo pretrain --init-model` says so in its card, names its base model
(``base_model:`` for a Hub id), inherits its licence and attribution unless ``--license`` says
otherwise, and keeps its word splitting unless ``--pre-tokenizer`` says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from huggingface_hub import metadata_load
from transformers import AutoTokenizer

import hf_elmo.training.output as output
import hf_elmo.training.trainer as trainer
from hf_elmo.cli import main
from hf_elmo.loading import ModelSource
from hf_elmo.model_card import write_model_card
from hf_elmo.tokenization_elmo import ElmoTokenizer
from hf_elmo.training.vocab import VOCAB_FILE, build_vocabulary
from tests.hf_elmo.training.test_pretraining import tiny_lm, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")

ATTRIBUTION = "**Attribution.** Trained on text from Example Wiki (CC BY-SA 3.0), by its contributors."


def base_model(folder: Path, corpus: Path, *, license: str | None = "cc-by-sa-3.0", pre_tokenizer: str = "spacy:en"):
    """A tiny LM folder as `elmo pretrain` writes it, with a card (licence + attribution) when ``license``."""
    vocab = build_vocabulary(corpus.read_text().splitlines(), min_count=1)
    lm = tiny_lm(len(vocab))
    lm.config.pre_tokenizer = pre_tokenizer
    lm.save_pretrained(folder)
    vocab.save(folder / VOCAB_FILE)
    ElmoTokenizer(pre_tokenizer=pre_tokenizer).save_pretrained(folder)
    if license is not None:
        write_model_card(folder, "base", f"A base model.\n\n{ATTRIBUTION}", {}, license=license)


def continue_from(base: Path, corpus: Path, out: Path, *extra: str) -> None:
    args = ["pretrain", str(corpus), str(out), "--init-model", str(base), "--vocab", str(base / VOCAB_FILE)]
    args += ["--max-tokens", "60", "--tokens-per-batch", "64", "--num-sampled", "8", "--no-progress", *extra]
    assert main(args) == 0


def test_a_continued_models_card_names_its_base_and_carries_its_licence_and_attribution(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus)
    continue_from(tmp_path / "base", corpus, tmp_path / "out")
    card = (tmp_path / "out" / "README.md").read_text()
    assert metadata_load(tmp_path / "out" / "README.md")["license"] == "cc-by-sa-3.0"
    assert "continued from `base`" in card and "| continued from | base |" in card
    assert "from scratch" not in card
    assert ATTRIBUTION in card
    assert str(tmp_path) not in card  # a local base model is named by its folder name alone
    assert "base_model" not in card  # a local folder is no Hub id


def test_license_replaces_the_base_models_with_a_warning(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus)
    continue_from(tmp_path / "base", corpus, tmp_path / "out", "--license", "cc-by-sa-4.0")
    assert metadata_load(tmp_path / "out" / "README.md")["license"] == "cc-by-sa-4.0"
    assert "--license cc-by-sa-4.0 differs from the licence of --init-model" in capsys.readouterr().err
    assert ATTRIBUTION in (tmp_path / "out" / "README.md").read_text()  # the weights still derive from the base


def test_a_base_model_without_a_card_licence_gives_the_default_licence(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus, license=None)
    continue_from(tmp_path / "base", corpus, tmp_path / "out")
    assert metadata_load(tmp_path / "out" / "README.md")["license"] == "apache-2.0"
    assert "continued from `base`" in (tmp_path / "out" / "README.md").read_text()


def test_a_base_model_card_in_another_encoding_still_gives_its_licence_and_attribution(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus, license=None)
    card = f"---\nlicense: mit\n---\n\nMy caf\u00e9 model.\n\n{ATTRIBUTION}\n"
    (tmp_path / "base" / "README.md").write_bytes(card.encode("cp1252"))  # not UTF-8: 0xe9 for the accent
    continue_from(tmp_path / "base", corpus, tmp_path / "out")
    assert metadata_load(tmp_path / "out" / "README.md")["license"] == "mit"
    assert ATTRIBUTION in (tmp_path / "out" / "README.md").read_text()


def test_license_of_a_model_from_scratch_goes_into_its_card(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "out"
    args = ["pretrain", str(corpus), str(out), "--max-tokens", "60", "--tokens-per-batch", "64", "--min-count", "1"]
    args += ["--lstm-dim", "16", "--projection-dim", "8", "--filters", "[[1,4]]", "--num-sampled", "8"]
    assert main([*args, "--no-progress", "--license", "cc-by-sa-4.0"]) == 0
    assert metadata_load(out / "README.md")["license"] == "cc-by-sa-4.0"
    assert "pretrained from scratch" in (out / "README.md").read_text()


def test_a_license_that_is_no_hub_id_is_refused_before_anything_is_written(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    assert main(["pretrain", str(corpus), str(tmp_path / "out"), "--max-tokens", "60", "--license", "CC BY-SA"]) != 0
    assert "--license must be a Hub licence id" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.checkpoint").exists()


def test_a_hub_base_model_is_the_cards_base_model_metadata(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus)
    init = output.init_model_card(ModelSource("owner/elmo-base", tmp_path / "base", "transformers", "hub"))
    assert init == output.InitModelCard("owner/elmo-base", "owner/elmo-base", "cc-by-sa-3.0", ATTRIBUTION)
    write_model_card(tmp_path, "t", "d", {}, base_model=init.hub_id)
    assert metadata_load(tmp_path / "README.md")["base_model"] == "owner/elmo-base"


def test_a_base_model_folder_moved_during_the_run_still_gives_its_card_to_the_snapshot_and_the_model(
    tmp_path, monkeypatch
):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus)
    real_step, moved = trainer.train_step, []

    def step_then_move_the_base(*args, **kwargs):  # the user moves the base folder once training has started
        if not moved:
            moved.append((tmp_path / "base").rename(tmp_path / "moved"))
        return real_step(*args, **kwargs)

    monkeypatch.setattr(trainer, "train_step", step_then_move_the_base)
    continue_from(tmp_path / "base", corpus, tmp_path / "out", "--snapshot-tokens", "30")
    snapshot = tmp_path / "out.checkpoint" / "tokens-30"
    for folder in (snapshot, tmp_path / "out"):
        card = (folder / "README.md").read_text()
        assert metadata_load(folder / "README.md")["license"] == "cc-by-sa-3.0"
        assert "| continued from | base |" in card and ATTRIBUTION in card


def test_a_continued_model_keeps_its_bases_word_splitting(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base_model(tmp_path / "base", corpus, pre_tokenizer="spacy:en")
    continue_from(tmp_path / "base", corpus, tmp_path / "kept")
    assert AutoTokenizer.from_pretrained(tmp_path / "kept").pre_tokenizer == "spacy:en"
    assert "warning" not in capsys.readouterr().err
    continue_from(tmp_path / "base", corpus, tmp_path / "changed", "--pre-tokenizer", "whitespace")
    assert AutoTokenizer.from_pretrained(tmp_path / "changed").pre_tokenizer == "whitespace"
    assert "--pre-tokenizer whitespace differs from --init-model" in capsys.readouterr().err
