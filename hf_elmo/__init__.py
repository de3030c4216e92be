"""ELMo (Peters et al. 2018) as a Hugging Face ``transformers`` model.

Importing this package registers ``ElmoConfig``, ``ElmoModel``, ``ElmoTokenizer`` and the task
heads with the ``Auto*`` classes (``model_type = "elmo"``), and gives their ``from_pretrained`` the
package's resolver (``hf_elmo.loading``: shipped names, original files, Hub ids).
"""

from importlib.metadata import PackageNotFoundError, version

from transformers import (
    AutoConfig,
    AutoModel,
    AutoModelForPreTraining,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
    AutoTokenizer,
)

from . import loading  # noqa: F401  (installs the package's loader on the model and tokenizer classes)
from .allennlp_elmo import Elmo
from .auto_refused import refuse_in_one_line
from .char_ids import batch_to_ids
from .configuration_elmo import ElmoConfig
from .modeling_elmo import ElmoModel, ElmoModelOutput, ElmoPreTrainedModel, mean_pool
from .modeling_heads import ElmoForSequenceClassification, ElmoForTokenClassification
from .modeling_lm import ElmoForBidirectionalLM, ElmoLMOutput
from .scalar_mix import ScalarMix
from .tokenization_elmo import ElmoTokenizer

try:
    __version__ = version("hf-elmo")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "unknown"

AutoConfig.register("elmo", ElmoConfig, exist_ok=True)
AutoModel.register(ElmoConfig, ElmoModel, exist_ok=True)
AutoModelForPreTraining.register(ElmoConfig, ElmoForBidirectionalLM, exist_ok=True)
AutoModelForTokenClassification.register(ElmoConfig, ElmoForTokenClassification, exist_ok=True)
AutoModelForSequenceClassification.register(ElmoConfig, ElmoForSequenceClassification, exist_ok=True)
AutoTokenizer.register(ElmoConfig, slow_tokenizer_class=ElmoTokenizer, exist_ok=True)
# Every other Auto model class (masked and causal LM, question answering, ...) refuses it in one line
# (transformers' error lists every config class it knows).
refuse_in_one_line()
# Saved folders carry the code and an ``auto_map`` so that ``trust_remote_code=True`` works
# without this package installed.
ElmoConfig.register_for_auto_class()
ElmoModel.register_for_auto_class("AutoModel")
ElmoForBidirectionalLM.register_for_auto_class("AutoModelForPreTraining")
ElmoTokenizer.register_for_auto_class("AutoTokenizer")
ElmoForTokenClassification.register_for_auto_class("AutoModelForTokenClassification")
ElmoForSequenceClassification.register_for_auto_class("AutoModelForSequenceClassification")

__all__ = [
    "__version__",
    "Elmo",
    "ElmoConfig",
    "ElmoForBidirectionalLM",
    "ElmoForSequenceClassification",
    "ElmoForTokenClassification",
    "ElmoLMOutput",
    "ElmoModel",
    "ElmoModelOutput",
    "ElmoPreTrainedModel",
    "ElmoTokenizer",
    "ScalarMix",
    "batch_to_ids",
    "mean_pool",
]
