"""The shipped model's card's usage code runs wherever hf-elmo is installed, a wheel too: it loads the model by
its shipped name (was: by the folder hf_elmo/pretrained/elmo-2x1024-en, which exists only under a clone's root,
so that the code failed elsewhere); the folder is named as the remote-code alternative. The card's usage is the
card writer's (``write_model_card(shipped_name=...)``, which scripts/ship_model.py passes)."""

from __future__ import annotations

import re

import torch

from hf_elmo.model_card import usage
from hf_elmo.pretrained import DEFAULT_MODEL, DEFAULT_MODEL_NAME

_NAME = DEFAULT_MODEL.name


def _card() -> str:
    return (DEFAULT_MODEL / "README.md").read_text(encoding="utf-8")


def test_the_shipped_cards_usage_runs_outside_a_clone(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no hf_elmo/pretrained folder here
    (code,) = re.findall(r"```python\n(.*?)```", _card(), re.DOTALL)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    layers = namespace["layers"]
    assert len(layers) == 3 and all(layer.shape[:2] == (1, 4) and torch.isfinite(layer).all() for layer in layers)
    assert f'ElmoModel.from_pretrained("{DEFAULT_MODEL_NAME}")' in code


def test_the_shipped_cards_usage_is_the_card_writers_with_the_folder_as_the_remote_code_alternative():
    written = usage(f"hf_elmo/pretrained/{_NAME}", shipped_name=DEFAULT_MODEL_NAME)
    assert _card().endswith(f"\n{written}")
    assert f'AutoModel.from_pretrained("hf_elmo/pretrained/{_NAME}", trust_remote_code=True)' in written
