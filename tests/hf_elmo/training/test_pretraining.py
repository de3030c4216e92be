"""Pretraining: the LM head's losses, the data pipeline, training, exact resume, bad corpora."""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import json
import lzma
import math
import random
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer

from hf_elmo import archives, loading
from hf_elmo.char_ids import (
    add_sentence_markers,
    batch_to_ids,
    begin_of_sentence_ids,
    end_of_sentence_ids,
)
from hf_elmo.cli import main as elmo_main
from hf_elmo.configuration_elmo import ElmoConfig
from hf_elmo.corpus import CorpusError, read_corpus, read_lines
from hf_elmo.embed import scan_input
from hf_elmo.fileio import strict_json
from hf_elmo.modeling_elmo import ElmoModel
from hf_elmo.modeling_lm import ElmoForBidirectionalLM, log_uniform_probabilities
from hf_elmo.training.data import SentenceBatcher, collate_sentences
from hf_elmo.training.evaluation import load_lm, perplexity, perplexity_from_json
from hf_elmo.training.model import build_model, make_optimizer
from hf_elmo.training.settings import NO_CLIP, PretrainSettings
from hf_elmo.training.trainer import pretrain, train_step
from hf_elmo.training.vocab import VOCAB_FILE, Vocabulary, build_vocabulary
from hf_elmo.word_splitting import split_words
from tests.conftest import strict_json_loads
from tests.hf_elmo.autograd_probe import training_step
from tests.numpy_elmo import small_options, write_random_original

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models run fastest on one thread

TINY_LSTM = dict(lstm_dim=16, projection_dim=8, n_layers=2)
TINY = dict(filters=[[1, 4], [2, 8]], n_highway=1, char_embedding_dim=4, **TINY_LSTM)
#: A tiny biLM as `elmo pretrain` options, for the tests that run the command; the word-embedding
#: baseline's, without the char CNN's (--filters), which it refuses.
TINY_WORD_SHAPE_ARGS = ["--preset", "cpu", "--lstm-dim", "16", "--projection-dim", "8"]
TINY_SHAPE_ARGS = [*TINY_WORD_SHAPE_ARGS, "--filters", "[[1,4],[2,8]]"]


def write_corpus(path: Path, n: int = 120, seed: int = 0) -> Path:
    """A toy language with structure to learn: subject verb object ."""
    rng = random.Random(seed)
    subjects, verbs, objects = (
        ["the cat", "a dog", "my friend", "the old man"],
        ["sees", "likes", "takes"],
        ["the ball", "a stick", "some bread", "the red box"],
    )
    lines = [f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)} ." for _ in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def tiny_lm(vocab_size: int, **extra) -> ElmoForBidirectionalLM:
    torch.manual_seed(0)
    return ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=vocab_size, **{"softmax": "full", **extra}))


# -- vocabulary and data -------------------------------------------------------------------------
def test_vocabulary_puts_specials_first_then_words_by_frequency():
    vocab = build_vocabulary(["b a a", "c a b", "d"], max_size=5, min_count=1)
    assert vocab.words == ["<S>", "</S>", "<UNK>", "a", "b"]
    assert vocab.encode(["a", "zzz"]) == [3, vocab.unk_id]
    assert build_vocabulary(["b a a", "c a b"], min_count=2).words[3:] == ["a", "b"]


def test_a_min_count_above_every_words_count_names_the_option_and_the_count_that_would_do(tmp_path, capsys):
    with pytest.raises(ValueError, match=r"^no word of the training text occurs 3 times or more, as --min-count 3 "):
        build_vocabulary(["the cat sat on the mat"], min_count=3)
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat\n")
    assert elmo_main(["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", "--no-progress"]) == 2
    message = capsys.readouterr().err.strip()
    assert message.endswith(
        f"error: {corpus}: no word of the training text occurs 3 times or more, as --min-count 3 asks of each word "
        "of the vocabulary (the most frequent occurs 2 times): give --min-count 2 or less, train on more text, or "
        "give --vocab FILE"
    )


def test_frequency_rank_correlation_is_negative_for_a_vocabulary_by_count_of_other_text_and_near_0_out_of_order(
    shared,
):
    """What `elmo pretrain`'s warning of a --vocab out of frequency order measures
    (trainer.ORDER_CORRELATION): our builder's vocabulary of PTB against WikiText-2's counts (other text,
    split and cased otherwise) is well below it; the same words alphabetically or shuffled are about 0."""
    from hf_elmo.training.trainer import ORDER_CORRELATION

    by_count = build_vocabulary(read_lines(shared / "data" / "ptb" / "ptb.train.txt"))
    counts: Counter = Counter()
    for line in read_lines(shared / "data" / "wikitext-2" / "wiki.valid.tokens"):
        counts.update(line.split())
    words = by_count.words[3:]
    shuffled = words[:]
    random.Random(0).shuffle(shuffled)
    assert by_count.frequency_rank_correlation(counts) < -0.4 < ORDER_CORRELATION
    for order in (sorted(words), shuffled):
        correlation = Vocabulary(["<S>", "</S>", "<UNK>", *order]).frequency_rank_correlation(counts)
        assert ORDER_CORRELATION < correlation < 0.2
    assert by_count.frequency_rank_correlation({"the": 5, "a": 5, "<S>": 9}) is None  # the counts all the same
    assert by_count.frequency_rank_correlation(counts, min_words=len(counts) + 1) is None


def test_vocabulary_file_needs_the_special_words(tmp_path):
    (tmp_path / "v.txt").write_text("<S>\n</S>\nword\n")
    with pytest.raises(ValueError, match="<UNK>"):
        Vocabulary.from_file(tmp_path / "v.txt")


def test_a_byte_order_mark_at_the_start_of_a_vocabulary_file_is_not_read_into_its_first_word(tmp_path):
    (tmp_path / "v.txt").write_bytes("\ufeff<S>\n</S>\n<UNK>\nword\n".encode())
    assert Vocabulary.from_file(tmp_path / "v.txt").words == ["<S>", "</S>", "<UNK>", "word"]


def test_a_byte_order_mark_at_the_start_of_any_line_of_a_vocabulary_file_is_dropped_as_read_lines_drops_it(tmp_path):
    """'cat a.txt b.txt' of files saved with a mark. Was: the second's read into its first word, '\ufeffword'."""
    (tmp_path / "v.txt").write_bytes("\ufeff<S>\n</S>\n<UNK>\n".encode() + "\ufeffword 12\r\nother\n".encode())
    assert Vocabulary.from_file(tmp_path / "v.txt").words == ["<S>", "</S>", "<UNK>", "word", "other"]


def test_a_utf16_vocabulary_file_is_refused_as_utf16_saying_how_to_convert_it(tmp_path, capsys):
    """Was: "V is not UTF-8 text: 'utf-8' codec can't decode byte 0xff in position 0"."""
    vocab = tmp_path / "v.txt"
    vocab.write_bytes("\ufeff<S>\r\n</S>\r\n<UNK>\r\nthe\r\n".encode("utf-16-le"))  # as PowerShell's > writes
    said = (
        f"{vocab} is UTF-16 text (it starts with the byte-order mark FF FE), not UTF-8: convert it, "
        f"e.g. iconv -f UTF-16 -t UTF-8 {vocab} > {tmp_path / 'v-utf8.txt'}"
    )
    with pytest.raises(CorpusError) as refused:
        Vocabulary.from_file(vocab)
    assert str(refused.value) == said
    corpus, out = write_corpus(tmp_path / "c.txt", n=5), tmp_path / "model"
    assert elmo_main(["pretrain", str(corpus), str(out), "--vocab", str(vocab), "--epochs", "1", "--no-progress"]) == 2
    assert said in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "model.checkpoint").exists()


@pytest.mark.parametrize(
    "line, problem",
    [(b"caf\xe9", r"not valid UTF-8 \(byte 0xe9 at character 4\)"), (b"a\x00b", r"NUL byte at character 2 \(binary")],
    ids=["invalid-UTF-8", "NUL"],
)
def test_a_bad_line_of_a_vocabulary_file_is_named_by_its_line_number(tmp_path, line, problem):
    """Was: "V is not UTF-8 text: 'utf-8' codec can't decode byte 0xe9 in position 17" (no line), and a
    NUL byte read into a word."""
    (tmp_path / "v.txt").write_bytes(b"<S>\n</S>\n<UNK>\n" + line + b"\n")
    with pytest.raises(ValueError, match=rf"v.txt:4: {problem}.*; the vocabulary file must be UTF-8 text$"):
        Vocabulary.from_file(tmp_path / "v.txt")


def test_a_vocabulary_file_with_counts_before_the_words_is_named_as_such_and_counts_after_them_are_read(tmp_path):
    """Was: 'vocabulary lists '36' twice (ids 9 and 10)' for the output of sort | uniq -c | sort -rn,
    or, with counts all different, a vocabulary of counts (every word of the corpus <UNK>)."""
    path = tmp_path / "v.txt"
    path.write_text("<S>\n</S>\n<UNK>\n    122 the\n    120 .\n     36 cat\n")
    with pytest.raises(ValueError) as refused:
        Vocabulary.from_file(path)
    assert str(refused.value) == (
        f"{path}:4: '122 the' is a count before its word (as uniq -c writes it); a line of a vocabulary file is "
        "its word, optionally followed by its count: swap the columns, e.g. awk '{print $2, $1}'"
    )
    path.write_text("<S>\n</S>\n<UNK>\nthe 122\n1999 36\n12 0.5\n")  # words, then counts (or scores)
    assert Vocabulary.from_file(path).words == ["<S>", "</S>", "<UNK>", "the", "1999", "12"]


def test_a_vocabulary_file_that_lists_a_word_twice_names_both_lines(tmp_path):
    """Was: "vocabulary lists 'cat' twice (ids 3 and 4)": ids, which a blank line sets apart from the
    file's line numbers."""
    path = tmp_path / "v.txt"
    path.write_text("<S>\n</S>\n<UNK>\ncat 5\n\ncat 3\n")
    with pytest.raises(ValueError) as refused:
        Vocabulary.from_file(path)
    assert str(refused.value) == (
        f"{path}:6: 'cat' is listed again, first on line 4; a vocabulary file lists each word once (its place in "
        "the list is its id): delete one of the two lines"
    )


def test_a_vocabulary_file_of_the_special_words_alone_is_refused_naming_it(tmp_path, capsys):
    """Was: 'ElmoConfig.vocab_size must be in 4..10000000, got 3', naming neither the file nor what it lacks."""
    vocab = tmp_path / "v.txt"
    vocab.write_text("<S>\n</S>\n<UNK>\n")
    corpus, out = write_corpus(tmp_path / "c.txt", n=5), tmp_path / "model"
    assert elmo_main(["pretrain", str(corpus), str(out), "--vocab", str(vocab), "--epochs", "1", "--no-progress"]) == 2
    assert capsys.readouterr().err.endswith(
        f"error: {vocab}: vocabulary holds the special words <S>, </S> and <UNK> alone: list the text's words too\n"
    )
    assert not out.exists() and not (tmp_path / "model.checkpoint").exists()


def test_batches_cover_every_sentence_once_per_epoch_within_the_token_budget(tmp_path):
    sentences = read_corpus(write_corpus(tmp_path / "c.txt", n=200))
    vocab = build_vocabulary(sentences)
    batcher = SentenceBatcher(sentences, vocab, tokens_per_batch=64, seed=3)
    batches = batcher.epoch_batches(0)
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(sentences)))
    assert all(len(b) * (batcher.lengths[b].max() + 2) <= 64 for b in batches)
    assert [b.tolist() for b in batcher.epoch_batches(0)] == [b.tolist() for b in batches]  # resumable
    assert [b.tolist() for b in batcher.epoch_batches(1)] != [b.tolist() for b in batches]  # reshuffled


@pytest.mark.parametrize("world", [2, 3])
def test_ranks_take_the_epochs_batches_in_turn_as_many_each_and_every_sentence_is_seen(tmp_path, world):
    sentences = read_corpus(write_corpus(tmp_path / "c.txt", n=200))
    vocab = build_vocabulary(sentences)
    whole = SentenceBatcher(sentences, vocab, 56, seed=3).epoch_batches(0)  # 31 batches
    padding = -len(whole) % world
    assert padding  # the corpus's batches do not divide evenly: the case that used to drop sentences
    ranks = [
        SentenceBatcher(sentences, vocab, 56, seed=3, rank=r, world_size=world).epoch_batches(0) for r in range(world)
    ]
    assert {len(batches) for batches in ranks} == {(len(whole) + padding) // world}
    dealt = [batch.tolist() for step in zip(*ranks) for batch in step]
    assert dealt == [batch.tolist() for batch in whole + whole[:padding]]  # the epoch's first batches again
    assert sorted(set(np.concatenate(dealt).tolist())) == list(range(len(sentences)))


@pytest.mark.parametrize("epochs", [1, 2, 1.5])
def test_an_epochs_budget_counts_the_batches_dealt_again_so_a_ddp_run_ends_with_its_last_epoch(tmp_path, epochs):
    sentences = read_corpus(write_corpus(tmp_path / "c.txt", n=200))
    vocab = build_vocabulary(sentences)
    ranks = [SentenceBatcher(sentences, vocab, 56, seed=3, rank=r, world_size=3) for r in range(3)]  # 31 batches
    dealt = [
        sum(int(batcher.lengths[batch].sum()) for batcher in ranks for batch in batcher.epoch_batches(epoch))
        for epoch in range(math.ceil(epochs))
    ]
    assert all(words > ranks[0].n_words for words in dealt)  # two batches dealt again each epoch
    budget = ranks[0].words_in_epochs(epochs)
    if epochs == int(epochs):
        assert budget == sum(dealt)  # reached at the last step of the last epoch, not before
    else:
        assert sum(dealt[:-1]) < budget < sum(dealt)
    one = SentenceBatcher(sentences, vocab, 56, seed=3)
    assert one.words_in_epochs(epochs) == int(epochs * one.n_words)  # one process: no batch dealt again


def test_fewer_batches_than_processes_is_refused_naming_both():
    vocab = build_vocabulary(["a b c"])
    with pytest.raises(ValueError, match=r"make 1 batch\(es\) of up to 64 tokens .* fewer than the 2 processes"):
        SentenceBatcher(["a b c"], vocab, 64, rank=1, world_size=2).epoch_batches(0)


def test_collate_wraps_sentences_in_markers_with_labels_for_both_directions():
    vocab = build_vocabulary(["a b c"])
    batch = collate_sentences([["a", "b"], ["c"]], vocab)
    assert batch.input_ids.shape == (2, 4, 50) and batch.lengths.tolist() == [4, 3]
    a, b, c = vocab.encode(["a", "b", "c"])
    assert batch.labels.tolist() == [[vocab.bos_id, a, b, vocab.eos_id], [vocab.bos_id, c, vocab.eos_id, -100]]
    assert batch.n_words == 3


def test_literal_marker_words_in_a_corpus_are_the_markers_for_inputs_and_labels_as_in_bilm_tf():
    vocab = build_vocabulary(["a <S> b </S>"])
    batch = collate_sentences([["a", "<S>", "</S>"]], vocab)
    assert batch.labels[0].tolist() == [vocab.bos_id, vocab.encode(["a"])[0], vocab.bos_id, vocab.eos_id, vocab.eos_id]
    assert torch.equal(batch.input_ids[0, 2], batch.input_ids[0, 0])  # the word <S> reads as the marker
    assert torch.equal(batch.input_ids[0, 3], batch.input_ids[0, 4])


def test_sentence_markers_go_where_add_sentence_markers_puts_them():
    ids = torch.tensor([[5, 6, 7], [8, 0, 0]])
    assert add_sentence_markers(ids, torch.tensor([3, 1]), 1, 2).tolist() == [[1, 5, 6, 7, 2], [1, 8, 2, 0, 0]]
    labels = torch.tensor([[5, -100], [-100, -100]])
    assert add_sentence_markers(labels, torch.tensor([1, 0]), 1, 2, fill=-100).tolist() == [
        [1, 5, 2, -100],
        [1, 2, -100, -100],
    ]
    chars = add_sentence_markers(batch_to_ids([["a", "b"], ["c"]]), torch.tensor([2, 1]))  # default: <S>, </S> char ids
    assert chars[0, 0].tolist() == begin_of_sentence_ids() and chars[0, 3].tolist() == end_of_sentence_ids()
    assert chars[1, 2].tolist() == end_of_sentence_ids() and not chars[1, 3].any()
    with pytest.raises(ValueError, match="needs begin and end ids for"):
        add_sentence_markers(ids, torch.tensor([3, 1]))


def test_training_batches_hold_the_char_ids_the_model_embeds_at_inference():
    """The LM data and ``ElmoModel.forward`` wrap sentences the same way: the model's layers are
    ``encode`` of the training batch's char ids, markers cut off."""
    sentences = [["The", "cat", "sat"], ["naïve"]]
    vocab = build_vocabulary([" ".join(s) for s in sentences])
    batch = collate_sentences(sentences, vocab)
    ids = batch_to_ids(sentences)
    assert torch.equal(batch.input_ids, add_sentence_markers(ids, torch.tensor([3, 1])))
    model = ElmoModel(ElmoConfig(**TINY)).eval()
    with torch.no_grad():
        inference = model(input_ids=ids).hidden_states
        training = model.encode(batch.input_ids, batch.lengths)[0]
    for got, layer in zip(inference, training):
        torch.testing.assert_close(got, layer[:, 1:4] * (ids > 0).any(-1, keepdim=True), rtol=0, atol=0)


# -- the LM head ----------------------------------------------------------------------------------
def explicit_lm_losses(model, input_ids, lengths, labels) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    """Each direction's mean cross-entropy and count, one prediction at a time: the forward LM
    predicts labels[t + 1] from step t, the backward LM labels[t] from step t + 1, within each
    row's length; a -100 label is no target."""
    top = model.elmo.encode(input_ids, lengths)[0][-1]  # the char CNN per slot, as ElmoModel does
    p = model.config.projection_dim
    fwd, bwd = [], []
    for row, length in enumerate(lengths.tolist()):
        ids = labels[row].tolist()
        for t in range(length - 1):
            if ids[t + 1] != -100:
                logits = top[row, t, :p] @ model.softmax.weight.T + model.softmax.bias
                fwd.append(-torch.log_softmax(logits, -1)[ids[t + 1]])
            if ids[t] != -100:
                logits = top[row, t + 1, p:] @ model.softmax.weight.T + model.softmax.bias
                bwd.append(-torch.log_softmax(logits, -1)[ids[t]])
    return torch.stack(fwd).mean(), torch.stack(bwd).mean(), len(fwd), len(bwd)


def test_lm_loss_is_the_mean_of_both_directions_explicit_cross_entropies():
    vocab = build_vocabulary(["a b c d e"])
    model = tiny_lm(len(vocab)).eval()
    batch = collate_sentences([["a", "b", "c"], ["d"]], vocab)
    out = model(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
    forward, backward, n_forward, n_backward = explicit_lm_losses(model, batch.input_ids, batch.lengths, batch.labels)
    torch.testing.assert_close(out.forward_loss, forward, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out.backward_loss, backward, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out.loss, 0.5 * (out.forward_loss + out.backward_loss))
    assert int(out.n_targets) == n_forward == n_backward == 3 + 1 + 1 + 1


def test_a_minus_100_label_inside_a_row_is_no_target_in_either_direction_and_labels_past_a_row_are_not_read():
    vocab = build_vocabulary(["a b c d e"])
    model = tiny_lm(len(vocab)).eval()
    batch = collate_sentences([["a", "b", "c", "d"], ["e"]], vocab)
    labels = batch.labels.clone()
    labels[0, 2] = -100  # "b": neither the forward LM (from "a") nor the backward LM (from "c") predicts it
    labels[1, 3:] = torch.tensor([vocab.encode(["a"])[0], -1, len(vocab)])  # past the row's 3 steps: never read
    out = model(input_ids=batch.input_ids, lengths=batch.lengths, labels=labels)
    forward, backward, n_forward, _ = explicit_lm_losses(model, batch.input_ids, batch.lengths, labels)
    torch.testing.assert_close(out.forward_loss, forward, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out.backward_loss, backward, rtol=1e-5, atol=1e-6)
    assert int(out.n_targets) == n_forward == 4 + 2
    model.config.softmax, model.config.num_sampled = "sampled", 4
    sampled = model.train()(input_ids=batch.input_ids, lengths=batch.lengths, labels=labels)
    assert torch.isfinite(sampled.loss)


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda ids, lengths, labels: (ids, lengths.tolist(), labels),
            "lengths must be a torch.Tensor, got the list [6, 3]",
        ),
        (
            lambda ids, lengths, labels: (ids, lengths, labels.tolist()),
            "labels must be a torch.Tensor, got the list [[",
        ),
        (lambda ids, lengths, labels: (ids.float(), lengths, labels), "input_ids must be an integer tensor"),
        (lambda ids, lengths, labels: (ids.to(torch.uint8), lengths, labels), "input_ids must be an integer tensor"),
        (lambda ids, lengths, labels: (ids[:, :0], lengths, labels[:, :0]), "empty batch: input_ids (2, 0, 50)"),
        (lambda ids, lengths, labels: (ids[..., 0], lengths, labels), "input_ids must have shape (batch, steps, 50)"),
        (lambda ids, lengths, labels: (ids, lengths[:1], labels), "lengths must have shape (batch,) = (2,)"),
        (lambda ids, lengths, labels: (ids, lengths + 4, labels), "lengths[0] is 10: each row's steps lie in 1..6"),
        (lambda ids, lengths, labels: (ids + 300, lengths, labels), "char ids lie in 0..261"),
        (lambda ids, lengths, labels: (ids, lengths, labels + 50), "labels are vocabulary ids 0..7, or -100"),
        (
            lambda ids, lengths, labels: (ids, lengths, labels[:, 1:]),
            "labels (2, 5) must match input_ids' (batch, steps)",
        ),
    ],
)
def test_bad_lm_inputs_are_one_line_naming_the_argument(edit, message):
    vocab = build_vocabulary(["a b c d e"])
    model = tiny_lm(len(vocab)).eval()
    batch = collate_sentences([["a", "b", "c", "d"], ["e"]], vocab)
    input_ids, lengths, labels = edit(batch.input_ids, batch.lengths, batch.labels)
    with pytest.raises((TypeError, ValueError)) as raised:
        model(input_ids=input_ids, lengths=lengths, labels=labels)
    assert message in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("token_embedding", ["char_cnn", "word"])
def test_activation_checkpointing_gives_the_lm_the_same_sampled_loss_and_gradients(token_embedding):
    """The LM had no activation checkpointing ('does not support'); now its biLM's parts are
    checkpointed, and the sampled softmax's candidates and the dropout masks are drawn as without."""
    vocab = build_vocabulary(["the cat sat on the mat", "a dog ran far"])
    model = tiny_lm(len(vocab), token_embedding=token_embedding, softmax="sampled", num_sampled=4, dropout=0.3)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(std=0.5)
    sentences = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog"]]
    batch = collate_sentences(sentences, vocab, word_inputs=token_embedding == "word")

    def step():
        return training_step(
            model, lambda: model(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels).loss
        )

    loss, gradients, _ = step()
    model.activation_checkpointing_enable()
    checkpointed_loss, checkpointed_gradients, _ = step()
    torch.testing.assert_close(checkpointed_loss, loss, rtol=0, atol=1e-6)
    assert checkpointed_gradients.keys() == gradients.keys() == {name for name, _ in model.named_parameters()}
    for name, gradient in gradients.items():
        torch.testing.assert_close(checkpointed_gradients[name], gradient, rtol=0, atol=1e-6, msg=name)


@pytest.mark.parametrize("checkpointing", [False, True], ids=["", "checkpointed"])
@pytest.mark.parametrize("implementation", ["plain", "fast", "fused"])
def test_output_hidden_states_returns_the_biLM_layers_the_loss_came_from_on_every_path(implementation, checkpointing):
    """The LM took no output_hidden_states (a TypeError, where ElmoModel and the task heads take
    it); now, as they do, the biLM's layers come back when asked (argument or config), in the tuple
    too, from the one biLM run that gave the loss (its graph included), and attentions is None."""
    vocab = build_vocabulary(["the cat sat on the mat", "a dog ran far"])
    model = tiny_lm(
        len(vocab),
        bilm_implementation=implementation,
        cell_clip=None,
        proj_clip=None,
        softmax="sampled",
        num_sampled=4,
        dropout=0.3,
    )
    if checkpointing:
        model.activation_checkpointing_enable()
    batch = collate_sentences([["the", "cat", "sat", "on", "the", "mat"], ["a", "dog"]], vocab)
    runs = []
    model.elmo.bilm.register_forward_hook(lambda *_: runs.append(1))

    def lm(**options):
        torch.manual_seed(1)  # the same dropout masks and sampled candidates
        return model(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels, **options)

    plain = lm()
    asked = lm(output_hidden_states=True, output_attentions=False)
    as_tuple = lm(output_hidden_states=True, return_dict=False)
    model.config.output_hidden_states = True
    by_config = lm()
    assert len(runs) == 4  # one biLM run a call
    with pytest.raises(ValueError, match="^ELMo has no attention"):
        lm(output_attentions=True)
    model.config.output_attentions = True  # as from_pretrained(name, output_attentions=True) sets it
    with pytest.raises(ValueError, match="^ELMo has no attention.*its config sets output_attentions"):
        lm()
    assert lm(output_attentions=False).attentions is None
    model.config.output_attentions = False
    assert plain.hidden_states is None and plain.attentions is None and len(plain.to_tuple()) == 5
    assert asked.attentions is None and len(as_tuple) == 6
    steps = batch.input_ids.shape[1]
    assert [layer.shape for layer in asked.hidden_states] == [(2, steps, 2 * model.config.projection_dim)] * 3
    for got in (as_tuple[5], by_config.hidden_states):
        for layer, expected in zip(got, asked.hidden_states, strict=True):
            torch.testing.assert_close(layer, expected, rtol=0, atol=0)
    for loss in (asked.loss, as_tuple[0], by_config.loss):
        torch.testing.assert_close(loss, plain.loss, rtol=0, atol=0)
    assert not asked.hidden_states[-1][1, int(batch.lengths[1]) :].any()  # zero beyond the row's length
    (top_gradient,) = torch.autograd.grad(asked.loss, asked.hidden_states[-1])
    assert top_gradient.abs().sum() > 0  # the layer the softmax read, in the loss's graph
    model.eval()
    with torch.no_grad():
        layers, _ = model.elmo.encode(batch.input_ids, batch.lengths)
        evaluated = lm().hidden_states
    for layer, expected in zip(evaluated, layers, strict=True):
        torch.testing.assert_close(layer, expected, rtol=0, atol=0)


@pytest.mark.parametrize("token_embedding", ["char_cnn", "word"])
def test_resizing_an_lms_word_vocabulary_is_refused_saying_to_pretrain_on_one_with_the_new_words(token_embedding):
    """Was: 'ELMo has no word vocabulary to resize', untrue of the softmax's (and the baseline's) words."""
    lm = tiny_lm(10, token_embedding=token_embedding)
    models = (lm, lm.elmo) if token_embedding == "word" else (lm,)
    for model in models:
        with pytest.raises(
            ValueError,
            match=r"^resize_token_embeddings is not supported: this model's word vocabulary "
            r"\(10 words, its vocab.txt\) .* \(elmo pretrain --vocab FILE\)$",
        ):
            model.resize_token_embeddings(12)


@pytest.mark.parametrize("token_embedding", ["char_cnn", "word"])
def test_lm_loss_is_the_softmax_over_the_saved_biLM_alone(tmp_path, token_embedding):
    """The LM is ``ElmoModel.encode`` + the word softmax: the biLM loaded alone from the LM's folder
    (``ElmoModel.from_pretrained``, word embedding included) gives the same loss, from any state."""
    vocab = build_vocabulary(["a b c d e"])
    lm = tiny_lm(len(vocab), token_embedding=token_embedding).eval()
    lm.save_pretrained(tmp_path)
    bilm = ElmoModel.from_pretrained(tmp_path).eval()
    batch = collate_sentences([["a", "b", "c"], ["d", "e"], ["a"]], vocab, word_inputs=token_embedding == "word")
    inputs = batch.input_ids
    first = lm(input_ids=inputs, lengths=batch.lengths, labels=batch.labels)
    for state in (None, first.final_state):  # the initial state, then the state carried from a window
        out = lm(input_ids=inputs, lengths=batch.lengths, labels=batch.labels, initial_state=state)
        with torch.no_grad():
            layers, final = bilm.encode(inputs, batch.lengths, state)
        top, p = layers[-1], lm.config.projection_dim
        keep = batch.labels[:, 1:] != -100
        logits = [
            torch.nn.functional.linear(h[keep], lm.softmax.weight, lm.softmax.bias)
            for h in (top[:, :-1, :p], top[:, 1:, p:])
        ]
        forward = torch.nn.functional.cross_entropy(logits[0], batch.labels[:, 1:][keep])
        backward = torch.nn.functional.cross_entropy(logits[1], batch.labels[:, :-1][keep])
        torch.testing.assert_close(out.forward_loss, forward, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(out.backward_loss, backward, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(out.final_state.h, final.h, rtol=1e-5, atol=1e-6)
    assert bilm.initial_state(3).h.shape == (2, lm.config.n_layers, 3, lm.config.projection_dim)


def test_the_word_baseline_biLM_refuses_char_ids_with_one_line():
    lm = tiny_lm(10, token_embedding="word")
    assert not hasattr(lm.elmo, "char_cnn")  # its token embedder is the word embedding alone
    with pytest.raises(
        ValueError, match=r"^the model: this biLM embeds word ids \(token_embedding='word'.*call encode"
    ):
        lm.elmo(input_ids=torch.ones(1, 2, 50, dtype=torch.long))


@pytest.mark.parametrize("folder", ["lm", "bilm"])
def test_the_word_baseline_does_not_continue_a_char_cnn_biLM(tmp_path, folder):
    vocab = build_vocabulary(["a b c"])
    tiny_lm(len(vocab)).save_pretrained(tmp_path / "lm")
    vocab.save(tmp_path / "lm" / VOCAB_FILE)
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(tmp_path / "bilm")
    settings = settings_for(tmp_path, tmp_path / "c.txt", init_model=str(tmp_path / folder), token_embedding="word")
    with pytest.raises(
        ValueError,
        match=r"^--token-embedding word differs from --init-model \S+, which embeds tokens with 'char_cnn': "
        r"a continued model keeps its own; drop --token-embedding$",
    ):
        build_model(settings, vocab)
    settings = settings_for(tmp_path, tmp_path / "c.txt", init_model=str(tmp_path / folder))
    assert build_model(settings, vocab).config.token_embedding == "char_cnn"


def test_continuing_an_lm_folder_takes_the_runs_softmax_dropout_and_num_sampled(tmp_path):
    vocab = build_vocabulary(["a b c d e"])
    saved = tiny_lm(len(vocab), softmax="full", num_sampled=8, dropout=0.0)
    saved.save_pretrained(tmp_path / "lm")
    vocab.save(tmp_path / "lm" / VOCAB_FILE)
    settings = settings_for(tmp_path, tmp_path / "c.txt", init_model=str(tmp_path / "lm"), dropout=0.3)
    model = build_model(settings, vocab)
    assert (model.config.softmax, model.config.num_sampled, model.config.dropout) == ("sampled", 16, 0.3)
    assert model.elmo.bilm.dropout.p == 0.3  # the module built from the run's config, not the saved one
    torch.testing.assert_close(model.state_dict(), saved.state_dict(), rtol=0, atol=0)
    unchanged = build_model(
        settings_for(tmp_path, tmp_path / "c.txt", init_model=str(tmp_path / "lm"), num_sampled=None), vocab
    )
    assert unchanged.config.num_sampled == 8  # not given: the saved LM's own number


@pytest.mark.parametrize("folder", ["lm", "bilm"])
@pytest.mark.parametrize(
    "change, message",
    [
        (
            dict(config_overrides={**TINY, "lstm_dim": 32}),
            r"^--lstm-dim cannot change the shape of --init-model \S+ "
            r"\(lstm_dim 32, not its 16\): a continued model keeps its own; drop it$",
        ),
        (dict(config_overrides={**TINY, "filters": [[1, 4]]}), r"^--filters cannot change the shape of --init-model"),
        (
            dict(preset="small", config_overrides={}),
            r"^--preset small cannot change the shape of --init-model \S+ \(filters ",
        ),
        (
            dict(config_overrides={**TINY, **NO_CLIP}),
            r"^--no-clip cannot take the clipping out of --init-model \S+ "
            r"\(cell_clip=3.0, proj_clip=3.0\): .*; drop --no-clip$",
        ),
    ],
    ids=["lstm-dim", "filters", "preset", "no-clip"],
)
def test_continuing_a_model_refuses_options_that_would_change_its_shape_or_clipping(tmp_path, folder, change, message):
    vocab = build_vocabulary(["a b c d e"])
    tiny_lm(len(vocab)).save_pretrained(tmp_path / "lm")
    vocab.save(tmp_path / "lm" / VOCAB_FILE)
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(tmp_path / "bilm")
    settings = settings_for(tmp_path, tmp_path / "c.txt", init_model=str(tmp_path / folder), **change)
    with pytest.raises(ValueError, match=message):
        build_model(settings, vocab)


def test_no_clip_continues_a_model_that_is_already_clip_free(tmp_path):
    vocab = build_vocabulary(["a b c d e"])
    tiny_lm(len(vocab), **NO_CLIP).save_pretrained(tmp_path / "lm")
    vocab.save(tmp_path / "lm" / VOCAB_FILE)
    settings = settings_for(tmp_path, tmp_path / "c.txt", init_model=str(tmp_path / "lm"))
    settings.config_overrides = {**TINY, **NO_CLIP}  # the same shape (TINY), asked again, is no change either
    model = build_model(settings, vocab)
    assert (model.config.cell_clip, model.config.proj_clip, model.config.lstm_dim) == (None, None, 16)


def test_a_word_baseline_folder_saved_before_the_embedding_moved_into_the_biLM_loads(tmp_path):
    """Older folders hold ``word_embedding.weight`` beside ``elmo.*`` and an unused ``elmo.char_cnn``."""
    from safetensors.torch import load_file, save_file

    vocab = build_vocabulary(["a b c d e"])
    lm = tiny_lm(len(vocab), token_embedding="word", softmax="full").eval()
    lm.save_pretrained(tmp_path)
    weights = load_file(tmp_path / "model.safetensors")
    weights["word_embedding.weight"] = weights.pop("elmo.word_embedding.weight")
    unused_cnn = ElmoModel(ElmoConfig(**TINY)).char_cnn.state_dict()
    weights.update({f"elmo.char_cnn.{k}": v.contiguous() for k, v in unused_cnn.items()})
    save_file(weights, tmp_path / "model.safetensors", metadata={"format": "pt"})
    batch = collate_sentences([["a", "b"], ["c"]], vocab, word_inputs=True)
    inputs = batch.input_ids
    old = ElmoForBidirectionalLM.from_pretrained(tmp_path).eval()
    torch.testing.assert_close(
        old(input_ids=inputs, lengths=batch.lengths, labels=batch.labels).loss,
        lm(input_ids=inputs, lengths=batch.lengths, labels=batch.labels).loss,
        rtol=0,
        atol=0,
    )
    torch.testing.assert_close(
        ElmoModel.from_pretrained(tmp_path).word_embedding.weight, lm.elmo.word_embedding.weight, rtol=0, atol=0
    )


def test_log_uniform_candidate_distribution_sums_to_one():
    q = log_uniform_probabilities(1000, torch.arange(1000))
    assert abs(float(q.double().sum()) - 1.0) < 1e-5
    assert bool((q[:-1] >= q[1:]).all())


def test_sampled_softmax_matches_its_formula():
    torch.manual_seed(1)
    vocab_size, num_tries = 50, 20
    model = tiny_lm(vocab_size)
    hidden, targets = torch.randn(6, 8), torch.tensor([0, 3, 7, 7, 20, 49])
    candidates = torch.tensor([1, 3, 5, 7, 11])
    loss = model.softmax.sampled_loss(hidden, targets, candidates, num_tries).detach()
    w, b = model.softmax.weight.detach().double(), model.softmax.bias.detach().double()
    expected = 0.0
    for h, y in zip(hidden.double(), targets.tolist()):

        def corrected(k: int) -> float:
            q = math.log((k + 2) / (k + 1)) / math.log(vocab_size + 1)
            return float(h @ w[k] + b[k]) - math.log(1 - (1 - q) ** num_tries)

        logits = [corrected(y)] + [corrected(k) for k in candidates.tolist() if k != y]  # accidental hits removed
        expected += -logits[0] + math.log(sum(math.exp(v) for v in logits))
    assert abs(loss.item() - expected) < 1e-4


def test_lm_config_errors_name_the_field():
    with pytest.raises(ValueError, match="vocab_size"):
        ElmoForBidirectionalLM(ElmoConfig(**TINY))
    with pytest.raises(ValueError, match="softmax"):
        ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=10, softmax="hierarchical"))


# -- training ---------------------------------------------------------------------------------
@pytest.mark.parametrize("token_embedding", ["char_cnn", "word"])
def test_a_few_steps_on_a_tiny_corpus_lower_the_loss(tmp_path, token_embedding):
    sentences = read_corpus(write_corpus(tmp_path / "c.txt"))
    vocab = build_vocabulary(sentences)
    model = tiny_lm(len(vocab), token_embedding=token_embedding, softmax="sampled", num_sampled=64, dropout=0.1)
    before = perplexity(model, vocab, sentences)["average"]
    optimizer = make_optimizer("adam", model.parameters(), 3e-2)
    batcher = SentenceBatcher(sentences, vocab, 256, word_inputs=token_embedding == "word")
    model.train()
    for epoch in range(4):  # 20 steps
        for indices in batcher.epoch_batches(epoch):
            train_step(model, optimizer, batcher.collate(indices), torch.device("cpu"), 10.0, False)
    after = perplexity(model, vocab, sentences)["average"]
    assert after < 0.8 * before, (before, after)


def test_a_perplexity_beyond_float64_is_infinite_not_an_overflow_error(tmp_path):
    """Was: OverflowError (math range error) from math.exp, a traceback of elmo perplexity, and
    of elmo pretrain after its last step, with no model folder written."""
    corpus = write_corpus(tmp_path / "c.txt", n=10)
    vocab = build_vocabulary(read_corpus(corpus))
    model = tiny_lm(len(vocab))
    with torch.no_grad():
        model.softmax.bias[vocab.unk_id] = 1e4  # every target (none is <UNK>) costs about 1e4 nats
    result = perplexity(model, vocab, read_corpus(corpus))
    assert result["forward"] == result["backward"] == result["average"] == math.inf
    assert 1e3 < result["forward_loss"] < math.inf and 1e3 < result["backward_loss"] < math.inf


def save_diverged_lm(corpus: Path, folder: Path) -> None:
    """A tiny LM of ``corpus``'s vocabulary saved in ``folder``, whose perplexity is beyond float64."""
    vocab = build_vocabulary(read_corpus(corpus))
    model = tiny_lm(len(vocab))
    with torch.no_grad():
        model.softmax.bias[vocab.unk_id] = 1e4  # every target (none is <UNK>) costs about 1e4 nats
    model.save_pretrained(folder)
    vocab.save(folder / VOCAB_FILE)


def test_perplexity_json_is_strict_json_with_null_for_an_infinite_perplexity_and_its_finite_mean_loss(tmp_path, capsys):
    """Was: {"forward": Infinity, ...}, which jq and strict JSON parsers refuse, and no finite figure."""
    corpus = write_corpus(tmp_path / "c.txt", n=10)
    save_diverged_lm(corpus, tmp_path / "lm")
    assert elmo_main(["perplexity", str(tmp_path / "lm"), str(corpus), "--json", "--no-progress"]) == 0
    figures = strict_json_loads(capsys.readouterr().out)
    assert figures["forward"] is figures["backward"] is figures["average"] is None
    assert figures["forward_loss"] == pytest.approx(1e4, rel=0.01)
    assert figures["backward_loss"] == pytest.approx(1e4, rel=0.01)


def test_a_diverged_runs_training_json_is_strict_json_with_null_perplexities_and_pretrain_says_inf(tmp_path, capsys):
    """Was: "forward": Infinity in training.json (plain json.dumps), which jq and strict JSON parsers refuse."""
    corpus, valid = write_corpus(tmp_path / "c.txt", n=20), write_corpus(tmp_path / "v.txt", n=5, seed=5)
    save_diverged_lm(corpus, tmp_path / "lm")
    out = tmp_path / "model"
    argv = ["pretrain", str(corpus), str(out), "--init-model", str(tmp_path / "lm"), "--valid-file", str(valid)]
    assert elmo_main([*argv, "--epochs", "1", "--max-steps", "1", "--preset", "cpu", "--no-progress"]) == 0
    figures = strict_json_loads((out / "training.json").read_text())["metrics"]["valid"]
    assert figures["forward"] is figures["backward"] is figures["average"] is None
    assert figures["forward_loss"] == pytest.approx(1e4, rel=0.01)
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith(f"{valid}: perplexity forward inf  backward inf  average inf (full softmax, ")


def test_perplexity_from_json_gives_back_the_figures_strict_json_wrote_null_from_their_mean_losses():
    figures = {"forward": math.inf, "backward": 3.0, "average": math.exp(0.5 * (800.0 + math.log(3.0)))}
    figures |= {"forward_loss": 800.0}
    figures |= {"backward_loss": math.log(3.0), "predictions": 4, "unk_rate": 0.0}
    assert perplexity_from_json(json.loads(strict_json(figures))) == figures
    nan = perplexity_from_json({**figures, "forward": None, "average": None, "forward_loss": None})
    assert math.isnan(nan["forward"]) and math.isnan(nan["average"]) and nan["backward"] == 3.0


def settings_for(tmp_path: Path, corpus: Path, **changes) -> PretrainSettings:
    base = dict(
        train_file=str(corpus),
        output_dir=str(tmp_path / "model"),
        preset="cpu",
        config_overrides=TINY,
        vocab_size=100,
        min_count=1,
        softmax="sampled",
        num_sampled=16,
        max_tokens=600,
        tokens_per_batch=64,
        optimizer="adam",
        lr=1e-2,
        dropout=0.2,
        checkpoint_every_steps=4,
        checkpoint_every_minutes=1e9,
    )
    base.update(changes)
    return PretrainSettings(**base)


@pytest.mark.parametrize("schedule", [{}, {"lr_schedule": "linear", "warmup_steps": 3}], ids=["constant", "linear"])
def test_resume_after_a_kill_gives_the_weights_of_an_uninterrupted_run(tmp_path, monkeypatch, schedule):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    full = pretrain(settings_for(tmp_path / "a", corpus, max_tokens=600, **schedule), show_progress=False)
    expected = ElmoForBidirectionalLM.from_pretrained(full).state_dict()

    import hf_elmo.training.trainer as trainer

    calls = {"n": 0}
    real_step = trainer.train_step

    def dying_step(*args, **kwargs):  # killed during step 7: steps 5-6 are lost, step 4 was checkpointed
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt("simulated kill")
        return real_step(*args, **kwargs)

    monkeypatch.setattr(trainer, "train_step", dying_step)
    settings = settings_for(tmp_path / "b", corpus, **schedule)
    with pytest.raises(KeyboardInterrupt):
        pretrain(settings, show_progress=False)
    assert not Path(settings.output_dir).exists()
    assert json.loads((Path(settings.resolved_checkpoint_dir()) / "settings.json").read_text())["max_tokens"] == 600
    monkeypatch.setattr(trainer, "train_step", real_step)
    resumed = ElmoForBidirectionalLM.from_pretrained(pretrain(settings, show_progress=False)).state_dict()
    assert expected.keys() == resumed.keys()
    for name in expected:
        torch.testing.assert_close(resumed[name], expected[name], rtol=0, atol=0, msg=name)
    training = json.loads((Path(settings.output_dir) / "training.json").read_text())
    assert training["position"]["tokens_seen"] >= 600


def test_a_kill_between_the_rng_states_and_the_checkpoint_resumes_to_the_uninterrupted_weights(tmp_path, monkeypatch):
    """The RNG states of step 8 are written, checkpoint.pt of step 8 is not: the resume takes
    the checkpoint of step 4 with its own RNG states."""
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    expected = ElmoForBidirectionalLM.from_pretrained(
        pretrain(settings_for(tmp_path / "a", corpus), show_progress=False)
    ).state_dict()

    import hf_elmo.training.checkpoints as checkpoints

    real_save = checkpoints._atomic_torch_save

    def killed_at_step_8(obj, path):
        if path.name == checkpoints.CHECKPOINT_FILE and obj["step"] == 8:
            assert checkpoints.rng_file(path.parent, 0, 8).is_file()
            raise KeyboardInterrupt("simulated kill")
        real_save(obj, path)

    monkeypatch.setattr(checkpoints, "_atomic_torch_save", killed_at_step_8)
    settings = settings_for(tmp_path / "b", corpus)
    with pytest.raises(KeyboardInterrupt):
        pretrain(settings, show_progress=False)
    monkeypatch.undo()
    folder = settings.resolved_checkpoint_dir()
    assert torch.load(folder / checkpoints.CHECKPOINT_FILE, weights_only=True)["step"] == 4
    resumed = ElmoForBidirectionalLM.from_pretrained(pretrain(settings, show_progress=False)).state_dict()
    for name in expected:
        torch.testing.assert_close(resumed[name], expected[name], rtol=0, atol=0, msg=name)
    last = torch.load(folder / checkpoints.CHECKPOINT_FILE, weights_only=True)["step"]
    assert sorted(p.name for p in folder.glob("rng-*")) == [checkpoints.rng_file(folder, 0, last).name]


def _uninterrupted_weights_and_a_run_stopped_at_step_4(
    tmp_path: Path,
) -> tuple[dict[str, torch.Tensor], PretrainSettings]:
    """The weights of a whole tiny run, and the settings of the same run stopped at its checkpoint
    of step 4 (``max_steps`` 4), to be resumed."""
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    expected = ElmoForBidirectionalLM.from_pretrained(
        pretrain(settings_for(tmp_path / "a", corpus), show_progress=False)
    ).state_dict()
    settings = settings_for(tmp_path / "b", corpus, max_steps=4)  # stops at its checkpoint of step 4
    assert pretrain(settings, show_progress=False) is None
    return expected, settings


def test_a_checkpoint_with_the_rng_file_of_earlier_versions_resumes_to_the_uninterrupted_weights(tmp_path):
    """Versions before the RNG files named their step wrote ``rng-rank0.pt``: such a checkpoint
    resumes exactly, and its first checkpoint replaces the old file by the new layout."""
    import hf_elmo.training.checkpoints as checkpoints

    expected, settings = _uninterrupted_weights_and_a_run_stopped_at_step_4(tmp_path)
    folder = settings.resolved_checkpoint_dir()
    checkpoints.rng_file(folder, 0, 4).rename(checkpoints.old_rng_file(folder, 0))
    settings.max_steps = None
    resumed = ElmoForBidirectionalLM.from_pretrained(pretrain(settings, show_progress=False)).state_dict()
    for name in expected:
        torch.testing.assert_close(resumed[name], expected[name], rtol=0, atol=0, msg=name)
    last = torch.load(folder / checkpoints.CHECKPOINT_FILE, weights_only=True)["step"]
    assert sorted(p.name for p in folder.glob("rng-*")) == [checkpoints.rng_file(folder, 0, last).name]


def test_a_one_process_checkpoint_saved_before_the_data_order_was_recorded_resumes_to_the_uninterrupted_weights(
    tmp_path,
):
    """One process took the same batches under the data order before (data.same_batches): its old
    checkpoints resume exactly, and record the order from their next checkpoint on."""
    from hf_elmo.training.checkpoints import CHECKPOINT_FILE, DATA_ORDER_KEY
    from hf_elmo.training.data import DATA_ORDER

    expected, settings = _uninterrupted_weights_and_a_run_stopped_at_step_4(tmp_path)
    path = settings.resolved_checkpoint_dir() / CHECKPOINT_FILE
    state = torch.load(path, weights_only=True)
    del state[DATA_ORDER_KEY]
    torch.save(state, path)  # as elmo pretrain wrote it before it recorded the data order
    settings.max_steps = None
    resumed = ElmoForBidirectionalLM.from_pretrained(pretrain(settings, show_progress=False)).state_dict()
    for name in expected:
        torch.testing.assert_close(resumed[name], expected[name], rtol=0, atol=0, msg=name)
    assert torch.load(path, weights_only=True)[DATA_ORDER_KEY] == DATA_ORDER


def test_num_sampled_left_out_is_the_model_configs_default():
    settings = PretrainSettings(train_file="c.txt", output_dir="out", epochs=1, config_overrides=TINY)
    assert settings.num_sampled is None
    vocab = build_vocabulary(["a b c"])
    config_default = ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=len(vocab))).config.num_sampled
    assert build_model(settings, vocab).config.num_sampled == config_default
    settings.num_sampled = 16
    assert build_model(settings, vocab).config.num_sampled == 16


def test_a_run_whose_settings_json_holds_a_number_resumes_with_it(tmp_path):
    """Runs started before num_sampled's default moved to the config saved a number (4096):
    resumed without --num-sampled, they go on with it, to the weights of an uninterrupted run."""
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    full = pretrain(settings_for(tmp_path / "a", corpus, num_sampled=16), show_progress=False)
    old = settings_for(tmp_path / "b", corpus, num_sampled=16, max_steps=5)
    assert pretrain(old, show_progress=False) is None
    saved = json.loads((old.resolved_checkpoint_dir() / "settings.json").read_text())
    assert saved["num_sampled"] == 16
    resumed = pretrain(settings_for(tmp_path / "b", corpus, num_sampled=None), show_progress=False)
    assert load_lm(resumed).config.num_sampled == 16
    expected = ElmoForBidirectionalLM.from_pretrained(full).state_dict()
    for name, value in ElmoForBidirectionalLM.from_pretrained(resumed).state_dict().items():
        torch.testing.assert_close(value, expected[name], rtol=0, atol=0, msg=name)


def test_pretrain_command_writes_a_loadable_folder_with_perplexity_in_its_card_and_says_it(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    valid = write_corpus(tmp_path / "v.txt", n=10, seed=5)
    out = tmp_path / "model"
    code = elmo_main(
        [
            "pretrain",
            str(corpus),
            str(out),
            "--epochs",
            "1",
            *TINY_SHAPE_ARGS,
            "--vocab-size",
            "100",
            "--min-count",
            "1",
            "--tokens-per-batch",
            "128",
            "--valid-file",
            str(valid),
            "--no-progress",
            "--storage-dtype",
            "float16",
            "--pre-tokenizer",
            "spacy:en",
        ]
    )
    assert code == 0
    assert {"config.json", "model.safetensors", "vocab.txt", "README.md", "training.json"} <= {
        p.name for p in out.iterdir()
    }
    card = (out / "README.md").read_text()
    assert "perplexity (valid)" in card and "tokens seen" in card
    # trust_remote_code: the folder carries the LM's code and maps both Auto classes (tests/hf_elmo/test_remote_code.py)
    assert {"configuration_elmo.py", "modeling_elmo.py", "modeling_lm.py"} <= {p.name for p in out.iterdir()}
    auto_map = json.loads((out / "config.json").read_text())["auto_map"]
    assert auto_map["AutoModel"] == "modeling_elmo.ElmoModel"
    assert auto_map["AutoModelForPreTraining"] == "modeling_lm.ElmoForBidirectionalLM"
    from hf_elmo import ElmoModel

    assert isinstance(ElmoModel.from_pretrained(out), ElmoModel)  # the biLM alone
    tokenizer = AutoTokenizer.from_pretrained(out)  # splits raw text as the corpus was split
    assert tokenizer.pre_tokenizer == "spacy:en" and tokenizer.tokenize("mat.") == ["mat", "."]
    alone = tmp_path / "alone"  # the biLM saved without its tokenizer keeps the split in its config
    ElmoModel.from_pretrained(out).save_pretrained(alone)
    assert AutoTokenizer.from_pretrained(alone).tokenize("mat.") == ["mat", "."]
    model = load_lm(out)
    assert model.dtype == torch.float32
    figures = perplexity(model, Vocabulary.from_file(out / "vocab.txt"), read_corpus(valid))
    on_the_card = json.loads((out / "training.json").read_text())["metrics"]["valid"]  # of the float16 weights
    assert figures == pytest.approx(on_the_card, rel=1e-6)
    said = capsys.readouterr().out.splitlines()[-1]
    seen = json.loads((out / "training.json").read_text())["metrics"]["valid_share_seen_in_training"]
    assert seen > 0  # the toy language repeats its sentences
    assert (
        said
        == f"{valid}: perplexity forward {on_the_card['forward']:.3f}  backward {on_the_card['backward']:.3f}  "
        + f"average {on_the_card['average']:.3f} (full softmax, {on_the_card['predictions']:,} predictions per "
        + f"direction, {on_the_card['unk_rate']:.2%} <UNK>; {seen:.1%} of its sentences are also in the training "
        + "text, so it is lower than on held-out text)"
    )


def test_the_validation_perplexity_is_given_with_its_unk_share_on_the_card_and_the_printed_line(tmp_path, capsys):
    """Was: in training.json alone, so that a perplexity over many <UNK> targets looked better than it is."""
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    valid = tmp_path / "v.txt"
    valid.write_text("the zebra sees a unicorn .\nthe cat likes the ball .\n")  # 2 of 12 words unknown
    out = tmp_path / "model"
    argv = ["pretrain", str(corpus), str(out), "--max-tokens", "50", *TINY_SHAPE_ARGS, "--min-count", "1"]
    assert elmo_main([*argv, "--valid-file", str(valid), "--no-progress"]) == 0
    valid_figures = json.loads((out / "training.json").read_text())["metrics"]["valid"]
    assert valid_figures["unk_rate"] == pytest.approx(2 / 12)
    # the second sentence is also a training sentence (test_pretrain_safety.py: the card and the line say so)
    assert (
        capsys.readouterr()
        .out.splitlines()[-1]
        .endswith(
            "(full softmax, 14 predictions per direction, 16.67% <UNK>; 50.0% of its sentences are also in the training "
            "text, so it is lower than on held-out text)"
        )
    )
    assert (
        "(full softmax, 14 predictions per direction, 16.67% <UNK>; 50.0% of its sentences are also in the training"
        in (out / "README.md").read_text()
    )


# -- bad corpora ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "holds no tokens"),
        (b"\n  \n\n", "holds no tokens"),
        (b"good line\n\x00\x01\x02\xff binary", "bad.txt:2: NUL byte at character 1"),  # as elmo embed says it
        (b"caf\xe9 latin-1\n", "not valid UTF-8"),
        (b"word " * 2_000_000 + b"\n", "one sentence per line"),
    ],
    ids=["empty", "blank", "binary", "latin1", "10MB-line"],
)
def test_bad_corpora_give_clear_errors_and_leave_nothing_behind(tmp_path, capsys, content, message):
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        read_corpus(corpus)
    out = tmp_path / "model"
    assert elmo_main(["pretrain", str(corpus), str(out), "--epochs", "1", "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "model.checkpoint").exists()


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_corpora_are_split_into_lines_as_elmo_embed_splits_them(tmp_path, ending):
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(ending.join(["the cat", "", "a dog sat", "x"]).encode() + ending.encode())
    assert read_corpus(corpus) == ["the cat", "a dog sat", "x"]
    assert [line.split() for line in read_lines(corpus) if line.split()] == [s.split() for s in read_corpus(corpus)]


def test_a_gzip_corpus_is_read_decompressed_whatever_its_name(tmp_path):
    text = "\ufeffthe cat\r\n\na dog sat\n".encode()
    for name in ("c.txt.gz", "c.txt"):  # the gzip magic decides, not the suffix
        (tmp_path / name).write_bytes(gzip.compress(text))
        assert read_corpus(tmp_path / name) == ["the cat", "a dog sat"]
        assert list(read_lines(tmp_path / name)) == ["the cat\n", "\n", "a dog sat\n"]


@pytest.mark.parametrize(
    "encoding, mark",
    [("utf-16-le", "FF FE"), ("utf-16-be", "FE FF"), ("utf-32-le", "FF FE 00 00")],
    ids=["UTF-16LE", "UTF-16BE", "UTF-32LE"],
)
def test_a_utf16_corpus_is_refused_as_utf16_saying_how_to_convert_it(encoding, mark, tmp_path, capsys):
    """Was: 'NUL byte: this looks like binary data' (elmo pretrain, perplexity), 'not valid UTF-8 (byte 0xff
    at character 1)' (elmo embed), for what Windows PowerShell's > writes."""
    corpus = tmp_path / "c.txt"
    corpus.write_bytes("\ufeffthe cat sat .\r\n".encode(encoding))  # with its byte-order mark, as PowerShell writes
    name = encoding[:6].upper()
    said = (
        f"{corpus} is {name} text (it starts with the byte-order mark {mark}), not UTF-8: convert it, "
        f"e.g. iconv -f {name} -t UTF-8 {corpus} > {tmp_path / 'c-utf8.txt'}"
    )
    for read in (read_corpus, lambda path: list(read_lines(path))):  # elmo pretrain and perplexity; elmo embed
        with pytest.raises(CorpusError) as refused:
            read(corpus)
        assert str(refused.value) == said
    assert elmo_main(["pretrain", str(corpus), str(tmp_path / "m"), "--epochs", "1", "--no-progress"]) == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("first", ["the cat sat .", "a"])
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_corpus_without_byte_order_mark_is_refused_as_utf16_saying_how_to_convert_it(encoding, first, tmp_path):
    """The whole file, from its start (every other character NUL, across its first lines), naming the
    byte order. Was: 'NUL byte at character 2 (binary data, not text)', which names the wrong problem;
    then each line refused, and UTF-16LE's last line end read as one more line (elmo embed: '3 of 3
    lines' of a file of 2, the third 'binary data')."""
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(f"{first}\na dog ran .\n".encode(encoding))  # no byte-order mark
    name = encoding[:6].upper() + encoding[-2:].upper()
    said = (
        f"{corpus} is {name} text without a byte-order mark (every other character of its start is NUL), not "
        f"UTF-8: convert it, e.g. iconv -f {name} -t UTF-8 {corpus} > {tmp_path / 'c-utf8.txt'}"
    )
    for read in (read_corpus, lambda path: list(read_lines(path)), scan_input):  # pretrain, perplexity; embed
        with pytest.raises(CorpusError) as refused:
            read(corpus)
        assert str(refused.value) == said
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"the cat\x00\x01\x02 sat\n")
    with pytest.raises(CorpusError, match=r"NUL byte at character 8 \(binary data, not text\)"):
        read_corpus(binary)


@pytest.mark.parametrize(
    "name, compress, kind, command",
    [
        ("c.txt.bz2", bz2.compress, "bzip2", "bunzip2 -k"),
        ("c.txt.xz", lzma.compress, "xz", "unxz -k"),
        ("c.zip", None, "zip", "unzip"),
    ],
)
def test_a_corpus_compressed_otherwise_than_gzip_is_refused_as_such_saying_how_to_decompress_it(
    name, compress, kind, command, tmp_path
):
    """Was: 'NUL byte at character 15 (binary data, not text)' for a .bz2 corpus, which only gzip is read as."""
    corpus = tmp_path / name
    if compress is None:
        with zipfile.ZipFile(corpus, "w") as archive:
            archive.writestr("c.txt", "the cat sat\n")
    else:
        corpus.write_bytes(compress(b"the cat sat\n" * 100))
    said = f"{corpus} is {kind}-compressed, which is not read (gzip is): decompress it first, e.g. {command} {corpus}"
    with pytest.raises(CorpusError) as refused:
        read_corpus(corpus)
    assert str(refused.value) == said


def test_a_corpus_that_starts_as_a_bzip2_header_does_is_read_as_text(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("BZh9 is no bzip2 stream\n")
    assert read_corpus(corpus) == ["BZh9 is no bzip2 stream"]


def test_a_truncated_gzip_corpus_is_refused_in_one_line(tmp_path, capsys):
    corpus = tmp_path / "c.txt.gz"
    corpus.write_bytes(gzip.compress(b"the cat sat\n" * 1000)[:-20])
    with pytest.raises(CorpusError, match=r"c.txt.gz: damaged gzip data \(.*\); download or compress the file again$"):
        read_corpus(corpus)
    out = tmp_path / "model"
    assert elmo_main(["pretrain", str(corpus), str(out), "--epochs", "1", "--no-progress"]) == 2
    assert "damaged gzip data" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "model.checkpoint").exists()


def test_a_bad_line_of_a_corpus_with_cr_line_ends_is_named_by_its_line_number(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(b"good\rline\rcaf\xe9\r")
    with pytest.raises(CorpusError, match=r"c.txt:3: not valid UTF-8 \(byte 0xe9 at character 4\)"):
        read_corpus(corpus)


def test_a_corpus_without_line_breaks_is_refused_without_being_read_whole(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(b"word " * 200_000)
    assert len(next(read_lines(corpus, max_chars=1000))) == 1001
    with pytest.raises(CorpusError, match="c.txt:1: line longer than 1,000 characters"):
        read_corpus(corpus, max_line_chars=1000)


def test_a_folder_given_as_a_corpus_is_said_to_be_a_folder(tmp_path, capsys):
    with pytest.raises(IsADirectoryError, match=f"{tmp_path} is a folder, not a text file"):
        read_corpus(tmp_path)
    assert elmo_main(["pretrain", str(tmp_path), str(tmp_path / "m"), "--epochs", "1", "--no-progress"]) == 2
    assert f"the training file {tmp_path} is a folder, not a text file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name, message",
    [
        ("moses", "error: --pre-tokenizer must be 'whitespace' or 'spacy:LANG'"),
        ("spacy:klingon", "error: --pre-tokenizer 'spacy:klingon': spaCy has no language 'klingon'"),
    ],
)
def test_an_unknown_pre_tokenizer_is_an_error_before_anything_is_written(tmp_path, capsys, name, message):
    corpus = write_corpus(tmp_path / "c.txt")
    out = tmp_path / "model"
    assert (
        elmo_main(["pretrain", str(corpus), str(out), "--epochs", "1", "--pre-tokenizer", name, "--no-progress"]) == 2
    )
    assert message in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "model.checkpoint").exists()


def test_run_length_must_be_given(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt")
    with pytest.raises(SystemExit):
        elmo_main(["pretrain", str(corpus), str(tmp_path / "m")])


def test_pretraining_continues_a_converted_model_with_its_shapes(tmp_path, allennlp_fixture, allennlp_model):
    corpus = write_corpus(tmp_path / "c.txt", n=40)
    out = tmp_path / "continued"
    code = elmo_main(
        [
            "pretrain",
            str(corpus),
            str(out),
            "--init-model",
            str(allennlp_fixture),
            "--max-tokens",
            "100",
            "--vocab-size",
            "100",
            "--min-count",
            "1",
            "--num-sampled",
            "16",
            "--tokens-per-batch",
            "128",
            "--no-progress",
        ]
    )
    assert code == 0
    model = load_lm(out)
    assert (model.config.lstm_dim, model.config.projection_dim) == (64, 16)
    start = allennlp_model.state_dict()["bilm.forward_layers.0.projection.weight"]
    trained = model.elmo.state_dict()["bilm.forward_layers.0.projection.weight"]
    assert 0 < float((trained - start).abs().max()) < 0.1  # moved a little from the converted weights


def test_resuming_from_a_zip_of_the_original_files_extracts_and_converts_its_weights_once(tmp_path, monkeypatch):
    """The resume's check of the base model's shape reads the archive's options.json alone; its
    weights are extracted and converted once, where build_model loads them. Was: extracted twice (the
    shape check unpacked the whole archive to read options.json), hundreds of MB for a released model."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    write_random_original(tmp_path / "base", small_options(), seed=0)
    archive = tmp_path / "base.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        for file in (tmp_path / "base").iterdir():
            handle.write(file, f"elmo/{file.name}")
    argv = ["pretrain", str(corpus), str(tmp_path / "model"), "--init-model", str(archive), "--epochs", "2"]
    argv += ["--tokens-per-batch", "128", "--vocab-size", "100", "--no-progress"]
    assert elmo_main([*argv, "--max-steps", "1"]) == 0
    extracted: list[str] = []
    converted: list[Path] = []
    extract, convert = archives.extract_original_files, loading.load_allennlp

    def counted_extract(*args, **kwargs) -> Path:
        folder = extract(*args, **kwargs)
        extracted.extend(path.name for path in folder.glob("*.hdf5"))
        return folder

    def counted_convert(options: Path, weights: Path, *args, **kwargs):
        converted.append(weights)
        return convert(options, weights, *args, **kwargs)

    monkeypatch.setattr(archives, "extract_original_files", counted_extract)
    monkeypatch.setattr(loading, "load_allennlp", counted_convert)
    assert elmo_main([*argv, "--max-steps", "2"]) == 0  # resumes the run at its step 1
    assert extracted == ["weights.hdf5"] and len(converted) == 1


def test_a_run_saved_before_a_setting_existed_resumes_with_that_settings_default(tmp_path):
    """A settings.json without a later-added field (lr_schedule, warmup_steps) resumes as if it
    held the field's default; asking the run for another value is still refused."""
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    full = pretrain(settings_for(tmp_path / "a", corpus), show_progress=False)
    old = settings_for(tmp_path / "b", corpus, max_steps=5)
    assert pretrain(old, show_progress=False) is None
    saved_path = old.resolved_checkpoint_dir() / "settings.json"
    saved = json.loads(saved_path.read_text())
    del saved["lr_schedule"], saved["warmup_steps"]
    saved_path.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match=r'other settings \(--lr-schedule "constant" \(now "linear"\)\)'):
        pretrain(settings_for(tmp_path / "b", corpus, lr_schedule="linear"), show_progress=False)
    resumed = pretrain(settings_for(tmp_path / "b", corpus), show_progress=False)
    expected = ElmoForBidirectionalLM.from_pretrained(full).state_dict()
    for name, value in ElmoForBidirectionalLM.from_pretrained(resumed).state_dict().items():
        torch.testing.assert_close(value, expected[name], rtol=0, atol=0, msg=name)


@pytest.mark.parametrize("option", ["--storage-dtype", "--save-dtype"])
def test_storage_dtype_stores_the_weights_in_it_and_save_dtype_is_its_old_name(option, tmp_path):
    """elmo pretrain --storage-dtype is save_pretrained(storage_dtype=...) (was: --save-dtype alone, which
    still works); training.json records storage_dtype."""
    from safetensors import safe_open

    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    argv = ["pretrain", str(corpus), str(out), "--max-tokens", "50", *TINY_SHAPE_ARGS, "--vocab-size", "100"]
    assert elmo_main([*argv, "--tokens-per-batch", "128", "--no-progress", option, "float16"]) == 0
    with safe_open(str(out / "model.safetensors"), "pt") as weights:
        assert {weights.get_tensor(name).dtype for name in weights.keys()} == {torch.float16}
    recorded = json.loads((out / "training.json").read_text())["settings"]
    assert recorded["storage_dtype"] == "float16" and "save_dtype" not in recorded


def test_settings_recorded_with_save_dtype_before_it_was_storage_dtype_load_and_resume(tmp_path):
    """A training.json or settings.json written before the rename holds save_dtype: PretrainSettings(**record)
    takes it as storage_dtype, and a run whose settings.json holds it resumes to the uninterrupted weights."""
    record = {**dataclasses.asdict(settings_for(tmp_path, tmp_path / "c.txt")), "save_dtype": "bfloat16"}
    del record["storage_dtype"]
    assert PretrainSettings(**record).storage_dtype == "bfloat16"
    with pytest.raises(
        TypeError, match="got storage_dtype the str 'float16' and save_dtype the str 'bfloat16', its old name"
    ):
        PretrainSettings(**record, storage_dtype="float16")
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    full = pretrain(settings_for(tmp_path / "a", corpus, storage_dtype="float16"), show_progress=False)
    old = settings_for(tmp_path / "b", corpus, max_steps=5, save_dtype="float16")
    assert pretrain(old, show_progress=False) is None
    saved_path = old.resolved_checkpoint_dir() / "settings.json"
    saved = json.loads(saved_path.read_text())
    saved["save_dtype"] = saved.pop("storage_dtype")  # as the run was recorded then
    saved_path.write_text(json.dumps(saved))
    resumed = pretrain(settings_for(tmp_path / "b", corpus, save_dtype="float16"), show_progress=False)
    expected = ElmoForBidirectionalLM.from_pretrained(full).state_dict()
    for name, value in ElmoForBidirectionalLM.from_pretrained(resumed).state_dict().items():
        torch.testing.assert_close(value, expected[name], rtol=0, atol=0, msg=name)


def test_a_byte_order_mark_at_the_start_of_a_corpus_is_not_read_into_its_first_token(tmp_path):
    corpus = tmp_path / "bom.txt"
    corpus.write_bytes("\ufeffThe cat sat .\nIt ran .\n".encode())
    assert read_corpus(corpus) == ["The cat sat .", "It ran ."]


def test_a_byte_order_mark_at_the_start_of_any_line_is_dropped_and_one_inside_a_line_kept_as_the_tokenizer_keeps_it(
    tmp_path,
):
    """Was: `cat a.txt b.txt` of files that start with a byte-order mark put '\\ufeffIt' into the vocabulary."""
    corpus = tmp_path / "cat.txt"
    corpus.write_bytes("\ufeffThe cat sat .\n\ufeffIt ran .\r\n\ufeff\ufeffIt sat .\nzero\ufeffwidth .\n".encode())
    assert read_corpus(corpus) == ["The cat sat .", "It ran .", "It sat .", "zero\ufeffwidth ."]
    assert list(read_lines(corpus, max_chars=1000)) == list(read_lines(corpus))
    assert "\ufeffIt" not in build_vocabulary(read_corpus(corpus)) and "It" in build_vocabulary(read_corpus(corpus))
    assert split_words("zero\ufeffwidth .")[0] == read_corpus(corpus)[-1].split()  # as at inference
