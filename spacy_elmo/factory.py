"""The ``elmo`` factory (the ``spacy_factories`` entry point), declared apart from the component.

spaCy imports every factory entry point whenever it builds a pipeline (``spacy.blank``,
``spacy.load``), ELMo or not. This module imports only spaCy and thinc, so that such a pipeline
does not pay for torch and transformers; the component (``spacy_elmo.component``, with
``hf_elmo``) is imported when an ``elmo`` component is made.
"""

from typing import TYPE_CHECKING

from spacy.language import Language
from thinc.api import Config, Model

from .doc_layers import EXTENSION

if TYPE_CHECKING:
    from .component import ElmoComponent

DEFAULT_MODEL = Config().from_str(
    """
[model]
@architectures = "spacy-elmo.ElmoBiLm.v3"
frozen = true
tokens_per_batch = 4096
mixed_precision = false
grad_scaler_config = {}
"""
)["model"]


@Language.factory(
    "elmo",
    # doc.tensor: token_vectors sets it by default (a vocab without static vectors, most ELMo pipelines'), and
    # nlp.analyze_pipes() reads what a factory declares, not what its settings do
    assigns=[f"doc._.{EXTENSION}", "doc.tensor"],
    default_config={"model": DEFAULT_MODEL, "cache_mb": 512, "cache_dir": None, "token_vectors": None},
)
def make_elmo(
    nlp: Language,
    name: str,
    model: Model | str,  # a str: refused, saying where a model's name goes (refuse_model_name)
    cache_mb: float,
    cache_dir: str | None,
    token_vectors: bool | None,
) -> "ElmoComponent":
    """Create the ``elmo`` component.

    Args:
        model: an ``spacy-elmo.ElmoBiLm.v3`` model (``frozen``, ``tokens_per_batch``,
            ``mixed_precision``, ``grad_scaler_config``).
        cache_mb: bound of the activation cache of a frozen biLM in MiB (0 disables it).
        cache_dir: keep cached layers as files in this folder instead of in memory.
        token_vectors: set ``doc.tensor`` and the vector / similarity hooks from the average of
            the layers; ``None`` (default): only when the vocab has no static vectors.
    """
    from .component import ElmoComponent, let_listeners_check, refuse_model_name

    if isinstance(model, str):
        refuse_model_name(name, model)
    let_listeners_check(nlp)
    return ElmoComponent(nlp.vocab, model, name, cache_mb=cache_mb, cache_dir=cache_dir, token_vectors=token_vectors)
