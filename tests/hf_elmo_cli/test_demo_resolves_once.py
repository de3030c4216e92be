"""`elmo demo` resolves its model's name once: the source it found to read the model's tokenizer (before the weights
load) is the one it loads (``load_bilm`` takes a ``ModelSource``). Was: the name resolved twice (a Hub id looked up
twice)."""

from __future__ import annotations

import hf_elmo.loading
from hf_elmo.cli import main as elmo_main
from hf_elmo.pretrained import DEFAULT_MODEL_NAME


def recorded_names(monkeypatch) -> list[str]:
    """The names ``hf_elmo.loading.resolve_model`` is called with from now on."""
    resolve_model = hf_elmo.loading.resolve_model
    names: list[str] = []

    def recording(name_or_path, *args, **kwargs):
        names.append(str(name_or_path))
        return resolve_model(name_or_path, *args, **kwargs)

    monkeypatch.setattr(hf_elmo.loading, "resolve_model", recording)
    return names


def test_demo_resolves_the_models_name_once(tmp_path, monkeypatch, capsys):
    text = tmp_path / "text.txt"
    text.write_text("we know it .\n", encoding="utf-8")
    names = recorded_names(monkeypatch)
    argv = ["demo", "--model", DEFAULT_MODEL_NAME, "--word", "know", "--top", "1", "--text", str(text)]
    assert elmo_main([*argv, "--sentences", "I know.", "you know"]) == 0
    assert "sentence 1: I [know] ." in capsys.readouterr().out
    assert names.count(DEFAULT_MODEL_NAME) == 1, names


def test_load_bilm_loads_a_resolved_source_without_resolving_its_name_again(monkeypatch):
    source = hf_elmo.loading.resolve_model(DEFAULT_MODEL_NAME)
    names = recorded_names(monkeypatch)
    model, loaded = hf_elmo.loading.load_bilm(source)
    assert loaded is source and not model.training
    assert DEFAULT_MODEL_NAME not in names, names
