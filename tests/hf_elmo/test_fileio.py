"""hf_elmo.fileio and hf_elmo.output_folders: atomic files, folders built aside, one writer per output, stale staging folders."""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from hf_elmo.fileio import (
    OutputBusyError,
    atomic_file,
    check_lock_file,
    check_output_file,
    check_writable,
    exclusive_lock,
    is_temporary_file,
    remove_stale_temporaries,
    strict_json,
    write_text_atomic,
)
from hf_elmo.output_folders import (
    EXPORT_MANIFEST,
    PACKAGE_FOLDER,
    build_aside,
    check_output_folder,
    others_files,
    remove_stale_staging,
)
from hf_elmo.pretrained import DEFAULT_MODEL
from tests.conftest import strict_json_loads

# Holds an flock on the path in argv[1] (a file or a folder) until killed; prints "held" once it does.
HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | (0 if os.path.isdir(sys.argv[1]) else os.O_CREAT))
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(600)
"""


ELMO_CONFIG = '{"model_type": "elmo"}'


@contextmanager
def unwritable(folder: Path) -> Iterator[Path]:
    """``folder`` made unwritable: mode 0555 for a normal user, the immutable flag for root (who
    ignores modes); skips the test where neither is possible."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root where chattr +i is unavailable: cannot make a folder unwritable")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


#: The errors of a folder that cannot be written: a file system mounted read-only, a folder's mode.
CANNOT_WRITE = [errno.EROFS, errno.EACCES]


def refuse_writes_in(monkeypatch: pytest.MonkeyPatch, folder: Path, code: int) -> None:
    """Make creating a file (``os.open`` with ``O_CREAT``) or a folder directly in ``folder`` fail with
    the errno ``code`` (``CANNOT_WRITE``), as the kernel does for a read-only file system or a folder of
    mode 0555, which root would write in."""
    real_open, real_mkdir = os.open, os.mkdir

    def refuse(path) -> None:
        raise OSError(code, os.strerror(code), str(path))  # PermissionError for EACCES, as the kernel's

    def fake_open(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and Path(path).parent == folder:
            refuse(path)
        return real_open(path, flags, *args, **kwargs)

    def fake_mkdir(path, *args, **kwargs):
        if Path(path).parent == folder:
            refuse(path)
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)


@contextmanager
def lock_held_by_another_process(path: Path) -> Iterator[subprocess.Popen]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_atomic_file_replaces_only_when_complete_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_file(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed mid-write")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt"]
    write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt"]


@pytest.mark.parametrize("kind", ["pipe", "folder", "link"])
def test_atomic_file_refuses_an_output_that_is_no_regular_file_and_leaves_it_as_it_is(kind, tmp_path):
    """The rename would put a file in place of a device, pipe or link (``/dev/null`` as root)."""
    target, precious = tmp_path / "out", tmp_path / "precious.txt"
    precious.write_text("mine")
    {"pipe": os.mkfifo, "folder": os.mkdir, "link": lambda p: p.symlink_to(precious)}[kind](target)
    refusal = {"pipe": "exists and is not a regular file", "folder": "is a folder", "link": "is a symbolic link"}
    with pytest.raises(FileExistsError, match=f"the output {target} {refusal[kind]}"):
        write_text_atomic(target, "new")
    assert target.is_symlink() if kind == "link" else not target.is_file()
    assert precious.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "precious.txt"]


def test_an_output_that_is_a_folder_is_refused_as_a_folder_saying_to_give_the_file_to_write(tmp_path):
    """Was: 'exists and is not a regular file (a folder, device or pipe)', leaving which to guess."""
    with pytest.raises(FileExistsError) as refused:
        check_output_file(tmp_path)
    assert str(refused.value) == f"the output {tmp_path} is a folder; give the path of the file to write"


def test_two_writers_of_one_file_never_share_its_hidden_temporary_file(tmp_path):
    """Both wrote PATH.tmp: the second one's start removed the first one's half-written file, and
    a link or folder of that name was in the way of every writer."""
    target = tmp_path / "out.spacy"
    (tmp_path / "out.spacy.tmp").mkdir()  # someone's folder of the old temporary name is no obstacle
    with atomic_file(target) as first, atomic_file(target) as second:
        assert first != second and first.parent == second.parent == tmp_path
        for tmp in (first, second):
            assert re.fullmatch(r"\.out\.spacy\.[a-z0-9_]{8}\.tmp", tmp.name) and is_temporary_file(tmp, "out.spacy")
        first.write_text("first")
        second.write_text("second")
    assert target.read_text() == "first"  # the outer block ends last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.spacy", "out.spacy.tmp"]


def test_stale_temporary_files_are_removed_only_when_asked_and_only_theirs(tmp_path):
    """atomic_file leaves a killed writer's file (a live writer's looks the same); a holder of the
    output's lock removes those of its file, and no other file."""
    kept = ["out.txt", "notes.txt", ".other.txt.abcd1234.tmp", ".out.txt.short.tmp", "out.txt.tmp"]
    for name in [*kept, ".out.txt.abcd_123.tmp"]:
        (tmp_path / name).write_text("x")
    write_text_atomic(tmp_path / "out.txt", "new")
    assert (tmp_path / ".out.txt.abcd_123.tmp").exists()
    remove_stale_temporaries(tmp_path, "out.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
    remove_stale_temporaries(tmp_path)
    assert ".other.txt.abcd1234.tmp" not in [p.name for p in tmp_path.iterdir()]


@pytest.mark.parametrize("kind", ["folder", "link to a folder", "file with content"])
def test_a_lock_path_that_holds_something_of_the_users_is_refused_in_one_line_and_kept(kind, tmp_path):
    """Was, for a folder: a raw "[Errno 21] Is a directory: '.../out.lock'"; ``check_lock_file`` says it
    before a long run, as ``exclusive_lock`` does."""
    lock, folder = tmp_path / "out.lock", tmp_path / "folder"
    folder.mkdir()
    {
        "folder": lambda: shutil.copytree(folder, lock),
        "link to a folder": lambda: lock.symlink_to(folder),
        "file with content": lambda: lock.write_text("my notes"),
    }[kind]()
    message = (
        f"{lock} exists and is no lock of elmo (it is not empty); move it, or write elsewhere"
        if kind == "file with content"
        else f"{lock} is a folder, where elmo locks its output; move it, or write elsewhere"
    )
    with pytest.raises(FileExistsError) as checked:
        check_lock_file(lock)
    with pytest.raises(FileExistsError) as locked:
        with exclusive_lock(lock, "busy"):
            pass
    assert str(checked.value) == str(locked.value) == message
    assert lock.is_symlink() if kind == "link to a folder" else lock.exists()
    assert check_lock_file(tmp_path / "new.lock") == tmp_path / "new.lock"


def test_written_files_and_folders_get_the_umask_modes(tmp_path):
    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "a.txt", "x")
        with build_aside(tmp_path / "folder", overwrite=False) as staging:
            (staging / "b.txt").write_text("y")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "folder").stat().st_mode) == 0o755


def test_strict_json_writes_null_for_every_infinite_or_nan_float_however_deep_and_keeps_the_layout():
    """Python's json.dumps writes Infinity and NaN, which jq, JavaScript and strict parsers refuse."""
    value = {"a": math.inf, "b": [1.5, -math.inf, (math.nan, 2)], "c": {"d": np.float64("nan"), "e": 0.0}, "f": 3}
    text = strict_json(value, indent=2)
    assert strict_json_loads(text) == {
        "a": None,
        "b": [1.5, None, [None, 2]],
        "c": {"d": None, "e": 0.0},
        "f": 3,
    }
    assert text == json.dumps(json.loads(text), indent=2)  # json.dumps's layout, options passed on
    assert value["a"] == math.inf  # the value given is left as it was
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        strict_json({"x": object()}, default=lambda _: math.inf)  # what no mapping reaches is refused


def test_a_second_holder_of_an_output_lock_fails_at_once(tmp_path):
    lock = tmp_path / "out.lock"
    with lock_held_by_another_process(lock):
        started = time.monotonic()
        with pytest.raises(OutputBusyError, match="busy"):
            with exclusive_lock(lock, "busy"):
                pass
        assert time.monotonic() - started < 1
    with exclusive_lock(lock, "busy"):  # the holder is gone: its lock went with it
        assert lock.exists()
    assert not lock.exists()


#: Holds the lock, forks a child that sleeps on (as a DataLoader worker would), and is killed.
KILLED_WITH_A_FORKED_CHILD = """
import multiprocessing, os, signal, sys, time
from hf_elmo.fileio import exclusive_lock
with exclusive_lock(sys.argv[1], "busy"):
    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
    child.start()
    print(child.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_forked_child_that_outlives_the_killed_holder_does_not_keep_the_lock(tmp_path):
    lock = tmp_path / "out.lock"
    holder = subprocess.Popen([sys.executable, "-c", KILLED_WITH_A_FORKED_CHILD, str(lock)], stdout=subprocess.PIPE)
    child = int(holder.stdout.readline())
    try:
        assert holder.wait(timeout=60) == -signal.SIGKILL and lock.exists()
        # the child drops its copy of the lock as it starts (os.register_at_fork), which on a loaded machine may
        # come a moment after its parent's death: it must not keep it
        deadline = time.monotonic() + 10
        while True:
            try:
                with exclusive_lock(lock, "busy"):  # not held by the child, which still runs
                    os.kill(child, 0)
                break
            except OutputBusyError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
    finally:
        os.kill(child, signal.SIGKILL)
        holder.stdout.close()


def test_a_child_forked_inside_the_lock_leaves_the_block_without_touching_the_parents_lock(tmp_path):
    lock, parent = tmp_path / "out.lock", os.getpid()
    exits = []

    def hold_and_fork() -> None:
        with exclusive_lock(lock, "busy"):
            child = os.fork()
            if child:  # the parent, once the child has left the block
                exits.append(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
                assert lock.exists()
                with pytest.raises(OutputBusyError):  # still the parent's
                    with exclusive_lock(lock, "busy"):
                        pass

    try:
        hold_and_fork()
    except BaseException:
        if os.getpid() != parent:
            os._exit(1)  # the child's error (e.g. closing a descriptor it no longer has)
        raise
    if os.getpid() != parent:
        os._exit(0)
    assert exits == [0] and not lock.exists()


def test_build_aside_replaces_the_folder_or_leaves_it_untouched(tmp_path):
    out = tmp_path / "model"
    out.mkdir()
    (out / "config.json").write_text(ELMO_CONFIG)
    with pytest.raises(RuntimeError):
        with build_aside(out, overwrite=True) as staging:
            (staging / "new.txt").write_text("new")
            raise RuntimeError("failed build")
    assert [p.name for p in out.iterdir()] == ["config.json"]
    with build_aside(out, overwrite=True) as staging:
        (staging / "new.txt").write_text("new")
    assert [p.name for p in out.iterdir()] == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_build_aside_refuses_an_output_holding_an_input_even_with_overwrite(tmp_path):
    (tmp_path / "d").mkdir()
    source = tmp_path / "d" / "options.json"
    source.write_text("{}")
    for out in (tmp_path / "d", tmp_path):
        with pytest.raises(ValueError, match="holds the input"):
            with build_aside(out, overwrite=True, inputs=[source]):
                pass
    assert source.read_text() == "{}"


def test_build_aside_refuses_an_output_inside_an_input_even_with_overwrite(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(ELMO_CONFIG)
    with pytest.raises(ValueError, match=f"the output folder {model / 'export'} lies inside the input {model}"):
        with build_aside(model / "export", overwrite=True, inputs=[model]):
            pass
    assert [p.name for p in model.iterdir()] == ["config.json"]


@pytest.mark.parametrize(
    "marker, content, replaced",
    [
        ("notes.txt", "mine", False),
        ("config.json", '{"model_type": "bert"}', False),  # another library's model
        ("config.json", "{not json", False),
        ("config.json", ELMO_CONFIG, True),  # elmo convert, elmo pretrain
    ],
)
def test_overwrite_replaces_only_a_folder_holding_an_earlier_output(marker, content, replaced, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / marker).write_text(content)
    if not replaced:
        with pytest.raises(FileExistsError, match=f"{out} is not empty and holds no earlier output .* new or empty"):
            with build_aside(out, overwrite=True) as staging:
                (staging / "new.txt").write_text("new")
        assert [p.name for p in out.iterdir()] == [marker]
        return
    with build_aside(out, overwrite=True) as staging:
        (staging / "new.txt").write_text("new")
    assert [p.name for p in out.iterdir()] == ["new.txt"]


MODEL_FOLDER = {"config.json": ELMO_CONFIG, "model.safetensors": "weights", "tokenizer_config.json": "{}"}
EXPORT_FOLDER = {EXPORT_MANIFEST: "{}", "model.onnx": "graph", "tokenizer_config.json": "{}"}


@pytest.mark.parametrize("held", ["model", "export"])
@pytest.mark.parametrize("kind", ["model", "export"])
def test_overwrite_replaces_an_earlier_output_of_the_same_kind_only(held, kind, tmp_path):
    """``elmo export OTHER_MODEL/ --overwrite`` (a typo) must not delete that model, nor convert an export."""
    out = tmp_path / "out"
    out.mkdir()
    files = MODEL_FOLDER if held == "model" else EXPORT_FOLDER
    for name, content in files.items():
        (out / name).write_text(content)
    if held != kind:
        named = {"model": r"an ELMo model \(config.json\)", "export": rf"an ELMo export \({EXPORT_MANIFEST}\)"}
        message = (
            f"^{out} holds {named[held]}, not {named[kind].replace('an ', 'an earlier ')}, so --overwrite does "
            f"not replace it; write the {kind} to another folder \\(delete that {held} first"
        )
        with pytest.raises(FileExistsError, match=message) as error:
            with build_aside(out, overwrite=True, kind=kind) as staging:
                (staging / "new.txt").write_text("new")
        assert "\n" not in str(error.value)
        assert {p.name: p.read_text() for p in out.iterdir()} == files
        assert [p.name for p in tmp_path.iterdir()] == ["out"]
        return
    with build_aside(out, overwrite=True, kind=kind) as staging:
        (staging / "new.txt").write_text("new")
    assert [p.name for p in out.iterdir()] == ["new.txt"]


@contextmanager
def undeletable_file(path: Path) -> Iterator[None]:
    """``path`` (a file) made undeletable: its folder mode 0555 for a normal user, the immutable
    flag on the file for root; skips the test where neither is possible. ``path`` may move
    (with its folder) inside the block: the undoing follows the file by its inode."""
    inode = path.stat().st_ino
    if os.geteuid() != 0:
        path.parent.chmod(0o555)
    elif subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root where chattr +i is unavailable: cannot make a file undeletable")
    try:
        yield
    finally:
        moved = next(p for p in path.parents[1].rglob(path.name) if p.stat().st_ino == inode)
        if os.geteuid() != 0:
            moved.parent.chmod(0o755)
        else:
            subprocess.run(["chattr", "-i", str(moved)], check=True)


def test_an_old_copy_that_cannot_be_removed_is_named_in_a_one_line_warning(tmp_path, caplog):
    out = tmp_path / "out"
    out.mkdir()
    (out / EXPORT_MANIFEST).write_text("{}")
    (out / "model.onnx").write_text("old graph")
    with undeletable_file(out / "model.onnx"):
        with build_aside(out, overwrite=True, kind="export") as staging:
            (staging / EXPORT_MANIFEST).write_text('{"new": 1}')
        assert (out / EXPORT_MANIFEST).read_text() == '{"new": 1}' and not (out / "model.onnx").exists()
        (left,) = [p for p in tmp_path.iterdir() if p.name != "out"]
        assert re.fullmatch(r"\.out\.building-[a-z0-9_]{8}\.old", left.name)
        reason = os.strerror(errno.EACCES if os.geteuid() != 0 else errno.EPERM)
        assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
            f"{out} is written, but its old copy {left} could not be removed ({reason}); delete it yourself"
        ]


@pytest.mark.parametrize(
    "theirs", ["NOTES.txt", "embeddings.hdf5", ".git/", "checkpoint-500/", "run.py", "cli.py", "model.onnx"]
)
def test_overwrite_keeps_an_earlier_output_that_holds_files_of_the_users(theirs, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "config.json").write_text(ELMO_CONFIG)
    (out / "model.safetensors").write_bytes(b"weights")
    if theirs.endswith("/"):
        (out / theirs).mkdir()
    else:
        (out / theirs).write_text("mine")
    name = theirs.rstrip("/")
    with pytest.raises(FileExistsError, match=f"{out} holds files that elmo did not write \\({re.escape(name)}\\)"):
        with build_aside(out, overwrite=True) as staging:
            (staging / "config.json").write_text(ELMO_CONFIG)
    assert sorted(p.name for p in out.iterdir()) == sorted(["config.json", "model.safetensors", name])


@pytest.mark.parametrize("theirs", ["README.md", "vocab.txt", "training.json", "export.py", "cli.py"])
def test_overwrite_keeps_an_export_that_holds_files_only_a_model_folder_has(theirs, tmp_path):
    """An export writes no card, vocabulary or package module: such a file is the user's there."""
    out = tmp_path / "out"
    out.mkdir()
    (out / EXPORT_MANIFEST).write_text("{}")
    (out / "model.onnx").write_bytes(b"graph")
    (out / theirs).write_text("mine")
    with pytest.raises(FileExistsError, match=f"{out} holds files that elmo did not write \\({re.escape(theirs)}\\)"):
        with build_aside(out, overwrite=True, kind="export") as staging:
            (staging / EXPORT_MANIFEST).write_text("{}")
    assert (out / theirs).read_text() == "mine"


def test_the_folders_elmo_writes_hold_only_files_that_overwrite_may_replace(tmp_path):
    """``elmo pretrain`` writes what the shipped folder holds; a task head saves its own code."""
    from hf_elmo import ElmoForTokenClassification
    from hf_elmo.loading import model_tokenizer
    from hf_elmo.pretrained import DEFAULT_MODEL

    assert others_files(DEFAULT_MODEL, "model") == []
    head = ElmoForTokenClassification.from_pretrained(DEFAULT_MODEL, num_labels=3)
    head.save_pretrained(tmp_path / "head", max_shard_size="20MB")
    model_tokenizer(head).save_pretrained(tmp_path / "head")
    assert others_files(tmp_path / "head", "model") == []


def test_overwrite_replaces_an_earlier_output_holding_only_files_that_elmo_writes(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    written = [
        "config.json", "model-00001-of-00002.safetensors", "model.safetensors.index.json", "tokenizer_config.json",
        "modeling_elmo.py", "modeling_heads.py", "README.md", "training.json", "vocab.txt",
    ]  # fmt: skip
    for name in written:
        (out / name).write_text(ELMO_CONFIG if name == "config.json" else "old")
    with build_aside(out, overwrite=True) as staging:
        (staging / "config.json").write_text(ELMO_CONFIG)
    assert [p.name for p in out.iterdir()] == ["config.json"]


def test_the_current_folder_and_its_parents_are_refused_even_empty_or_with_overwrite(tmp_path, monkeypatch):
    here = tmp_path / "project" / "sub"
    here.mkdir(parents=True)
    (here / "config.json").write_text(ELMO_CONFIG)  # even an earlier output
    monkeypatch.chdir(here)
    for out in (".", str(here), "..", str(tmp_path / "project" / "sub" / ".." / "sub")):
        for overwrite in (False, True):
            with pytest.raises(ValueError, match="is the current folder or holds it; pick a new or empty folder"):
                check_output_folder(out, overwrite=overwrite)
    (here / "config.json").unlink()
    with pytest.raises(ValueError, match="is the current folder"):  # empty: renaming it away would fail or lose it
        with build_aside(here, overwrite=False):
            pass
    assert here.is_dir() and sorted(p.name for p in tmp_path.iterdir()) == ["project"]


@pytest.mark.parametrize(
    "out", [DEFAULT_MODEL, DEFAULT_MODEL.parent / "my-model", PACKAGE_FOLDER], ids=["shipped", "new", "package"]
)
def test_an_output_folder_in_the_package_is_refused_even_with_overwrite_but_for_shipping_a_model(out):
    """Was: --overwrite replaced the shipped model (its files are all files a model folder holds), so that
    hf-elmo:elmo-2x1024-en, every command's default, became whatever was written there."""
    for overwrite in (False, True):
        with pytest.raises(
            ValueError, match="^the output folder .* lies in the folder of the installed hf_elmo package"
        ):
            check_output_folder(out, overwrite=overwrite)
    if out == DEFAULT_MODEL:  # scripts/ship_model.py
        assert check_output_folder(out, overwrite=True, into_package=True) == out


@pytest.mark.parametrize("target", ["empty", "earlier output", "missing"])
def test_a_symlinked_output_folder_is_refused_and_no_link_is_left(target, tmp_path):
    real = tmp_path / "bigdisk" / "target"
    if target != "missing":
        real.mkdir(parents=True)
    if target == "earlier output":
        (real / "config.json").write_text(ELMO_CONFIG)
    link = tmp_path / "linkout"
    link.symlink_to(real)
    with pytest.raises(ValueError, match=f"the output folder {link} is a symbolic link \\(to {real}\\)"):
        with build_aside(link, overwrite=True) as staging:
            (staging / "new.txt").write_text("new")
    expected = ["linkout"] if target == "missing" else ["bigdisk", "linkout"]  # no .linkout.building-*.old link
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == expected


@pytest.mark.parametrize("out", ["afile/out", "afile/deeper/out"])
def test_an_output_under_a_file_names_the_file(out, tmp_path):
    (tmp_path / "afile").write_text("mine")
    with pytest.raises(NotADirectoryError, match=f"^{tmp_path / 'afile'} is a file, not a folder, so .* cannot be"):
        with build_aside(tmp_path / out, overwrite=True):
            pass
    assert (tmp_path / "afile").read_text() == "mine"


def test_only_staging_folders_of_dead_processes_are_removed(tmp_path):
    out = tmp_path / "model"
    stale, live = tmp_path / ".model.building-abcd1234", tmp_path / ".model.building-live0000"
    other = tmp_path / ".other.building-abcd1234"  # another output's
    for folder in (stale, live, other):
        folder.mkdir()
        (folder / "config.json").write_text("{}")
    with lock_held_by_another_process(live):
        remove_stale_staging(out)
        assert not stale.exists() and live.is_dir() and other.is_dir()


# build_aside of OUT (argv[1]) that SIGKILLs itself between moving the old OUT aside and moving its new folder in.
KILL_BETWEEN_RENAMES = """
import os, signal, sys
from hf_elmo.output_folders import build_aside
replace = os.replace
def replace_or_die(source, target):
    name = os.path.basename(source)
    if ".building-" in name and not name.endswith(".old"):
        os.kill(os.getpid(), signal.SIGKILL)
    return replace(source, target)
os.replace = replace_or_die
with build_aside(sys.argv[1], overwrite=True) as staging:
    (staging / "config.json").write_text('{"model_type": "elmo", "new": true}')
"""


@pytest.mark.parametrize("overwrite", [False, True])
def test_the_old_output_that_a_build_killed_between_its_renames_left_aside_is_put_back(overwrite, tmp_path):
    """Was: the old OUT, moved aside to .OUT.building-XXXXXXXX.old, with OUT missing, was removed as a
    stale staging folder by the next build, with or without overwrite: an earlier model lost by a
    kill in a window of microseconds, or by the next run that was not told to replace it."""
    out = tmp_path / "model"
    out.mkdir()
    (out / "config.json").write_text(ELMO_CONFIG)
    killed = subprocess.run([sys.executable, "-c", KILL_BETWEEN_RENAMES, str(out)], timeout=120)
    assert killed.returncode == -signal.SIGKILL and not out.exists()
    if overwrite:
        with build_aside(out, overwrite=True) as staging:
            (staging / "config.json").write_text('{"model_type": "elmo", "newer": true}')
        assert json.loads((out / "config.json").read_text())["newer"]
        assert [p.name for p in tmp_path.iterdir()] == ["model"]
    else:
        with pytest.raises(FileExistsError, match="exists and is not empty"):
            with build_aside(out, overwrite=False) as staging:
                (staging / "config.json").write_text("{}")
        assert (out / "config.json").read_text() == ELMO_CONFIG


@pytest.mark.parametrize("code", CANNOT_WRITE)
def test_check_writable_names_the_output_the_folder_and_the_real_reason(code, tmp_path, monkeypatch):
    """Was: os.access, which cannot tell a read-only file system from a denied permission (both
    'Permission denied') and which root passes for a folder of mode 0555."""
    folder = tmp_path / "ro"
    folder.mkdir()
    refuse_writes_in(monkeypatch, folder, code)
    output = folder / "new" / "model"
    with pytest.raises(OSError) as raised:
        check_writable(output.parent, output)
    assert raised.value.errno == code
    assert str(raised.value) == f"cannot write {output}: {folder} is not writable ({os.strerror(code)})"
    monkeypatch.undo()
    assert list(folder.iterdir()) == []
    check_writable(output.parent, output)  # writable again: nothing raised, nothing left
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("code", [errno.EDQUOT, errno.ENOSPC, errno.ENOENT])
def test_check_writable_names_the_output_not_its_probe_file_whatever_the_reason(code, tmp_path, monkeypatch):
    """A folder where no file can be created for another reason: an inode quota or a full inode table
    (EDQUOT, ENOSPC: common on cluster scratch disks), a pseudo file system (/proc: ENOENT). Was:
    "[Errno 122] Disk quota exceeded: '.../.elmo-writable-k3j2x9q1'", naming a file the user never made; then
    "is not writable (No such file or directory)" of a folder that exists: it refuses new files."""
    folder = tmp_path / "full"
    folder.mkdir()
    refuse_writes_in(monkeypatch, folder, code)
    output = folder / "out.hdf5"
    with pytest.raises(OSError) as raised:
        check_writable(folder, output)
    assert raised.value.errno == code
    assert str(raised.value) == f"cannot create {output}: {folder} refuses new files ({os.strerror(code)})"


def test_an_unwritable_parent_is_one_clear_error(tmp_path):
    with unwritable(tmp_path / "ro") as folder:
        with pytest.raises(PermissionError, match=r"cannot write .*ro/model: .*ro is not writable"):
            with build_aside(folder / "model", overwrite=False):
                pass
