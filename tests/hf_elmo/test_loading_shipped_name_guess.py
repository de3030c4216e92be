"""A shipped model named without its ``hf-elmo:`` prefix (``elmo-2x1024-en``) or with ``/`` for its ``:``
(``hf-elmo/elmo-2x1024-en``, looked up as a Hub id) that is found nowhere says, in its one-line error, ``did you
mean hf-elmo:elmo-2x1024-en?``, from ``ElmoModel.from_pretrained`` (its config and tokenizer too) and ``elmo embed``
alike (was: the shipped names listed, or the Hub's 'not in the local Hub cache', with no word of the right name);
offline the Hub is not asked, as before."""

from __future__ import annotations

import pytest
from huggingface_hub import constants

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo.pretrained import DEFAULT, DEFAULT_MODEL_NAME, SHIPPED_PREFIX
from hf_elmo.subfolders import ModelNotFoundError
from hf_elmo_cli import main

GUESS = f"; did you mean {DEFAULT_MODEL_NAME}?"
SLASHED = SHIPPED_PREFIX.replace(":", "/") + DEFAULT


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No Hub, and an empty Hub cache."""
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))


@pytest.mark.parametrize("name", [DEFAULT, SLASHED])
@pytest.mark.parametrize("cls", [ElmoModel, ElmoConfig, ElmoTokenizer])
def test_from_pretrained_suggests_the_shipped_name(offline, cls, name):
    with pytest.raises(ModelNotFoundError) as caught:
        cls.from_pretrained(name)
    message = str(caught.value)
    assert message.endswith(GUESS) and "\n" not in message
    assert repr(name) in message


def test_the_hub_error_is_kept_before_the_guess(offline):
    with pytest.raises(ModelNotFoundError, match=r"looked up as a Hub repository: offline .*did you mean"):
        ElmoModel.from_pretrained(SLASHED)


@pytest.mark.parametrize("name", ["elmo-2x1024", "org/elmo-2x1024-en", "hf-elmo/elmo-nonesuch-en"])
def test_other_names_get_no_guess(offline, name):
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained(name)
    assert "did you mean" not in str(caught.value)


@pytest.mark.parametrize("name", [DEFAULT, SLASHED])
def test_elmo_embed_suggests_the_shipped_name(offline, tmp_path, capsys, name):
    (tmp_path / "in.txt").write_text("a b\n", encoding="utf-8")
    assert main(["embed", "--model", name, str(tmp_path / "in.txt"), str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("elmo embed: error: ") and err[0].endswith(GUESS)
    assert not (tmp_path / "out").exists()


def test_a_local_folder_of_that_name_is_still_loaded_as_a_folder(tmp_path, monkeypatch):
    ElmoModel.from_pretrained(DEFAULT_MODEL_NAME).config.save_pretrained(tmp_path / DEFAULT)
    monkeypatch.chdir(tmp_path)
    assert ElmoConfig.from_pretrained(DEFAULT).model_type == "elmo"


@pytest.mark.parametrize("name", ["elmo-2x256-en", "hf-elmo/elmo-tiny-en"])
def test_a_retired_name_without_its_prefix_suggests_the_model_that_replaced_it(offline, name):
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained(name)
    assert str(caught.value).endswith(GUESS)


@pytest.mark.parametrize("name", [DEFAULT_MODEL_NAME.upper(), DEFAULT.upper(), f"{SHIPPED_PREFIX}{DEFAULT.upper()}"])
def test_a_shipped_name_in_other_capitals_suggests_it(offline, name):
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained(name)
    assert str(caught.value).endswith(GUESS) and "\n" not in str(caught.value)
