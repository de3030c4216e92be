"""push_to_hub of a model and its tokenizer uploads what a user without the package needs: built into a Hub-layout
cache from the uploaded files alone, the repository loads offline (HF_HUB_OFFLINE=1) with trust_remote_code=True,
the model's classes from the code it carries, and gives the pushed model's outputs; every code file uploaded is one
transformers loads, and none it loads is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import huggingface_hub
import numpy as np
import pytest
import torch

from hf_elmo import ElmoForTokenClassification, ElmoModel, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)
from tests.hub_cache import add_repo_to_cache

SENTENCES = [["The", "cat", "sat", "."], ["naïve"]]

#: Loads me/elmo from the Hub cache with the Auto class named in argv[1], hf_elmo not importable, and saves the
#: output that argv[2] names in argv[3].
LOAD = """
import sys
sys.modules["hf_elmo"] = None  # importing hf_elmo now raises
import numpy as np, torch, transformers
auto, output, path = sys.argv[1:]
model = getattr(transformers, auto).from_pretrained("me/elmo", trust_remote_code=True)
tokenizer = transformers.AutoTokenizer.from_pretrained("me/elmo", trust_remote_code=True)
assert type(model).__module__.startswith("transformers_modules"), type(model).__module__
batch = tokenizer(%r, is_split_into_words=True, padding=True, return_tensors="pt")
with torch.inference_mode():
    got = model(**batch)[output]
np.save(path, (torch.stack(got) if isinstance(got, tuple) else got).numpy())
"""


@pytest.mark.parametrize(
    ("model_class", "auto", "output"),
    [
        (ElmoModel, "AutoModel", "hidden_states"),
        (ElmoForTokenClassification, "AutoModelForTokenClassification", "logits"),
    ],
)
def test_the_pushed_repository_loads_from_a_hub_cache_offline_with_remote_code_alone(
    model_class,
    auto,
    output,
    hub,  # noqa: F811
    monkeypatch,
    tmp_path,
):
    uploaded: dict[str, bytes] = {}

    def create_commit(self, repo_id, operations, **kwargs):
        assert repo_id == "me/elmo"
        uploaded.update({op.path_in_repo: Path(op.path_or_fileobj).read_bytes() for op in operations})

    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit", create_commit)
    torch.manual_seed(0)
    model, tokenizer = model_class(tiny_config(num_labels=3)).eval(), ElmoTokenizer()
    model.push_to_hub("me/elmo")
    tokenizer.push_to_hub("me/elmo")
    files = tmp_path / "repository"
    for name, contents in uploaded.items():
        (files / name).parent.mkdir(parents=True, exist_ok=True)
        (files / name).write_bytes(contents)
    add_repo_to_cache(tmp_path / "hub", "me/elmo", files)
    env = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HOME": str(tmp_path / "hf-home")}
    got = tmp_path / "got.npy"
    loaded = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LOAD % (SENTENCES,)), auto, output, str(got)],
        env={**os.environ, **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    batch = tokenizer(SENTENCES, is_split_into_words=True, padding=True, return_tensors="pt")
    with torch.inference_mode():
        expected = model(**batch)[output]
    np.testing.assert_array_equal(np.load(got), (torch.stack(expected) if isinstance(expected, tuple) else expected))
    code = {name for name in uploaded if name.endswith(".py")}
    modules = {path.name for path in (tmp_path / "hf-home" / "modules").rglob("*.py")} - {"__init__.py"}
    assert modules == code
    config = json.loads(uploaded["config.json"])
    assert {reference.split(".")[0] + ".py" for reference in config["auto_map"].values()} <= code
    assert set(uploaded) - code == {"config.json", "model.safetensors", "tokenizer_config.json", "README.md"}
