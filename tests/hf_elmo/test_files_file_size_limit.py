"""The HDF5 files of ``elmo embed`` (its chunks and its output) and ``save_allennlp``'s weights are refused in one
line before a write that would pass the process's file size limit (``ulimit -f``), naming the file, its size and
the limit, the finished chunks kept (was: HDF5 failed the write, printed a dozen ``RuntimeError`` tracebacks while
freeing the file's objects, and the process died of a segmentation fault)."""

from __future__ import annotations

import errno
import os
import random
import resource
import subprocess
import sys

import pytest

import hf_elmo.fileio
from hf_elmo.convert import save_allennlp
from tests.hf_elmo.random_inputs import clipped_random_model

RESUME = "raise the limit and run the same command again: the finished chunks are kept"


def _embed(text, out, model_dir, limit_kib: int | None) -> subprocess.CompletedProcess:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_kib << 10, resource.RLIM_INFINITY))

    command = [sys.executable, "-m", "hf_elmo_cli", "embed", str(text), str(out), "--model", str(model_dir)]
    return subprocess.run(
        [*command, "--device", "cpu", "--no-progress", "--chunk-lines", "50"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=None if limit_kib is None else limited,
    )


def test_embed_refuses_a_chunk_and_an_output_past_the_limit_in_one_line_and_resumes(model_dir, tmp_path):
    rng, words = random.Random(0), "the a cat dog sat ran on under mat house red old".split()
    text = tmp_path / "in.txt"
    text.write_text("".join(" ".join(rng.choices(words, k=12)) + "\n" for _ in range(400)))
    out, partial = tmp_path / "out.hdf5", tmp_path / "out.hdf5.partial"
    done = _embed(text, out, model_dir, limit_kib=200)  # a chunk's file is about 250 KB
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.splitlines()[-1]
    assert line.startswith("elmo embed: error: chunk part-000000.hdf5 needs about ") and line.endswith(
        f" bytes, over this process's file size limit (204,800 bytes: ulimit -f); {RESUME}"
    )
    assert sorted(path.name for path in partial.iterdir()) == ["run.json"]
    done = _embed(text, out, model_dir, limit_kib=400)  # the output's, 2 MB
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    line = done.stderr.splitlines()[-1]
    assert line.startswith("elmo embed: error: the output out.hdf5 needs about ") and line.endswith(
        f" bytes, over this process's file size limit (409,600 bytes: ulimit -f); {RESUME}"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.txt", "out.hdf5.partial"]
    assert len(list(partial.glob("part-*.hdf5"))) == 8
    assert _embed(text, out, model_dir, limit_kib=None).returncode == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.txt", "out.hdf5"]


def test_save_allennlp_refuses_weights_past_the_limit_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(hf_elmo.fileio.resource, "getrlimit", lambda kind: (10_000, resource.RLIM_INFINITY))
    weights = tmp_path / "out" / "weights.hdf5"
    with pytest.raises(OSError) as refused:
        save_allennlp(clipped_random_model(), tmp_path / "out" / "options.json", weights)
    assert refused.value.errno == errno.EFBIG
    assert str(refused.value).startswith(f"{weights} needs about ") and str(refused.value).endswith(
        " bytes, over this process's file size limit (10,000 bytes: ulimit -f); raise the limit and run the "
        "command again"
    )
    assert list(tmp_path.iterdir()) == []
