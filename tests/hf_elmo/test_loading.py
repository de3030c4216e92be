"""One resolver for every way of naming a model (hf_elmo.loading): shipped names, local folders,
zip archives of the original files, Hub ids (online or from the cache); float32 by default;
quiet loading; clear one-line errors."""

from __future__ import annotations

import errno
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModel

import hf_elmo
from hf_elmo import (
    ElmoConfig,
    ElmoForBidirectionalLM,
    ElmoForSequenceClassification,
    ElmoForTokenClassification,
    ElmoModel,
    ElmoTokenizer,
    batch_to_ids,
)
from hf_elmo.configuration_elmo import FIELD_CHECKS
from hf_elmo.loading import InvalidModelError, ModelNotFoundError, convert_to_folder, resolve_model
from hf_elmo.pretrained import DEFAULT_MODEL, DEFAULT_MODEL_NAME
from tests.hf_elmo.test_convert_safety import DiskUsage
from tests.hub_cache import add_repo_to_cache
from tests.numpy_elmo import small_options, write_random_original

SENTENCES = [["The", "cat", "sat", "."], ["naïve"]]
TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=1)


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("original")
    write_random_original(folder, small_options(), seed=3)
    return folder


@pytest.fixture(scope="module")
def lm_folder_fp16(tmp_path_factory) -> Path:
    """An ``ElmoForBidirectionalLM`` stored in float16, as ``elmo pretrain --save-dtype float16`` writes."""
    folder = tmp_path_factory.mktemp("lm-fp16")
    torch.manual_seed(0)
    ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=20, softmax="full")).to(torch.float16).save_pretrained(folder)
    return folder


def _layers(model) -> np.ndarray:
    with torch.inference_mode():
        return torch.stack(model.float()(input_ids=batch_to_ids(SENTENCES)).hidden_states).numpy()


# -- dtype ------------------------------------------------------------------------------------
def test_fp16_weights_load_as_float32_unless_a_dtype_is_asked_for(lm_folder_fp16):
    assert ElmoModel.from_pretrained(lm_folder_fp16).dtype == torch.float32
    assert ElmoForBidirectionalLM.from_pretrained(lm_folder_fp16).dtype == torch.float32
    assert AutoModel.from_pretrained(lm_folder_fp16).dtype == torch.float32
    assert ElmoModel.from_pretrained(lm_folder_fp16, dtype="auto").dtype == torch.float16
    assert AutoModel.from_pretrained(lm_folder_fp16, dtype=torch.bfloat16).dtype == torch.bfloat16


def stored_dtypes(folder: Path) -> set[str]:
    """The dtypes of the floating-point tensors in ``folder``'s ``model.safetensors``."""
    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), framework="pt") as weights:
        return {weights.get_slice(name).get_dtype() for name in weights.keys()} - {"I64", "I32", "BOOL"}


def test_the_shipped_model_is_stored_in_float16_and_computes_in_float32_even_in_a_pipeline():
    from transformers import pipeline

    assert stored_dtypes(DEFAULT_MODEL) == {"F16"}  # stored small
    assert ElmoModel.from_pretrained(DEFAULT_MODEL_NAME).dtype == torch.float32
    assert ElmoModel.from_pretrained(DEFAULT_MODEL_NAME, dtype="auto").dtype == torch.float32
    assert pipeline("feature-extraction", model=str(DEFAULT_MODEL)).model.dtype == torch.float32  # dtype="auto"


def test_storage_dtype_halves_the_file_and_keeps_the_models_dtype_and_values(lm_folder_fp16, tmp_path):
    model = ElmoForBidirectionalLM.from_pretrained(lm_folder_fp16)  # float32, values exact in float16
    model.save_pretrained(tmp_path / "fp32")
    model.save_pretrained(tmp_path / "fp16", storage_dtype=torch.float16)
    assert stored_dtypes(tmp_path / "fp16") == {"F16"} and stored_dtypes(tmp_path / "fp32") == {"F32"}
    for dtype in (None, "auto"):
        loaded = ElmoForBidirectionalLM.from_pretrained(tmp_path / "fp16", **({"dtype": dtype} if dtype else {}))
        assert loaded.dtype == torch.float32
        for name, tensor in model.state_dict().items():
            torch.testing.assert_close(loaded.state_dict()[name], tensor, atol=0, rtol=0)
    assert model.dtype == torch.float32  # the model saved is left as it was


@pytest.mark.parametrize("dtype", [torch.int8, torch.bool, torch.float64])
def test_a_storage_dtype_other_than_float32_float16_or_bfloat16_is_refused(lm_folder_fp16, tmp_path, dtype):
    """int8 and bool were saved and loaded back with errors of order 1 without a word."""
    model = ElmoModel.from_pretrained(lm_folder_fp16)
    expected = rf"^storage_dtype must be torch\.float32, torch\.float16 or torch\.bfloat16 .*, got the dtype {dtype}$"
    with pytest.raises(ValueError, match=expected):
        model.save_pretrained(tmp_path / "saved", storage_dtype=dtype)
    assert not (tmp_path / "saved").exists()


# -- shipped names ----------------------------------------------------------------------------
def test_the_shipped_name_resolves_to_the_folder_inside_the_package():
    source = resolve_model(DEFAULT_MODEL_NAME)
    assert (source.path, source.format, source.origin) == (DEFAULT_MODEL, "transformers", "shipped")
    assert source.has_lm_head
    np.testing.assert_array_equal(
        _layers(ElmoModel.from_pretrained(DEFAULT_MODEL_NAME)), _layers(ElmoModel.from_pretrained(DEFAULT_MODEL))
    )


# -- "is this an LM folder?": read from config.architectures ----------------------------------
def test_an_lm_folder_is_recognised_by_its_architectures_and_a_biLM_folder_is_not(lm_folder_fp16, original, tmp_path):
    assert resolve_model(lm_folder_fp16).has_lm_head
    assert ElmoConfig.from_pretrained(lm_folder_fp16).has_lm_head
    bilm = tmp_path / "bilm"  # the biLM alone, loaded from the LM folder and saved again: no softmax in it
    ElmoModel.from_pretrained(lm_folder_fp16).save_pretrained(bilm)
    assert '"softmax"' in (bilm / "config.json").read_text()  # the LM fields are config fields of every model
    assert not resolve_model(bilm).has_lm_head and not ElmoConfig.from_pretrained(bilm).has_lm_head
    assert not resolve_model(original).has_lm_head  # original files: no config.json at all
    assert not ElmoConfig(**TINY, vocab_size=20).has_lm_head  # a config not saved by the LM


def test_an_lm_folder_written_by_older_code_is_still_recognised_and_loads(lm_folder_fp16, tmp_path):
    import json
    import shutil

    old = tmp_path / "old-lm"
    shutil.copytree(lm_folder_fp16, old)
    config = json.loads((old / "config.json").read_text())
    del config["initializer_range"]  # what `elmo pretrain` wrote before the LM fields were declared
    (old / "config.json").write_text(json.dumps(config))
    assert resolve_model(old).has_lm_head
    model = ElmoForBidirectionalLM.from_pretrained(old)
    assert model.config.initializer_range == 0.05 and model.config.vocab_size == 20
    assert resolve_model(DEFAULT_MODEL_NAME).has_lm_head


def test_an_unknown_shipped_name_lists_the_shipped_ones():
    with pytest.raises(ModelNotFoundError, match="the package ships hf-elmo:elmo-2x1024-en"):
        resolve_model("hf-elmo:elmo-huge-xx")


@pytest.mark.parametrize("retired", ["elmo-tiny-en", "elmo-2x256-en"])
def test_a_retired_shipped_name_names_its_successor(retired):
    with pytest.raises(
        ModelNotFoundError, match=f"'hf-elmo:{retired}' is no longer shipped .*; use hf-elmo:elmo-2x1024-en"
    ):
        ElmoModel.from_pretrained(f"hf-elmo:{retired}")


# -- local paths and errors -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["doesnotexist", "my-elmo/", "./models/elmo", "/no/such/elmo"])
def test_a_missing_path_fails_at_once_naming_it(name):
    start = time.monotonic()
    with pytest.raises(ModelNotFoundError) as info:
        ElmoModel.from_pretrained(name)
    assert time.monotonic() - start < 5  # no attempt to reach the Hub (which took 50 s offline)
    message = str(info.value)
    assert repr(name) in message and "no such local file or folder" in message and "\n" not in message


def test_a_folder_that_holds_no_model_says_what_it_lacks(tmp_path):
    with pytest.raises(InvalidModelError, match="neither config.json \\+ model.safetensors .* nor options.json"):
        ElmoModel.from_pretrained(tmp_path)


def test_a_folder_without_safetensors_is_named(lm_folder_fp16, tmp_path):
    (tmp_path / "config.json").write_bytes((lm_folder_fp16 / "config.json").read_bytes())
    with pytest.raises(InvalidModelError, match=f"{tmp_path} has a config.json but no model.safetensors"):
        ElmoModel.from_pretrained(tmp_path)


def test_weights_held_in_memory_load_without_a_name_and_ones_that_do_not_fit_the_config_are_named():
    """transformers' from_pretrained(None, config=..., state_dict=...). Was: a TypeError from the
    package's resolver, 'expected str, bytes or os.PathLike object, not NoneType'."""
    torch.manual_seed(0)
    model = ElmoModel(ElmoConfig(**TINY))
    state = model.state_dict()
    loaded = ElmoModel.from_pretrained(None, config=model.config, state_dict=state)
    assert all(torch.equal(loaded.state_dict()[key], value) for key, value in state.items())
    head = ElmoForTokenClassification.from_pretrained(None, config=ElmoConfig(**TINY, num_labels=3), state_dict=state)
    assert torch.equal(
        head.elmo.bilm.forward_layers[0].projection.weight, state["bilm.forward_layers.0.projection.weight"]
    )
    partial = {key: value for key, value in state.items() if key != "char_cnn.projection.bias"}
    with pytest.raises(InvalidModelError) as refused:
        ElmoModel.from_pretrained(None, config=model.config, state_dict=partial)
    assert str(refused.value) == (
        "the state_dict passed to from_pretrained: its weights do not fit the config (ElmoModel: missing "
        "char_cnn.projection.bias); pass the state_dict of a model of this config"
    )


@pytest.mark.parametrize("variant", [None, "fp16"])
def test_a_folder_saved_again_sharded_or_not_holds_and_loads_the_weights_of_the_last_save(tmp_path, variant):
    """Was: transformers keeps an earlier save's model.safetensors beside new shards, and loading
    reads it first, so re-saving a folder with max_shard_size loaded the old weights."""
    models = []
    for seed in (0, 1, 2):
        torch.manual_seed(seed)
        models.append(ElmoModel(ElmoConfig(**TINY)))
    weights = "model.safetensors" if variant is None else f"model.{variant}.safetensors"
    for model, shards in zip(models, (None, "4KB", None)):
        model.save_pretrained(tmp_path, max_shard_size=shards or "5GB", variant=variant)
        saved = sorted(file.name for file in tmp_path.glob("model[.-]*"))  # weights and index
        assert (saved == [weights]) if shards is None else (weights not in saved and len(saved) > 2)
        loaded = ElmoModel.from_pretrained(tmp_path, variant=variant)
        assert all(torch.equal(loaded.state_dict()[key], value) for key, value in model.state_dict().items())


def test_a_folder_saved_with_a_variant_loads_with_it_and_without_it_says_which_to_pass(tmp_path):
    """Was: from_pretrained(folder, variant="fp16") of save_pretrained(folder, variant="fp16"), whose
    weights are model.fp16.safetensors, said 'has a config.json but no model.safetensors'."""
    torch.manual_seed(0)
    model = ElmoModel(ElmoConfig(**TINY)).eval()
    single, sharded = tmp_path / "single", tmp_path / "sharded"
    model.save_pretrained(single, variant="fp16")
    model.save_pretrained(sharded, variant="v2", max_shard_size="4KB")  # model.v2-0000i-of-0000n.safetensors
    for folder, variant in ((single, "fp16"), (sharded, "v2")):
        for model_class in (ElmoModel, AutoModel):
            loaded = model_class.from_pretrained(folder, variant=variant)
            assert all(torch.equal(loaded.state_dict()[key], value) for key, value in model.state_dict().items())
        with pytest.raises(InvalidModelError) as refused:
            ElmoModel.from_pretrained(folder)
        assert str(refused.value) == (
            f"{folder} has no model.safetensors but holds the weights of another variant: pass variant='{variant}' "
            "to from_pretrained"
        )
    with pytest.raises(InvalidModelError, match="has no model.v3.safetensors but .*: pass variant='fp16' to"):
        ElmoForSequenceClassification.from_pretrained(single, variant="v3", num_labels=2)


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_safetensors_file_is_named(lm_folder_fp16, tmp_path, damage):
    for name in ("config.json", "model.safetensors"):
        (tmp_path / name).write_bytes((lm_folder_fp16 / name).read_bytes())
    weights = tmp_path / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(b"not a safetensors file at all" if damage == "garbage" else data[: len(data) // 2])
    with pytest.raises(InvalidModelError, match=f"{weights} is not a readable safetensors file"):
        ElmoModel.from_pretrained(tmp_path)


def test_saved_weights_are_as_readable_as_the_other_files(lm_folder_fp16):
    umask = os.umask(0)
    os.umask(umask)
    assert (lm_folder_fp16 / "model.safetensors").stat().st_mode & 0o777 == 0o666 & ~umask
    config_mode = (lm_folder_fp16 / "config.json").stat().st_mode & 0o777
    assert (lm_folder_fp16 / "model.safetensors").stat().st_mode & 0o777 == config_mode


# -- original files: folders and zip archives -------------------------------------------------
def _zip(folder: Path, archive: Path, prefix: str) -> Path:
    with zipfile.ZipFile(archive, "w") as handle:
        for name in ("options.json", "weights.hdf5"):
            handle.write(folder / name, prefix + name)
        handle.writestr(prefix + "meta.json", '{"id": 210}')
    return archive


@pytest.mark.parametrize("prefix", ["", "210/"])
def test_a_zip_of_the_original_files_loads_like_their_folder(original, tmp_path, prefix):
    archive = _zip(original, tmp_path / "210.zip", prefix)
    source = resolve_model(archive)
    assert (source.format, source.path) == ("original", archive)
    np.testing.assert_array_equal(
        _layers(ElmoModel.from_pretrained(archive)), _layers(ElmoModel.from_pretrained(original))
    )


@pytest.mark.parametrize("load", [ElmoTokenizer.from_pretrained, ElmoConfig.from_pretrained])
def test_the_config_or_tokenizer_of_a_zip_is_read_without_extracting_its_weights(load, original, tmp_path, monkeypatch):
    """Only options.json leaves the archive (ModelSource.original_options). Was: its weights .hdf5 too,
    hundreds of MB for a released model, to read a config of a few hundred bytes."""
    archive = _zip(original, tmp_path / "210.zip", "210/")
    extracted: list[str] = []
    extract = hf_elmo.archives.extract_original_files

    def counted_extract(*args, **kwargs) -> Path:
        folder = extract(*args, **kwargs)
        extracted.extend(sorted(path.name for path in folder.iterdir()))
        return folder

    monkeypatch.setattr(hf_elmo.archives, "extract_original_files", counted_extract)
    assert load(archive).max_characters_per_token == 50
    assert extracted == ["options.json"]


RELEASED = "elmo_2x1024_128_2048cnn_1xhighway"  # AllenNLP's names for the files it released


@pytest.mark.parametrize("cls", [ElmoModel, ElmoConfig, ElmoTokenizer])
def test_a_folder_of_allennlps_released_files_loads_under_their_own_names(cls, original, tmp_path):
    """A folder holding NAME_options.json + NAME_weights.hdf5, as AllenNLP's URLs download them. Was:
    "is not an ELMo model folder: it holds neither config.json ... nor options.json + a weights .hdf5",
    so that `elmo embed --model FOLDER` (which takes no options and weight file) needed them renamed."""
    folder = tmp_path / "allennlp"
    folder.mkdir()
    (folder / f"{RELEASED}_options.json").write_bytes((original / "options.json").read_bytes())
    (folder / f"{RELEASED}_weights.hdf5").write_bytes((original / "weights.hdf5").read_bytes())
    assert resolve_model(folder).format == "original"
    if cls is ElmoModel:
        np.testing.assert_array_equal(_layers(cls.from_pretrained(folder)), _layers(cls.from_pretrained(original)))
    elif cls is ElmoConfig:
        assert cls.from_pretrained(folder).to_dict() == cls.from_pretrained(original).to_dict()
    else:
        assert cls.from_pretrained(folder).pre_tokenizer == cls.from_pretrained(original).pre_tokenizer == "whitespace"
    (folder / "elmo_2x4096_512_2048cnn_2xhighway_options.json").write_bytes(b"{}")
    with pytest.raises(InvalidModelError, match=f"holds the options files of several models .*{RELEASED}_options.json"):
        cls.from_pretrained(folder)


def test_original_files_into_the_LM_class_say_which_class_to_use(original):
    with pytest.raises(InvalidModelError, match="load it with ElmoModel.from_pretrained .*from_allennlp_with_softmax"):
        ElmoForBidirectionalLM.from_pretrained(original)


@pytest.mark.parametrize("prefix", ["", "elmo/"])
def test_a_zip_of_allennlps_released_files_loads_under_their_own_names(original, tmp_path, prefix):
    """Was: "does not hold one options.json with a weights .hdf5 beside it (found options.json in [])"."""
    archive = tmp_path / "released.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.write(original / "options.json", f"{prefix}{RELEASED}_options.json")
        handle.write(original / "weights.hdf5", f"{prefix}{RELEASED}_weights.hdf5")
    np.testing.assert_array_equal(
        _layers(ElmoModel.from_pretrained(archive)), _layers(ElmoModel.from_pretrained(original))
    )
    assert ElmoConfig.from_pretrained(archive).to_dict() == ElmoConfig.from_pretrained(original).to_dict()
    assert ElmoTokenizer.from_pretrained(archive).pre_tokenizer == "whitespace"


def test_a_zip_of_several_models_released_files_is_named_as_the_archive(original, tmp_path):
    """Was the temporary folder it was extracted into: "/tmp/hf-elmo-archive-... holds the options files of several models"."""
    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.write(original / "options.json", f"elmo/{RELEASED}_options.json")
        handle.write(original / "options.json", "elmo/elmo_2x4096_512_2048cnn_2xhighway_options.json")
        handle.write(original / "weights.hdf5", f"elmo/{RELEASED}_weights.hdf5")
    with pytest.raises(InvalidModelError, match=rf"^{archive} \(elmo/\) holds the options files of several models"):
        ElmoModel.from_pretrained(archive)


RELEASED_HUB_SCRIPT = """
import sys
import numpy as np, torch
from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer, batch_to_ids
layers = []
for repo in ("org/elmo-released", "org/elmo-original-format"):
    with torch.inference_mode():
        layers.append(torch.stack(ElmoModel.from_pretrained(repo)(input_ids=batch_to_ids(%r)).hidden_states).numpy())
    assert ElmoConfig.from_pretrained(repo).max_characters_per_token == 50
    assert ElmoTokenizer.from_pretrained(repo).pre_tokenizer == "whitespace"
np.testing.assert_array_equal(*layers)
print("same")
""" % (SENTENCES,)


def test_a_hub_repository_of_allennlps_released_files_loads_under_their_own_names(original, tmp_path):
    """A repository holding NAME_options.json + NAME_weights.hdf5, as AllenNLP released them. Was:
    "Hub repository org/elmo-released holds none of config.json, options.json: not an ELMo model"."""
    files = tmp_path / "released"
    files.mkdir()
    (files / f"{RELEASED}_options.json").write_bytes((original / "options.json").read_bytes())
    (files / f"{RELEASED}_weights.hdf5").write_bytes((original / "weights.hdf5").read_bytes())
    cache = tmp_path / "hub"
    add_repo_to_cache(cache, "org/elmo-released", files)
    add_repo_to_cache(cache, "org/elmo-original-format", original)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), "HF_HOME": str(tmp_path / "hf-home")}
    result = subprocess.run(
        [sys.executable, "-c", RELEASED_HUB_SCRIPT], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "same"


def test_a_zip_without_original_files_and_a_stray_file_are_named(tmp_path):
    archive = tmp_path / "other.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("README", "nothing here")
    with pytest.raises(InvalidModelError, match=f"{archive} does not hold one options.json"):
        ElmoModel.from_pretrained(archive)
    stray = tmp_path / "weights.bin"
    stray.write_bytes(b"\0" * 10)
    with pytest.raises(InvalidModelError, match=f"{stray} is a file, but a model is a folder"):
        ElmoModel.from_pretrained(stray)


def test_a_zip_cut_short_is_named_as_a_download_to_redo_not_as_a_stray_file(original, tmp_path):
    """An archive whose end (its member list) is missing, as an interrupted download leaves it. Was:
    "is a file, but a model is a folder ... or a .zip archive of the original files", of a .zip."""
    archive = tmp_path / "210.zip"
    whole = _zip(original, tmp_path / "whole.zip", "").read_bytes()
    archive.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InvalidModelError) as caught:
        ElmoModel.from_pretrained(archive)
    assert str(caught.value) == (
        f"{archive} is a zip archive cut short (it lacks its end, the list of its members: a download that "
        "stopped?); download it again"
    )


def test_a_folder_of_several_weight_files_says_how_to_choose_one(original, tmp_path):
    """Was: "holds several weight files [...]; name one", which no way of loading a folder can."""
    folder = tmp_path / "two"
    shutil.copytree(original, folder)
    shutil.copy(folder / "weights.hdf5", folder / "weights_old.hdf5")
    with pytest.raises(ValueError) as caught:
        ElmoModel.from_pretrained(folder)
    assert str(caught.value) == (
        f"{folder} holds several weight files ['weights.hdf5', 'weights_old.hdf5'], and which one is the model's "
        "is not known: keep one in the folder, or convert the pair you mean with elmo convert OPTIONS WEIGHTS "
        "OUTPUT_DIR (ElmoModel.from_allennlp(options, weights))"
    )


def _damaged_zip(original: Path, archive: Path, damage: str) -> Path:
    """A zip of the original files with one member that cannot be extracted (``damage``)."""
    _zip(original, archive, "")
    data = bytearray(archive.read_bytes())
    if damage == "bad CRC":
        data[data.find(b"\x89HDF") + 200] ^= 0xFF
    else:  # "encrypted": the flag bit of every local and central header
        for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.find(signature)
            while at >= 0:
                data[at + flags] |= 1
                at = data.find(signature, at + 4)
    archive.write_bytes(bytes(data))
    return archive


@pytest.mark.parametrize(
    "damage, message",
    [
        ("bad CRC", "its member weights.hdf5 cannot be extracted (Bad CRC-32"),
        ("encrypted", "its member options.json cannot be extracted (File 'options.json' is encrypted"),
    ],
)
def test_a_zip_member_that_cannot_be_extracted_is_named_with_the_archive(damage, message, original, tmp_path):
    archive = _damaged_zip(original, tmp_path / "210.zip", damage)
    with pytest.raises(InvalidModelError, match=f"^{archive}: {re.escape(message)}"):
        ElmoModel.from_pretrained(archive)


@pytest.fixture
def opened_members(monkeypatch) -> list[str]:
    """The names of the zip members opened for reading during the test (``zipfile.ZipFile.open``
    recorded; a test's own writing of its archive is not)."""
    opened: list[str] = []
    open_member = zipfile.ZipFile.open

    def recorded_open(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            opened.append(name)
        return open_member(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", recorded_open)
    return opened


@pytest.mark.parametrize("member", ["options.json", "weights.hdf5"])
def test_a_zip_bomb_member_is_refused_before_it_is_extracted(member, original, tmp_path, opened_members):
    """A member of 64 MiB of zeros (1,000x smaller deflated). Was: extracted in full into the
    temporary folder (a bomb of many GB fills the disk), then refused as unreadable."""
    archive = tmp_path / "210.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        for name in ("options.json", "weights.hdf5"):
            if name == member:
                with handle.open(name, "w") as bomb:
                    for _ in range(64):
                        bomb.write(b"\0" * (1 << 20))
            else:
                handle.write(original / name, name)
    with pytest.raises(InvalidModelError, match=f"^{archive}: its member {member} inflates to 67,108,864 bytes"):
        ElmoModel.from_pretrained(archive)
    assert member not in opened_members


def test_the_softmax_and_embeddings_dumps_of_a_zip_are_never_extracted(original, tmp_path, opened_members):
    """An archive holding, beside the model, the LM's softmax and an embeddings dump (hundreds of MB in
    a released archive), which loading never reads. Was: every .hdf5 beside the options file extracted
    into the temporary folder, then passed over by find_original_files."""
    archive = _zip(original, tmp_path / "210.zip", "210/")
    with zipfile.ZipFile(archive, "a") as handle:
        handle.writestr("210/lm_softmax.hdf5", os.urandom(8 << 20))
        handle.writestr("210/vocab_embeddings.hdf5", os.urandom(1 << 10))
    np.testing.assert_array_equal(
        _layers(ElmoModel.from_pretrained(archive)), _layers(ElmoModel.from_pretrained(original))
    )
    assert opened_members == ["210/options.json", "210/weights.hdf5"]


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, ElmoConfig.from_pretrained])
def test_a_zip_whose_files_do_not_fit_in_the_temporary_folder_is_refused_before_any_is_extracted(
    load, original, tmp_path, monkeypatch, opened_members
):
    """Its members' declared sizes against the free space of TMPDIR's disk, in one line naming the archive,
    the folder and what to do; the temporary folder is left empty. Was: extracted until the disk was
    full, a raw OSError "[Errno 28] No space left on device" naming the temporary folder."""
    archive = _zip(original, tmp_path / "210.zip", "210/")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setattr(hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, 10**6))
    with pytest.raises(
        OSError, match=rf"^no space left on the disk of {temporary} for extracting {archive} into a "
    ) as err:
        load(archive)
    assert err.value.errno == errno.ENOSPC and "set TMPDIR to a folder on a disk with room" in str(err.value)
    assert "\n" not in str(err.value) and opened_members == [] and list(temporary.iterdir()) == []


class _FillsTheDisk:
    """A file opened for writing that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, path, mode: str, room: int) -> None:
        self.file, self.room = open(path, mode), room  # closed by __exit__

    def write(self, data: bytes) -> int:
        if len(data) > self.room:
            self.file.write(data[: self.room])
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self.file.write(data)

    def __enter__(self) -> _FillsTheDisk:
        return self

    def __exit__(self, *exc_info) -> None:
        self.file.close()


@pytest.mark.parametrize("how", ["loaded", "extracted"])
def test_a_disk_that_fills_while_a_zip_is_extracted_is_one_line_and_leaves_nothing(
    how, original, tmp_path, monkeypatch
):
    """The free space was enough when checked, then another process took it: the weights half written.
    One line naming the archive, the temporary folder's disk and what to do, and no file left in the
    folder extracted into. Was: a raw OSError "[Errno 28] No space left on device" and the half-written
    weights.hdf5 left."""
    import hf_elmo.archives

    archive = _zip(original, tmp_path / "210.zip", "210/")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setattr(hf_elmo.archives, "open", lambda path, mode: _FillsTheDisk(path, mode, 1000), raising=False)
    with pytest.raises(OSError) as err:
        if how == "loaded":
            ElmoModel.from_pretrained(archive)
        else:
            (temporary / "extracted").mkdir()
            hf_elmo.archives.extract_original_files(archive, temporary / "extracted", weights=True)
    assert err.value.errno == errno.ENOSPC and "\n" not in str(err.value)
    assert str(err.value).startswith(
        f"no space left on the disk of {temporary} for extracting {archive}: its member 210/weights.hdf5 "
        "is not written in full; free some space and load it again, or set TMPDIR to a folder on a disk with room"
    ), err.value
    assert [path for path in temporary.rglob("*") if path.is_file()] == []


@pytest.mark.parametrize("where", ["folder", "zip"])
def test_original_files_whose_only_hdf5_is_a_softmax_dump_are_refused_naming_them(where, original, tmp_path):
    """Named as what they are when the model is resolved. Was: taken for the original files, then, once
    loading began, a FileNotFoundError "holds no options.json + *.hdf5 pair" (find_original_files
    passing the softmax over), the archive's after extracting it."""
    folder = tmp_path / "softmax-only"
    folder.mkdir()
    shutil.copy(original / "options.json", folder)
    shutil.copy(original / "weights.hdf5", folder / "softmax.hdf5")
    path = tmp_path / "210.zip" if where == "zip" else folder
    if where == "zip":
        with zipfile.ZipFile(path, "w") as handle:
            for name in ("options.json", "softmax.hdf5"):
                handle.write(folder / name, name)
    message = "does not hold one options.json with a weights .hdf5" if where == "zip" else "is not an ELMo model folder"
    with pytest.raises(InvalidModelError, match=f"^{path} {message}"):
        ElmoModel.from_pretrained(path)


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, ElmoConfig.from_pretrained])
def test_a_bad_file_in_a_zip_is_named_inside_the_archive_not_in_a_removed_temporary_folder(load, original, tmp_path):
    archive = tmp_path / "210.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("options.json", "{not json")
        handle.write(original / "weights.hdf5", "weights.hdf5")
    with pytest.raises(ValueError, match=f"^{archive}/options.json is not valid JSON"):
        load(archive)
    with zipfile.ZipFile(archive, "w") as handle:
        handle.write(original / "options.json", "options.json")
        handle.writestr("weights.hdf5", "not hdf5")
    with pytest.raises(ValueError, match=f"^{archive}/weights.hdf5 is not an HDF5 file"):
        ElmoModel.from_pretrained(archive)


@pytest.mark.parametrize("load", [ElmoTokenizer.from_pretrained, ElmoConfig.from_pretrained])
def test_a_tokenizer_or_config_takes_every_name_the_model_takes(load, original, tmp_path):
    """ElmoTokenizer.from_pretrained("./nosuch") was transformers' "Repo id must use alphanumeric
    chars"; the original files and the shipped name load as for ElmoModel."""
    with pytest.raises(ModelNotFoundError, match="no model './nosuch': no such local file or folder"):
        load("./nosuch")
    with pytest.raises(InvalidModelError, match=f"{tmp_path} is not an ELMo model folder"):
        load(tmp_path)
    assert load(DEFAULT_MODEL_NAME).pre_tokenizer == "spacy:en"
    from_original = load(original)  # the original models' whitespace-split text, at their width
    assert (from_original.pre_tokenizer, from_original.max_characters_per_token) == ("whitespace", 50)


@pytest.fixture(scope="module")
def converted(original, tmp_path_factory) -> Path:
    """``original``, converted by ``elmo convert``."""
    return convert_to_folder(original / "options.json", original / "weights.hdf5", tmp_path_factory.mktemp("c") / "m")


def _config_fields(config: ElmoConfig) -> dict:
    """Every field of ``config`` but the folder it was loaded from."""
    return {key: value for key, value in config.to_dict().items() if key != "_name_or_path"}


def test_the_config_of_the_original_files_is_the_converted_folders(original, converted):
    from_files = _config_fields(ElmoConfig.from_pretrained(original))
    assert from_files == _config_fields(ElmoConfig.from_pretrained(converted))
    assert from_files == _config_fields(ElmoModel.from_pretrained(original).config)


#: from_pretrained arguments that a converted folder honours: config fields and dtypes in each form.
LOAD_ARGUMENTS = [
    dict(stateful=True),
    dict(bilm_implementation="plain"),
    dict(dropout=0.3),
    dict(cell_clip=1.0, proj_clip=None),
    dict(cell_clip=None, proj_clip=None, bilm_implementation="fused"),
    dict(dtype="bfloat16"),
    dict(torch_dtype="float16"),
    dict(dtype=torch.bfloat16),
    dict(dtype="auto"),
]


def _two_batches(model) -> list[np.ndarray]:
    """The layers of two successive batches (the second starts from the first's state if stateful)."""
    with torch.inference_mode():
        return [
            torch.stack(model(input_ids=batch_to_ids(batch)).hidden_states).float().numpy()
            for batch in (SENTENCES, [["It", "ran"], ["Then", "it", "slept", "."]])
        ]


@pytest.mark.parametrize("arguments", LOAD_ARGUMENTS, ids=str)
def test_original_files_take_each_from_pretrained_argument_as_the_converted_folder_does(original, converted, arguments):
    """Was: every argument but a torch.dtype object silently ignored for the original files (stateful=True
    gave stateless vectors, dtype="bfloat16" float32)."""
    from_files, from_folder = (
        ElmoModel.from_pretrained(source, **arguments).eval() for source in (original, converted)
    )
    assert _config_fields(from_files.config) == _config_fields(from_folder.config)
    assert from_files.dtype == from_folder.dtype
    dtype = arguments.get("dtype", arguments.get("torch_dtype"))
    if dtype not in (None, "auto"):
        assert from_files.dtype == (getattr(torch, dtype) if isinstance(dtype, str) else dtype)
    for field, value in arguments.items():
        if field in FIELD_CHECKS:
            assert getattr(from_files.config, field) == value
    for ours, theirs in zip(_two_batches(from_files), _two_batches(from_folder), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


@pytest.mark.parametrize("arguments", LOAD_ARGUMENTS[:5], ids=str)
def test_the_config_of_the_original_files_takes_each_override_as_the_converted_folders(original, converted, arguments):
    assert _config_fields(ElmoConfig.from_pretrained(original, **arguments)) == _config_fields(
        ElmoConfig.from_pretrained(converted, **arguments)
    )


@pytest.mark.parametrize(
    "arguments",
    [dict(stateful="yes"), dict(dtype="float17"), dict(bilm_implementation="fused"), dict(lstm_dim=17), dict(x=1)],
    ids=str,
)
def test_original_files_refuse_a_bad_argument_in_the_converted_folders_words(original, converted, arguments):
    refusals = []
    for source in (original, converted):
        with pytest.raises((ValueError, OSError, TypeError)) as caught:
            ElmoModel.from_pretrained(source, **arguments)
        refusals.append((type(caught.value), str(caught.value).replace(str(source), "MODEL")))
    assert refusals[0] == refusals[1]


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_a_task_head_loads_from_original_files_as_from_the_converted_folder(original, converted, head):
    """Was: refused ("load it with ElmoModel.from_pretrained"), though the converted folder loads."""
    models = []
    for source in (original, converted):
        torch.manual_seed(0)  # the head's own layers start afresh
        models.append(head.from_pretrained(source, num_labels=3, head_hidden_size=6, stateful=True).eval())
    from_files, from_folder = models
    assert _config_fields(from_files.config) == _config_fields(from_folder.config)
    assert (from_files.config.num_labels, from_files.lstm.hidden_size, from_files.config.stateful) == (3, 6, True)
    assert not any(p.requires_grad for p in from_files.elmo.parameters())  # the biLM frozen, as the config says
    with torch.inference_mode():
        logits = [model(input_ids=batch_to_ids(SENTENCES)).logits.numpy() for model in models]
    np.testing.assert_allclose(logits[0], logits[1], rtol=0, atol=1e-6)


def test_the_tokenizer_of_the_original_files_takes_arguments_as_the_converted_folders(original, converted):
    settings = [
        {
            key: value
            for key, value in ElmoTokenizer.from_pretrained(
                source, max_token_chars=10, model_max_length=7
            ).init_kwargs.items()
            if key != "name_or_path"
        }
        for source in (original, converted)
    ]
    assert settings[0] == settings[1]
    assert (settings[0]["max_token_chars"], settings[0]["model_max_length"]) == (10, 7)


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, ElmoConfig.from_pretrained])
def test_an_elmoformanylangs_folder_is_named_as_a_format_that_is_not_read(tmp_path, load):
    """Was "has a config.json but no model.safetensors": its config read as ELMo defaults."""
    config = {"token_embedder": {"name": "cnn", "char_dim": 50}, "encoder": {"name": "elmo", "dim": 4096}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    for name in ("encoder.pkl", "token_embedder.pkl", "char.dic", "word.dic"):
        (tmp_path / name).write_bytes(b"")
    with pytest.raises(InvalidModelError, match=r"is an ELMoForManyLangs model .*cannot load or convert"):
        load(tmp_path)


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, ElmoConfig.from_pretrained, resolve_model])
def test_a_spacy_pipeline_folder_is_named_with_the_bilm_folder_inside_it(tmp_path, load):
    """As spaCy's loader names it (README, spaCy), for every model argument: `elmo embed --model
    ner-elmo/model-best` too. Was "is not an ELMo model folder: it holds neither config.json ...",
    the biLM folder inside it unnamed."""
    pipeline = tmp_path / "model-best"
    (pipeline / "elmo" / "bilm").mkdir(parents=True)
    (pipeline / "config.cfg").write_text("[nlp]\n")
    (pipeline / "elmo" / "bilm" / "config.json").write_text("{}")
    with pytest.raises(InvalidModelError) as info:
        load(pipeline)
    assert str(info.value) == (
        f"{pipeline} is a spaCy pipeline, not an ELMo model folder: give the biLM folder its elmo component saved "
        f"instead: {pipeline / 'elmo' / 'bilm'}"
    )


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, ElmoConfig.from_pretrained])
def test_an_export_folder_is_named_with_what_runs_it(tmp_path, load):
    """Was "not an ELMo model folder: it holds neither config.json ... nor options.json"."""
    (tmp_path / "elmo_export.json").write_text('{"format": "onnx"}')
    with pytest.raises(InvalidModelError, match=r"is an `elmo export` folder .*open_exported\(folder\) .OnnxElmo"):
        load(tmp_path)


# -- noise ------------------------------------------------------------------------------------
QUIET_LOAD = """
import sys
import hf_elmo
from hf_elmo import ElmoModel
model = ElmoModel.from_pretrained(sys.argv[1])
model.save_pretrained(sys.argv[2])
print("loaded", model.dtype)
"""


def test_loading_the_biLM_of_an_LM_folder_and_saving_it_print_nothing(lm_folder_fp16, tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", QUIET_LOAD, str(lm_folder_fp16), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "loaded torch.float32"
    assert result.stderr == ""  # no LOAD REPORT (softmax keys), no "Loading weights" / "Writing" bars


# -- the Hub: cache, offline --------------------------------------------------------------------
HUB_SCRIPT = """
import sys
import numpy as np, torch
from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer, batch_to_ids
from hf_elmo.configuration_elmo import FIELD_CHECKS
from hf_elmo.loading import ModelNotFoundError
expected = np.load(sys.argv[1])
for repo in ("org/elmo-converted", "org/elmo-original-format"):
    model = ElmoModel.from_pretrained(repo)
    assert model.dtype == torch.float32
    with torch.inference_mode():
        np.testing.assert_array_equal(torch.stack(model(input_ids=batch_to_ids(%r)).hidden_states).numpy(), expected)
    assert ElmoConfig.from_pretrained(repo).to_diff_dict() == model.config.to_diff_dict()
    assert ElmoTokenizer.from_pretrained(repo).max_characters_per_token == model.config.max_characters_per_token
assert ElmoTokenizer.from_pretrained("org/elmo-tokenizer").pre_tokenizer == "spacy:en"  # a repository of a tokenizer alone
for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
    try:
        load("org/not-in-the-cache")
    except ModelNotFoundError as err:
        print("error:", err)
""" % (SENTENCES,)


def test_hub_ids_load_from_the_cache_offline_and_a_missing_one_says_so_for_model_config_and_tokenizer(
    original, tmp_path
):
    converted = tmp_path / "converted"
    model = ElmoModel.from_pretrained(original)
    model.save_pretrained(converted)
    np.save(tmp_path / "expected.npy", _layers(model))
    cache = tmp_path / "hub"
    add_repo_to_cache(cache, "org/elmo-converted", converted)
    add_repo_to_cache(cache, "org/elmo-original-format", original)
    ElmoTokenizer(pre_tokenizer="spacy:en").save_pretrained(tmp_path / "tokenizer")
    add_repo_to_cache(cache, "org/elmo-tokenizer", tmp_path / "tokenizer")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), "HF_HOME": str(tmp_path / "hf-home")}
    result = subprocess.run(
        [sys.executable, "-c", HUB_SCRIPT, str(tmp_path / "expected.npy")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    messages = result.stdout.strip().splitlines()[-3:]
    assert len(set(messages)) == 1, "the model, its config and its tokenizer say the same"
    assert messages[0].startswith("error: 'org/not-in-the-cache' is not a local folder, so it was looked up as a Hub")
    assert "offline" in messages[0] and str(cache) in messages[0]


def test_a_hub_revision_that_is_not_in_the_cache_is_named_for_model_config_and_tokenizer(tmp_path):
    """Was: 'offline ... and not in the local Hub cache', for a repository that is there at another revision."""
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(tmp_path / "model")
    cache = tmp_path / "hub"
    add_repo_to_cache(cache, "org/elmo-cached", tmp_path / "model")
    assert ElmoModel.from_pretrained("org/elmo-cached", cache_dir=cache, local_files_only=True).config.lstm_dim == 16
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(ModelNotFoundError) as missing:
            load("org/elmo-cached", revision="v2", cache_dir=cache, local_files_only=True)
        assert str(missing.value) == (
            "'org/elmo-cached' is not a local folder, so it was looked up as a Hub repository: offline (HF_HUB_OFFLINE "
            f"or local_files_only) and its revision 'v2' is not in the local Hub cache {cache}; download it online "
            "once, or give a local folder"
        )


def test_a_copied_hub_snapshot_whose_links_lead_nowhere_is_named_as_such(tmp_path):
    """`cp -r` of a Hub cache snapshot copies its files as the relative links into ../../blobs that
    they are, which lead nowhere from the copy. Was: 'has a config.json but no model.safetensors',
    or, with config.json a link too, 'holds neither config.json + model.safetensors ...'."""
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(tmp_path / "copy")
    for name in ("config.json", "model.safetensors"):
        (tmp_path / "copy" / name).unlink()
        (tmp_path / "copy" / name).symlink_to(f"../../blobs/{name}-blob")
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(InvalidModelError) as caught:
            load(tmp_path / "copy")
        assert str(caught.value) == (
            f"{tmp_path / 'copy'} holds links that lead to no file: config.json (to ../../blobs/config.json-blob), "
            "model.safetensors; is it a copy of a Hub cache snapshot, whose files are links into its blobs "
            "folder? copy it again following the links (cp -rL), or load the model by its Hub id (owner/name), from "
            "the cache"
        )


def test_a_request_to_the_hub_that_fails_is_one_line_for_model_config_and_tokenizer(monkeypatch):
    """A proxy that refuses the request (HTTPS_PROXY set, as on many company and cluster networks):
    huggingface_hub raises its HTTP client's ProxyError, not a Hub error. Was: that error's traceback
    from every `elmo` command given a Hub id ('httpx2.ProxyError: 404 Not Found')."""
    import importlib

    import huggingface_hub

    client = importlib.import_module(type(huggingface_hub.get_session()).__module__.split(".")[0])

    def refused(*args, **kwargs):
        raise client.ProxyError("404 Not Found")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", refused)
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(ModelNotFoundError) as caught:
            load("org/elmo-behind-a-proxy")
        assert str(caught.value) == (
            "'org/elmo-behind-a-proxy' is not a local folder, so it was looked up as a Hub repository: the request "
            "to the Hub failed (ProxyError: 404 Not Found); check the network and proxy settings (HTTPS_PROXY), or "
            "set HF_HUB_OFFLINE=1 to load the copy in the local Hub cache, or give a local folder"
        )


def test_force_download_offline_is_refused_for_model_config_and_tokenizer_not_served_from_the_cache(tmp_path):
    """Was: the cached copy, loaded as if freshly downloaded (BertModel refuses the pair)."""
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(tmp_path / "model")
    cache = tmp_path / "hub"
    add_repo_to_cache(cache, "org/elmo-cached", tmp_path / "model")
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(ModelNotFoundError) as refused:
            load("org/elmo-cached", force_download=True, cache_dir=cache, local_files_only=True)
        assert str(refused.value) == (
            "'org/elmo-cached' is not a local folder, so it was looked up as a Hub repository: force_download=True "
            "asks for a fresh download, but this is offline (HF_HUB_OFFLINE or local_files_only); drop "
            "force_download to load the cached copy, or go online"
        )


@pytest.fixture(scope="module")
def two_models(original, tmp_path_factory) -> tuple[Path, Path]:
    """A folder holding two models in subfolders, as a Hub repository may: ``saved/`` (``save_pretrained``,
    the TINY model) and ``original/`` (the original files); and a Hub cache holding it as ``org/two-elmos``."""
    folder = tmp_path_factory.mktemp("two-models")
    torch.manual_seed(1)
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(folder / "saved")
    for name in ("options.json", "weights.hdf5"):
        (folder / "original").mkdir(exist_ok=True)
        (folder / "original" / name).write_bytes((original / name).read_bytes())
    cache = folder.parent / f"{folder.name}-hub"
    add_repo_to_cache(cache, "org/two-elmos", folder)
    return folder, cache


def test_a_subfolder_of_a_folder_or_hub_repository_loads_that_models_weights_config_and_tokenizer(original, two_models):
    """Was: subfolder= skipped the resolver: the original files in a subfolder were not converted (offline:
    "couldn't connect to huggingface.co"), a Hub subfolder was fetched by transformers past the weight-shape check."""
    folder, cache = two_models
    expected = {
        "saved": _layers(ElmoModel.from_pretrained(folder / "saved")),
        "original": _layers(ElmoModel.from_pretrained(original)),
    }
    hub = dict(cache_dir=cache, local_files_only=True)
    for name, settings in ((folder, {}), ("org/two-elmos", hub)):
        for subfolder, layers in expected.items():
            np.testing.assert_array_equal(
                _layers(ElmoModel.from_pretrained(name, subfolder=subfolder, **settings)), layers
            )
            width = ElmoConfig.from_pretrained(name, subfolder=subfolder, **settings).projection_dim
            assert width == ElmoConfig.from_pretrained(folder / subfolder).projection_dim
            tokenizer = ElmoTokenizer.from_pretrained(name, subfolder=subfolder, **settings)
            assert tokenizer.pre_tokenizer == ElmoTokenizer.from_pretrained(folder / subfolder).pre_tokenizer
        head = ElmoForTokenClassification.from_pretrained(name, subfolder="original", num_labels=3, **settings)
        np.testing.assert_array_equal(_layers(head.elmo), expected["original"])


@pytest.fixture(scope="module")
def nested_models(two_models, original, tmp_path_factory) -> tuple[Path, Path]:
    """Two folders of models in folders: ``two_models``' with a model at its top, ``saved/older/`` and
    ``original/older/`` too; and one with the original files at its top and in ``original/``."""
    folder = tmp_path_factory.mktemp("nested")
    for name in ("top", "top/saved/older", "top/original/older", "original-top/original"):
        (folder / name).mkdir(parents=True)
    for name in ("saved", "original"):
        for file in (two_models[0] / name).iterdir():
            (folder / "top" / name / file.name).write_bytes(file.read_bytes())
    torch.manual_seed(2)
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(folder / "top")
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(folder / "top/saved/older")
    for name in ("options.json", "weights.hdf5"):
        for inside in ("top/original/older", "original-top", "original-top/original"):
            (folder / inside / name).write_bytes((original / name).read_bytes())
    return folder / "top", folder / "original-top"


def test_a_hub_model_is_fetched_without_the_models_in_its_subfolders(nested_models, tmp_path):
    """A top-level load asks snapshot_download for the repository's top-level files only, a subfolder's for that
    folder's files only: each loads offline from a cache that holds nothing else while the repository's tree
    listing names the rest. Was: huggingface_hub's ``*`` matches ``/``, so ``*.safetensors`` and ``*.hdf5`` fetched
    every subfolder's weights (IncompleteSnapshotError offline: the cache was said to lack the model)."""
    top, original_top = nested_models
    cache = tmp_path / "hub"
    hub = dict(cache_dir=cache, local_files_only=True)
    for repo, folder, subfolder in (
        ("org/a", top, ""),
        ("org/b", top, "saved"),
        ("org/c", top, "original"),
        ("org/d", original_top, ""),
    ):
        inside = folder / subfolder
        fetched = {(Path(subfolder) / file.name).as_posix() for file in inside.iterdir() if file.is_file()}
        add_repo_to_cache(cache, repo, folder, fetched=fetched)
        expected = _layers(ElmoModel.from_pretrained(inside))
        np.testing.assert_array_equal(_layers(ElmoModel.from_pretrained(repo, subfolder=subfolder, **hub)), expected)
        config = ElmoConfig.from_pretrained(repo, subfolder=subfolder, **hub)
        assert config.projection_dim == ElmoConfig.from_pretrained(inside).projection_dim
        tokenizer = ElmoTokenizer.from_pretrained(repo, subfolder=subfolder, **hub)
        assert tokenizer.pre_tokenizer == ElmoTokenizer.from_pretrained(inside).pre_tokenizer


def test_an_error_about_the_model_in_a_subfolder_names_the_subfolder(two_models):
    """Was: "org/two-elmos holds the original files, ...", of a repository whose top holds no model."""
    folder, cache = two_models
    for name, settings in ((folder, {}), ("org/two-elmos", dict(cache_dir=cache, local_files_only=True))):
        with pytest.raises(InvalidModelError) as refused:
            ElmoForBidirectionalLM.from_pretrained(name, subfolder="original", **settings)
        assert str(refused.value).startswith(f"{name} (subfolder 'original') holds the original files, the biLM")


def _hub_online(monkeypatch, repositories: dict[str, Path], into: Path) -> None:
    """Make snapshot_download fetch from ``repositories`` (a Hub id's files in a folder) as from the Hub: the files
    that huggingface_hub's own filter lets through are added to the Hub cache (``into``, made HF_HUB_CACHE, unless
    a cache_dir is given) with the repository's tree listing, as huggingface_hub writes them online; the snapshot
    folder is created by the first file fetched."""
    import huggingface_hub
    from huggingface_hub import constants
    from huggingface_hub.utils import filter_repo_objects

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(into))

    def snapshot_download(repo_id, allow_patterns=None, ignore_patterns=None, cache_dir=None, revision=None, **hub):
        remote = repositories[repo_id]
        files = [path.relative_to(remote).as_posix() for path in remote.rglob("*") if path.is_file()]
        fetched = set(filter_repo_objects(files, allow_patterns=allow_patterns, ignore_patterns=ignore_patterns))
        cache = Path(cache_dir or constants.HF_HUB_CACHE)
        return str(add_repo_to_cache(cache, repo_id, remote, revision or "main", fetched=fetched))

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)


def test_a_folder_or_hub_repository_whose_models_are_in_subfolders_names_them(two_models, tmp_path, monkeypatch):
    """Was: "... is not an ELMo model folder" and "Hub repository org/two-elmos holds none of config.json, ...: not
    an ELMo model", with no word of the models in its subfolders; online, a FileNotFoundError of a snapshot folder
    that snapshot_download named but never created (no file at the repository's top matched)."""
    folder, cache = two_models
    outer = tmp_path / "outer"
    shutil.copytree(folder, outer / "models")
    add_repo_to_cache(cache.parent / "outer-hub", "org/outer", outer)
    hint = "it holds models in its subfolders {}: pass one as from_pretrained's subfolder (subfolder={!r})"
    cases = [
        (folder, {}, ""),
        ("org/two-elmos", dict(cache_dir=cache, local_files_only=True), ""),
        (outer, {}, "models"),
        ("org/outer", dict(cache_dir=cache.parent / "outer-hub", local_files_only=True), "models"),
    ]
    for name, settings, subfolder in cases:
        inside = f"{subfolder}/" if subfolder else ""
        expected = hint.format(f"'{inside}original', '{inside}saved'", f"{inside}original")
        for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
            with pytest.raises(InvalidModelError) as refused:
                load(name, subfolder=subfolder, **settings)
            assert str(refused.value).endswith(f"; {expected}"), (name, subfolder, load)
    _hub_online(monkeypatch, {"org/two-elmos": folder}, tmp_path / "online")
    with pytest.raises(InvalidModelError) as refused:
        ElmoModel.from_pretrained("org/two-elmos")
    assert str(refused.value) == (
        "Hub repository org/two-elmos holds none of config.json, options.json, *_options.json: not an ELMo model; "
        + hint.format("'original', 'saved'", "original")
    )
    single = tmp_path / "single"
    shutil.copytree(folder / "saved", single / "only")
    with pytest.raises(InvalidModelError) as refused:
        ElmoModel.from_pretrained(single)
    assert str(refused.value).endswith(
        "; it holds a model in its subfolder 'only': pass it as from_pretrained's subfolder (subfolder='only')"
    )


def test_a_mistyped_subfolder_is_named_in_one_line_for_model_config_and_tokenizer(two_models, original, tmp_path):
    """Was: transformers' "couldn't connect to huggingface.co" offline for a Hub id, "Repo id must use alphanumeric
    chars" for a shipped name."""
    folder, cache = two_models
    hub = dict(cache_dir=cache, local_files_only=True)
    archive = _zip(original, tmp_path / "210.zip", "")
    cases = [
        (folder, {}, ModelNotFoundError, f"{folder} has no subfolder 'saevd'"),
        (
            "org/two-elmos",
            hub,
            ModelNotFoundError,
            "Hub repository org/two-elmos (its copy in the local Hub cache: offline) has no subfolder 'saevd'",
        ),
        (
            DEFAULT_MODEL_NAME,
            {},
            ModelNotFoundError,
            f"the shipped model {DEFAULT_MODEL_NAME!r} has no subfolder 'saevd'",
        ),
    ]
    for name, settings, error, where in cases:
        for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
            with pytest.raises(error) as refused:
                load(name, subfolder="saevd", **settings)
            assert str(refused.value) == (
                f"{where}: give the subfolder that holds the model's files, or leave subfolder out"
            )
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(InvalidModelError) as refused:
            load(archive, subfolder="210")
        assert str(refused.value) == (
            f"{archive} is a file, which has no subfolder '210' (a .zip archive holds one model): extract it and give "
            "the folder that holds the model, or leave subfolder out"
        )


@pytest.mark.parametrize("subfolder", ["/abs/saved", "../two-models/saved", "saved/../../x"])
def test_a_subfolder_leading_out_of_the_model_folder_is_refused_for_folder_shipped_and_hub(two_models, subfolder):
    """Was (an absolute subfolder of a folder or shipped model): ``folder / subfolder`` is that other folder,
    loaded silently."""
    folder, cache = two_models
    cases = [
        (folder, {}, str(folder)),
        (DEFAULT_MODEL_NAME, {}, f"the shipped model {DEFAULT_MODEL_NAME!r}"),
        ("org/two-elmos", dict(cache_dir=cache, local_files_only=True), "Hub repository org/two-elmos"),
    ]
    for name, settings, where in cases:
        for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
            with pytest.raises(ValueError) as refused:
                load(name, subfolder=subfolder, **settings)
            assert str(refused.value) == (
                f"subfolder {subfolder!r} is no path inside {where} (it is absolute, or goes up through '..'): give "
                "the path of the model's folder inside it (e.g. subfolder='models/small'), or give the other folder "
                "itself as the model's name"
            )


@pytest.fixture(scope="module")
def glob_named(two_models, tmp_path_factory) -> Path:
    """A repository's folder whose models sit in subfolders named with glob characters, ``m[1]``, ``a*`` and
    ``b?`` (``two_models``' saved model), each beside a folder of another model that the name would match as a
    glob pattern: ``m1``, ``ab``, ``bc``."""
    folder = tmp_path_factory.mktemp("glob-named")
    torch.manual_seed(3)
    other = ElmoModel(ElmoConfig(**TINY))
    for name, beside in (("m[1]", "m1"), ("a*", "ab"), ("b?", "bc")):
        shutil.copytree(two_models[0] / "saved", folder / name)
        other.save_pretrained(folder / beside)
    return folder


def test_a_hub_subfolder_named_with_glob_characters_is_fetched_alone_online_and_offline(
    glob_named, two_models, tmp_path, monkeypatch
):
    """Was: the subfolder's name went into snapshot_download's patterns unescaped: ``m[1]/*`` fetched ``m1``'s
    files ("has no subfolder 'm[1]'" online), ``a*/*`` those of ``ab`` too, and offline a cache holding the
    subfolder's files alone was said to lack the model (IncompleteSnapshotError: ``m1``'s files missing)."""
    expected = _layers(ElmoModel.from_pretrained(two_models[0] / "saved"))
    names = ("m[1]", "a*", "b?")
    cache = tmp_path / "offline"
    for number, subfolder in enumerate(names):
        inside = {f"{subfolder}/{file.name}" for file in (glob_named / subfolder).iterdir()}
        add_repo_to_cache(cache, f"org/offline-{number}", glob_named, fetched=inside)
        offline = dict(subfolder=subfolder, cache_dir=cache, local_files_only=True)
        np.testing.assert_array_equal(_layers(ElmoModel.from_pretrained(f"org/offline-{number}", **offline)), expected)
    for number, subfolder in enumerate(names):
        _hub_online(monkeypatch, {"org/glob-named": glob_named}, tmp_path / f"online-{number}")
        online = ElmoModel.from_pretrained("org/glob-named", subfolder=subfolder)
        np.testing.assert_array_equal(_layers(online), expected)
        assert (
            ElmoConfig.from_pretrained("org/glob-named", subfolder=subfolder).projection_dim == TINY["projection_dim"]
        )
        (snapshot,) = (tmp_path / f"online-{number}" / "models--org--glob-named" / "snapshots").iterdir()
        fetched = {path.relative_to(snapshot).as_posix() for path in snapshot.rglob("*") if path.is_file()}
        assert fetched == {f"{subfolder}/{file.name}" for file in (glob_named / subfolder).iterdir()}


def test_a_hub_subfolder_written_with_a_backslash_is_refused_in_one_line_before_anything_is_fetched(
    nested_models, tmp_path, monkeypatch
):
    """huggingface_hub reads a backslash in its patterns as "/": ``saved\\older`` fetched the files of
    ``saved/older``, which were then looked for in a snapshot folder named ``saved\\older``. Was: "Hub repository
    org/nested has no subfolder 'saved\\\\older'", of a subfolder the repository holds."""
    top, _ = nested_models
    _hub_online(monkeypatch, {"org/nested": top}, tmp_path / "online")
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(ValueError) as refused:
            load("org/nested", subfolder="saved\\older")
        assert str(refused.value) == (
            "the subfolder 'saved\\\\older' of Hub repository org/nested holds a backslash, which the Hub reads as "
            "'/': write it with '/' (subfolder='saved/older')"
        )
    assert not (tmp_path / "online").exists()  # nothing fetched
    expected = _layers(ElmoModel.from_pretrained(top / "saved" / "older"))
    np.testing.assert_array_equal(_layers(ElmoModel.from_pretrained("org/nested", subfolder="saved/older")), expected)


def test_a_hub_subfolder_without_model_files_says_so_not_that_it_is_missing(two_models, tmp_path, monkeypatch):
    """Was, online: "Hub repository org/with-docs has no subfolder 'docs'", of a folder the repository holds
    (nothing in it matched the files that mark a model, so nothing of it was fetched)."""
    repository = tmp_path / "repository"
    shutil.copytree(two_models[0], repository)
    (repository / "docs").mkdir()
    (repository / "docs" / "README.md").write_text("How to use these models.\n")
    _hub_online(monkeypatch, {"org/with-docs": repository}, tmp_path / "online")
    for load in (ElmoModel.from_pretrained, ElmoConfig.from_pretrained, ElmoTokenizer.from_pretrained):
        with pytest.raises(InvalidModelError) as refused:
            load("org/with-docs", subfolder="docs")
        message = str(refused.value)  # the tokenizer's names tokenizer_config.json too
        assert message.startswith("Hub repository org/with-docs (subfolder 'docs') holds none of ")
        assert message.endswith("config.json, options.json, *_options.json: not an ELMo model")
        with pytest.raises(ModelNotFoundError) as missing:
            load("org/with-docs", subfolder="dcos")
        assert str(missing.value) == (
            "Hub repository org/with-docs has no subfolder 'dcos': give the subfolder that holds the model's files, "
            "or leave subfolder out"
        )


def test_an_incomplete_cached_copy_offline_names_its_missing_files_and_how_to_complete_it(two_models, tmp_path):
    """Was: "offline ... and it is not in the local Hub cache", of a cached copy that lacks its weights (a download
    cut short): huggingface_hub's IncompleteSnapshotError, read as no copy at all."""
    folder, _ = two_models
    cache = tmp_path / "hub"
    fetched = {f"saved/{file.name}" for file in (folder / "saved").iterdir() if file.suffix != ".safetensors"}
    add_repo_to_cache(cache, "org/cut-short", folder, fetched=fetched)
    hub = dict(subfolder="saved", cache_dir=cache, local_files_only=True)
    assert ElmoConfig.from_pretrained("org/cut-short", **hub).projection_dim == TINY["projection_dim"]  # all there
    with pytest.raises(ModelNotFoundError) as incomplete:
        ElmoModel.from_pretrained("org/cut-short", **hub)
    assert str(incomplete.value) == (
        "'org/cut-short' is not a local folder, so it was looked up as a Hub repository: offline (HF_HUB_OFFLINE or "
        f"local_files_only) and its copy in the local Hub cache {cache} is incomplete, without "
        f"saved/model.safetensors: load it online once, or run `hf download org/cut-short --cache-dir {cache}`, "
        "to complete it, or give a local folder"
    )


# -- the package ------------------------------------------------------------------------------
def test_version_comes_from_the_installed_distribution():
    from importlib.metadata import version

    assert hf_elmo.__version__ == version("hf-elmo")


def test_without_the_package_loader_names_load_as_plain_folders_and_conversion_asks_for_the_package(
    original, lm_folder_fp16, monkeypatch
):
    """What a remote-code copy of the model classes does: no shipped names, no original files."""
    monkeypatch.setattr(hf_elmo.ElmoPreTrainedModel, "package_loader", None)
    assert ElmoModel.from_pretrained(lm_folder_fp16).dtype == torch.float32
    with pytest.raises(ImportError, match="converting original ELMo files needs the hf-elmo package"):
        ElmoModel.from_allennlp(original / "options.json", original / "weights.hdf5")
    with pytest.raises(OSError):
        ElmoModel.from_pretrained(DEFAULT_MODEL_NAME)


def test_output_loading_info_of_original_files_is_the_converted_folders(original, converted):
    """Was: the model alone for the original files (the argument was dropped before they were loaded)."""
    (from_files, files_info), (from_folder, folder_info) = (
        ElmoForTokenClassification.from_pretrained(source, num_labels=2, output_loading_info=True)
        for source in (original, converted)
    )
    assert isinstance(from_files, ElmoForTokenClassification) and from_files.name_or_path == str(original)
    assert {k: sorted(v) for k, v in files_info.items()} == {k: sorted(v) for k, v in folder_info.items()}
    assert {key.split(".")[0] for key in files_info["missing_keys"]} == {"scalar_mix", "lstm", "classifier"}


def test_original_files_offloaded_to_disk_run_as_the_converted_folder(original, converted, tmp_path):
    """Was: FileNotFoundError on the first forward: the weights were offloaded from a temporary folder
    that was deleted once from_pretrained returned."""
    models = [
        ElmoModel.from_pretrained(source, device_map={"": "disk"}, offload_folder=str(tmp_path / f"offload-{n}"))
        for n, source in enumerate((original, converted))
    ]
    from_files, from_folder = (_two_batches(model.eval())[0] for model in models)
    np.testing.assert_allclose(from_files, from_folder, rtol=0, atol=1e-6)


def test_the_bilm_of_a_task_head_from_original_files_offloaded_to_disk_runs_when_kept_alone(
    original, converted, tmp_path
):
    """Was: FileNotFoundError: the temporary folder of the original files was deleted with the task
    head, though its biLM, kept alone, still read its offloaded weights from there."""
    bilms = [
        ElmoForTokenClassification.from_pretrained(
            source, num_labels=2, device_map={"": "disk"}, offload_folder=str(tmp_path / f"offload-{n}")
        ).elmo
        for n, source in enumerate((original, converted))
    ]
    gc.collect()  # the task heads are gone
    from_files, from_folder = (_two_batches(bilm.eval())[0] for bilm in bilms)
    np.testing.assert_allclose(from_files, from_folder, rtol=0, atol=1e-6)


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, ElmoTokenizer.from_pretrained, ElmoConfig.from_pretrained])
@pytest.mark.parametrize("name", ["", " "])
def test_an_empty_model_name_is_one_line_not_the_current_folder(load, name, tmp_path, monkeypatch):
    """Was: '. is not an ELMo model folder', or the tokenizer and config of whatever model the current folder held."""
    ElmoConfig().save_pretrained(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelNotFoundError, match=rf"^no model named {name!r}: give a shipped model \(hf-elmo:"):
        load(name)


def test_a_feature_extraction_pipeline_of_a_word_baseline_names_its_folder(word_baseline_folder):
    """The baseline's ElmoModel loads (its encode reads word ids), but the pipeline feeds it char ids.
    Was: "this biLM embeds word ids ...", naming no folder."""
    from transformers import pipeline

    extractor = pipeline("feature-extraction", model=str(word_baseline_folder))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(word_baseline_folder))}: this biLM embeds word ids"):
        extractor("The cat sat .")
