"""save_pretrained(push_to_hub=True) holds its folder (one_save_at_a_time) until its push ends: another save into the
folder that starts while it pushes waits for the push, which uploads this save whole (was: the folder was let go
before the push, the other save moved its files in meanwhile, removing this save's shards, and the push uploaded the
other save's config and weights as this one's, or failed on a file gone between its listing and its reading)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import huggingface_hub
from transformers.utils.hub import PushToHubMixin

from hf_elmo import configuration_elmo
from tests.hf_elmo.random_inputs import clipped_random_model, other_model
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


def test_another_save_waits_for_the_push_which_uploads_this_save_whole(hub, tmp_path, monkeypatch):  # noqa: F811
    folder, uploaded, waiting = tmp_path / "elmo", {}, threading.Event()
    clipped_random_model().save_pretrained(folder, max_shard_size=20000)
    monkeypatch.setattr(configuration_elmo._logger, "warning", lambda message: waiting.set())

    def create_commit(self, repo_id, operations, **kwargs):
        uploaded.update({op.path_in_repo: Path(op.path_or_fileobj).read_bytes() for op in operations})

    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit", create_commit)
    upload, others = PushToHubMixin._upload_modified_files, []

    def another_save_starts(self, working_dir, *args, **kwargs):  # a save of another model, unsharded
        other = threading.Thread(target=lambda: other_model().save_pretrained(folder))
        other.start()
        deadline = time.monotonic() + 30
        while other.is_alive() and not waiting.wait(0.05) and time.monotonic() < deadline:
            pass  # until it ends, or says it waits for this push
        others.append(other)
        return upload(self, working_dir, *args, **kwargs)

    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", another_save_starts)
    pushed = clipped_random_model()
    pushed.config.cell_clip = 3.0
    pushed.save_pretrained(folder, push_to_hub=True, repo_id="me/elmo", max_shard_size=20000)
    assert waiting.is_set()  # the other save waited
    others[0].join(timeout=60)
    assert json.loads(uploaded["config.json"])["cell_clip"] == 3.0
    assert "model.safetensors.index.json" in uploaded and "model.safetensors" not in uploaded
    assert json.loads((folder / "config.json").read_text())["cell_clip"] == 2.0  # the other save's, after the push
