"""`elmo embed` never loses or corrupts a file: one run per output, the input is never the
output, a full disk or a changed input stops the run with one line, damaged parts are redone."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import namedtuple
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

import hf_elmo.embed.run
import hf_elmo.embed.shards
import hf_elmo.fileio
import hf_elmo.loading
from hf_elmo import ElmoModel
from hf_elmo.cli import main as elmo_main
from hf_elmo.embed import open_embeddings
from hf_elmo.fileio import check_output_file
from tests.hf_elmo.test_embed import WORDS, assert_same_file, read_all
from tests.hf_elmo.test_fileio import CANNOT_WRITE, refuse_writes_in, unwritable

pytestmark = pytest.mark.usefixtures("one_thread")

CHILD_ENV = {**os.environ, "OMP_NUM_THREADS": "1"}
# `elmo embed` that, after writing part-000000, creates $READY and waits for $GO to appear.
PAUSE_AFTER_FIRST_PART = """
import os, sys, time
import hf_elmo.embed.run as run
write_part = run._write_part
def write_and_wait(path, items, bar):
    write_part(path, items, bar)
    if path.name == "part-000000.hdf5":
        open(os.environ["READY"], "w").close()
        deadline = time.monotonic() + 120
        while not os.path.exists(os.environ["GO"]) and time.monotonic() < deadline:
            time.sleep(0.02)
run._write_part = write_and_wait
from hf_elmo.cli import main
sys.exit(main(sys.argv[1:]))
"""
DiskUsage = namedtuple("DiskUsage", "total used free")


def write_text(path: Path, lines: int = 23, seed: int = 0) -> Path:
    rng = random.Random(seed)
    path.write_text(
        "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 15))) for _ in range(lines)) + "\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


@pytest.fixture(scope="module")
def reference(model_dir, text, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "reference.hdf5"
    assert embed(text, out, model_dir) == 0
    return out


def embed(text: Path, out: Path, model_dir: Path, *extra: str) -> int:
    return elmo_main(
        ["embed", str(text), str(out), "--model", str(model_dir), "--no-progress", "--chunk-lines", "4", *extra]
    )


def error_lines(err: str) -> list:
    """stderr's lines less the progress bars of model loading."""
    return [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "Loading weights" not in line]


def names(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir())


def test_a_second_run_on_the_same_output_fails_at_once_and_the_first_finishes_correctly(
    model_dir, text, reference, tmp_path, capsys
):
    out, ready, go = tmp_path / "out.hdf5", tmp_path / "ready", tmp_path / "go"
    first = subprocess.Popen(
        [
            sys.executable,
            "-c",
            PAUSE_AFTER_FIRST_PART,
            "embed",
            str(text),
            str(out),
            "--model",
            str(model_dir),
            "--no-progress",
            "--chunk-lines",
            "4",
        ],
        env={**CHILD_ENV, "READY": str(ready), "GO": str(go)},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), first.stderr.read() if first.poll() is not None else "the first run never paused"
        part = tmp_path / "out.hdf5.partial" / "part-000000.hdf5"
        before = (part.stat().st_ino, part.read_bytes())
        started = time.monotonic()
        assert embed(text, out, model_dir) == 2
        assert time.monotonic() - started < 10  # at once: no embedding, no waiting
        err = capsys.readouterr().err
        assert "is being written by another run" in err and len(error_lines(err)) == 1
        assert (part.stat().st_ino, part.read_bytes()) == before  # the second run touched no part file
        assert not (tmp_path / "out.hdf5.partial" / "part-000001.hdf5.tmp").exists()
        go.touch()
        assert first.wait(timeout=300) == 0, first.stderr.read()
    finally:
        go.touch()
        first.kill()
        first.wait()
    assert_same_file(out, reference)
    assert names(tmp_path) == ["go", "out.hdf5", "ready"]  # the lock file is gone too


@pytest.mark.parametrize("link", ["same path", "hard link"])
def test_an_output_that_is_the_input_is_refused_even_with_overwrite(link, model_dir, text, tmp_path, capsys):
    source = tmp_path / "same.txt"
    shutil.copy(text, source)
    out = source if link == "same path" else tmp_path / "link.txt"
    if link == "hard link":
        os.link(source, out)
    assert embed(source, out, model_dir, "--overwrite") == 2
    assert "is (or holds) the input" in capsys.readouterr().err
    assert source.read_bytes() == text.read_bytes()
    assert names(tmp_path) == sorted({"same.txt", out.name})


def test_an_output_that_is_a_folder_is_refused_even_with_overwrite(model_dir, text, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert embed(text, out, model_dir, "--overwrite") == 2
    with pytest.raises(FileExistsError) as refused:  # the refusal of every atomic write's output
        check_output_file(out)
    assert error_lines(capsys.readouterr().err) == [f"elmo embed: error: {refused.value}"]
    assert (out / "keep.txt").read_text() == "mine"


def test_an_output_that_is_a_symbolic_link_is_refused_before_anything_is_computed(model_dir, text, tmp_path, capsys):
    """Was: the run embedded every line, then its merge refused the link, leaving its partial folder."""
    out = tmp_path / "out.hdf5"
    out.symlink_to(tmp_path / "elsewhere.hdf5")
    assert embed(text, out, model_dir) == 2
    with pytest.raises(FileExistsError) as refused:
        check_output_file(out)
    assert error_lines(capsys.readouterr().err) == [f"elmo embed: error: {refused.value}"]
    assert names(tmp_path) == ["out.hdf5"] and out.is_symlink()


def test_an_output_ending_with_a_slash_is_refused_not_written_as_a_file(model_dir, text, tmp_path, capsys):
    out = f"{tmp_path / 'newdir'}/"
    assert elmo_main(["embed", str(text), out, "--model", str(model_dir), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"the output {out} ends with '/', naming a folder; name the HDF5 file to write" in err
    assert names(tmp_path) == []


@pytest.mark.parametrize("option", [["--tokens-per-batch", "0"], ["--chunk-lines", "0"]])
def test_bad_sizes_are_refused_before_anything_is_written(option, model_dir, text, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        elmo_main(["embed", str(text), str(tmp_path / "out.hdf5"), "--model", str(model_dir), "--no-progress", *option])
    assert exit_.value.code == 2
    # an option with an alias is named with it: argument --tokens-per-batch/--batch-tokens
    assert re.search(
        rf"argument {option[0]}(/--[a-z-]+)?: must be a positive integer, got '0'", capsys.readouterr().err
    )
    assert names(tmp_path) == []


def test_negative_threads_are_refused_by_every_command(capsys):
    for command in (
        ["embed", "in.txt", "out.hdf5"],
        ["pretrain", "in.txt", "out", "--epochs", "1"],
        ["perplexity", "model", "in.txt"],
        ["demo"],
        ["export", "model", "out"],
    ):
        with pytest.raises(SystemExit) as exit_:
            elmo_main([*command, "--threads", "-1"])
        assert exit_.value.code == 2
        assert "argument --threads: must be an integer in 1..1024, got '-1'" in capsys.readouterr().err


def test_a_full_disk_stops_with_one_line_keeping_finished_chunks_and_resume_finishes(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    calls = []
    spare = hf_elmo.fileio.FREE_SPACE_RESERVE

    def disk_usage(path):  # room for the datasets of two chunks (4 lines each), then none
        calls.append(path)
        return DiskUsage(10**9, 10**9, spare + (10**6 if len(calls) <= 8 else 0))

    monkeypatch.setattr(hf_elmo.fileio.shutil, "disk_usage", disk_usage)
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir) == 2
    err = capsys.readouterr().err
    assert "no space left on the disk" in err and "the finished chunks are kept" in err
    assert len(error_lines(err)) == 1
    assert names(tmp_path / "out.hdf5.partial") == ["part-000000.hdf5", "part-000001.hdf5", "run.json"]
    monkeypatch.undo()
    assert embed(text, out, model_dir) == 0
    assert "2 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    return (
        os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )


def test_a_really_full_disk_is_one_line_not_a_crash_and_resume_works(model_dir, tmp_path):
    """A 5 MiB tmpfs (root only): HDF5 used to crash (SIGSEGV) after hundreds of tracebacks."""
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "5m"):
        pytest.skip("needs root and tmpfs to mount a small disk")
    try:
        corpus = write_text(tmp_path / "corpus.txt", lines=1500, seed=1)  # ~4 MB of vectors, all layers
        command = [
            sys.executable,
            "-m",
            "hf_elmo.cli",
            "embed",
            str(corpus),
            str(disk / "out.hdf5"),
            "--model",
            str(model_dir),
            "--no-progress",
            "--chunk-lines",
            "100",
        ]
        full = subprocess.run(command, capture_output=True, text=True, env=CHILD_ENV, timeout=600)
        assert full.returncode == 2, full.stderr[-3000:]
        assert full.stderr.strip().splitlines()[-1].startswith("elmo embed: error: no space left")
        assert "Traceback" not in full.stderr
        parts = names(disk / "out.hdf5.partial")
        assert "part-000000.hdf5" in parts and not [p for p in parts if p.endswith(".tmp")]
        subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
        resumed = subprocess.run(command, capture_output=True, text=True, env=CHILD_ENV, timeout=600)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        assert f"{len(parts) - 1} of 15 chunks were done by an earlier run" in resumed.stdout
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_an_input_changed_during_the_run_is_an_error_and_no_output(model_dir, text, tmp_path, capsys, monkeypatch):
    source = tmp_path / "in.txt"
    shutil.copy(text, source)
    write_part = hf_elmo.embed.run._write_part

    def write_then_replace_the_input(path, items, bar):
        write_part(path, items, bar)
        if path.name == "part-000000.hdf5":  # same number of lines, other sentences
            replacement = write_text(tmp_path / "new.txt", seed=7)
            os.replace(replacement, source)

    monkeypatch.setattr(hf_elmo.embed.run, "_write_part", write_then_replace_the_input)
    assert embed(source, tmp_path / "out.hdf5", model_dir) == 2
    assert f"{source} changed while it was embedded" in capsys.readouterr().err
    assert names(tmp_path) == ["in.txt"]


def killed_after_part(monkeypatch, text, out, model, last_part: str) -> None:
    """Run ``elmo embed`` as if killed right after it wrote ``last_part`` of its partial folder."""
    write_part = hf_elmo.embed.run._write_part

    def write_then_stop(path, items, bar):
        write_part(path, items, bar)
        if path.name == last_part:
            raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(hf_elmo.embed.run, "_write_part", write_then_stop)
        assert embed(text, out, model) == 130


def test_a_damaged_part_is_computed_again_on_resume(model_dir, text, reference, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model_dir, "part-000002.hdf5")
    part = tmp_path / "out.hdf5.partial" / "part-000001.hdf5"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])  # truncated behind our back
    assert embed(text, out, model_dir) == 0
    assert "2 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)
    assert names(tmp_path) == ["out.hdf5"]


@pytest.mark.parametrize("content", ["{\n", "[]", '{"other": 1}'])
def test_a_damaged_run_file_is_named_with_what_to_do(content, model_dir, text, reference, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    (tmp_path / "out.hdf5.partial").mkdir()
    run_file = tmp_path / "out.hdf5.partial" / "run.json"
    run_file.write_text(content)
    assert embed(text, out, model_dir) == 2
    err = capsys.readouterr().err
    assert f"{run_file} is damaged" in err and "pass --overwrite" in err
    assert embed(text, out, model_dir, "--overwrite") == 0
    assert_same_file(out, reference)


def test_an_unwritable_output_folder_is_one_line(model_dir, text, tmp_path, capsys):
    with unwritable(tmp_path / "ro") as folder:
        assert embed(text, folder / "out.hdf5", model_dir) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1 and f"cannot write {folder / 'out.hdf5'}: {folder} is not writable (" in err


@pytest.mark.parametrize("code", CANNOT_WRITE)
@pytest.mark.parametrize("under", ["", "new/"])
def test_an_output_on_a_read_only_file_system_or_unwritable_folder_is_one_line_naming_it_before_loading(
    code, under, model_dir, text, tmp_path, capsys, monkeypatch
):
    """A folder on a file system mounted read-only (a data volume, a read-only bind mount) is told as an
    unwritable folder is, before the model loads. Was: "[Errno 30] Read-only file system:
    '.../out.hdf5.lock'", naming a file the user never asked for, then "cannot write in FOLDER (...)"
    after the model loaded, and for an output in a new folder under it the raw "[Errno 1] Operation not
    permitted: '.../new'" of making that folder."""
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / under / "out.hdf5"

    def not_loaded(*args, **kwargs):
        raise AssertionError("the model was loaded before the output was checked")

    monkeypatch.setattr(hf_elmo.loading, "load_bilm", not_loaded)
    refuse_writes_in(monkeypatch, folder, code)
    assert embed(text, out, model_dir) == 2
    monkeypatch.undo()
    err = error_lines(capsys.readouterr().err)
    assert err == [f"elmo embed: error: cannot write {out}: {folder} is not writable ({os.strerror(code)})"]
    assert names(folder) == []


def test_run_json_records_the_input_hash(model_dir, text, tmp_path, monkeypatch):
    def stop(*args):  # before the partial folder goes
        raise KeyboardInterrupt

    monkeypatch.setattr(hf_elmo.embed.run, "_merge", stop)
    embed(text, tmp_path / "out.hdf5", model_dir)
    settings = json.loads((tmp_path / "out.hdf5.partial" / "run.json").read_text())["settings"]
    import hashlib

    assert settings["input_sha256"] == hashlib.sha256(text.read_bytes()).hexdigest()


def test_an_output_in_a_new_folder_is_written(model_dir, text, reference, tmp_path):
    out = tmp_path / "new" / "deeper" / "out.hdf5"
    assert embed(text, out, model_dir) == 0
    assert_same_file(out, reference)


def test_an_input_that_grows_after_its_chunks_are_embedded_is_the_changed_input_error(
    model_dir, text, tmp_path, capsys, monkeypatch
):
    source = tmp_path / "in.txt"
    shutil.copy(text, source)
    merge = hf_elmo.embed.run._merge

    def grow_then_merge(*args):
        with source.open("a", encoding="utf-8") as handle:  # a line for a chunk that was never embedded
            handle.write("x y\n" * 5)
        merge(*args)

    monkeypatch.setattr(hf_elmo.embed.run, "_merge", grow_then_merge)
    assert embed(source, tmp_path / "out.hdf5", model_dir) == 2
    err = capsys.readouterr().err
    assert f"{source} changed while it was embedded" in err and len(error_lines(err)) == 1
    assert names(tmp_path) == ["in.txt"]


@pytest.mark.parametrize(
    "model_at, out, said",
    [
        ("victim2", "victim2/model.safetensors", "is a file of the model"),  # the weights
        ("victim2", "victim2/config.json", "is a file of the model"),
        ("out.hdf5.partial/model", "out.hdf5", "is or holds the model"),  # the run's partial folder holds it
    ],
)
def test_an_output_among_the_models_files_is_refused_even_with_overwrite(
    model_at, out, said, model_dir, text, tmp_path, capsys
):
    model = tmp_path / model_at
    shutil.copytree(model_dir, model)
    before = {p.name: p.read_bytes() for p in model.iterdir()}
    assert embed(text, tmp_path / out, model, "--overwrite") == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1 and f"{said} {model}; write it elsewhere" in err
    assert {p.name: p.read_bytes() for p in model.iterdir()} == before


def test_an_output_beside_the_models_files_is_written_and_leaves_them_alone(model_dir, text, tmp_path):
    model = tmp_path / "m"
    shutil.copytree(model_dir, model)
    before = {p.name: p.read_bytes() for p in model.iterdir()}
    assert embed(text, model / "vectors.hdf5", model) == 0
    assert {p.name: p.read_bytes() for p in model.iterdir() if p.name != "vectors.hdf5"} == before


def test_an_input_folder_or_missing_file_is_refused_as_every_text_input_is(model_dir, tmp_path, capsys):
    """corpus.check_text_file, the one check of a text input (elmo pretrain's, perplexity's, a vocabulary's).
    Was: a wording of embed's own, 'the input F is a folder; name a text file' and 'input file not found: F'."""
    folder, missing = tmp_path / "texts", tmp_path / "none.txt"
    folder.mkdir()
    assert embed(folder, tmp_path / "out.hdf5", model_dir) == 2
    assert error_lines(capsys.readouterr().err)[-1].endswith(f"the input {folder} is a folder, not a text file")
    assert embed(missing, tmp_path / "out.hdf5", model_dir) == 2
    assert error_lines(capsys.readouterr().err)[-1].endswith(f"the input {missing}: no such file")
    assert names(tmp_path) == ["texts"]


def test_an_input_that_is_not_a_regular_file_says_it_must_be_one(model_dir, tmp_path, capsys, monkeypatch):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert embed(fifo, tmp_path / "out.hdf5", model_dir) == 2
    assert f"the input {fifo} is not a regular file" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    assert embed(Path("-"), tmp_path / "out.hdf5", model_dir) == 2
    assert "the input cannot be stdin ('-'): it is read more than once" in capsys.readouterr().err
    assert names(tmp_path) == ["pipe"]


def test_an_output_of_dash_is_refused_as_stdout_not_written_as_a_file_named_dash(
    model_dir, text, tmp_path, capsys, monkeypatch
):
    """Was: a file named '-' in the working folder, where the user meant standard output."""
    monkeypatch.chdir(tmp_path)
    before = names(tmp_path)
    assert embed(text, Path("-"), model_dir) == 2
    err = capsys.readouterr().err
    assert error_lines(err) == [
        "elmo embed: error: embed cannot write stdout ('-'): its output is an HDF5 file, written aside and renamed "
        "into place; name the file to write (e.g. embeddings.hdf5)"
    ], err
    assert names(tmp_path) == before


def test_an_output_under_a_file_names_the_file(model_dir, text, tmp_path, capsys):
    (tmp_path / "afile2").write_text("mine")
    assert embed(text, tmp_path / "afile2" / "out.hdf5", model_dir) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1 and f"{tmp_path / 'afile2'} is a file, not a folder" in err
    assert names(tmp_path) == ["afile2"]


def test_a_model_changed_in_place_is_an_unfinished_run_with_other_settings(
    model_dir, text, tmp_path, capsys, monkeypatch
):
    model = tmp_path / "model"
    shutil.copytree(model_dir, model)
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model, "part-000001.hdf5")
    capsys.readouterr()
    changed = ElmoModel.from_pretrained(model)
    with torch.no_grad():
        for parameter in changed.parameters():
            parameter.mul_(1.5)
    changed.save_pretrained(model)  # the same folder, the same sizes: other vectors
    assert embed(text, out, model) == 2
    err = capsys.readouterr().err
    assert "unfinished run with other settings (model_sha256)" in err and len(error_lines(err)) == 1
    assert names(tmp_path / "out.hdf5.partial") == ["part-000000.hdf5", "part-000001.hdf5", "run.json"]


@pytest.mark.parametrize(
    "kind, reason",
    [
        ("file", "it is not a folder"),
        ("link to a folder", "it is a symbolic link"),
        ("dangling link", "it is a symbolic link"),
    ],
)
def test_a_partial_path_that_is_a_file_or_link_is_refused_saying_what_it_is(
    kind, reason, model_dir, text, tmp_path, capsys
):
    partial = tmp_path / "out.hdf5.partial"
    if kind == "file":
        partial.write_text("mine")
    else:
        (tmp_path / "target").mkdir()
        partial.symlink_to(tmp_path / ("target" if kind == "link to a folder" else "nowhere"))
    assert embed(text, tmp_path / "out.hdf5", model_dir, "--overwrite") == 2
    err = capsys.readouterr().err
    assert f"{partial} exists and is no unfinished run of elmo embed ({reason}), so it is not replaced" in err
    assert partial.is_symlink() or partial.read_text() == "mine"
    assert not (tmp_path / "out.hdf5").exists()


def test_a_partial_folder_left_holding_a_half_written_run_json_only_is_this_tools_and_the_run_starts_afresh(
    model_dir, text, reference, tmp_path, capsys
):
    """Was: refused as someone else's folder ('it has no run.json'; move it, or write elsewhere),
    even with --overwrite, when a kill came while the run wrote its first run.json."""
    out = tmp_path / "out.hdf5"
    (tmp_path / "out.hdf5.partial").mkdir()
    (tmp_path / "out.hdf5.partial" / ".run.json.k1ll3d_x.tmp").write_text('{"settings": {"inp')  # as SIGKILL leaves it
    assert embed(text, out, model_dir) == 0
    assert "done by an earlier run" not in capsys.readouterr().out
    assert names(tmp_path) == ["out.hdf5"]
    assert_same_file(out, reference)


def test_a_partial_folder_or_lock_file_of_the_users_own_is_refused_and_kept(model_dir, text, tmp_path, capsys):
    out = tmp_path / "notes.hdf5"
    mine = tmp_path / "notes.hdf5.partial"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("my thesis")
    for extra in ((), ("--overwrite",)):
        assert embed(text, out, model_dir, *extra) != 0
        assert "notes.hdf5.partial exists and is no unfinished run of elmo embed" in capsys.readouterr().err
    assert (mine / "chapter1.tex").read_text() == "my thesis"
    shutil.rmtree(mine)
    (tmp_path / "notes.hdf5.lock").write_text("my lock notes")
    assert embed(text, out, model_dir) != 0
    assert "notes.hdf5.lock exists and is no lock of elmo" in capsys.readouterr().err
    assert (tmp_path / "notes.hdf5.lock").read_text() == "my lock notes" and not out.exists()


@pytest.mark.parametrize(
    "last_part, kept",
    [
        (
            "part-000001.hdf5",
            "the 2 finished chunks in {}.partial are kept: the command that wrote them resumes from them",
        ),
        # was: 'the 1 finished chunks in OUTPUT.partial are kept: ...'
        ("part-000000.hdf5", "the finished chunk in {}.partial is kept: the command that wrote it resumes from it"),
    ],
    ids=["two chunks", "one chunk"],
)
def test_ctrl_c_is_one_line_saying_the_finished_chunks_are_kept_and_the_same_command_resumes(
    model_dir, text, reference, tmp_path, capsys, monkeypatch, last_part, kept
):
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model_dir, last_part)
    assert error_lines(capsys.readouterr().err) == [f"elmo embed: interrupted; {kept.format(out)}"]
    assert embed(text, out, model_dir) == 0
    done = int(last_part[5:11]) + 1
    assert f"{done} of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)


def test_a_touched_input_resumes_its_finished_chunks_and_other_content_is_refused(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    source, out = tmp_path / "in.txt", tmp_path / "out.hdf5"
    shutil.copy(text, source)
    killed_after_part(monkeypatch, source, out, model_dir, "part-000002.hdf5")
    capsys.readouterr()
    content = source.read_bytes()
    other = content.replace(b"cat", b"dog", 1)  # the same size, other content
    assert other != content
    source.write_bytes(other)
    assert embed(source, out, model_dir) == 2
    assert "unfinished run with other settings (input_sha256)" in capsys.readouterr().err
    source.write_bytes(content)  # the same bytes again, with a new date
    os.utime(source, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    assert embed(source, out, model_dir) == 0
    assert "3 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)
    assert names(tmp_path) == ["in.txt", "out.hdf5"]


def test_an_input_touched_during_the_run_finishes_it(model_dir, text, reference, tmp_path, monkeypatch):
    source = tmp_path / "in.txt"
    shutil.copy(text, source)
    write_part = hf_elmo.embed.run._write_part

    def write_then_touch(path, items, bar):
        write_part(path, items, bar)
        source.write_bytes(source.read_bytes())  # rewritten with the same content: a new date

    monkeypatch.setattr(hf_elmo.embed.run, "_write_part", write_then_touch)
    assert embed(source, tmp_path / "out.hdf5", model_dir) == 0
    assert_same_file(tmp_path / "out.hdf5", reference)
    assert names(tmp_path) == ["in.txt", "out.hdf5"]


def interrupted_at_write(monkeypatch, text, out, model, write: int, *extra: str) -> None:
    """Run ``elmo embed`` as if Ctrl-C came just before its ``write``-th write of vectors to disk
    (``ensure_free_space``, called before each: every line's dataset in its chunk, 1 to 23 for
    ``text`` in chunks of 4, then the merged output, 24)."""
    check = hf_elmo.embed.run.ensure_free_space
    calls = 0

    def check_then_stop(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == write:
            raise KeyboardInterrupt
        check(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(hf_elmo.embed.run, "ensure_free_space", check_then_stop)
        assert embed(text, out, model, *extra) == 130


@pytest.fixture(scope="module")
def scaled_model_dir(model_dir, tmp_path_factory) -> Path:
    """The fixture model with other weights."""
    model = ElmoModel.from_pretrained(model_dir)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(1.5)
    folder = tmp_path_factory.mktemp("scaled-model")
    model.save_pretrained(folder)
    return folder


#: A setting of ``run.json`` changed: the input and the model of a run, and its options.
OTHER_SETTINGS = {
    "layers": ("text", "model", ("--layers", "top")),
    "pool": ("text", "model", ("--pool", "mean")),
    "dtype": ("text", "model", ("--dtype", "bfloat16")),
    "chunk lines": ("text", "model", ("--chunk-lines", "5")),
    "input": ("other text", "model", ()),
    "model": ("text", "other model", ()),
}


@pytest.mark.parametrize("stop", ["Ctrl-C before the first chunk", "Ctrl-C in it", "killed in it"])
@pytest.mark.parametrize("other", OTHER_SETTINGS)
def test_a_run_stopped_before_its_first_chunk_binds_no_settings_a_run_of_other_ones_starts_afresh(
    stop, other, model_dir, scaled_model_dir, text, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out.hdf5"
    interrupted_at_write(monkeypatch, text, out, model_dir, 1 if stop == "Ctrl-C before the first chunk" else 3)
    if stop == "killed in it":  # SIGKILL leaves the chunk's temporary file
        (tmp_path / "out.hdf5.partial" / "part-000000.hdf5.tmp").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    capsys.readouterr()
    inputs = {"text": text, "other text": write_text(tmp_path / "other.txt", seed=3)}
    models = {"model": model_dir, "other model": scaled_model_dir}
    source, model, extra = OTHER_SETTINGS[other]
    assert embed(inputs[source], out, models[model], *extra) == 0
    assert "done by an earlier run" not in capsys.readouterr().out
    expected = tmp_path / "expected" / "out.hdf5"
    assert embed(inputs[source], expected, models[model], *extra) == 0
    assert_same_file(out, expected)
    assert names(tmp_path) == ["expected", "other.txt", "out.hdf5"]


def test_ctrl_c_before_the_first_chunk_says_nothing_binds_the_next_run_and_the_same_command_works(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out.hdf5"
    interrupted_at_write(monkeypatch, text, out, model_dir, 3)  # in the first chunk: nothing of it is kept
    assert error_lines(capsys.readouterr().err) == [
        "elmo embed: interrupted; no chunk was finished yet, so nothing binds the next run: it starts afresh, "
        "whatever its settings"
    ]
    assert names(tmp_path / "out.hdf5.partial") == ["run.json"]
    assert embed(text, out, model_dir) == 0
    assert "done by an earlier run" not in capsys.readouterr().out
    assert_same_file(out, reference)
    assert names(tmp_path) == ["out.hdf5"]


def test_ctrl_c_once_a_chunk_is_finished_still_refuses_other_settings_and_the_same_command_resumes(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out.hdf5"
    interrupted_at_write(monkeypatch, text, out, model_dir, 24)  # every chunk done, none merged
    capsys.readouterr()
    assert embed(text, out, model_dir, "--layers", "top") == 2
    assert "unfinished run with other settings (layers)" in capsys.readouterr().err
    assert embed(text, out, model_dir) == 0
    assert "6 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)
    assert names(tmp_path) == ["out.hdf5"]


@pytest.mark.parametrize("removed", range(8))
def test_a_run_killed_while_removing_its_partial_folder_leaves_one_the_same_command_finishes_from(
    removed, model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    """Once the output is renamed into place the six parts and run.json are removed, then their
    folder: killed after ``removed`` of those, the output is whole and what is left is this run's
    folder, which the same command removes; never a folder of parts refused as a stranger's. When
    only the empty folder is left, an output of the run's settings is its finished output (was:
    'exists; pass --overwrite', leaving the folder); one of other settings is not."""
    out = tmp_path / "out.hdf5"
    unlink, rmdir, done = os.unlink, os.rmdir, []

    def stop_after(remove, path, *args, **kwargs):
        if out.exists() and Path(path).name.startswith(("part-", "run.json", "out.hdf5.partial")):
            if len(done) == removed:
                raise KeyboardInterrupt
            done.append(path)
        remove(path, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "unlink", partial(stop_after, unlink))
        patch.setattr(os, "rmdir", partial(stop_after, rmdir))
        assert embed(text, out, model_dir) == 130
    capsys.readouterr()
    assert_same_file(out, reference)
    if removed == 7:
        assert embed(text, out, model_dir, "--layers", "top") == 2
        assert error_lines(capsys.readouterr().err) == [
            f"elmo embed: error: {out} exists; pass --overwrite to replace it"
        ]
    assert embed(text, out, model_dir) == 0
    assert error_lines(capsys.readouterr().err) == []
    assert names(tmp_path) == ["out.hdf5"]
    assert_same_file(out, reference)


def test_a_temporary_output_left_by_a_kill_while_merging_takes_no_space_from_the_rerun(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    """Was: the rerun checked the free space for the output before removing the half-written
    OUTPUT.tmp that a kill while merging left, so the space that file took stopped every rerun
    ('no space left on the disk'), and the file stayed. A run removes it once it holds the output's lock."""
    out, stale = tmp_path / "out.hdf5", tmp_path / ".out.hdf5.k1ll3d_x.tmp"
    interrupted_at_write(monkeypatch, text, out, model_dir, 24)  # every chunk done, none merged
    stale.write_bytes(bytes(10**6))  # as SIGKILL while merging leaves it
    spare = hf_elmo.fileio.FREE_SPACE_RESERVE

    def disk_usage(path):  # 1 MB free, less what the temporary output takes
        return DiskUsage(10**9, 10**9, spare + 10**6 - (stale.stat().st_size if stale.exists() else 0))

    monkeypatch.setattr(hf_elmo.fileio.shutil, "disk_usage", disk_usage)
    capsys.readouterr()
    assert embed(text, out, model_dir) == 0
    assert "6 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert names(tmp_path) == ["out.hdf5"]
    assert_same_file(out, reference)


def test_shard_0_stopped_before_its_index_is_written_is_finished_by_the_same_command(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    """Was: shard 0 removed its partial folder before writing the index, so a run stopped between
    left a finished shard file without an index, which the same command refused ('exists; pass
    --overwrite') and open_embeddings could not open as the output."""
    out, index = tmp_path / "out.hdf5", tmp_path / "out.hdf5.index.json"
    write = hf_elmo.embed.shards.write_text_atomic

    def stop_at_the_index(path, content):
        if Path(path) == index:
            raise KeyboardInterrupt
        return write(path, content)

    with monkeypatch.context() as patch:
        patch.setattr(hf_elmo.embed.shards, "write_text_atomic", stop_at_the_index)
        assert embed(text, out, model_dir, "--shard", "0/2") == 130
    capsys.readouterr()
    assert embed(text, out, model_dir, "--shard", "0/2") == 0
    assert f"wrote {index}: the index of 2 shards" in capsys.readouterr().out
    assert names(tmp_path) == ["out.hdf5.index.json", "out.shard-0-of-2.hdf5"]
    assert embed(text, out, model_dir, "--shard", "1/2") == 0
    want = read_all(reference)
    with open_embeddings(out) as embeddings:  # the index, with both shards
        for line in range(23):
            np.testing.assert_allclose(embeddings[line], want[str(line)], rtol=0, atol=1e-6, err_msg=f"line {line}")


def test_ctrl_c_after_the_output_is_renamed_into_place_says_it_is_complete_and_the_same_command_finishes(
    model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    """Was: 'the 6 finished chunks in OUTPUT.partial are kept: the command that wrote them resumes
    from them', as if the output were not written yet."""
    out = tmp_path / "out.hdf5"
    unlink = os.unlink

    def stop_at_the_parts(path, *args, **kwargs):
        if out.exists() and Path(path).name.startswith("part-"):
            raise KeyboardInterrupt
        unlink(path, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "unlink", stop_at_the_parts)
        assert embed(text, out, model_dir) == 130
    assert error_lines(capsys.readouterr().err) == [
        f"elmo embed: interrupted; {out} is complete; the same command finishes its run (it removes {out}.partial)"
    ]
    assert embed(text, out, model_dir) == 0
    assert "6 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert names(tmp_path) == ["out.hdf5"]
    assert_same_file(out, reference)


def test_a_folder_where_the_lock_file_goes_is_one_line_naming_it_before_loading(
    model_dir, text, tmp_path, capsys, monkeypatch
):
    """Was: the model loaded, then a raw "[Errno 21] Is a directory: '.../out.hdf5.lock'"."""
    out = tmp_path / "out.hdf5"
    theirs = tmp_path / "out.hdf5.lock"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")

    def not_loaded(*args, **kwargs):
        raise AssertionError("the model was loaded before the output was checked")

    monkeypatch.setattr(hf_elmo.loading, "load_bilm", not_loaded)
    assert embed(text, out, model_dir) == 2
    monkeypatch.undo()
    err = error_lines(capsys.readouterr().err)
    assert len(err) == 1 and str(theirs) in err[0] and "is a folder" in err[0] and "move it" in err[0], err
    assert names(tmp_path) == ["out.hdf5.lock"] and (theirs / "notes.txt").read_text() == "mine"
