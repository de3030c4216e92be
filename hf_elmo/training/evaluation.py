"""Evaluating a biLM with its softmax: full-softmax perplexity (``elmo perplexity``, and the
validation figures of ``elmo pretrain``), and loading such a model (``load_lm``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import torch
from tqdm.auto import tqdm

from ..batching import token_budget_batches
from ..fileio import PathLike
from ..loading import ModelSource, resolve_model
from ..modeling_lm import ElmoForBidirectionalLM
from .data import SentenceBatcher
from .options import EVAL_TOKENS_PER_BATCH
from .vocab import Vocabulary

#: The key of ``training.json``'s ``metrics`` that holds ``valid_share_seen_in_training`` of the run.
VALID_SEEN_KEY = "valid_share_seen_in_training"


def valid_share_seen_in_training(valid: Sequence[str], training: Iterable[str]) -> float:
    """The share of the ``valid`` sentences (each occurrence counted) that are also sentences of
    ``training``: text the model was trained on, on which its perplexity is lower than on held-out
    text. 0.0 for no ``valid`` sentences."""
    if not valid:
        return 0.0
    wanted = set(valid)
    seen = {sentence for sentence in training if sentence in wanted}
    return sum(sentence in seen for sentence in valid) / len(valid)


def seen_in_training_text(metrics: dict[str, Any]) -> str:
    """What the validation perplexity of a run's ``metrics`` (``training.json``'s) is said with when some
    of its sentences are training sentences (``VALID_SEEN_KEY``), after ``predictions_text``, as the
    model card and ``elmo pretrain`` say it: ``; X% of its sentences are also in the training text, ...``;
    ``""`` when none are (or the run did not record it)."""
    seen = metrics.get(VALID_SEEN_KEY)
    if not seen:
        return ""
    return f"; {seen:.1%} of its sentences are also in the training text, so it is lower than on held-out text"


@torch.no_grad()
def perplexity(
    model: ElmoForBidirectionalLM,
    vocabulary: Vocabulary,
    sentences: Sequence[str],
    tokens_per_batch: int = EVAL_TOKENS_PER_BATCH,
    show_progress: bool = False,
) -> dict[str, float]:
    """Full-softmax perplexity of both directions over ``sentences`` (each ``<S> ... </S>``).

    Every sentence of n tokens gives n+1 predictions per direction (the forward LM predicts
    w1..wn and ``</S>``; the backward LM wn..w1 and ``<S>``), each from the initial state, so
    the figures do not depend on the batching (``token_budget_batches`` over the padded
    lengths n+2). Returns ``forward``, ``backward`` (exp of the mean cross-entropy),
    ``average`` (exp of the two mean cross-entropies' mean, i.e. the geometric mean
    ``sqrt(forward * backward)``: bilm-tf's ``exp(total_loss)``, the paper's figure),
    ``forward_loss`` and ``backward_loss`` (the mean cross-entropies, nats), ``predictions`` per
    direction and ``unk_rate``. A mean cross-entropy beyond what float64 can exponentiate (over 709 nats: a model that diverged)
    gives an infinite perplexity, whose finite loss stays.
    """
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    word_inputs = model.config.token_embedding == "word"
    batcher = SentenceBatcher(
        sentences,
        vocabulary,
        tokens_per_batch,
        word_inputs=word_inputs,
        max_characters_per_token=model.config.max_characters_per_token,
    )
    groups = token_budget_batches([int(n) + 2 for n in batcher.lengths], tokens_per_batch)
    totals = torch.zeros(2, dtype=torch.float64)
    n_predictions, n_unk = 0, 0
    for group in tqdm(groups, disable=not show_progress, desc="perplexity", unit="batch"):
        batch = batcher.collate(group)
        out = model(
            input_ids=batch.input_ids.to(device),
            lengths=batch.lengths.to(device),
            labels=batch.labels.to(device),
            full_softmax=True,
        )
        n = int(out.n_targets)
        totals += torch.tensor([float(out.forward_loss) * n, float(out.backward_loss) * n], dtype=torch.float64)
        n_predictions += n
        n_unk += int((batch.labels == vocabulary.unk_id).sum())
    model.train(was_training)
    forward_loss, backward_loss = (float(t) / n_predictions for t in totals)
    forward, backward = _exp(forward_loss), _exp(backward_loss)
    return {
        "forward": forward,
        "backward": backward,
        "average": _average(forward_loss, backward_loss),
        "forward_loss": forward_loss,
        "backward_loss": backward_loss,
        "predictions": n_predictions,
        "unk_rate": n_unk / max(1, n_predictions - len(sentences)),
    }


def _exp(mean_loss: float) -> float:
    """``exp(mean_loss)``, or infinity where it is beyond float64 (``math.exp`` raises ``OverflowError``)."""
    try:
        return math.exp(mean_loss)
    except OverflowError:
        return math.inf


def _average(forward_loss: float, backward_loss: float) -> float:
    """The two directions' perplexity as bilm-tf reports it: ``exp`` of the mean of their mean losses,
    ``sqrt(forward * backward)``, taken from the losses so that it is finite where it can be (``_exp``)."""
    return _exp(0.5 * (forward_loss + backward_loss))


def perplexity_from_json(figures: dict[str, float | None]) -> dict[str, float]:
    """``perplexity``'s figures as read back from JSON that ``strict_json`` wrote (``training.json``'s
    ``metrics.valid``), with the numbers it wrote ``null`` given back: a direction's perplexity is the exp
    of its mean loss (``inf`` for a loss beyond float64, NaN for a NaN loss, itself ``null``), and the
    average from the two losses, as ``perplexity`` computed them."""
    restored: dict[str, Any] = dict(figures)
    for side in ("forward", "backward"):
        if restored[side] is None:
            loss = restored.get(f"{side}_loss")
            restored[side] = math.nan if loss is None else _exp(loss)
    if restored["average"] is None:
        forward_loss, backward_loss = restored.get("forward_loss"), restored.get("backward_loss")
        if forward_loss is None or backward_loss is None:
            restored["average"] = math.nan
        else:
            restored["average"] = _average(forward_loss, backward_loss)
    return restored


def perplexity_line(result: dict[str, float]) -> str:
    """``perplexity``'s three figures in one line, as ``elmo perplexity`` and ``elmo pretrain`` print them."""
    return f"perplexity forward {result['forward']:.3f}  backward {result['backward']:.3f}  average {result['average']:.3f}"


def predictions_text(result: dict[str, float]) -> str:
    """What a ``perplexity`` was taken over: ``N predictions per direction, X% <UNK>`` (the share of the
    word targets that are ``<UNK>``, which a perplexity leaves out: the more there are, the lower it
    is), as ``elmo perplexity``, ``elmo pretrain`` and the model card say it beside the figures."""
    return f"{result['predictions']:,} predictions per direction, {result['unk_rate']:.2%} <UNK>"


def load_lm(model: PathLike | ModelSource, softmax_weights: PathLike | None = None) -> ElmoForBidirectionalLM:
    """An ``ElmoForBidirectionalLM`` in float32 eval mode from any model name (``resolve_model``), or
    the ``ModelSource`` it resolved to (errors name the model as the user named it, a Hub id not as its
    cache folder): a folder written by ``elmo pretrain``, or original files (folder or zip) plus a
    softmax dump."""
    source = model if isinstance(model, ModelSource) else resolve_model(model)
    name = source.described
    if softmax_weights is not None:
        if source.format != "original":
            raise ValueError(
                f"{name} is a save_pretrained folder; --softmax-weights goes with original files "
                "(options.json + weights .hdf5)"
            )
        with source.original_files() as (options, weights):
            return ElmoForBidirectionalLM.from_allennlp_with_softmax(options, weights, softmax_weights)
    if not source.has_lm_head:
        what = "original files" if source.format == "original" else "a biLM without its LM softmax"
        raise ValueError(
            f"{name} holds {what}: a perplexity needs the softmax and its words, a model written by elmo pretrain "
            "(with its vocab.txt), or original files with --softmax-weights SOFTMAX.hdf5 (softmax/W, softmax/b) and "
            "--vocab VOCAB.txt"
        )
    return ElmoForBidirectionalLM.from_pretrained(source.path).eval()
