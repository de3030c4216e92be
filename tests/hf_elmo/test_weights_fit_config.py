"""Weights that do not fit their config (an edited config.json, the wrong class for a folder) are
refused with one line that names the folder, never loaded with random or dropped layers; what is
left out or new by design (an LM's softmax for the biLM alone, a task head's own layers) still
loads."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import PreTrainedModel

from hf_elmo import ElmoConfig, ElmoForBidirectionalLM, ElmoForTokenClassification, ElmoModel
from hf_elmo.loading import InvalidModelError, convert_to_folder, load_bilm
from tests.numpy_elmo import small_options, write_random_original

TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=2, lstm_dim=16, projection_dim=8, n_layers=2)


@pytest.fixture(scope="module")
def bilm_folder(tmp_path_factory) -> Path:
    """What ``elmo convert`` writes (2 highway layers, 2 LSTM layers of 32 cells), code copies included."""
    original = tmp_path_factory.mktemp("original")
    write_random_original(original, small_options(n_highway=2), seed=5)
    return convert_to_folder(original / "options.json", original / "weights.hdf5", original.parent / "converted")


@pytest.fixture(scope="module")
def lm_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lm")
    torch.manual_seed(0)
    ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=20, softmax="full")).save_pretrained(folder)
    return folder


def _edited(folder: Path, into: Path, **fields: Any) -> Path:
    """A copy of ``folder`` with ``fields`` changed in its ``config.json``."""
    shutil.copytree(folder, into)
    config = json.loads((into / "config.json").read_text())
    (into / "config.json").write_text(json.dumps({**config, **fields}))
    return into


def _refusal(folder: Path, model_class: type, problem: str) -> str:
    return rf"^{re.escape(str(folder))}: its weights do not fit its config\.json \({model_class.__name__}: {problem}"


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("n_highway", 1, r"unexpected char_cnn\.highways\.1\.gate\.bias, .*\); restore its config\.json"),
        ("n_highway", 3, r"missing char_cnn\.highways\.2\.gate\.bias, "),
        (
            "n_layers",
            1,
            r"unexpected bilm\.backward_layers\.1\.input_linear\.bias, .* and 4 more; "
            r"of another shape warm_c \(2, 2, 32\) in the file, \(2, 1, 32\) for the config",
        ),
        ("n_layers", 3, r"missing bilm\.backward_layers\.2\.input_linear\.bias, .*; of another shape warm_c"),
    ],
)
def test_a_config_edited_to_other_layer_counts_than_its_weights_is_refused_naming_the_folder(
    bilm_folder, tmp_path, field, value, problem
):
    edited = _edited(bilm_folder, tmp_path / "edited", **{field: value})
    with pytest.raises(InvalidModelError, match=_refusal(edited, ElmoModel, problem)):
        ElmoModel.from_pretrained(edited)
    with pytest.raises(InvalidModelError, match=_refusal(edited, ElmoForTokenClassification, "")):
        ElmoForTokenClassification.from_pretrained(edited, num_labels=2)


def test_an_edited_LM_folder_is_refused_by_the_LM_the_biLM_alone_and_a_task_head(lm_folder, tmp_path):
    edited = _edited(lm_folder, tmp_path / "edited", n_highway=1)
    for model_class, kwargs in (
        (ElmoForBidirectionalLM, {}),
        (ElmoModel, {}),
        (ElmoForTokenClassification, {"num_labels": 2}),
    ):
        with pytest.raises(InvalidModelError, match=_refusal(edited, model_class, r"unexpected (elmo\.)?char_cnn")):
            model_class.from_pretrained(edited, **kwargs)


def test_the_LM_class_on_a_biLM_folder_is_refused_not_given_a_random_softmax(bilm_folder, tmp_path):
    edited = _edited(bilm_folder, tmp_path / "lm", architectures=["ElmoForBidirectionalLM"], vocab_size=10)
    expected = _refusal(
        edited,
        ElmoForBidirectionalLM,
        r"missing softmax\.bias, softmax\.weight\); it holds a biLM without the LM softmax: load it with ElmoModel$",
    )
    with pytest.raises(InvalidModelError, match=expected):
        ElmoForBidirectionalLM.from_pretrained(edited)


REMOTE_CODE_ONLY = """
import sys
sys.modules["hf_elmo"] = None  # importing hf_elmo now raises: only the folder's own code can run
from transformers import AutoModel
try:
    AutoModel.from_pretrained(sys.argv[1], trust_remote_code=True)
except OSError as err:
    print(type(err).__module__, type(err).__name__, err)
"""


def test_a_folder_with_its_code_is_refused_by_the_code_copies_too(bilm_folder, tmp_path):
    """``trust_remote_code`` runs the folder's copy of ``modeling_elmo.py``, not the package's."""
    edited = _edited(bilm_folder, tmp_path / "edited", n_highway=3)
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", REMOTE_CODE_ONLY, str(edited)], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    module, name, message = result.stdout.strip().split(" ", 2)
    assert module.startswith("transformers_modules") and name == "InvalidModelError"
    assert re.match(_refusal(edited, ElmoModel, r"missing char_cnn\.highways\.2"), message)


QUIET_REFUSAL = """
import sys
from hf_elmo.cli import main
sys.exit(main(["embed", sys.argv[1], sys.argv[2], "--model", sys.argv[3], "--no-progress"]))
"""


def embed_in_a_fresh_process(folder: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """``elmo embed`` of one sentence with the model in ``folder``, in a process of its own (its
    stderr as a user sees it: no transformers load report before the one error line)."""
    (tmp_path / "in.txt").write_text("The cat sat .\n")
    command = [sys.executable, "-c", QUIET_REFUSAL, str(tmp_path / "in.txt"), str(tmp_path / "out.hdf5"), str(folder)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_elmo_embed_reports_an_edited_folder_in_one_line_and_writes_nothing(bilm_folder, tmp_path):
    """Was a RuntimeError traceback after transformers' load report (n_layers edited)."""
    edited = _edited(bilm_folder, tmp_path / "edited", n_layers=3)
    result = embed_in_a_fresh_process(edited, tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith(f"elmo embed: error: {edited}: its weights do not fit its config.json")
    assert result.stderr.count("\n") == 1  # no load report, no traceback
    assert not (tmp_path / "out.hdf5").exists()


def test_a_task_head_loads_a_biLM_folder_but_refuses_a_head_folder_that_lacks_some_of_its_layers(bilm_folder, tmp_path):
    head = ElmoForTokenClassification.from_pretrained(bilm_folder, num_labels=2)  # its own layers new
    head.save_pretrained(tmp_path / "head")
    weights = load_file(tmp_path / "head" / "model.safetensors")
    del weights["classifier.weight"]
    save_file(weights, tmp_path / "head" / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(
        InvalidModelError, match=_refusal(tmp_path / "head", head.__class__, r"missing classifier\.weight\)")
    ):
        ElmoForTokenClassification.from_pretrained(tmp_path / "head")


def test_ignore_mismatched_sizes_lets_a_heads_own_layers_change_shape_but_not_the_biLMs(bilm_folder, tmp_path):
    ElmoForTokenClassification.from_pretrained(bilm_folder, num_labels=2).save_pretrained(tmp_path / "head")
    relabelled = ElmoForTokenClassification.from_pretrained(
        tmp_path / "head", num_labels=3, ignore_mismatched_sizes=True
    )
    assert relabelled.classifier.out_features == 3
    with pytest.raises(
        InvalidModelError,
        match=r"of another shape classifier\.bias \(2,\) in the file, \(3,\).*pass ignore_mismatched_sizes=True",
    ):
        ElmoForTokenClassification.from_pretrained(tmp_path / "head", num_labels=3)
    edited = _edited(tmp_path / "head", tmp_path / "edited", n_layers=1)
    with pytest.raises(InvalidModelError, match=r"of another shape elmo\.warm_c"):
        ElmoForTokenClassification.from_pretrained(edited, ignore_mismatched_sizes=True)


def test_the_biLM_loads_alone_from_a_task_model_folder_and_the_info_is_returned_when_asked(bilm_folder, tmp_path):
    head = ElmoForTokenClassification.from_pretrained(bilm_folder, num_labels=2)
    head.save_pretrained(tmp_path / "head")
    bilm, info = ElmoModel.from_pretrained(tmp_path / "head", output_loading_info=True)
    assert {key.split(".")[0] for key in info["unexpected_keys"]} == {"scalar_mix", "lstm", "classifier"}
    assert not info["missing_keys"] and not info["mismatched_keys"]
    torch.testing.assert_close(bilm.state_dict(), head.elmo.state_dict(), rtol=0, atol=0)


def test_the_commands_take_the_biLM_of_a_task_model_folder_without_transformers_load_report(
    bilm_folder, tmp_path, capfd
):
    """``load_bilm`` (every ``elmo`` command's model argument) leaves the head out on purpose (was:
    transformers' 15-line report of the head's weights as UNEXPECTED, 'not ok if you expect identical
    arch', before ``elmo embed`` or ``elmo export`` of a fine-tuned tagger's folder)."""
    head = ElmoForTokenClassification.from_pretrained(bilm_folder, num_labels=2)
    head.save_pretrained(tmp_path / "head")
    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("transformers.modeling_utils")
    logger.addHandler(handler)
    try:
        bilm, _ = load_bilm(tmp_path / "head")
        ElmoModel.from_pretrained(tmp_path / "head")  # as transformers' own classes: with the report
    finally:
        logger.removeHandler(handler)
    assert len(logged) == 1 and "LOAD REPORT" in logged[0]
    torch.testing.assert_close(bilm.state_dict(), head.elmo.state_dict(), rtol=0, atol=0)


@pytest.mark.parametrize("model_class", [ElmoModel, ElmoForTokenClassification, ElmoForBidirectionalLM])
def test_a_config_edited_to_sizes_its_weights_lack_is_refused_before_any_model_is_built(
    model_class, bilm_folder, lm_folder, tmp_path, monkeypatch
):
    """lstm_dim 16384 in a small folder's config.json took 18 s and 10 GB: transformers built the
    model at the config's sizes and drew the mismatched weights afresh before the refusal."""
    source = lm_folder if model_class is ElmoForBidirectionalLM else bilm_folder
    edited = _edited(source, tmp_path / "edited", lstm_dim=16384)

    def built(*args: Any, **kwargs: Any):
        raise AssertionError("transformers was asked to build the model")

    monkeypatch.setattr(PreTrainedModel, "from_pretrained", classmethod(built))
    problem = r"of another shape (elmo\.)?bilm\.backward_layers\.0\.input_linear\.bias \(\d+,\) in the file, \(65536,\)"
    with pytest.raises(InvalidModelError, match=_refusal(edited, model_class, problem)):
        model_class.from_pretrained(edited, **({"num_labels": 2} if model_class is ElmoForTokenClassification else {}))


def test_a_config_edited_in_a_subfolder_is_refused_before_any_model_is_built(bilm_folder, tmp_path, monkeypatch):
    """Was: subfolder= skipped the resolver and its weight-shape check: transformers built the model first."""
    edited = _edited(bilm_folder, tmp_path / "edited", lstm_dim=16384)
    monkeypatch.setattr(PreTrainedModel, "from_pretrained", classmethod(lambda *a, **k: pytest.fail("built")))
    problem = r"of another shape bilm\.backward_layers\.0\.input_linear\.bias \(\d+,\) in the file, \(65536,\)"
    with pytest.raises(InvalidModelError, match=_refusal(edited, ElmoModel, problem)):
        ElmoModel.from_pretrained(tmp_path, subfolder="edited")


@pytest.mark.parametrize("overrides", [{"stateful": True}, {"bilm_implementation": "plain", "dropout": 0.1}])
def test_config_fields_given_to_from_pretrained_keep_the_check_before_the_model_is_built(
    overrides, bilm_folder, tmp_path, monkeypatch
):
    edited = _edited(bilm_folder, tmp_path / "edited", lstm_dim=16384)
    monkeypatch.setattr(PreTrainedModel, "from_pretrained", classmethod(lambda *a, **k: pytest.fail("built")))
    with pytest.raises(InvalidModelError, match=r"input_linear\.bias \(\d+,\) in the file, \(65536,\)"):
        ElmoModel.from_pretrained(edited, **overrides)


def test_an_edited_vocab_size_of_an_LM_folder_is_refused_before_its_softmax_is_built(lm_folder, tmp_path, monkeypatch):
    edited = _edited(lm_folder, tmp_path / "edited", vocab_size=10_000_000)
    monkeypatch.setattr(PreTrainedModel, "from_pretrained", classmethod(lambda *a, **k: pytest.fail("built")))
    with pytest.raises(InvalidModelError, match=r"softmax\.bias \(20,\) in the file, \(10000000,\) for the config"):
        ElmoForBidirectionalLM.from_pretrained(edited)


@pytest.mark.parametrize("value", [float("nan"), pytest.param(float("inf"), marks=pytest.mark.slow)])  # inf: ~7 s
def test_weights_holding_nan_or_inf_are_refused_naming_the_weight_and_the_file(value, bilm_folder, tmp_path):
    """They loaded silently, and every output was NaN."""
    damaged = tmp_path / "damaged"
    shutil.copytree(bilm_folder, damaged)
    weights = load_file(damaged / "model.safetensors")
    weights["bilm.forward_layers.1.projection.weight"][0, :3] = value
    save_file(weights, damaged / "model.safetensors", metadata={"format": "pt"})
    message = (
        rf"^{re.escape(str(damaged / 'model.safetensors'))}: weight bilm\.forward_layers\.1\.projection\.weight "
        r"holds 3 NaN or infinite values of 256 \(a damaged file, or a model saved after its training diverged\); "
        "re-create or re-download it$"
    )
    for model_class in (ElmoModel, ElmoForTokenClassification):
        with pytest.raises(InvalidModelError, match=message.replace("bilm", "(elmo\\.)?bilm", 1)):
            model_class.from_pretrained(damaged, num_labels=2)
    result = embed_in_a_fresh_process(damaged, tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert "weight bilm.forward_layers.1.projection.weight holds 3 NaN or infinite values" in result.stderr
    assert not (tmp_path / "out.hdf5").exists()


@pytest.mark.parametrize("sharded", [False, True], ids=["one-file", "sharded"])
def test_a_weight_stored_as_integers_is_refused_naming_the_weight_and_its_file(sharded, bilm_folder, tmp_path):
    """An int64 weight loaded silently, as its numbers rounded to whole ones."""
    folder = tmp_path / "ints"
    if sharded:
        ElmoModel.from_pretrained(bilm_folder).save_pretrained(folder, max_shard_size="20KB")
        index = json.loads((folder / "model.safetensors.index.json").read_text())
        weights = folder / index["weight_map"]["bilm.forward_layers.1.projection.weight"]
    else:
        shutil.copytree(bilm_folder, folder)
        weights = folder / "model.safetensors"
    tensors = load_file(weights)
    tensors["bilm.forward_layers.1.projection.weight"] = tensors["bilm.forward_layers.1.projection.weight"].long()
    save_file(tensors, weights, metadata={"format": "pt"})
    with pytest.raises(InvalidModelError) as refused:
        ElmoModel.from_pretrained(folder)
    assert str(refused.value) == (
        f"{weights}: weight bilm.forward_layers.1.projection.weight is stored as I64, not as floating-point numbers "
        "(ELMo's weights are float32, float16 or bfloat16); re-create or re-download it"
    )


def test_a_state_dict_weight_of_integers_is_refused_naming_it(bilm_folder):
    """It loaded silently, its numbers rounded to whole ones."""
    model = ElmoModel.from_pretrained(bilm_folder)
    weights = model.state_dict()
    weights["bilm.forward_layers.1.projection.weight"] = weights["bilm.forward_layers.1.projection.weight"].long()
    with pytest.raises(InvalidModelError) as refused:
        ElmoModel.from_pretrained(None, config=model.config, state_dict=weights)
    assert str(refused.value) == (
        "the state_dict passed to from_pretrained: weight bilm.forward_layers.1.projection.weight is stored as int64, "
        "not as floating-point numbers (ELMo's weights are float32, float16 or bfloat16); pass the model's own weights"
    )
