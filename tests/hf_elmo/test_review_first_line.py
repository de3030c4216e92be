"""``first_line``: how every one-line error quotes another library's message (the Hub client's, torch's,
safetensors', ONNX Runtime's, spaCy's): its first line, and its type's name where it says nothing."""

from __future__ import annotations

import importlib

import pytest

from hf_elmo import ElmoModel
from hf_elmo.messages import first_line
from hf_elmo.subfolders import ModelNotFoundError
from hf_elmo.training.model import _load_init_model


@pytest.mark.parametrize(
    "error, line, typed",
    [
        (ValueError("bad header\n  at byte 8"), "bad header", "ValueError: bad header"),
        (OSError("\n  disk full  \nmore"), "disk full", "OSError: disk full"),
        (RuntimeError(""), "RuntimeError", "RuntimeError"),  # was "RuntimeError: RuntimeError", or "RuntimeError: "
        (KeyError(), "KeyError", "KeyError"),
        (ValueError(" \n "), "ValueError", "ValueError"),
    ],
    ids=["lines", "blank-first", "empty", "no-arguments", "blank"],
)
def test_the_first_line_or_the_type_alone(error, line, typed):
    assert first_line(error) == line
    assert first_line(error, with_type=True) == typed


def _hub_client():
    import huggingface_hub

    return importlib.import_module(type(huggingface_hub.get_session()).__module__.split(".")[0])


def test_an_error_from_the_hub_that_says_nothing_is_named_by_its_type(monkeypatch):
    """Was: IndexError (``str(err).splitlines()[0]`` of an empty message), a traceback for any load of a Hub id."""
    import huggingface_hub
    from huggingface_hub.errors import HfHubHTTPError

    client = _hub_client()

    def answered(*args, **kwargs):
        request = client.Request("GET", "https://huggingface.co/api/models/org/elmo")
        raise HfHubHTTPError("", response=client.Response(502, request=request))

    monkeypatch.setattr(huggingface_hub, "snapshot_download", answered)
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained("org/elmo")
    assert str(caught.value) == (
        "'org/elmo' is not a local folder, so it was looked up as a Hub repository: the Hub answered HfHubHTTPError"
    )


def test_a_failed_request_to_the_hub_that_says_nothing_is_named_by_its_type(monkeypatch):
    """Was: "(ProxyError: )", a colon before nothing."""
    import huggingface_hub

    client = _hub_client()

    def refused(*args, **kwargs):
        raise client.ProxyError("")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", refused)
    with pytest.raises(ModelNotFoundError, match=r"the request to the Hub failed \(ProxyError\); check the network"):
        ElmoModel.from_pretrained("org/elmo")


def test_an_init_model_that_fails_to_load_saying_nothing_is_named_by_its_type_once(tmp_path):
    """Was: "(ValueError: ValueError)"."""

    class Unloadable:
        @staticmethod
        def from_pretrained(source, **changes):
            raise ValueError()

    with pytest.raises(ValueError) as caught:
        _load_init_model(tmp_path, Unloadable)
    assert str(caught.value) == f"--init-model {tmp_path} cannot be loaded (ValueError)"
