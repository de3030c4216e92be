"""What a loader of one's own, registered and named in ``[initialize.components.elmo.loader]``,
gets for a biLM the component cannot run: the one config error that spacy-elmo's loader gets."""

from collections.abc import Callable

import pytest
import spacy
from thinc.api import ConfigValidationError

from hf_elmo import ElmoModel


@spacy.registry.misc("test-spacy-elmo.OwnLoader.v1")
def own_loader_v1(folder: str) -> Callable[[], ElmoModel]:
    """A loader of one's own: no checks of spacy-elmo's."""
    return lambda: ElmoModel.from_pretrained(folder)


def test_a_word_baseline_from_a_loader_of_one_s_own_is_one_config_error_at_the_loader_setting(word_baseline_folder):
    """Was: a plain ValueError (a traceback in ``spacy train``), where spacy-elmo.ElmoLoader.v1 gives this error."""
    nlp = spacy.blank("en")
    elmo = nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = {
        "loader": {"@misc": "test-spacy-elmo.OwnLoader.v1", "folder": str(word_baseline_folder)}
    }
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize()
    (error,) = info.value.errors
    assert error["loc"] == ["initialize", "components", "elmo", "loader"]
    assert error["msg"] == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; the elmo component 'elmo' needs a char-CNN biLM"
    )
    assert info.value.title == "Cannot load the ELMo biLM of component 'elmo'"
    assert elmo.model.shims[0].elmo is None
