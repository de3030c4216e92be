"""Task models on ELMo (Peters et al. 2018, section 3.3): token and sequence classification.

Data flow (B sentences, T tokens, W char ids per token; P projection, L biLM layers,
H = ``config.head_hidden_size``, N = ``config.num_labels``):

    input_ids (B, T, W) -> ElmoModel (frozen by default)     -> hidden_states: L+1 x (B, T, 2P)
      -> the task's own ScalarMix: gamma * sum_j softmax(s)_j h_j  -> ELMo_task (B, T, 2P)
      -> [x; ELMo_task], x = the biLM's char-CNN token layer       -> (B, T, 3P)
      -> dropout -> 1-layer BiLSTM (H a direction) -> dropout     -> (B, T, 2H)
      token classification:    -> Linear                            -> logits (B, T, N)
      sequence classification: -> mean over real tokens -> Linear  -> logits (B, N)

As in the paper, the biLM is fixed (``config.freeze_bilm``, default) and ELMo enters the task
model as ``[x_k; ELMo_k]`` at its input. The paper's ``x_k`` is the task model's own
context-independent token vector (GloVe and/or a char CNN); here it is the biLM's own char-CNN
token layer, which is pretrained, costs nothing more to compute and keeps the head small. The
encoder is the smallest contextual one of the paper's tasks: one BiLSTM layer.

This file imports only torch, transformers and its siblings, so that a saved model folder can
carry it for ``trust_remote_code=True``.
"""

from __future__ import annotations

import sys
from typing import Any

import torch
from torch import nn
from transformers import TokenClassificationPipeline
from transformers.modeling_outputs import SequenceClassifierOutput, TokenClassifierOutput
from transformers.utils import logging as hf_logging

from .configuration_elmo import ElmoConfig
from .elmo_inputs import takes_only_its_arguments
from .elmo_kernels import at_least_float32
from .elmo_layers import CheckpointedParts
from .messages import described
from .modeling_elmo import (
    ElmoModel,
    ElmoPreTrainedModel,
    check_config_reads_char_ids,
    check_reads_char_ids,
    mean_pool,
)
from .pipelines import ElmoTokenClassificationPipeline
from .scalar_mix import ScalarMix

_logger = hf_logging.get_logger(__name__)


class ElmoTaskPreTrainedModel(ElmoPreTrainedModel, CheckpointedParts):  # type: ignore[misc]  # push_to_hub: copy_func-typed
    """What the task heads share: the biLM (``self.elmo``), the task's scalar mix and the BiLSTM
    over ``[x; ELMo_task]``; ``encode`` runs them. Under activation checkpointing the BiLSTM is a
    part of its own, beside the biLM's (which run only when it is fine-tuned, ``freeze_bilm=False``).

    ``from_pretrained`` on a biLM folder (converted, or written by ``elmo pretrain``) loads the
    biLM's weights and initialises the rest (``_new_on_load``: loaded from a folder that holds
    some of them, all must be there); an LM folder's word softmax is not part of a task model, so
    its weights are left out by design (not reported as unexpected). A word-embedding baseline
    (``token_embedding="word"``) is refused as it is built, in one line naming its folder: the
    heads read char ids.

    The biLM runs stateless in every batch, whatever ``config.stateful`` says (that is
    ``ElmoModel``'s default): a head's outputs do not depend on which batches came before, so a
    second evaluation gives the first one's numbers, as with any transformers model. A config
    with ``stateful=True`` builds the head with a warning saying so.
    """

    _keys_to_ignore_on_load_unexpected = [r"^softmax\."]
    _new_on_load = ("scalar_mix", "lstm", "classifier")

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__(config)
        check_reads_char_ids(self, type(self).__name__)  # from_pretrained sets name_or_path before this runs
        if config.stateful:
            _logger.warning_once(
                f"{type(self).__name__} runs its biLM stateless (every batch from the initial state), so that its "
                "outputs do not depend on batch order: config.stateful=True applies to ElmoModel only"
            )
        self.elmo = ElmoModel(config)
        self.scalar_mix = ScalarMix(config.n_layers + 1)
        self.dropout = nn.Dropout(config.head_dropout)
        self.lstm = nn.LSTM(3 * config.projection_dim, config.head_hidden_size, batch_first=True, bidirectional=True)
        self.freeze_bilm(config.freeze_bilm)

    @classmethod
    def from_pretrained(cls, *args: Any, **kwargs: Any) -> Any:  # the model, or (model, info)
        """``ElmoPreTrainedModel.from_pretrained``, then the biLM frozen as the config says
        (loading makes new parameters, which would otherwise all be trainable). A word-embedding
        baseline's ``config=`` is refused naming that config's folder, not the one of the weights
        (which ``from_pretrained`` gives the model before ``__init__`` checks it)."""
        config = kwargs.get("config")
        if isinstance(config, ElmoConfig):
            where = f" ({config.name_or_path})" if config.name_or_path else ""
            check_config_reads_char_ids(config, f"the config given to from_pretrained{where}", cls.__name__)
        loaded = super().from_pretrained(*args, **kwargs)
        model = loaded[0] if isinstance(loaded, tuple) else loaded  # output_loading_info=True
        model.freeze_bilm(model.config.freeze_bilm)
        return loaded

    def freeze_bilm(self, frozen: bool = True) -> None:
        """Keep the biLM fixed (the default) or, with ``False``, fine-tune it with the head;
        recorded in ``config.freeze_bilm``."""
        self.config.freeze_bilm = frozen
        self.elmo.requires_grad_(not frozen)
        self.train(self.training)

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, ScalarMix):  # an average of the layers to start with
            nn.init.zeros_(module.scalar_parameters)
            nn.init.ones_(module.gamma)
        elif isinstance(module, nn.LSTM):
            for name, param in module.named_parameters():
                if "weight" in name:
                    nn.init.xavier_uniform_(param)
                else:
                    nn.init.zeros_(param)
        else:
            super()._init_weights(module)

    def train(self, mode: bool = True) -> ElmoTaskPreTrainedModel:
        """A frozen biLM stays in eval mode (no dropout) while the head trains. NEFTune
        (``Trainer``'s ``neftune_noise_alpha``) hooks the input embeddings, the biLM's char
        embedding, and adds its noise only in training mode: with a frozen biLM it adds none,
        which a warning says (``Trainer`` calls ``train()`` at every step)."""
        super().train(mode)
        if self.config.freeze_bilm:
            self.elmo.eval()
            if mode and getattr(self.get_input_embeddings(), "neftune_noise_alpha", None) is not None:
                _logger.warning_once(
                    "neftune_noise_alpha (NEFTune) adds no noise: the biLM is frozen, so its char embedding, where "
                    "NEFTune adds it, stays in eval mode; fine-tune the biLM (freeze_bilm=False in the config, or "
                    "model.freeze_bilm(False)) for the noise, or leave neftune_noise_alpha unset"
                )
        return self

    def encode(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        output_attentions: bool | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, ...]]:
        """Contextual vectors (B, T, 2H), zero at padding and for a text without words, the mask
        of real tokens (B, T) and the biLM's ``hidden_states`` (``ElmoModel``'s L+1 layers
        (B, T, 2P)). ``output_attentions`` goes to the biLM, which refuses ``True``.

        A frozen biLM runs without gradients, so one whose parameters were made trainable by hand
        (``model.elmo.requires_grad_(True)``, as a BERT model's base is unfrozen) while
        ``config.freeze_bilm`` holds is refused where gradients are recorded: they would silently
        stay untrained.

        Run without gradients in training mode with a dropout that acts, it warns once that its
        outputs vary from call to call (``_warn_of_dropout_in_prediction``)."""
        self._warn_of_dropout_in_prediction()
        if self.config.freeze_bilm and torch.is_grad_enabled():
            trainable = next((name for name, p in self.elmo.named_parameters() if p.requires_grad), None)
            if trainable is not None:
                raise ValueError(
                    f"elmo.{trainable} requires grad but the biLM is frozen (config.freeze_bilm), so it would get "
                    "none and stay untrained: call model.freeze_bilm(False) to fine-tune the biLM (then "
                    "requires_grad_(False) on the parts to keep fixed)"
                )
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.config.freeze_bilm):
            bilm = self.elmo(
                input_ids=input_ids,
                attention_mask=attention_mask,
                stateful=False,
                output_attentions=output_attentions,
                return_dict=True,
            )
        mask = bilm.attention_mask.bool()
        elmo_task = self.scalar_mix(bilm.hidden_states, mask)  # (B, T, 2P)
        token_layer = bilm.hidden_states[0][..., : self.config.projection_dim]  # x: (B, T, P)
        features = self.dropout(torch.cat([token_layer, elmo_task], dim=-1))
        lengths = mask.sum(dim=1)
        filled = lengths > 0  # a sentence without words (tokenizer("")) is not run: its vectors stay zero
        if not filled.any():
            return features.new_zeros(*mask.shape, 2 * self.config.head_hidden_size), mask, bilm.hidden_states
        encoded = self.checkpointed(self._bilstm, features[filled], lengths[filled].cpu(), mask.shape[1])
        if not filled.all():
            rows = filled.nonzero().squeeze(1)
            encoded = encoded.new_zeros(*mask.shape, encoded.shape[-1]).index_copy(0, rows, encoded)
        return self.dropout(encoded), mask, bilm.hidden_states

    def _bilstm(self, features: torch.Tensor, lengths: torch.Tensor, steps: int) -> torch.Tensor:
        """The BiLSTM over the rows' first ``lengths`` (on the host) vectors: ``features`` (B, T, 3P)
        -> (B, ``steps``, 2H), zero beyond each length."""
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        encoded, _ = self.lstm(packed)
        return nn.utils.rnn.pad_packed_sequence(encoded, batch_first=True, total_length=steps)[0]


class _ElmoClassifier(ElmoTaskPreTrainedModel):
    """What the two classification heads share: a Linear from the BiLSTM's vectors (2H) to
    ``config.num_labels``, and ``forward``; a head says which vectors it classifies (``_features``),
    its loss (``_loss``) and its output class (``_output_class``)."""

    _output_class: type = TokenClassifierOutput
    #: The leading dimensions of ``labels`` that must be those of the logits, and their names.
    _label_dims, _label_shape = 2, "(batch, tokens)"

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__(config)
        if not config.num_labels:  # None, or 0 (transformers' num_labels for 0 or less: an empty id2label)
            raise ValueError(
                f"{type(self).__name__} needs labels: set num_labels (1 or more) or id2label in its config"
            )
        self.num_labels = config.num_labels
        self.classifier = nn.Linear(2 * config.head_hidden_size, self.num_labels)
        self.post_init()

    @takes_only_its_arguments
    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        output_hidden_states: bool | None = None,
        output_attentions: bool | None = None,
        return_dict: bool | None = None,
    ) -> TokenClassifierOutput | SequenceClassifierOutput | tuple[torch.Tensor, ...]:
        """``input_ids`` (B, T, W), ``attention_mask`` (B, T) -> ``logits`` (the head's shape,
        see its class), and ``loss`` when ``labels`` are given (a mean over the batch).

        ``output_hidden_states`` (default ``config.output_hidden_states``) adds the biLM's
        ``hidden_states`` (``ElmoModel``'s L+1 layers (B, T, 2P)), as transformers' heads add their
        base model's; ``output_attentions`` is taken as the biLM takes it (``True`` is an error).
        With ``return_dict=False`` (or ``config.return_dict`` False) the output is the tuple of
        ``loss``, ``logits`` and ``hidden_states`` in that order, less those not computed: ``(logits,)``
        without labels or hidden states, as transformers' heads give it.
        No ``**kwargs``: a misspelt argument is a ``TypeError`` (``takes_only_its_arguments``), and ``Trainer`` (which reads the
        signature) divides the loss by its gradient-accumulation steps itself instead of passing
        ``num_items_in_batch``."""
        if labels is not None and not isinstance(labels, torch.Tensor):
            raise TypeError(
                f"labels must be a torch.Tensor, got {described(labels)}; convert it "
                "with torch.as_tensor, or pad them with DataCollatorForTokenClassification / DataCollatorWithPadding"
            )
        encoded, mask, hidden_states = self.encode(input_ids, attention_mask, output_attentions)
        logits = self.classifier(self._features(encoded, mask))
        if labels is not None and tuple(labels.shape[: self._label_dims]) != tuple(logits.shape[: self._label_dims]):
            raise ValueError(
                f"labels must have shape {self._label_shape} = {tuple(logits.shape[: self._label_dims])} to match "
                f"input_ids {tuple(input_ids.shape)}, got {tuple(labels.shape)}"
            )
        loss = None if labels is None else self._loss(logits, labels)
        output_hidden_states = (
            self.config.output_hidden_states if output_hidden_states is None else output_hidden_states
        )
        output = self._output_class(
            loss=loss, logits=logits, hidden_states=hidden_states if output_hidden_states else None
        )
        return_dict = self.config.return_dict if return_dict is None else return_dict
        return output if return_dict else output.to_tuple()

    def _features(self, encoded: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _class_loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """The mean cross-entropy of ``logits`` (..., num_labels) over the ``labels`` (...) that are not
        -100 (``_check_class_ids``), and 0 where all are -100 (a batch of texts without words, say): the
        mean of none, NaN, would be the loss of that step and of every evaluation that holds it. In
        float32 at least (``at_least_float32``), as transformers' losses are: a float16 sum overflows
        past 65504 (some 20,000 tokens); a float64 model's loss is float64. Class ids of any integer
        dtype are read (int32 ones, say, from NumPy on Windows: torch's cross-entropy takes int64 only)."""
        self._check_class_ids(labels)
        flat = labels.reshape(-1).long()
        logits = at_least_float32(logits.reshape(-1, self.num_labels))
        total = nn.functional.cross_entropy(logits, flat, reduction="sum")
        return total / (flat != -100).sum().clamp(min=1)

    def _check_class_ids(self, labels: torch.Tensor) -> None:
        """Refuse, in one line naming the first bad one, ``labels`` for a cross-entropy that are not
        class ids 0..num_labels-1 or -100: torch says only "Target 3 is out of bounds" (on a GPU, a
        device-side assert that ends the process's CUDA use). Skipped while ``torch.compile`` or
        ``torch.export`` traces the model, as ``check_inputs``' value checks are."""
        if labels.is_floating_point() or labels.dtype == torch.bool:
            raise ValueError(
                f"labels must be integer class ids 0..{self.num_labels - 1} (-100 where no loss is wanted), got "
                f"{labels.dtype}; convert them with labels.long()"
            )
        if torch.compiler.is_compiling() or torch.compiler.is_exporting():
            return
        bad = (labels != -100) & ((labels < 0) | (labels >= self.num_labels))
        if bad.any():
            where = tuple(bad.nonzero()[0].tolist())
            raise ValueError(
                f"label {int(labels[where])} at labels{list(where)} is not a class id of num_labels={self.num_labels} "
                f"(0..{self.num_labels - 1}, or -100 for no loss): give the config every label, "
                "from_pretrained(..., id2label={0: 'O', 1: 'B-PER', ...}) with one entry a class, or fix the labels"
            )


class ElmoForTokenClassification(_ElmoClassifier):
    """ELMo with a token classification head (e.g. NER, POS): one label per word.

    ``config.num_labels`` / ``id2label`` / ``label2id`` name the labels; ``labels`` (B, T) of
    class ids, ``-100`` where no loss is wanted (padding), give the mean cross-entropy.
    ``forward``: ``input_ids`` (B, T, W), ``attention_mask`` (B, T) -> ``logits`` (B, T, num_labels).
    A saved folder maps ``pipeline("token-classification")`` and ``pipeline("ner")`` to
    ``ElmoTokenClassificationPipeline`` (the stock one reads a position as one integer id).
    """

    _output_class = TokenClassifierOutput
    _custom_pipelines = {
        "token-classification": ElmoTokenClassificationPipeline,
        "ner": ElmoTokenClassificationPipeline,
    }

    def _features(self, encoded: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # called by transformers' stock pipeline (a model in memory without pipeline_class), say which
        # one to pass: the stock one would fail inside transformers after the model ran
        _refuse_the_stock_token_pipeline()
        return encoded  # (B, T, 2H): one vector a token

    def _loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self._class_loss(logits, labels)


def _refuse_the_stock_token_pipeline() -> None:
    """Raise when a caller up to a few frames above (past the head's ``forward`` and
    ``nn.Module.__call__``) is ``TokenClassificationPipeline._forward`` of transformers' own
    pipeline, not of a subclass such as ``ElmoTokenClassificationPipeline``. Only that frame's
    locals are read (the code object tells it). Skipped while ``torch.compile`` or ``torch.export``
    traces the model: they cannot trace ``sys._getframe`` (a warning to file a torch issue, and a
    graph break), and a pipeline runs the model eagerly."""
    if torch.compiler.is_compiling() or torch.compiler.is_exporting():
        return
    pipeline_step = TokenClassificationPipeline._forward.__code__
    frame = sys._getframe(1)
    for _ in range(7):
        frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            return
        if frame.f_code is pipeline_step and type(frame.f_locals.get("self")) is TokenClassificationPipeline:
            raise ValueError(
                "transformers' stock token-classification pipeline reads each position as one integer id, and an "
                "ELMo position is a row of char ids: pass pipeline_class=ElmoTokenClassificationPipeline (from "
                "hf_elmo.pipelines) to pipeline(), or save the model and load the pipeline from its folder"
            )


class ElmoForSequenceClassification(_ElmoClassifier):
    """ELMo with a sentence classification (or regression) head: the BiLSTM's vectors are
    averaged over each sentence's real tokens (``mean_pool``) and mapped to ``num_labels``.

    The loss follows ``config.problem_type`` as in transformers: ``"regression"`` (MSE, for
    ``num_labels == 1``), ``"single_label_classification"`` (cross-entropy, integer labels) or
    ``"multi_label_classification"`` (BCE with logits, float labels (B, num_labels)); when unset
    it is inferred from ``num_labels`` and the labels' dtype.
    ``forward``: ``input_ids`` (B, T, W), ``attention_mask`` (B, T) -> ``logits`` (B, num_labels).
    """

    _output_class = SequenceClassifierOutput
    _label_dims, _label_shape = 1, "(batch,)"  # (batch, num_labels) for several labels a sentence

    def _features(self, encoded: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return mean_pool(encoded, mask)  # (B, 2H): one vector a sentence

    def _loss(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """The loss of ``config.problem_type``, or of the one inferred as transformers infers it,
        which is recorded in the config only once labels fit it: a call whose labels fit no problem
        type (float class ids, integer multi-hot rows) is refused in one line and leaves the config
        as it was, so that the corrected labels are read afresh."""
        problem_type = self.config.problem_type
        source = "config.problem_type"
        if problem_type is None:
            source = f"inferred from num_labels={self.num_labels} and {labels.dtype} labels"
            if self.num_labels == 1:
                problem_type = "regression"
            elif labels.dtype in (torch.long, torch.int):
                problem_type = "single_label_classification"
            else:
                problem_type = "multi_label_classification"
        if problem_type == "regression":
            # (batch, num_labels), or (batch,) for one value a sentence; torch would broadcast others, warning only
            one_a_sentence = self.num_labels == 1 and labels.shape == logits.shape[:1]
            if labels.shape != logits.shape and not one_a_sentence:
                raise ValueError(
                    f"labels of shape {tuple(labels.shape)} for regression ({source}): give num_labels="
                    f"{self.num_labels} values a sentence, shape {tuple(logits.shape)}"
                )
            values = at_least_float32(logits)  # as the class loss: a bfloat16 mean keeps 8 bits
            loss = nn.functional.mse_loss(values, labels.reshape(logits.shape).to(values.dtype))
        elif problem_type == "single_label_classification":
            if labels.numel() != logits.shape[0]:  # (batch,), or (batch, 1) as transformers reads it
                raise ValueError(
                    f"labels of shape {tuple(labels.shape)} for single-label classification ({source}): give one "
                    f"class id a sentence, shape (batch,); several labels a sentence are float rows of "
                    f"num_labels={self.num_labels} (labels.float()), for problem_type 'multi_label_classification' or unset"
                )
            loss = self._class_loss(logits, labels)
        else:
            if labels.shape != logits.shape:
                raise ValueError(
                    f"labels of shape {tuple(labels.shape)} for multi-label classification ({source}): give float "
                    f"rows of num_labels={self.num_labels}, shape {tuple(logits.shape)}; one class id a sentence is an "
                    "integer, shape (batch,) (labels.long()), for problem_type 'single_label_classification' or unset"
                )
            values = at_least_float32(logits)
            loss = nn.functional.binary_cross_entropy_with_logits(values, labels.to(values.dtype))
        self.config.problem_type = problem_type
        return loss
