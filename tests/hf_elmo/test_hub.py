"""Saving, Auto classes, Hub resolution and trust_remote_code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from transformers import AutoConfig, AutoModel, AutoTokenizer

import hf_elmo
from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from tests.hub_cache import add_repo_to_cache
from tests.numpy_elmo import small_options, write_random_original

SENTENCES = [["The", "cat", "sat", "."], ["naïve"]]


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    folder = tmp_path_factory.mktemp("original")
    write_random_original(folder, small_options(skip=False), seed=5)
    return folder


@pytest.fixture(scope="module")
def saved(original, tmp_path_factory):
    """A converted model saved with save_pretrained, plus its reference outputs."""
    folder = tmp_path_factory.mktemp("saved")
    model = ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    model.save_pretrained(folder)
    ElmoTokenizer().save_pretrained(folder)
    with torch.inference_mode():
        expected = torch.stack(model(input_ids=hf_elmo.batch_to_ids(SENTENCES)).hidden_states).numpy()
    np.save(folder.parent / "expected.npy", expected)
    return folder


def _outputs(model, tokenizer):
    batch = tokenizer(SENTENCES, is_split_into_words=True, padding=True, return_tensors="pt")
    with torch.inference_mode():
        return torch.stack(model(**batch).hidden_states).numpy()


def test_save_and_from_pretrained_give_identical_outputs(saved):
    model = ElmoModel.from_pretrained(saved)
    np.testing.assert_array_equal(_outputs(model, ElmoTokenizer()), np.load(saved.parent / "expected.npy"))


def test_auto_classes_resolve_the_elmo_model_type(saved):
    assert isinstance(AutoConfig.from_pretrained(saved), ElmoConfig)
    model = AutoModel.from_pretrained(saved)
    tokenizer = AutoTokenizer.from_pretrained(saved)
    assert isinstance(model, ElmoModel) and isinstance(tokenizer, ElmoTokenizer)
    np.testing.assert_array_equal(_outputs(model, tokenizer), np.load(saved.parent / "expected.npy"))


def test_saved_folders_carry_code_and_auto_map_for_remote_code(saved):
    config = (saved / "config.json").read_text()
    assert '"AutoModel": "modeling_elmo.ElmoModel"' in config
    assert (saved / "modeling_elmo.py").exists() and (saved / "configuration_elmo.py").exists()


def _run_isolated(script: str, env: dict) -> subprocess.CompletedProcess:
    """Run ``script`` in a fresh interpreter in which ``import hf_elmo`` fails."""
    prelude = "import sys; sys.modules['hf_elmo'] = None  # importing hf_elmo now raises\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(script)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_trust_remote_code_loads_a_saved_folder_without_the_package(saved, tmp_path):
    script = f"""
        import numpy as np, torch
        from transformers import AutoModel, AutoTokenizer
        model = AutoModel.from_pretrained({str(saved)!r}, trust_remote_code=True)
        tokenizer = AutoTokenizer.from_pretrained({str(saved)!r}, trust_remote_code=True)
        assert type(model).__module__.startswith("transformers_modules"), type(model).__module__
        batch = tokenizer({SENTENCES!r}, is_split_into_words=True, padding=True, return_tensors="pt")
        with torch.inference_mode():
            got = torch.stack(model(**batch).hidden_states).numpy()
        np.testing.assert_array_equal(got, np.load({str(saved.parent / "expected.npy")!r}))
        print("remote code ok")
    """
    result = _run_isolated(script, {"HF_HOME": str(tmp_path / "hf-home")})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "remote code ok" in result.stdout


def test_auto_model_resolves_a_hub_repo_id_through_the_hub_cache(saved, original, tmp_path):
    cache = tmp_path / "hub"
    add_repo_to_cache(cache, "org/elmo-original", saved)
    add_repo_to_cache(cache, "allenai/elmo-fixture-original-format", original)
    script = f"""
        import numpy as np, torch
        import hf_elmo
        from transformers import AutoModel, AutoTokenizer
        expected = np.load({str(saved.parent / "expected.npy")!r})
        model = AutoModel.from_pretrained("org/elmo-original")
        tokenizer = AutoTokenizer.from_pretrained("org/elmo-original")
        batch = tokenizer({SENTENCES!r}, is_split_into_words=True, padding=True, return_tensors="pt")
        with torch.inference_mode():
            np.testing.assert_array_equal(torch.stack(model(**batch).hidden_states).numpy(), expected)
            converted = hf_elmo.ElmoModel.from_pretrained("allenai/elmo-fixture-original-format")
            np.testing.assert_array_equal(torch.stack(converted(**batch).hidden_states).numpy(), expected)
        print("hub ok")
    """
    env = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), "HF_HOME": str(tmp_path / "hf-home")}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "hub ok" in result.stdout


def test_loading_never_falls_back_to_pickle(saved, tmp_path):
    folder = tmp_path / "pickled"
    folder.mkdir()
    for name in ("config.json",):
        (folder / name).write_bytes((saved / name).read_bytes())
    torch.save(ElmoModel.from_pretrained(saved).state_dict(), folder / "pytorch_model.bin")
    with pytest.raises(OSError):
        ElmoModel.from_pretrained(folder)


def test_use_safetensors_false_is_refused_and_none_never_falls_back_to_pickle(saved, tmp_path):
    """Was: use_safetensors=False loaded a folder's pytorch_model.bin (other weights than its model.safetensors,
    whose shapes were checked), and use_safetensors=None a subfolder's pickle."""
    both = tmp_path / "both"
    both.mkdir()
    for name in ("config.json", "model.safetensors"):
        (both / name).write_bytes((saved / name).read_bytes())
    torch.save(
        {k: torch.zeros_like(v) for k, v in ElmoModel.from_pretrained(saved).state_dict().items()},
        both / "pytorch_model.bin",
    )
    with pytest.raises(ValueError) as refused:
        ElmoModel.from_pretrained(both, use_safetensors=False)
    assert str(refused.value) == (
        "use_safetensors=False asks for pickled weights (pytorch_model.bin), which ELMo models never load (only "
        "safetensors); leave use_safetensors unset"
    )
    (both / "model.safetensors").unlink()
    with pytest.raises(OSError):
        ElmoModel.from_pretrained(tmp_path, subfolder="both", use_safetensors=None)
