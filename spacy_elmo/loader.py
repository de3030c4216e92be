"""The registered loader that fetches biLM weights at ``[initialize]``."""

from typing import Callable, Optional

from spacy.util import registry

from hf_elmo import ElmoModel


@registry.misc("spacy-elmo.ElmoLoader.v1")
def elmo_loader_v1(name_or_path: Optional[str]) -> Callable[[], ElmoModel]:
    """A callable that loads the biLM (float32) when called.

    ``name_or_path`` is anything ``ElmoModel.from_pretrained`` accepts (``hf_elmo.loading``): a
    converted folder (``config.json`` + ``model.safetensors``), a folder or zip archive of the
    original ``options.json`` + ``*.hdf5``, a Hub id ``owner/name``, or a shipped model name such
    as ``hf-elmo:elmo-tiny-en``. Nothing is read until the pipeline is initialised, so a trained
    pipeline loads without it.
    """
    if not name_or_path:
        raise ValueError(
            "spacy-elmo.ElmoLoader.v1 needs name_or_path: a local folder or Hub id of an ELMo "
            "model (e.g. --paths.elmo my-elmo/, or the shipped hf-elmo:elmo-tiny-en)"
        )

    def load() -> ElmoModel:
        return ElmoModel.from_pretrained(str(name_or_path))

    return load
