"""Models shipped inside the package, and their names.

A shipped model is named ``hf-elmo:NAME`` (``SHIPPED_PREFIX`` + a key of
``SHIPPED``): ``ElmoModel.from_pretrained``, every ``elmo`` command and spaCy's ``--paths.elmo``
accept the name, and it cannot shadow a Hub id (a colon is not allowed in one).

``elmo-2x1024-en`` (``DEFAULT_MODEL_NAME``, the default of ``elmo demo``, ``embed`` and
``perplexity`` and of spaCy's ``elmo`` component) is a biLM of the released "small" ELMo's shape
(2 x LSTM 1024 with projection 128, 2048 char filters) pretrained with ``elmo pretrain`` on
English Wikipedia / Wikinews prose (its README.md is the model card: data, licences, steps, tokens
seen, perplexities). ``RETIRED`` maps the names of models that earlier versions shipped to their
successors, for the error that a retired name raises.
``demo_sentences.txt`` is a small hand-written text (spaCy tokens) for ``elmo demo``.
"""

from pathlib import Path
from typing import Dict

#: Prefix of the names of models shipped inside the package (not valid in a Hub id).
SHIPPED_PREFIX = "hf-elmo:"
HERE = Path(__file__).resolve().parent
#: The default model's name without the prefix: the one place that says which model is the default.
DEFAULT = "elmo-2x1024-en"
#: Shipped model name (without the ``hf-elmo:`` prefix) -> its folder inside the package.
SHIPPED: Dict[str, Path] = {DEFAULT: HERE / DEFAULT}
#: Name of a model that an earlier version shipped -> (the shipped model that replaced it, why).
RETIRED: Dict[str, tuple[str, str]] = {
    "elmo-tiny-en": (
        DEFAULT,
        "the 1.4M-token demonstration model of hf-elmo 0.1; its successor has 4x the LSTM cells and saw 107x the text (150.0M tokens)",
    ),
    "elmo-2x256-en": (
        DEFAULT,
        "the CPU-trained model of hf-elmo 0.2-0.5 (LSTM 256, held-out test perplexity 105.8); its successor has the "
        "released 'small' ELMo's shape (LSTM 1024, 2048 char filters) and held-out test perplexity 83.8",
    ),
}
DEFAULT_MODEL_NAME = SHIPPED_PREFIX + DEFAULT
#: What the default model is, in a few words, for the messages that say it is being used.
DEFAULT_MODEL_SUMMARY = (
    "the released 'small' ELMo shape pretrained here on 150M tokens of English Wikipedia / Wikinews, "
    "far less text than the released models saw"
)
DEFAULT_MODEL = SHIPPED[DEFAULT]
DEMO_SENTENCES = HERE / "demo_sentences.txt"
