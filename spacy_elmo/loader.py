"""The registered loader that fetches biLM weights at ``[initialize]``."""

from typing import Callable, Optional

import torch
from spacy.util import logger, registry

from hf_elmo import ElmoModel


@registry.misc("spacy-elmo.ElmoLoader.v1")
def elmo_loader_v1(name_or_path: Optional[str] = None) -> Callable[[], ElmoModel]:
    """A callable that loads the biLM from a local folder or a Hub id when called.

    The folder may be a converted one (``config.json`` + ``model.safetensors``) or hold the
    original ``options.json`` + ``*.hdf5``; see ``ElmoModel.from_pretrained``. Without
    ``name_or_path`` (``null``, or ``--paths.elmo`` left out) it loads the model shipped with the
    package (``hf_elmo/pretrained/elmo-tiny-en``). Nothing is read until the pipeline is
    initialised, so a trained pipeline loads without the folder. A model that cannot be loaded
    raises an ``OSError`` whose one-line message names ``name_or_path``.
    """
    if not name_or_path:
        return load_shipped_model

    def load() -> ElmoModel:
        try:
            return ElmoModel.from_pretrained(str(name_or_path))
        except (OSError, ValueError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise OSError(
                f"no ELMo model at {str(name_or_path)!r} ({reason}): give a converted folder "
                "(config.json + model.safetensors), one with options.json + *.hdf5, or a Hub id; "
                "leave it out (null) for the shipped model"
            ) from error

    return load


def load_shipped_model() -> ElmoModel:
    """The biLM shipped with the package, in float32 (its LM head is dropped).

    Says so on spaCy's logger at warning level, which ``spacy train`` shows: the shipped model
    is a small demonstration model, and a user who meant to give one should notice.
    """
    from hf_elmo.modeling_lm import ElmoForBidirectionalLM
    from hf_elmo.pretrained import DEFAULT_MODEL

    logger.warning(
        "spacy-elmo: no ELMo model given: using the shipped model %s (a small demonstration "
        "model; give spacy-elmo.ElmoLoader.v1 a name_or_path, e.g. --paths.elmo, for another)",
        DEFAULT_MODEL,
    )
    return ElmoForBidirectionalLM.from_pretrained(DEFAULT_MODEL, dtype=torch.float32).elmo.eval()
