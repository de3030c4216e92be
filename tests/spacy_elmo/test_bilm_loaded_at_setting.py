"""``loaded_at_setting``: the one refusal, as a config error at its setting, of a biLM that a loader cannot load
or that cannot run (the elmo component's loaders, and ``spacy-elmo.ElmoBiLm``'s)."""

from __future__ import annotations

import pytest
from thinc.api import ConfigValidationError

from spacy_elmo.bilm import loaded_at_setting


def missing() -> object:
    raise FileNotFoundError("no model at /nowhere")


@pytest.mark.parametrize(
    "loader, message",
    [
        (missing, "no model at /nowhere"),
        (lambda: "x", "an ELMo loader must return an hf_elmo.ElmoModel, got the str 'x'"),
    ],
    ids=["not-found", "no-model"],
)
def test_a_biLM_that_cannot_be_loaded_is_one_config_error_at_its_setting(loader, message):
    with pytest.raises(ConfigValidationError) as info:
        loaded_at_setting(loader, "the elmo component 'elmo'", ["initialize", "loader"], "Cannot load it")
    assert info.value.title == "Cannot load it"
    assert info.value.errors == [{"loc": ["initialize", "loader"], "msg": message}]


def test_another_error_of_a_loader_keeps_its_traceback():
    def broken() -> object:
        raise TypeError("a bug in a loader of one's own")

    with pytest.raises(TypeError, match="a bug in a loader"):
        loaded_at_setting(broken, "the elmo component 'elmo'", ["loader"], "Cannot load it")
