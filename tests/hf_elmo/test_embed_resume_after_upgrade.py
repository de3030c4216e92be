"""``elmo embed`` resumes a run that hf-elmo 0.6.0 started on the same model, and adds shards to
an output whose other shards it wrote, though ``model_sha256`` has since left out the config's
``architectures`` and ``auto_map``: the digest 0.6.0 recorded is recognised as the model's
(``hf_elmo.embed.run._digests_of_0_6``). The digests below are what 0.6.0's ``elmo embed`` wrote
in run.json for the test fixture saved as a model folder and for the shipped model, whose
``auto_map`` has changed since. Was: refused, 'an unfinished run with other settings
(model_sha256)'."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest

from hf_elmo.embed import open_embeddings
from hf_elmo.embed.output import SETTINGS_ATTRIBUTE
from hf_elmo.pretrained import DEFAULT_MODEL
from tests.hf_elmo.test_embed import assert_same_file, read_all
from tests.hf_elmo.test_embed_safety import embed, error_lines, killed_after_part, names, write_text

FIXTURE_DIGEST_0_6 = "b8527d977220d8de91f1175ec28c856f629c78ca7aa9281640568c09cd3c424c"
SHIPPED_DIGEST_0_6 = "b6365dae549c874453627478cb62fbb21e48a69bcf6a17d185bdd7f90fab49dd"


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


@pytest.fixture(scope="module")
def reference(model_dir, text, tmp_path_factory) -> Path:
    """``text`` embedded by ``model_dir`` in one run."""
    out = tmp_path_factory.mktemp("reference") / "reference.hdf5"
    assert embed(text, out, model_dir) == 0
    return out


def recorded_as_0_6(run_file: Path, digest: str) -> None:
    """``run_file`` (a run.json) with the model digest hf-elmo 0.6.0 recorded (its other settings are
    the ones this version records)."""
    run = json.loads(run_file.read_text(encoding="utf-8"))
    run["settings"]["model_sha256"] = digest
    run_file.write_text(json.dumps(run, indent=2) + "\n", encoding="utf-8")


@pytest.mark.parametrize("shipped", [False, True], ids=["model folder", "shipped model"])
def test_a_run_that_0_6_started_on_the_same_model_resumes(
    shipped, model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    model, digest = (DEFAULT_MODEL, SHIPPED_DIGEST_0_6) if shipped else (model_dir, FIXTURE_DIGEST_0_6)
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model, "part-000001.hdf5")
    recorded_as_0_6(tmp_path / "out.hdf5.partial" / "run.json", digest)
    capsys.readouterr()
    assert embed(text, out, model) == 0, capsys.readouterr().err
    assert "2 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert names(tmp_path) == ["out.hdf5"]
    with h5py.File(out, "r") as handle:  # the run's digest, as its parts were computed under
        assert json.loads(handle.attrs[SETTINGS_ATTRIBUTE])["model_sha256"] == digest
    if not shipped:
        assert_same_file(out, reference)


def test_a_run_of_another_model_than_0_6s_is_still_refused(model_dir, text, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model_dir, "part-000001.hdf5")
    recorded_as_0_6(tmp_path / "out.hdf5.partial" / "run.json", SHIPPED_DIGEST_0_6)
    capsys.readouterr()
    assert embed(text, out, model_dir) == 2
    err = capsys.readouterr().err
    assert "unfinished run with other settings (model_sha256)" in err and len(error_lines(err)) == 1


def test_a_shard_added_to_an_output_whose_other_shard_0_6_wrote_is_of_the_same_model(
    model_dir, text, reference, tmp_path, capsys
):
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir, "--shard", "0/2") == 0
    with h5py.File(tmp_path / "out.shard-0-of-2.hdf5", "a") as handle:
        settings = json.loads(handle.attrs[SETTINGS_ATTRIBUTE])
        handle.attrs[SETTINGS_ATTRIBUTE] = json.dumps({**settings, "model_sha256": FIXTURE_DIGEST_0_6})
    capsys.readouterr()
    assert embed(text, out, model_dir, "--shard", "1/2") == 0, capsys.readouterr().err
    want = read_all(reference)
    with open_embeddings(out) as embeddings:  # the shards agree on their settings
        for line in range(23):
            np.testing.assert_allclose(embeddings[line], want[str(line)], rtol=0, atol=1e-6, err_msg=f"line {line}")
