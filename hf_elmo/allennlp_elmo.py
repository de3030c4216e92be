"""A drop-in for AllenNLP's ``allennlp.modules.elmo.Elmo``: char ids in, scalar mixes of the biLM out.

``from hf_elmo import Elmo, batch_to_ids`` replaces ``from allennlp.modules.elmo import Elmo,
batch_to_ids`` (AllenNLP 2.10's signature, outputs and numbers; AllenNLP is archived and no longer
installs beside current torch and transformers).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import torch
from torch import nn
from transformers.utils import logging as hf_logging

from .allennlp_state import ALLENNLP_NAME, elmo_parameters_from_allennlp
from .char_ids import SENTENCE_END, SENTENCE_START, add_sentence_markers, batch_to_ids
from .elmo_inputs import check_inputs
from .elmo_weights import WARM_STATE
from .messages import described
from .modeling_elmo import ElmoModel, check_reads_char_ids
from .original_files import float32_default
from .scalar_mix import ScalarMix

_logger = hf_logging.get_logger(__name__)

#: Words whose token layer ``vocab_to_cache`` computes in one run of the char CNN.
_CACHE_CHUNK = 1024


class Elmo(nn.Module):
    """AllenNLP's ``Elmo``: ``num_output_representations`` scalar mixes of the biLM's L+1 layers.

    Each representation is AllenNLP's: ``ScalarMix`` (``gamma * sum_j softmax(s)_j h_j``, each
    with its own ``s`` and ``gamma``) over the layers of the sentences WITH ``<S>`` / ``</S>``
    (``do_layer_norm``: each layer normalised over all their unmasked elements, the markers
    included), the markers then removed (unless ``keep_sentence_boundaries``), then dropout.

    Args:
        options_file, weight_file: the original ``options.json`` and weights ``.hdf5``
            (``ElmoModel.from_allennlp``); or, with ``weight_file=None``, any model name
            ``ElmoModel.from_pretrained`` takes (``"hf-elmo:elmo-2x1024-en"``, a ``save_pretrained``
            folder, a folder or ``.zip`` of the original files, a Hub id). Local files only:
            AllenNLP's URLs are not downloaded.
        num_output_representations: how many mixes (1 or 2 typically), computed from one biLM run.
        requires_grad: whether the biLM's weights (and ``vocab_to_cache``'s rows) are trained.
        do_layer_norm: normalise each layer before mixing (``ScalarMix(layer_norm="batch")``).
        dropout: on each representation, in training mode. The biLM runs without dropout in
            either mode, as AllenNLP's does.
        vocab_to_cache: words whose token layer is computed once here; ``forward`` then takes
            ``word_inputs``, ids into this list, 0 the padding (its row is zero): AllenNLP's
            ``Vocabulary.get_index_to_token_vocabulary()`` values.
        keep_sentence_boundaries: return the (B, T+2) positions of ``<S>``, the tokens and ``</S>``.
        scalar_mix_parameters: fixed (not trained) ``s`` of every mix, before the softmax, one a
            layer; e.g. ``[-9e10, 1, -9e10]`` selects layer 1.
        module: an ``ElmoModel`` to use, with ``options_file`` and ``weight_file`` None;
            ``requires_grad`` then leaves its weights as they are.
        stateful: carry the LSTM state of batch row r to row r of the next call, as AllenNLP does
            (the default, so that numbers match AllenNLP's); ``reset_states()`` forgets it.
            ``False`` starts every call from the model's initial state, so that a sentence gets the
            same vectors in any batch and order (``ElmoModel``'s own default). The carried state
            is the module's one: a stateful ``Elmo`` is not for several threads at once (a call
            continues from whichever thread's call came last, as with AllenNLP's); give each
            thread its own, or pass ``stateful=False``.

    ``forward(inputs, word_inputs=None)`` takes char ids (B, T, 50) (``batch_to_ids``; more leading
    dimensions are flattened and restored) and returns ``{"elmo_representations": [n tensors (B, T,
    2P)], "mask": (B, T) bool}``, zero beyond each sentence's tokens (with
    ``keep_sentence_boundaries``: T+2 positions, and with ``do_layer_norm`` the normalised zeros
    there, as AllenNLP's).

    ``load_state_dict`` (this module's, or that of a model holding it) also takes AllenNLP's
    ``Elmo`` parameters, e.g. the ``state_dict`` of an AllenNLP model holding one
    (``torch.load("model.th")``), with its names and gate layouts, when this ``Elmo`` is built as
    AllenNLP's was (the same options file, ``num_output_representations`` and ``vocab_to_cache``):
    ``_load_allennlp_layout``.
    """

    bos_embedding: torch.Tensor  # (P,) buffers with ``vocab_to_cache``: the token layer of <S> and </S>
    eos_embedding: torch.Tensor

    def __init__(
        self,
        options_file: str | os.PathLike | None,
        weight_file: str | os.PathLike | None,
        num_output_representations: int,
        requires_grad: bool = False,
        do_layer_norm: bool = False,
        dropout: float = 0.5,
        vocab_to_cache: Sequence[str] | None = None,
        keep_sentence_boundaries: bool = False,
        scalar_mix_parameters: Sequence[float] | None = None,
        module: ElmoModel | None = None,
        stateful: bool = True,
    ) -> None:
        super().__init__()
        if isinstance(num_output_representations, bool) or not isinstance(num_output_representations, int):
            raise TypeError(f"num_output_representations must be an int, got {described(num_output_representations)}")
        if num_output_representations < 1:
            raise ValueError(f"num_output_representations must be at least 1, got {num_output_representations}")
        self.model = _biLM(options_file, weight_file, module)  # float32, as from_pretrained and from_allennlp load
        if module is None:
            self.model.requires_grad_(requires_grad)
        num_layers = self.model.config.n_layers + 1
        if scalar_mix_parameters is not None and len(scalar_mix_parameters) != num_layers:
            raise ValueError(
                f"scalar_mix_parameters has {len(scalar_mix_parameters)} values, but this biLM has {num_layers} "
                f"layers (the token layer and {num_layers - 1} LSTM layers): pass one value a layer"
            )
        self.stateful = stateful
        self.keep_sentence_boundaries = keep_sentence_boundaries
        self.dropout = nn.Dropout(dropout)
        with float32_default():  # the mixes in float32 whatever torch's default dtype, as the biLM
            self.scalar_mixes = [
                ScalarMix(
                    num_layers,
                    layer_norm="batch" if do_layer_norm else None,
                    initial_scalar_parameters=scalar_mix_parameters,
                    trainable=scalar_mix_parameters is None,
                )
                for _ in range(num_output_representations)
            ]
        for k, mix in enumerate(self.scalar_mixes):
            self.add_module(f"scalar_mix_{k}", mix)  # AllenNLP's names
        self.word_embedding: nn.Embedding | None = None
        if vocab_to_cache is not None:
            rows = _token_layer_of(self.model, [SENTENCE_START, SENTENCE_END, *_words(vocab_to_cache)])
            self.register_buffer("bos_embedding", rows[0].clone())
            self.register_buffer("eos_embedding", rows[1].clone())
            self.word_embedding = nn.Embedding.from_pretrained(rows[2:], freeze=not requires_grad, padding_idx=0)
            with torch.no_grad():
                self.word_embedding.weight[0].zero_()
        self.register_load_state_dict_pre_hook(_load_allennlp_layout)
        self.train(self.training)

    def get_output_dim(self) -> int:
        """2P, the size of every representation vector."""
        return 2 * self.model.config.projection_dim

    def reset_states(self) -> None:
        """Forget the LSTM state carried by ``stateful`` calls (AllenNLP's
        ``elmo._elmo_lstm._elmo_lstm.reset_states()``)."""
        self.model.reset_states()

    def train(self, mode: bool = True) -> Elmo:
        """Training mode for the dropout and mixes; the biLM stays in eval mode (no dropout)."""
        super().train(mode)
        self.model.eval()
        return self

    def forward(self, inputs: torch.Tensor, word_inputs: torch.Tensor | None = None) -> dict[str, Any]:
        """Char ids ``inputs`` (..., T, 50), or with ``vocab_to_cache`` word ids ``word_inputs``
        (..., T) (``inputs`` then serve only when an id lies outside the vocabulary, as in
        AllenNLP) -> ``{"elmo_representations": [(..., T, 2P)], "mask": (..., T)}``."""
        words = self._cached_word_ids(word_inputs)
        if words is not None:
            assert word_inputs is not None and self.word_embedding is not None
            lead = tuple(word_inputs.shape[:-1])
            lengths = (words > 0).sum(dim=1)
            with_markers = _positions(words.shape[1] + 2, lengths + 2)
            embedded = self.word_embedding(words)  # (B, T, P); the padding row is zero
            tokens = add_sentence_markers(embedded, lengths, self.bos_embedding, self.eos_embedding)
        else:
            lead = tuple(inputs.shape[:-2]) if isinstance(inputs, torch.Tensor) else ()
            if isinstance(inputs, torch.Tensor) and inputs.dim() > 3:
                # the leading size named, not -1: T is 0 in a batch of only empty sentences
                inputs = inputs.reshape(math.prod(inputs.shape[:-2]), *inputs.shape[-2:])
            char_ids, real = check_inputs(inputs, None, self.model.config.max_characters_per_token)
            lengths = real.sum(dim=1)
            with_markers = _positions(char_ids.shape[1] + 2, lengths + 2)
            tokens = self.model.token_embeddings(add_sentence_markers(char_ids, lengths), with_markers)
        initial = self.model.initial_state(tokens.shape[0], self.stateful)
        layers, final = self.model.contextualize(tokens, lengths + 2, initial)  # L+1 x (B, T+2, 2P)
        if self.stateful:
            self.model.carry_state(final)
        mask = with_markers if self.keep_sentence_boundaries else _positions(tokens.shape[1] - 2, lengths)
        representations = []
        for mix in self.scalar_mixes:
            mixed = mix(layers, with_markers)  # layer norm over the markers too, as AllenNLP's
            if not self.keep_sentence_boundaries:
                mixed = mixed[:, 1:-1].masked_fill(~mask.unsqueeze(-1), 0.0)
            representations.append(self.dropout(mixed))
        return {
            "elmo_representations": [r.reshape(*lead, *r.shape[1:]) for r in representations],
            "mask": mask.reshape(*lead, mask.shape[1]),
        }

    def _cached_word_ids(self, word_inputs: torch.Tensor | None) -> torch.Tensor | None:
        """``word_inputs`` as (B, T) ids when they can be looked up in ``vocab_to_cache``'s rows;
        ``None`` when there are none, or no cached vocabulary (a warning, as AllenNLP's), or an id
        outside it (AllenNLP then runs the char CNN on ``inputs``)."""
        if word_inputs is None:
            return None
        if self.word_embedding is None:
            _logger.warning_once(
                "Word inputs were passed to ELMo but it does not have a cached vocab: they are ignored"
            )
            return None
        words = word_inputs.reshape(
            math.prod(word_inputs.shape[:-1]), word_inputs.shape[-1]
        ).long()  # T may be 0, as above
        if bool(((words < 0) | (words >= self.word_embedding.num_embeddings)).any()):
            return None
        return words


def _load_allennlp_layout(elmo: Elmo, state_dict: dict[str, Any], prefix: str, *_: Any) -> None:
    """``load_state_dict`` pre-hook of ``Elmo`` (run under any module holding one): AllenNLP
    ``Elmo``'s parameters under ``prefix`` are rewritten in place into ours
    (``hf_elmo.allennlp_state.elmo_parameters_from_allennlp``); a ``state_dict`` of ours passes
    unchanged.

    What AllenNLP does not save is what its own ``Elmo`` has after loading the ``state_dict``: the
    cached vocabulary's ``<S>`` / ``</S>`` rows stay this module's (each computed from the weight
    file when built), and the biLM starts from zero state (our warm state). A name or shape that
    does not fit raises ``ElmoWeightsError`` before anything loads. torch passes pre-hooks
    ``strict=True`` whatever the caller's, so ``strict=False`` changes only what torch itself
    reports: parameters missing from AllenNLP's ``state_dict`` (and AllenNLP's that cannot be
    converted without them, as ``input_linearity`` without ``state_linearity``: they share
    ``W_0``) are torch's missing and unexpected keys.
    """
    local = [key[len(prefix) :] for key in state_dict if key.startswith(prefix)]
    if not any(ALLENNLP_NAME.match(name) for name in local):
        return
    own = {name: tensor for name, tensor in elmo.state_dict().items() if not name.startswith("model.")}
    bilm, mine, used = elmo_parameters_from_allennlp(
        {name: state_dict[prefix + name].detach().cpu().float().numpy() for name in local},
        elmo.model.config,
        {name: tuple(tensor.shape) for name, tensor in own.items()},
        len(elmo.scalar_mixes),
        prefix,
    )
    for name in used:
        del state_dict[prefix + name]
    if "word_embedding.weight" in mine:
        mine["word_embedding.weight"][0] = 0.0  # as __init__ leaves it (AllenNLP's forward masks that row)
    if elmo.word_embedding is not None:
        for name in ("bos_embedding", "eos_embedding"):
            state_dict[prefix + name] = own[name].clone()
    state_dict.update({prefix + name: torch.from_numpy(array) for name, array in mine.items()})
    state_dict.update({f"{prefix}model.{name}": torch.from_numpy(array) for name, array in bilm.items()})
    if bilm:
        for name in WARM_STATE:
            state_dict[f"{prefix}model.{name}"] = torch.zeros_like(getattr(elmo.model, name))


def _positions(steps: int, lengths: torch.Tensor) -> torch.Tensor:
    """(B, ``steps``) bool: True at the first ``lengths[b]`` positions of row b."""
    return torch.arange(steps, device=lengths.device) < lengths.unsqueeze(1)


def _biLM(
    options_file: str | os.PathLike | None, weight_file: str | os.PathLike | None, module: ElmoModel | None
) -> ElmoModel:
    """The ``ElmoModel`` that ``Elmo``'s first two arguments, or its ``module``, name."""
    if module is not None:
        if options_file is not None or weight_file is not None:
            raise ValueError("Elmo(module=...) takes no options_file or weight_file: pass None for both")
        if not isinstance(module, ElmoModel):
            raise TypeError(
                f"Elmo(module=...) takes an hf_elmo ElmoModel (e.g. ElmoModel.from_pretrained(name)), "
                f"got {described(module)}"
            )
        model = module
    elif options_file is None:
        raise ValueError(
            "Elmo needs options_file and weight_file (the original files), or a model name as options_file with "
            "weight_file=None (e.g. 'hf-elmo:elmo-2x1024-en'), or module=ElmoModel"
        )
    elif weight_file is None:
        model = ElmoModel.from_pretrained(options_file)
    else:
        model = ElmoModel.from_allennlp(options_file, weight_file)
    check_reads_char_ids(model, "Elmo")
    return model


def _words(vocab_to_cache: Sequence[str]) -> list[str]:
    """``vocab_to_cache`` checked: a non-empty sequence of words, index 0 the padding token."""
    if isinstance(vocab_to_cache, str) or not all(isinstance(word, str) for word in vocab_to_cache):
        raise TypeError("vocab_to_cache must be a list of words (str), index 0 the padding token")
    if len(vocab_to_cache) == 0:
        raise ValueError("vocab_to_cache is empty: pass the vocabulary's words, index 0 the padding token")
    if "" in vocab_to_cache:
        raise ValueError(
            f"vocab_to_cache word {list(vocab_to_cache).index('')} is empty: ELMo has no word to embed there (as "
            "batch_to_ids refuses an empty token); name the padding token, e.g. '@@PADDING@@'"
        )
    return list(vocab_to_cache)


@torch.no_grad()
def _token_layer_of(model: ElmoModel, words: Sequence[str]) -> torch.Tensor:
    """The token layer (len(words), P) of each word on its own (``<S>`` / ``</S>``: the markers'),
    truncated to the model's width as AllenNLP truncates."""
    width = model.config.max_characters_per_token
    device = next(model.parameters()).device
    rows = []
    for start in range(0, len(words), _CACHE_CHUNK):
        chunk = words[start : start + _CACHE_CHUNK]
        ids = batch_to_ids([[word] for word in chunk], width, max_token_chars=None).to(device)
        rows.append(model.token_embeddings(ids, torch.ones(ids.shape[:2], dtype=torch.bool, device=device))[:, 0])
    return torch.cat(rows)
