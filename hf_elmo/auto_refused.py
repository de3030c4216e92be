"""The transformers Auto classes that an ELMo model is none of: ``hf_elmo`` registers
``NoMaskedOrCausalLM`` for ``AutoModelForMaskedLM`` and ``AutoModelForCausalLM`` (and so for the
fill-mask and text-generation pipelines), so that they refuse an ELMo model in one line naming the
classes to use; transformers' own error listed every config class it knows, over many lines."""

from __future__ import annotations

from typing import Any, NoReturn

from .configuration_elmo import ElmoConfig
from .modeling_elmo import ElmoPreTrainedModel

#: Why an ELMo model is no masked or causal LM, and what to load instead.
NOT_MASKED_OR_CAUSAL = (
    "ELMo's biLM is neither a masked nor a causal LM: its forward and backward LSTMs each predict the next and the "
    "previous word over a word softmax, for perplexity, and generate no text; load its vectors with AutoModel, "
    "the LM with its softmax with AutoModelForPreTraining (ElmoForBidirectionalLM)"
)


class NoMaskedOrCausalLM(ElmoPreTrainedModel):
    """What ``AutoModelForMaskedLM`` and ``AutoModelForCausalLM`` get for an ELMo config: it refuses
    to load or be built, in one line (``NOT_MASKED_OR_CAUSAL``)."""

    config_class = ElmoConfig

    def __init__(self, config: ElmoConfig) -> None:
        raise ValueError(NOT_MASKED_OR_CAUSAL)

    @classmethod
    def from_pretrained(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(NOT_MASKED_OR_CAUSAL)

    @classmethod
    def _from_config(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(NOT_MASKED_OR_CAUSAL)
