"""Every folder the project writes (convert, pretrain, a spaCy pipeline's biLM, the shipped model)
loads with ``trust_remote_code=True`` without the package, and the shipped folder's code copies
are the package's code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import spacy
import torch

import hf_elmo
from hf_elmo import (
    ElmoConfig,
    ElmoForBidirectionalLM,
    ElmoForTokenClassification,
    ElmoModel,
    ElmoTokenizer,
    batch_to_ids,
)
from hf_elmo.loading import convert_to_folder
from hf_elmo.output_folders import MODEL_CODE_FILES
from hf_elmo.pretrained import SHIPPED
from tests.numpy_elmo import small_options, write_random_original

PACKAGE = Path(hf_elmo.__file__).resolve().parent
SENTENCES = [["The", "cat", "sat", "."], ["naïve"]]
TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=1)


MODEL_CODE = set(MODEL_CODE_FILES)
TASK_HEADS = {
    "AutoModelForTokenClassification": "modeling_heads.ElmoForTokenClassification",
    "AutoModelForSequenceClassification": "modeling_heads.ElmoForSequenceClassification",
}


def test_the_shipped_folder_carries_the_LM_and_task_head_code_and_maps_their_auto_classes():
    """The converter and the model card writer stay in the package: saved code imports only torch,
    transformers and the model files themselves. The task heads were not mapped: in a session
    without the package, AutoModelForTokenClassification of the shipped folder failed."""
    for folder in SHIPPED.values():
        assert {p.name for p in folder.glob("*.py")} == MODEL_CODE
        auto_map = json.loads((folder / "config.json").read_text())["auto_map"]
        assert auto_map["AutoModel"] == "modeling_elmo.ElmoModel"
        assert auto_map["AutoModelForPreTraining"] == "modeling_lm.ElmoForBidirectionalLM"
        assert TASK_HEADS.items() <= auto_map.items()


def test_a_model_saved_from_the_shipped_folder_maps_only_the_classes_whose_code_it_carries(tmp_path):
    """``AutoModelForPreTraining`` on the biLM's folder would give a softmax of random weights, and
    the heads' entries would name a modeling_heads.py the folder does not hold."""
    shipped = next(iter(SHIPPED.values()))
    ElmoModel.from_pretrained(shipped).save_pretrained(tmp_path / "bilm")
    auto_map = json.loads((tmp_path / "bilm" / "config.json").read_text())["auto_map"]
    assert set(auto_map) == {"AutoConfig", "AutoModel"}
    ElmoForTokenClassification.from_pretrained(shipped, num_labels=3).save_pretrained(tmp_path / "tagger")
    auto_map = json.loads((tmp_path / "tagger" / "config.json").read_text())["auto_map"]
    assert set(auto_map) == {"AutoConfig", "AutoModel", *TASK_HEADS}
    assert {p.name for p in (tmp_path / "tagger").glob("*.py")} == MODEL_CODE - {"modeling_lm.py"}


def test_shipped_code_copies_equal_the_package_code():
    for folder in SHIPPED.values():
        for copy in folder.glob("*.py"):
            assert copy.read_bytes() == (PACKAGE / copy.name).read_bytes(), (
                f"{copy} is stale: run `python scripts/sync_shipped_code.py`"
            )


ISOLATED = """
import sys
sys.modules["hf_elmo"] = None  # importing hf_elmo now raises: only the folders' own code can run
import json, os
import numpy as np, torch
from transformers import AutoModel, AutoModelForPreTraining, AutoModelForSequenceClassification, AutoTokenizer
from transformers import AutoModelForTokenClassification, pipeline
cases, tagger_folder = json.loads(sys.argv[1]), sys.argv[2]
for folder, expected in cases:
    model = AutoModel.from_pretrained(folder, trust_remote_code=True)
    assert type(model).__name__ == "ElmoModel" and type(model).__module__.startswith("transformers_modules")
    assert model.dtype == torch.float32, (folder, model.dtype)
    has_tokenizer = os.path.exists(os.path.join(folder, "tokenizer_config.json"))  # a spaCy bilm/ folder has none
    tokenizer = AutoTokenizer.from_pretrained(folder if has_tokenizer else cases[0][0], trust_remote_code=True)
    batch = tokenizer(%r, is_split_into_words=True, padding=True, return_tensors="pt")
    with torch.inference_mode():
        got = torch.stack(model(**batch).hidden_states).numpy()
    np.testing.assert_allclose(got, np.load(expected), rtol=0, atol=1e-6)
    if "ElmoForBidirectionalLM" in (json.load(open(folder + "/config.json")).get("architectures") or []):
        lm = AutoModelForPreTraining.from_pretrained(folder, trust_remote_code=True)
        assert type(lm).__name__ == "ElmoForBidirectionalLM" and lm.dtype == torch.float32
    if "AutoModelForTokenClassification" in json.load(open(folder + "/config.json"))["auto_map"]:  # the shipped one
        for auto in (AutoModelForTokenClassification, AutoModelForSequenceClassification):
            head = auto.from_pretrained(folder, trust_remote_code=True, num_labels=3)
            assert type(head).__module__.startswith("transformers_modules"), type(head).__module__
            logits = head(**batch).logits
            assert logits.shape[-1] == 3 and torch.isfinite(logits).all()
        head.save_pretrained(tagger_folder)  # the sequence head's folder maps no pipeline; the tagger's does
        assert "custom_pipelines" not in json.load(open(tagger_folder + "/config.json"))
        AutoModelForTokenClassification.from_pretrained(folder, trust_remote_code=True, num_labels=3).save_pretrained(
            tagger_folder
        )
        tokenizer.save_pretrained(tagger_folder)
        tags = pipeline("ner", model=tagger_folder, trust_remote_code=True, ignore_labels=[])("The cat sat .")
        assert [tag["word"] for tag in tags] == ["The", "cat", "sat", "."], tags
    print("ok", folder)
""" % (SENTENCES,)


def test_every_folder_the_project_writes_loads_with_remote_code_alone(tmp_path):
    original = tmp_path / "original"
    original.mkdir()
    write_random_original(original, small_options(), seed=4)
    converted = convert_to_folder(original / "options.json", original / "weights.hdf5", tmp_path / "converted")
    torch.manual_seed(0)
    lm = ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=20, softmax="sampled", num_sampled=4)).eval()
    pretrained = tmp_path / "pretrained"  # what `elmo pretrain --save-dtype float16` writes with save_pretrained
    lm.to(torch.float16).save_pretrained(pretrained)
    ElmoTokenizer().save_pretrained(pretrained)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = {
        "loader": {"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": str(converted)}
    }
    nlp.initialize()
    nlp.to_disk(tmp_path / "pipeline")
    folders = [converted, pretrained, tmp_path / "pipeline" / "elmo" / "bilm", *SHIPPED.values()]
    cases = []
    for n, folder in enumerate(folders):
        with torch.inference_mode():
            layers = ElmoModel.from_pretrained(folder)(input_ids=batch_to_ids(SENTENCES)).hidden_states
        np.save(tmp_path / f"expected-{n}.npy", torch.stack(layers).numpy())
        cases.append([str(folder), str(tmp_path / f"expected-{n}.npy")])
    for folder in folders:
        assert {p.name for p in folder.glob("*.py")} <= MODEL_CODE, folder
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", ISOLATED, json.dumps(cases), str(tmp_path / "tagger")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("ok ") == len(folders)
