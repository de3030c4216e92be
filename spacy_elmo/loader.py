"""The registered loader that fetches biLM weights at ``[initialize]``."""

from typing import Callable, Optional

from spacy.util import registry

from hf_elmo import ElmoModel


@registry.misc("spacy-elmo.ElmoLoader.v1")
def elmo_loader_v1(name_or_path: Optional[str]) -> Callable[[], ElmoModel]:
    """A callable that loads the biLM from a local folder or a Hub id when called.

    The folder may be a converted one (``config.json`` + ``model.safetensors``) or hold the
    original ``options.json`` + ``*.hdf5``; see ``ElmoModel.from_pretrained``. Nothing is read
    until the pipeline is initialised, so a trained pipeline loads without the folder.
    """
    if not name_or_path:
        raise ValueError(
            "spacy-elmo.ElmoLoader.v1 needs name_or_path: a local folder or Hub id of an ELMo "
            "model (e.g. --paths.elmo my-elmo/)"
        )

    def load() -> ElmoModel:
        return ElmoModel.from_pretrained(str(name_or_path))

    return load
