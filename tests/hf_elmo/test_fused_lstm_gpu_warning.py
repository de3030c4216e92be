"""On CUDA the fused biLM path hands cuDNN LSTM weights that are not one flat buffer, and torch warns
("RNN module weights are not part of single contiguous chunk of memory", naming
``flatten_parameters()``, which the model's users cannot call). ``hf_elmo.elmo_layers`` silences that
warning for its own calls: a fresh process (torch warns once a process) that runs the fused path on the
GPU, inference, training under bf16 autocast and backward, prints no such warning; the same run with that
filter taken out does print it, so the check sees the warning where torch raises it."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from tests.conftest import REPO
from tests.hf_elmo.test_fused_lstm import SIZES
from tests.numpy_elmo import write_random_original

WARNING = "not part of single contiguous chunk of memory"

RUN = """
import sys
import warnings

import torch

from hf_elmo import ElmoModel, batch_to_ids

folder, filter_kept = sys.argv[1], sys.argv[2] == "kept"
if not filter_kept:
    warnings.filters[:] = [f for f in warnings.filters if "elmo_layers" not in getattr(f[3], "pattern", str(f[3]))]
model = ElmoModel.from_allennlp(folder + "/options.json", folder + "/weights.hdf5").to("cuda").eval()
model.config.bilm_implementation = "fused"
ids = batch_to_ids([["a", "few", "words"], ["one"]]).to("cuda")
with torch.inference_mode():
    model(input_ids=ids)
model.train()
with torch.autocast("cuda", dtype=torch.bfloat16):
    out = model(input_ids=ids).last_hidden_state
out.float().square().mean().backward()
torch.cuda.synchronize()
print("ran")
"""


def _run(folder, filter_kept: bool) -> subprocess.CompletedProcess:
    command = [sys.executable, "-W", "always::UserWarning", "-c", RUN, str(folder), "kept" if filter_kept else "out"]
    return subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO, timeout=300)


@pytest.mark.gpu
def test_the_fused_path_on_cuda_prints_no_warning_about_its_weights_not_being_one_chunk(tmp_path):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    write_random_original(tmp_path, SIZES["skip-relu"], seed=0)
    silenced = _run(tmp_path, filter_kept=True)
    assert silenced.stdout.strip() == "ran"
    assert WARNING not in silenced.stderr, silenced.stderr
    unfiltered = _run(tmp_path, filter_kept=False)
    assert unfiltered.stdout.strip() == "ran"
    assert WARNING in unfiltered.stderr, unfiltered.stderr  # the fused path does raise it, from elmo_layers
