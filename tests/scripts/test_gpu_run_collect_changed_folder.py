"""scripts/gpu/gpu_run.py collect cuts the folder into pieces again when it has changed since the last cut (a
checkpoint the run wrote again), and refuses in one line a later piece of a cut that no longer matches the folder
(was: the pieces of the first cut, ever after: assemble gave the old checkpoint as the one collected now)."""

from __future__ import annotations

from tests.conftest import load_script
from tests.scripts.test_gpu_run import failure

gpu_run = load_script("scripts/gpu/gpu_run.py")


def _collect(work, out, *first: str) -> None:
    gpu_run.main(
        ["collect", "--what", "checkpoint", "--work", str(work), "--out", str(out), "--piece-mib", "0.01", *first]
    )


def test_a_checkpoint_written_again_is_cut_again(tmp_path, capsys):
    work, checkpoint = tmp_path / "work", tmp_path / "work" / "model.checkpoint"
    checkpoint.mkdir(parents=True)
    (checkpoint / "checkpoint.pt").write_bytes(b"step 10" * 4000)
    _collect(work, tmp_path / "call1")
    (checkpoint / "checkpoint.pt").write_bytes(b"step 20" * 4000)  # the run goes on
    said = failure(
        capsys,
        ["collect", "--what", "checkpoint", "--work", str(work), "--out", str(tmp_path / "call2"), "--first", "1"],
    )
    assert said == (
        f"gpu_run.py: error: {checkpoint} has changed since its pieces were cut (the run still writes it?), so piece 1 "
        "would not fit those already fetched: collect it again from --first 0\n"
    )
    _collect(work, tmp_path / "call3")
    gpu_run.main(["assemble", str(tmp_path / "call3"), "--what", "checkpoint", "--dest", str(tmp_path / "local")])
    assert (tmp_path / "local" / "model.checkpoint" / "checkpoint.pt").read_bytes() == b"step 20" * 4000


def test_an_unchanged_folder_keeps_its_cut_across_calls(tmp_path):
    work, checkpoint = tmp_path / "work", tmp_path / "work" / "model.checkpoint"
    checkpoint.mkdir(parents=True)
    (checkpoint / "checkpoint.pt").write_bytes(bytes(range(256)) * 400)  # more pieces than one call brings back
    _collect(work, tmp_path / "call1")
    fetched = len(list((tmp_path / "call1").glob("checkpoint-0*")))
    _collect(work, tmp_path / "call2", "--first", str(fetched))
    manifests = [(tmp_path / call / "checkpoint-manifest.json").read_text() for call in ("call1", "call2")]
    assert manifests[0] == manifests[1]
    assert sorted(path.name for path in (tmp_path / "call2").glob("checkpoint-0*"))[0] == f"checkpoint-{fetched:03d}"
