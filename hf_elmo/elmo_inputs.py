"""What ``ElmoModel`` and the models around it take, checked, each refusal one line:

    check_inputs(input_ids (B, T, W), attention_mask (B, T) | None, W) -> ids int64 (B, T, W), mask bool (B, T)
    takes_only_its_arguments(forward)   a keyword argument forward does not take (token_type_ids, say)
    check_no_attention, eager_only      attentions and attention implementations: ELMo has none

This file imports only torch, transformers and its siblings (the char ids, the tokenizer's output
names, ``messages``), so that a saved model folder carries it with ``modeling_elmo.py`` for
``trust_remote_code=True``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

import torch
from torch import nn
from transformers import PreTrainedConfig

from .char_ids import N_CHAR_IDS
from .messages import described
from .tokenization_elmo import TOKENIZER_ONLY_OUTPUTS

_Method = TypeVar("_Method", bound=Callable[..., Any])

#: Integer dtypes that hold every char id 0..261 exactly (bool, int8 and uint8 do not).
INPUT_ID_DTYPES = (torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64)


def check_inputs(input_ids: Any, attention_mask: Any | None, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Check ``ElmoModel.forward``'s inputs; return the ids as int64 (B, T, W) and the mask (B, T) bool.

    Refuses, with one line each: anything but a tensor, a dtype not in ``INPUT_ID_DTYPES``, a
    shape other than (B, T, ``width``) with B >= 1, a mask whose shape is not (B, T). Checks of
    the values (ids within 0..261, a left-aligned mask, a mask that is 0 on padding tokens, whose
    char ids are all zero; without a mask, ids padded on the right, the mask derived from them) are
    skipped while ``torch.compile`` or ``torch.export`` traces the
    model, so that ``forward`` stays exportable; they cost one host sync together (on GPU).
    """
    if not isinstance(input_ids, torch.Tensor):
        raise TypeError(
            f"input_ids must be a torch.Tensor of char ids (batch, tokens, {width}), got {described(input_ids)}; "
            "convert it with torch.as_tensor, or call the tokenizer with return_tensors='pt'"
        )
    if input_ids.dtype not in INPUT_ID_DTYPES:
        raise TypeError(
            f"input_ids must be an integer tensor that holds char ids 0..{N_CHAR_IDS - 1} exactly "
            f"(int16, int32 or int64), got {input_ids.dtype}"
        )
    if input_ids.dim() != 3:
        raise ValueError(f"input_ids must have shape (batch, tokens, {width}), got {tuple(input_ids.shape)}")
    if input_ids.shape[-1] != width:
        raise ValueError(
            f"input_ids must have shape (batch, tokens, {width}), got {tuple(input_ids.shape)}: this model reads "
            f"{width} char ids a token (max_characters_per_token); make them with batch_to_ids(sentences, "
            f"max_characters_per_token={width}) or the model's tokenizer"
        )
    if input_ids.shape[0] == 0:
        raise ValueError(
            f"empty batch: input_ids {tuple(input_ids.shape)} has no rows; pass at least one sentence "
            '(a sentence of no words, "", is a row)'
        )
    input_ids = input_ids.long()
    tokens = (input_ids > 0).any(dim=-1)  # (B, T): False for padding, whose char ids are all zero
    if attention_mask is None:
        mask = tokens
    else:
        if not isinstance(attention_mask, torch.Tensor):
            raise TypeError(f"attention_mask must be a torch.Tensor, got {described(attention_mask)}")
        if attention_mask.shape != input_ids.shape[:2]:
            raise ValueError(
                f"attention_mask must have shape (batch, tokens) = {tuple(input_ids.shape[:2])} to match "
                f"input_ids {tuple(input_ids.shape)}, got {tuple(attention_mask.shape)}"
            )
        mask = attention_mask.bool()
    if torch.compiler.is_compiling() or torch.compiler.is_exporting():
        return input_ids, mask
    bad = (input_ids < 0) | (input_ids >= N_CHAR_IDS)
    aligned = torch.arange(input_ids.shape[1], device=mask.device) < mask.sum(dim=1, keepdim=True)
    on_padding = mask & ~tokens
    out_of_range, not_aligned, marks_padding = torch.stack(  # one host sync for the three checks
        [bad.any(), (mask != aligned).any(), on_padding.any()]
    ).tolist()
    if out_of_range:
        where = tuple(bad.nonzero()[0].tolist())
        raise ValueError(
            f"char id {int(input_ids[where])} out of range 0..{N_CHAR_IDS - 1} at input_ids{list(where)} "
            "(sentence, token, character); make the ids with ElmoTokenizer or batch_to_ids"
        )
    if not_aligned:
        sentence, token = (mask != aligned).nonzero()[0].tolist()  # the row's first gap: a 0 before a 1
        if attention_mask is None:
            raise ValueError(
                f"input_ids must be padded on the right: sentence {sentence} has a padding token (all-zero char "
                f"ids) at token {token}, before a real token; put each sentence's tokens first, then its padding, "
                "as ElmoTokenizer does"
            )
        raise ValueError(
            f"attention_mask must be left-aligned (real tokens first, then padding): it is 0 at [{sentence}, {token}] "
            "(sentence, token), before a 1; pad on the right, as ElmoTokenizer does"
        )
    if marks_padding:
        where = tuple(on_padding.nonzero()[0].tolist())
        raise ValueError(
            f"attention_mask marks padding as tokens: it is 1 at {list(where)} (sentence, token), whose char ids "
            "are all zero (padding); pass the tokenizer's attention_mask, or none (it is derived from input_ids)"
        )
    return input_ids, mask


#: What a model reads, as ``takes_only_its_arguments`` says it after the arguments its forward takes (a
#: class whose forward reads something else says that in its ``forward_inputs``).
CHAR_ID_ROWS = "ELMo reads one sentence a row of char ids: no token_type_ids, position_ids or inputs_embeds"


def takes_only_its_arguments(forward: _Method) -> _Method:
    """``forward`` of a model, refusing a keyword argument it does not take in one line that names it
    and the ones it takes (Python's ``TypeError`` said only "unexpected keyword argument"), e.g. a BERT
    tokenizer's ``token_type_ids``. The signature stays ``forward``'s own, without ``**kwargs``, which
    ``Trainer`` reads (it would pass ``num_items_in_batch`` to a forward that takes ``**kwargs``).
    Such an argument given as ``None`` says nothing and is dropped, so that generic code written for
    other models (``model(input_ids=..., token_type_ids=batch.get("token_type_ids"))``) runs; so are
    the tokenizer's outputs that are no input (``TOKENIZER_ONLY_OUTPUTS``: offsets, lengths), so that
    ``model(**tokenizer(..., return_offsets_mapping=True))`` runs. A required argument left out is
    refused so too. Both refusals end with what the model reads: its class's ``forward_inputs``, by
    default ``CHAR_ID_ROWS``."""
    # The signature's facts, read once here: each call only looks names up in them.
    parameters = inspect.signature(forward).parameters
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)  # not *args, **kwargs
    taken = tuple(name for name, p in parameters.items() if name != "self" and p.kind in named)
    taken_names = frozenset(taken)
    required = [name for name in taken if parameters[name].default is inspect.Parameter.empty]
    required_positional = tuple(
        name for name in required if parameters[name].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    )
    required_keyword = tuple(name for name in required if parameters[name].kind is inspect.Parameter.KEYWORD_ONLY)

    def refusal(model: nn.Module, problem: str) -> TypeError:
        reads = getattr(model, "forward_inputs", CHAR_ID_ROWS)
        return TypeError(f"{type(model).__name__}.forward() {problem}: it takes {', '.join(taken)} ({reads})")

    @functools.wraps(forward)
    def checked(self: nn.Module, *args: Any, **kwargs: Any) -> Any:
        if not taken_names.issuperset(kwargs):
            unknown = [
                name
                for name, value in kwargs.items()
                if name not in taken_names and name not in TOKENIZER_ONLY_OUTPUTS and value is not None
            ]
            if unknown:
                raise refusal(self, f"takes no {', '.join(unknown)}")
            kwargs = {name: value for name, value in kwargs.items() if name in taken_names}
        if len(args) < len(required_positional) or required_keyword:
            missing = [name for name in required_positional[len(args) :] + required_keyword if name not in kwargs]
            if missing:
                raise refusal(self, f"is missing {', '.join(missing)}")
        return forward(self, *args, **kwargs)

    return cast(_Method, checked)


def check_no_attention(output_attentions: bool | None, config: PreTrainedConfig) -> None:
    """Refuse, in one line, attentions asked of ``ElmoModel`` or a model around it: ``output_attentions``
    True, or left unset (``None``) with ``config.output_attentions`` True, which is what transformers
    models then read (``from_pretrained(name, output_attentions=True)`` sets it)."""
    if output_attentions:
        raise ValueError("ELMo has no attention (a biLSTM): leave output_attentions unset")
    if output_attentions is None and config.output_attentions:
        raise ValueError("ELMo has no attention (a biLSTM): its config sets output_attentions=True; set it to False")


def eager_only(attn_implementation: str | None) -> str:
    """``"eager"``, the attention implementation of a model without attention, for ``None`` (unset)
    or ``"eager"``; a one-line ``ValueError`` for any other."""
    if attn_implementation not in (None, "eager"):
        raise ValueError(
            f"ELMo has no attention (a biLSTM), so attn_implementation={attn_implementation!r} does not apply: leave "
            "attn_implementation unset"
        )
    return "eager"
