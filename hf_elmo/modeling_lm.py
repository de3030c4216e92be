"""The ELMo biLM with its language-model head: ``ElmoForBidirectionalLM``.

Data flow (B rows, S steps including the ``<S>``/``</S>`` marker tokens; P projection, V words):

    input_ids (B, S, 50) char ids  --ElmoModel.encode-->  top layer (B, S, 2P) = [forward; backward]
      forward half at step t  (t = 0..S-2) predicts the word at t+1  (labels[:, 1:])
      backward half at step t (t = 1..S-1) predicts the word at t-1  (labels[:, :-1])
      one softmax (V, P) shared by both directions; loss = mean of the two directions' mean CE.

The softmax is full in evaluation. In training it is full or, for large vocabularies, sampled as
bilm-tf trains: ``num_sampled`` candidates drawn from a log-uniform (Zipf) distribution over the
frequency-sorted vocabulary, shared by the batch, logits corrected by ``-log Q`` (the expected
count of each candidate), accidental hits of the true word removed.

``config.token_embedding = "word"`` makes the biLM's token embedder a word-embedding lookup
(``input_ids`` (B, S) word ids; ``ElmoModel.word_embedding``): the baseline that shows what the
characters add. Word-baseline folders saved before it moved into the biLM (``word_embedding.*``
beside ``elmo.*``) load with ``from_pretrained`` as they are.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from transformers.utils import ModelOutput

from .char_ids import N_CHAR_IDS
from .configuration_elmo import ElmoConfig, ElmoConfigError
from .elmo_inputs import INPUT_ID_DTYPES, check_no_attention, takes_only_its_arguments
from .elmo_kernels import at_least_float32
from .elmo_layers import ElmoState
from .messages import described
from .modeling_elmo import ElmoModel, ElmoPreTrainedModel, require_package_loader

IGNORE_INDEX = -100
#: ``from_pretrained``'s ``key_mapping`` for word-baseline folders whose word embedding sat beside the biLM.
_WORD_EMBEDDING_BEFORE_IT_MOVED = {r"^word_embedding\.": "elmo.word_embedding."}


@dataclass
class ElmoLMOutput(ModelOutput):
    """Output of ``ElmoForBidirectionalLM``.

    Args:
        loss: mean of ``forward_loss`` and ``backward_loss`` (sampled softmax in training when
            configured, so not a perplexity; full softmax in eval mode).
        forward_loss: mean cross-entropy of the forward LM over its targets.
        backward_loss: mean cross-entropy of the backward LM over its targets.
        n_targets: number of words the forward LM predicted (the backward LM's too, unless a
            label of ``<S>`` or ``</S>`` is ``-100``).
        final_state: the biLM's final LSTM state (for carrying state across windows).
        hidden_states: with ``output_hidden_states``, the biLM's L+1 layers (B, S, 2P) over the
            LM's steps, markers included, zero beyond each row's length (``ElmoModel.encode``'s;
            the softmax reads the top one); else None.
        attentions: always None (a biLSTM has no attention), as in transformers' outputs.
    """

    loss: torch.Tensor | None = None
    forward_loss: torch.Tensor | None = None
    backward_loss: torch.Tensor | None = None
    n_targets: torch.Tensor | None = None
    final_state: ElmoState | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attentions: tuple[torch.Tensor, ...] | None = None


def log_uniform_probabilities(vocab_size: int, ids: torch.Tensor) -> torch.Tensor:
    """Q(k) = log((k + 2) / (k + 1)) / log(V + 1), the Zipf-like candidate distribution of bilm-tf."""
    ids = ids.double()
    return (torch.log1p(1.0 / (ids + 1.0)) / math.log(vocab_size + 1.0)).float()


def sample_log_uniform(vocab_size: int, num_sampled: int, device: torch.device) -> torch.Tensor:
    """``num_sampled`` draws (with replacement) from ``log_uniform_probabilities``, deduplicated."""
    u = torch.rand(num_sampled, device=device, dtype=torch.float64)
    ids = (torch.exp(u * math.log(vocab_size + 1.0)) - 1.0).floor().long().clamp_(0, vocab_size - 1)
    return torch.unique(ids)


class ElmoSoftmax(nn.Module):
    """The word softmax shared by both directions: ``logits = h W^T + b``, W (V, P), b (V,)."""

    def __init__(self, vocab_size: int, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(vocab_size, dim))
        self.bias = nn.Parameter(torch.zeros(vocab_size))

    def full_loss(self, hidden: torch.Tensor, targets: torch.Tensor, chunk: int = 2048) -> torch.Tensor:
        """Summed cross-entropy of ``hidden`` (N, P) against ``targets`` (N,), in row chunks, in
        float32 at least (``at_least_float32``: a float64 model's in float64)."""
        total = at_least_float32(hidden.new_zeros(()))
        for start in range(0, hidden.shape[0], chunk):
            logits = at_least_float32(F.linear(hidden[start : start + chunk], self.weight, self.bias))
            total = total + F.cross_entropy(logits, targets[start : start + chunk], reduction="sum")
        return total

    def sampled_loss(
        self, hidden: torch.Tensor, targets: torch.Tensor, candidates: torch.Tensor, num_tries: int
    ) -> torch.Tensor:
        """Summed sampled-softmax cross-entropy (logQ-corrected, accidental hits removed).

        ``candidates`` are the distinct ids among ``num_tries`` log-uniform draws.
        """
        vocab_size = self.weight.shape[0]
        q_true = log_uniform_probabilities(vocab_size, targets)
        q_cand = log_uniform_probabilities(vocab_size, candidates)
        # expected count of an id in num_tries draws: 1 - (1 - Q)^num_tries
        log_expected_true = torch.log(-torch.expm1(num_tries * torch.log1p(-q_true)))
        log_expected_cand = torch.log(-torch.expm1(num_tries * torch.log1p(-q_cand)))
        true_logits = (hidden * self.weight[targets]).sum(-1) + self.bias[targets] - log_expected_true  # (N,)
        cand_logits = F.linear(hidden, self.weight[candidates], self.bias[candidates]) - log_expected_cand  # (N, K)
        cand_logits = at_least_float32(cand_logits).masked_fill(
            targets.unsqueeze(1) == candidates.unsqueeze(0), float("-inf")
        )
        logits = torch.cat([at_least_float32(true_logits).unsqueeze(1), cand_logits], dim=1)
        return (torch.logsumexp(logits, dim=1) - logits[:, 0]).sum()


def check_lm_inputs(input_ids: Any, lengths: Any, labels: Any, config: ElmoConfig) -> None:
    """Check ``ElmoForBidirectionalLM.forward``'s inputs, with one line each: tensors, ``input_ids``
    (B, S, W) char ids 0..261 (or (B, S) word ids for ``token_embedding="word"``) and ``lengths``
    (B,) within 1..S of a dtype in ``INPUT_ID_DTYPES``, ``labels`` (B, S) vocabulary ids or
    ``-100`` (signed integers). Only the steps within each row's length are read, so only they are
    checked. The checks of the values cost one host sync together and are skipped while
    ``torch.compile`` or ``torch.export`` traces."""
    words = config.token_embedding == "word"
    for name, value, dtypes in (
        ("input_ids", input_ids, INPUT_ID_DTYPES),
        ("lengths", lengths, INPUT_ID_DTYPES),
        ("labels", labels, (torch.int16, torch.int32, torch.int64)),
    ):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {described(value)}; convert it with torch.as_tensor")
        if value.dtype not in dtypes:
            kinds = ", ".join(str(d).removeprefix("torch.") for d in dtypes)
            raise TypeError(f"{name} must be an integer tensor ({kinds}), got {value.dtype}")
    width = config.max_characters_per_token
    if input_ids.dim() != (2 if words else 3) or (not words and input_ids.shape[-1] != width):
        got = tuple(input_ids.shape)
        if words:
            raise ValueError(
                f"input_ids must have shape (batch, steps), got {got}: this LM reads word ids (token_embedding='word'), "
                "not char ids; make them with collate_sentences(sentences, vocabulary, word_inputs=True)"
            )
        raise ValueError(
            f"input_ids must have shape (batch, steps, {width}), got {got}: this LM reads {width} char ids a token; "
            f"make them with collate_sentences(sentences, vocabulary, max_characters_per_token={width})"
        )
    batch, steps = input_ids.shape[:2]
    if batch == 0 or steps == 0:
        do = (
            "pass at least one sentence"
            if batch == 0
            else "give each row its sentence between its markers, <S> ... </S>"
        )
        raise ValueError(
            f"empty batch: input_ids {tuple(input_ids.shape)} has no {'rows' if batch == 0 else 'steps'}; {do}"
        )
    if lengths.shape != (batch,):
        raise ValueError(
            f"lengths must have shape (batch,) = ({batch},) to match input_ids, got {tuple(lengths.shape)}"
        )
    if labels.shape != (batch, steps):
        raise ValueError(f"labels {tuple(labels.shape)} must match input_ids' (batch, steps) {(batch, steps)}")
    if torch.compiler.is_compiling() or torch.compiler.is_exporting():
        return
    assert config.vocab_size is not None  # ElmoForBidirectionalLM requires it
    lengths = lengths.long().to(input_ids.device)
    within = torch.arange(steps, device=input_ids.device) < lengths.unsqueeze(1)  # (B, S): the steps read
    id_limit = config.vocab_size if words else N_CHAR_IDS
    ids = input_ids.long()
    bad_ids = ((ids < 0) | (ids >= id_limit)) & (within if words else within.unsqueeze(-1))
    bad_lengths = (lengths < 1) | (lengths > steps)
    targets = labels.long().to(input_ids.device)
    bad_labels = ((targets < 0) | (targets >= config.vocab_size)) & (targets != IGNORE_INDEX) & within
    found = torch.stack([bad_lengths.any(), bad_ids.any(), bad_labels.any()]).tolist()  # one host sync
    if found[0]:
        row = int(bad_lengths.nonzero()[0])
        raise ValueError(
            f"lengths[{row}] is {int(lengths[row])}: each row's steps lie in 1..{steps} (input_ids' steps)"
        )
    if found[1]:
        where = bad_ids.nonzero()[0].tolist()
        what = "word ids" if words else "char ids"
        raise ValueError(f"input_ids{where} is {int(ids[tuple(where)])}: {what} lie in 0..{id_limit - 1}")
    if found[2]:
        where = bad_labels.nonzero()[0].tolist()
        raise ValueError(
            f"labels{where} is {int(targets[tuple(where)])}: labels are vocabulary ids 0..{config.vocab_size - 1}, "
            f"or {IGNORE_INDEX} for no target"
        )


class ElmoForBidirectionalLM(ElmoPreTrainedModel):
    """The ELMo biLM with the word softmax it is pretrained with.

    Its config fields (declared and checked by ``ElmoConfig``): ``vocab_size`` (V words, the
    softmax rows; required), ``softmax`` (``"sampled"`` or ``"full"``, the training loss;
    evaluation is always full), ``num_sampled`` (log-uniform draws per batch for the sampled
    softmax) and ``token_embedding`` (``"char_cnn"``, or ``"word"`` for the word-embedding
    baseline). ``ElmoModel.from_pretrained`` on a saved folder of this model loads the biLM alone.
    """

    _has_word_softmax = True

    @property
    def forward_inputs(self) -> str:
        """What its forward reads, as a refusal of an argument it does not take (a tokenizer's or a data
        collator's ``attention_mask``) or of one left out (``lengths``) says it: char ids, or word ids for
        ``token_embedding="word"``."""
        if self.config.token_embedding == "word":
            ids, collated = "their word ids (token_embedding='word')", ", word_inputs=True"
        else:
            ids, collated = "their char ids", ""
        return (
            f"the LM scores whole sentences, each <S> tokens </S>: input_ids {ids}, lengths their steps, labels "
            "the ids of their words in its softmax's vocab.txt, which neither a tokenizer nor "
            "DataCollatorForLanguageModeling gives; hf_elmo.training.data.collate_sentences(sentences, "
            f"Vocabulary.from_file(MODEL/vocab.txt){collated}) builds all three, as README's Perplexity in Python shows"
        )

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__(config)
        if config.vocab_size is None:
            raise ElmoConfigError(
                "vocab_size",
                "must be set for ElmoForBidirectionalLM (the words of its softmax): a config without it is a biLM's "
                "alone, which ElmoModel loads (an LM with its softmax is a folder of elmo pretrain, or the shipped "
                "model); to build a fresh softmax, set it to the number of words of your vocab.txt",
            )
        self.elmo = ElmoModel(config)
        self.softmax = ElmoSoftmax(config.vocab_size, config.projection_dim)
        self.post_init()

    @classmethod
    def from_pretrained(  # (name, *args, **kwargs): passes every argument on
        cls, pretrained_model_name_or_path: str | os.PathLike | None, *args: Any, **kwargs: Any
    ) -> Any:  # the model, or (model, info) with output_loading_info
        """``ElmoPreTrainedModel.from_pretrained``; the word embedding of a word-baseline folder saved
        before it moved into the biLM (``word_embedding.weight``) loads as ``elmo.word_embedding.weight``."""
        kwargs.setdefault("key_mapping", _WORD_EMBEDDING_BEFORE_IT_MOVED)
        return super().from_pretrained(pretrained_model_name_or_path, *args, **kwargs)

    def save_pretrained(self, save_directory: str | os.PathLike, *args: Any, **kwargs: Any) -> None:
        """``save_pretrained``; a folder saved with its code for ``trust_remote_code`` also maps
        ``AutoModel`` to the biLM alone (``ElmoModel``), as ``ElmoModel.from_pretrained`` loads it."""
        if self._auto_class is not None:
            biLM = f"{ElmoModel.__module__.rsplit('.', 1)[-1]}.{ElmoModel.__name__}"
            self.config.auto_map = {**(getattr(self.config, "auto_map", None) or {}), "AutoModel": biLM}
        super().save_pretrained(save_directory, *args, **kwargs)

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, ElmoSoftmax):  # bilm-tf: W ~ N(0, 1/sqrt(P)), b = 0
            nn.init.normal_(module.weight, std=1.0 / math.sqrt(module.weight.shape[1]))
            nn.init.zeros_(module.bias)
        else:
            super()._init_weights(module)

    @takes_only_its_arguments
    def forward(
        self,
        input_ids: torch.Tensor,
        lengths: torch.Tensor,
        labels: torch.Tensor,
        initial_state: ElmoState | None = None,
        full_softmax: bool | None = None,
        return_dict: bool | None = None,
        output_hidden_states: bool | None = None,
        output_attentions: bool | None = None,
    ) -> ElmoLMOutput | tuple:
        """Both directions' LM loss over sequences that already hold their marker tokens.

        Args:
            input_ids: (B, S, W) char ids (or (B, S) word ids for ``token_embedding="word"``),
                left-aligned, ``lengths`` (B,) real steps per row.
            labels: (B, S) vocabulary ids of every step (``<S>``, the words, ``</S>``); ``-100``
                where a step has no target (neither direction predicts it), as beyond each
                row's length, where labels are never read.
            initial_state: LSTM state to start from (default: ``ElmoModel.initial_state``).
            full_softmax: force the full (True) or configured (None) softmax; eval mode is full.
                Run without gradients in training mode, the configured sampled softmax (or dropout)
                makes the loss vary from call to call, which a warning says once: call ``eval()``.
            output_hidden_states: (default ``config.output_hidden_states``) add the biLM's layers
                that the loss was computed from as ``hidden_states``, as ``ElmoModel`` and the task
                heads return theirs; ``output_attentions``: ``True`` is an error, as for ``ElmoModel``.
        """
        check_no_attention(output_attentions, self.config)
        check_lm_inputs(input_ids, lengths, labels, self.config)
        input_ids, labels = input_ids.long(), labels.long()
        layers, final = self.elmo.encode(input_ids, lengths, initial_state)
        top = layers[-1]  # (B, S, 2P)
        p = self.config.projection_dim
        forward_hidden, forward_targets = top[:, :-1, :p], labels[:, 1:]  # predict t+1
        backward_hidden, backward_targets = top[:, 1:, p:], labels[:, :-1]  # predict t-1
        # slot t (0..S-2) pairs steps t and t+1: a prediction when both lie in the row and its target is not -100
        within = torch.arange(1, labels.shape[1], device=labels.device) < lengths.to(labels.device).unsqueeze(1)
        keeps = (within & (forward_targets != IGNORE_INDEX), within & (backward_targets != IGNORE_INDEX))
        counts = torch.stack([keep.sum() for keep in keeps])
        if not bool(counts.all()):
            raise ValueError(
                "the batch has no targets in a direction: a row needs 2 steps or more, and labels not all -100"
            )
        use_full = (not self.training) or full_softmax or self.config.softmax == "full"
        self._warn_of_dropout_in_prediction(sampled_softmax=not use_full)
        losses = []
        assert self.config.vocab_size is not None  # __init__ refuses None
        # One draw of candidates for both directions (bilm-tf); none for the full softmax.
        candidates = (
            None if use_full else sample_log_uniform(self.config.vocab_size, self.config.num_sampled, top.device)
        )
        for hidden, targets, keep, n in zip(
            (forward_hidden, backward_hidden), (forward_targets, backward_targets), keeps, counts
        ):
            h, y = hidden[keep], targets[keep]
            if candidates is None:
                total = self.softmax.full_loss(h, y)
            else:
                total = self.softmax.sampled_loss(h, y, candidates, self.config.num_sampled)
            losses.append(total / n)
        loss = 0.5 * (losses[0] + losses[1])
        output_hidden_states = (
            self.config.output_hidden_states if output_hidden_states is None else output_hidden_states
        )
        output = ElmoLMOutput(
            loss=loss,
            forward_loss=losses[0],
            backward_loss=losses[1],
            n_targets=counts[0],
            final_state=final,
            hidden_states=tuple(layers) if output_hidden_states else None,
        )
        return_dict = self.config.return_dict if return_dict is None else return_dict
        return output if return_dict else output.to_tuple()

    @classmethod
    def from_allennlp_with_softmax(
        cls,
        options_path: str | os.PathLike,
        weights_path: str | os.PathLike,
        softmax_path: str | os.PathLike,
    ) -> ElmoForBidirectionalLM:
        """The original biLM files plus a softmax dump (hdf5 ``softmax/W`` (V, P), ``softmax/b`` (V,));
        needs the hf-elmo package (``hf_elmo.loading.load_allennlp_with_softmax`` builds it)."""
        return require_package_loader(cls).from_allennlp_with_softmax(cls, options_path, weights_path, softmax_path)
