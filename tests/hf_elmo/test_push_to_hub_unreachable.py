"""push_to_hub of the model, config and tokenizer when the Hub cannot be reached: one line naming the
repository and what to do, as loading from the Hub says (was the HTTP client's bare ConnectError)."""

from __future__ import annotations

import importlib

import huggingface_hub
import pytest

from hf_elmo import ElmoModel, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config


def test_push_to_hub_without_a_network_is_one_line_naming_the_repository_and_what_to_do(monkeypatch):
    client = importlib.import_module(type(huggingface_hub.get_session()).__module__.split(".")[0])

    def unreachable(*args, **kwargs):
        raise client.ConnectError("[Errno -2] Name or service not known")

    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", unreachable)
    model = ElmoModel(tiny_config())
    for pushed in (model, model.config, ElmoTokenizer()):
        with pytest.raises(OSError) as caught:
            pushed.push_to_hub("me/elmo")
        assert str(caught.value) == (
            f"{type(pushed).__name__}.push_to_hub me/elmo: the request to the Hub failed (ConnectError: [Errno -2] "
            "Name or service not known); check the network and proxy settings (HTTPS_PROXY), or "
            "save_pretrained(FOLDER) and upload the folder later (hf upload me/elmo FOLDER)"
        )
