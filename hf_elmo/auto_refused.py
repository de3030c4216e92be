"""The transformers Auto classes that an ELMo model is none of: ``refuse_in_one_line`` registers, for
every Auto model class of transformers that ``hf_elmo`` gives no ELMo model (``AutoModelForMaskedLM``,
``AutoModelForCausalLM``, ``AutoModelForQuestionAnswering``, ``AutoModelForSeq2SeqLM``, ...; and so
for their pipelines), a class that refuses an ELMo model in one line naming the classes to use;
transformers' own error listed every config class it knows, over many lines."""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from transformers.models.auto import modeling_auto
from transformers.models.auto.auto_factory import _BaseAutoModelClass

from .configuration_elmo import ElmoConfig
from .modeling_elmo import ElmoPreTrainedModel

#: Why an ELMo model is no masked or causal LM, and what to load instead.
NOT_MASKED_OR_CAUSAL = (
    "ELMo's biLM is neither a masked nor a causal LM: its forward and backward LSTMs each predict the next and the "
    "previous word over a word softmax, for perplexity, and generate no text; load its vectors with AutoModel, "
    "the LM with its softmax with AutoModelForPreTraining (ElmoForBidirectionalLM)"
)


class RefusedAutoModel(ElmoPreTrainedModel):
    """What an Auto class that ELMo has no model for gets for an ELMo config: it refuses to load or
    be built, in one line (``refusal``)."""

    config_class = ElmoConfig
    refusal: ClassVar[str]

    def __init__(self, config: ElmoConfig) -> None:
        raise ValueError(self.refusal)

    @classmethod
    def from_pretrained(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(cls.refusal)

    @classmethod
    def _from_config(cls, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(cls.refusal)


class NoMaskedOrCausalLM(RefusedAutoModel):
    """What ``AutoModelForMaskedLM`` and ``AutoModelForCausalLM`` get for an ELMo config."""

    refusal = NOT_MASKED_OR_CAUSAL


def auto_model_classes() -> list[type[_BaseAutoModelClass]]:
    """transformers' Auto model classes (``AutoModel``, ``AutoModelFor...``, ``AutoBackbone``), as
    its module of them defines them, in their order there."""
    return [
        value
        for value in vars(modeling_auto).values()
        if isinstance(value, type) and issubclass(value, _BaseAutoModelClass) and value._model_mapping is not None
    ]


def _has_an_elmo_model(auto: type[_BaseAutoModelClass]) -> bool:
    return auto._model_mapping is not None and ElmoConfig in auto._model_mapping


def refuse_in_one_line() -> None:
    """Registers a ``RefusedAutoModel`` for ``ElmoConfig`` with every Auto model class that has no
    ELMo model registered yet: call it after registering ELMo's models."""
    autos = auto_model_classes()
    served = [auto.__name__ for auto in autos if _has_an_elmo_model(auto)]
    for auto in autos:
        if _has_an_elmo_model(auto):
            continue
        if auto.__name__ in ("AutoModelForMaskedLM", "AutoModelForCausalLM"):
            refused: type[RefusedAutoModel] = NoMaskedOrCausalLM
        else:
            refusal = (
                f"ELMo has no model for {auto.__name__}: its Auto classes are {', '.join(served)}; "
                "build another head on AutoModel's vectors"
            )
            refused = type(f"No{auto.__name__}", (RefusedAutoModel,), {"refusal": refusal, "__module__": __name__})
        auto.register(ElmoConfig, refused, exist_ok=True)
