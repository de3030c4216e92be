"""What README and ``hf_elmo.embed.run`` say ``model_sha256`` hashes for the shipped model, its
weights' count and bytes, is counted again from the model (was: a time, "about 40 ms on one CPU
core", measured nowhere; 0.24 s on a shared 2-core VM); and the hook transformers puts on a model's
input embeddings takes the char CNN off its fast path, the slower inference
``ElmoModel.enable_input_require_grads`` avoids. Counts, not timings."""

from __future__ import annotations

import re

from hf_elmo import ElmoModel
from hf_elmo.elmo_layers import runs_as_built
from hf_elmo.embed import run
from hf_elmo.pretrained import DEFAULT_MODEL
from tests.conftest import REPO

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())


def test_the_fingerprints_stated_weights_and_bytes_are_the_shipped_models():
    model = ElmoModel.from_pretrained(DEFAULT_MODEL)
    state = model.state_dict().values()
    weights, megabytes = sum(t.numel() for t in state) / 1e6, sum(t.numel() * 4 for t in state) / 1e6  # float32
    readme = re.findall(r"one SHA-256 pass over the shipped model's ([\d.]+)M float32 weights, (\d+) MB", README)
    docstring = re.findall(
        r"one SHA-256 pass over the shipped model's (\d+) MB of float32", " ".join(run.__doc__.split())
    )
    assert readme == [(f"{weights:.1f}", f"{megabytes:.0f}")] and docstring == [f"{megabytes:.0f}"]


def test_a_hook_on_the_input_embeddings_takes_the_char_cnn_off_its_fast_path():
    model = ElmoModel.from_pretrained(DEFAULT_MODEL)
    char_cnn = next(module for module in model.modules() if model.get_input_embeddings() in module.children())
    assert runs_as_built(char_cnn)
    model.get_input_embeddings().register_forward_hook(lambda module, inputs, output: output.requires_grad_(True))
    assert not runs_as_built(char_cnn)
