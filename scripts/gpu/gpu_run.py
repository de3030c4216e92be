"""The pretraining run on a remote GPU host, in steps that each fit one short device command.

The GPU host is reached by a tool that runs one shell command at a time (at most 10 minutes),
copies the working tree there (at most 64 MiB a call, ignored folders only when named) and
brings back what the command writes to ``$OUT`` (at most 8 files of 16 MiB a call). A process
started with ``setsid`` keeps running between calls. So (README.md beside this file has the
exact calls):

    here:      pack      tokenise pretrain-en (scripts/prepare_pretrain_en.py), build the vocabulary,
                         pack train/valid text + vocab.txt as one tar.xz cut into parts (gpu-pack/)
               evalpack  the held-out test split and WikiText-2 test as gpu-pack/eval.tar.xz
               resplit   cut the parts again (checked) when the working tree has grown since pack
    GPU host:  stash     move the parts that came with this call out of the working tree
               start     check and unpack the parts, launch `elmo pretrain` under setsid, and beside
                         it the word-embedding baseline over the first N tokens of the same batches
               poll      steps, tokens/s, loss, and whether the processes are alive or done
               evaluate  full-softmax perplexity of the model, its snapshot at N tokens and the
                         baseline on valid, test and WikiText-2 test, as perplexity.json in $OUT
               collect   the final model folder (or the checkpoint) as <= 15 MiB pieces in $OUT
    here:      assemble  put the pieces of one or more calls together, check every checksum, unpack

The host needs no spaCy and no network: training reads the tokenised text (``python -m
hf_elmo_cli``, ``PYTHONPATH`` = the working tree). Every step is a subcommand of this file.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import lzma
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# the subcommands import hf_elmo of this working tree where they need it, lazily (stash and stop import nothing of it)
sys.path.insert(0, str(REPO))
PACK_DIR = REPO / "gpu-pack"  # ignored (.gitignore): the parts travel as named ignored paths
MANIFEST = "manifest.json"
MiB = 1 << 20
CALL_LIMIT = 64 * MiB  # files that travel with one device call
PIECE_LIMIT = 15 * MiB  # one file brought back from $OUT (the limit is 16 MiB)
RETURN_FILES = 8  # $OUT brings back at most 8 files a call ...
RETURN_LIMIT = 64 * MiB  # ... of at most 64 MiB together
MANIFEST_ROOM = 64 * 1024  # what a pieces' manifest may take of that
DATA_FILES = ("train.txt", "valid.txt", "vocab.txt")
EVAL_BUNDLE = "eval.tar.xz"  # evalpack: test texts, carried with the last part
EVAL_FILES = ("test.txt", "wt2-test.txt")
RUN_NAME = "model"  # the model folder under the work folder; its checkpoint is model.checkpoint
BASELINE_NAME = "baseline"  # the word-embedding baseline's folder (and baseline.checkpoint)
LOGS = {RUN_NAME: "pretrain", BASELINE_NAME: "baseline"}  # each run's .log and .pid under the work folder
#: Tokens of the equal-budget comparison: the baseline's whole run, the model's snapshot
#: (issue 9 allows a smaller equal budget than the model's when GPU time is short).
BASELINE_TOKENS = 20_000_000
DEFAULT_WORK = Path(os.environ.get("ELMO_GPU_WORK", str(Path(tempfile.gettempdir()) / "elmo-gpu")))

#: The run for ~20 minutes of one H100 (README.md: the reasoning and expected tokens/s).
DEFAULT_TRAIN_ARGS = [
    "--preset",
    "small",
    "--no-clip",
    "--amp",
    "--tokens-per-batch",
    "16384",
    "--softmax",
    "sampled",
    "--num-sampled",
    "8192",
    "--optimizer",
    "adam",
    "--lr",
    "1e-3",
    "--dropout",
    "0.1",
    "--max-tokens",
    "150000000",
    "--max-minutes",
    "17",
    "--checkpoint-every-minutes",
    "2",
]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(MiB), b""):
            digest.update(block)
    return digest.hexdigest()


def split_file(path: Path, out_dir: Path, piece_bytes: int, prefix: str, first: int = 0) -> list[dict[str, object]]:
    """Cut ``path`` into ``prefix-000``, ``prefix-001``, ... (numbered from ``first``) of at most ``piece_bytes``;
    their records."""
    pieces = []
    with open(path, "rb") as handle:
        for index in range(first, first + 10_000):
            block = handle.read(piece_bytes)
            if not block:
                break
            piece = out_dir / f"{prefix}-{index:03d}"
            piece.write_bytes(block)
            pieces.append({"name": piece.name, "bytes": len(block), "sha256": hashlib.sha256(block).hexdigest()})
    return pieces


def join_pieces(manifest: dict[str, Any], folders: Sequence[Path], target: Path) -> None:
    """Concatenate the manifest's pieces, found in any of ``folders``, into ``target``; every
    piece and the whole are checked against their sha256 (``ValueError`` naming the piece)."""
    with open(target, "wb") as out:
        for piece in manifest["pieces"]:
            found = [f / piece["name"] for f in folders if (f / piece["name"]).is_file()]
            if not found:
                raise ValueError(
                    f"piece {piece['name']} is missing (looked in {', '.join(map(str, folders))}); fetch it first"
                )
            data = found[0].read_bytes()
            if hashlib.sha256(data).hexdigest() != piece["sha256"]:
                raise ValueError(f"piece {found[0]} does not match its sha256 in the manifest: fetch it again")
            out.write(data)
    if sha256(target) != manifest["sha256"]:
        raise ValueError(f"{target.name}: the joined pieces do not match the manifest's sha256")


#: Tracked files that the calls carrying parts set aside (``rm`` before, ``git checkout --`` after;
#: scripts/gpu/README.md): the shipped model's weights, which those calls do not need.
SET_ASIDE = ("hf_elmo/pretrained/elmo-2x1024-en/model.safetensors",)


def travelling_bytes(weights_aside: bool = True) -> int:
    """Bytes of the working tree's files that go with a device call (tracked + untracked, not
    ignored), less those the calls that carry parts set aside (``SET_ASIDE``) when
    ``weights_aside``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    names = {os.fsdecode(name) for name in listed if name} - set(SET_ASIDE if weights_aside else ())
    return sum((REPO / name).stat().st_size for name in names if (REPO / name).is_file())


# -- here: pack -------------------------------------------------------------------------------
#: What ``pack`` (and ``evalpack``) write in the pack's folder: all that ``pack --overwrite`` may remove.
PACK_FILES = (MANIFEST, "part-[0-9][0-9][0-9]", "bundle.tar.xz", "staging", "tokenised", EVAL_BUNDLE)
#: The most of the user's files in a folder that ``pack --overwrite`` or ``assemble --overwrite`` refuses to replace
#: its refusal names.
SHOWN_OTHERS = 5


def check_pack_replaceable(out: Path, tokenised: Path | None) -> None:
    """Stop (one line) unless ``out`` is an earlier pack (its manifest) holding only what ``pack`` writes
    (``PACK_FILES``, and the temporary files of its atomic writes that a killed ``resplit`` or ``evalpack`` left),
    neither the current folder nor one of its parents, nor holding the ``--tokenised`` input: the folder that
    ``pack --overwrite`` removes."""
    from hf_elmo.fileio import is_or_holds, is_temporary_file
    from hf_elmo.messages import some_of

    if is_or_holds(out, Path.cwd()):
        raise ValueError(f"{out} is the current folder or holds it, so --overwrite does not remove it")
    if tokenised is not None and is_or_holds(out, tokenised):
        raise ValueError(f"{out} holds the --tokenised input {tokenised}, so --overwrite does not remove it")
    if not (out / MANIFEST).is_file():
        raise ValueError(f"{out} holds no earlier pack ({MANIFEST}), so --overwrite does not remove it")
    others = sorted(
        entry.name
        for entry in out.iterdir()
        if not any(entry.match(name) for name in PACK_FILES) and not is_temporary_file(entry)
    )
    if others:
        raise ValueError(
            f"{out} holds files that pack did not write ({some_of(others, SHOWN_OTHERS)}), which --overwrite would "
            "remove with it; move them out, or pack elsewhere"
        )


def pack(args: argparse.Namespace) -> None:
    """Build the pack in a hidden folder beside ``--out`` (``.OUT.packing-XXXXXXXX/OUT``: a killed run's is removed by
    the next, which first puts back the earlier pack that it moved there, ``put_back_swapped_out``), renamed into place
    when whole: a failed or interrupted pack leaves an earlier one as it was."""
    from hf_elmo.fileio import SWAPPED_OUT, put_back_swapped_out, scratch_folder, swap_folder_in

    out = Path(args.out)
    put_back_swapped_out(out, f".{out.name}.packing-")  # by a pack killed between its renames, before the checks
    if out.exists() and any(out.iterdir()):
        if not args.overwrite:
            raise FileExistsError(f"{out} is not empty (pass --overwrite to replace it)")
        check_pack_replaceable(out, Path(args.tokenised) if args.tokenised else None)
    out.parent.mkdir(parents=True, exist_ok=True)
    with scratch_folder(f".{out.name}.packing-", out.parent) as scratch:
        building = scratch / out.name
        building.mkdir()
        manifest = build_pack(args, building)
        swap_folder_in(
            building, out, scratch / SWAPPED_OUT
        )  # the old pack put back if the new one cannot be renamed in
    print(
        f"{out}: {len(manifest['pieces'])} part(s) of at most {manifest['part_bytes']:,} bytes, "
        f"{manifest['bytes']:,} bytes in all; {manifest['train_tokens']:,} training tokens, vocabulary "
        f"{manifest['vocabulary']:,}"
    )
    print_calls(out, manifest)


def build_pack(args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """Tokenise (or take ``--tokenised``), build the vocabulary and write the parts and their manifest into the
    empty folder ``out``; returns the manifest, with the parts' size (``part_bytes``) beside it."""
    tokenised = Path(args.tokenised) if args.tokenised else out / "tokenised"
    if not args.tokenised:
        prepared = subprocess.run(
            [
                sys.executable,
                str(REPO / "scripts" / "prepare_pretrain_en.py"),
                str(args.source),
                str(tokenised),
                "--train-fraction",
                str(args.train_fraction),
                "--processes",
                str(args.processes),
            ]
        )
        if prepared.returncode:  # it said why, in one line above
            raise ValueError(f"prepare_pretrain_en.py stopped (exit {prepared.returncode}); nothing was packed")
    from hf_elmo.corpus import read_corpus
    from hf_elmo.training.vocab import build_vocabulary

    train = tokenised / "train.txt"
    sentences = read_corpus(train)
    vocabulary = build_vocabulary(sentences, args.vocab_size, args.min_count)
    staging = out / "staging"
    staging.mkdir()
    vocabulary.save(staging / "vocab.txt")
    bundle = out / "bundle.tar.xz"
    with lzma.open(bundle, "wb", preset=args.xz_preset) as xz, tarfile.open(fileobj=xz, mode="w|") as tar:
        tar.add(train, arcname="train.txt")
        tar.add(tokenised / "valid.txt", arcname="valid.txt")
        tar.add(staging / "vocab.txt", arcname="vocab.txt")
    shutil.rmtree(staging)
    part_bytes = part_size(args.part_mib)
    pieces = split_file(bundle, out, part_bytes, "part")
    words = sum(s.count(" ") + 1 for s in sentences)
    description = args.data_description or (
        f"pretrain-en (English Wikipedia 2015/2018 CC BY-SA, Wikinews CC BY 2.5), train split, {words / 1e6:.1f}M "
        "tokens, spaCy blank('en') tokens + sentencizer"
    )
    manifest = {
        "pieces": pieces,
        "sha256": sha256(bundle),
        "bytes": bundle.stat().st_size,
        "files": list(DATA_FILES),
        "train_tokens": words,
        "train_sentences": len(sentences),
        "vocabulary": len(vocabulary),
        "data_description": description,
    }
    bundle.unlink()
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return {**manifest, "part_bytes": part_bytes}


def resplit(args: argparse.Namespace) -> None:
    """Cut a pack's parts again (checked, not re-tokenised or recompressed), e.g. to fit beside a
    working tree that has grown since ``pack``: whole or not at all. The bundle is joined in a scratch folder
    beside the pack, the new parts are written under numbers that no part there has (``free_part_numbers``),
    then the manifest (atomically), and only then the parts it no longer names are removed: a resplit that fails
    midway (a full disk) leaves the pack as it was."""
    from hf_elmo.fileio import scratch_folder, write_text_atomic

    out = Path(args.out)
    manifest = json.loads((out / MANIFEST).read_text())
    with scratch_folder(f".{out.name}.resplit-", out.parent) as scratch:
        bundle = scratch / "bundle.tar.xz"
        join_pieces(manifest, [out], bundle)
        part_bytes = part_size(args.part_mib, manifest)
        count = -(-bundle.stat().st_size // part_bytes)
        first = free_part_numbers(out, count)
        try:
            pieces = split_file(bundle, out, part_bytes, "part", first)
            write_text_atomic(out / MANIFEST, json.dumps({**manifest, "pieces": pieces}, indent=2) + "\n")
        except BaseException:
            for index in range(first, first + count):  # free before: this resplit's own
                (out / f"part-{index:03d}").unlink(missing_ok=True)
            raise
    manifest["pieces"] = pieces
    named = {piece["name"] for piece in pieces}
    for earlier in out.glob("part-*"):
        if earlier.name.removeprefix("part-").isdigit() and earlier.name not in named:
            earlier.unlink()
    print(f"{out}: {len(manifest['pieces'])} part(s) of at most {part_bytes:,} bytes")
    print_calls(out, manifest)


def free_part_numbers(out: Path, count: int) -> int:
    """The lowest number from which ``count`` parts (``part-NNN``) are named as no file in ``out`` is."""
    taken = {path.name for path in out.glob("part-*")}
    return next(
        first
        for first in itertools.count()
        if not any(f"part-{index:03d}" in taken for index in range(first, first + count))
    )


def evalpack(args: argparse.Namespace) -> None:
    """The texts ``evaluate`` scores besides valid: the held-out test split (as tokenised for
    ``pack``) and WikiText-2 test (``scripts/wikitext_sentences.py``), as ``eval.tar.xz`` in the
    pack, recorded in its manifest (it travels with the last part). The pair is whole or not at all: both are written
    into a copy of the pack beside it (``.OUT.evalpack-XXXXXXXX``, its files hard links to the pack's, not copies),
    which is swapped in for the pack (``swap_folder_in``), so that one that fails midway (a full disk) or cannot be
    renamed in leaves both as they were (was: the manifest renamed in before the bundle, which a failure between the
    two left naming a bundle that was not there). The pack it replaces is moved into that copy's folder, removed
    with it (a killed run's by the next, which first puts back a pack that no new one replaced)."""
    sys.path.insert(0, str(REPO / "scripts"))
    from wikitext_sentences import sentences

    from hf_elmo.fileio import SWAPPED_OUT, put_back_swapped_out, scratch_folder, swap_folder_in, write_text_atomic

    out = Path(args.out)
    pack = out.resolve()  # a symbolic link to the pack stays one
    put_back_swapped_out(pack, f".{pack.name}.evalpack-")  # by an evalpack killed between its renames
    manifest = json.loads((out / MANIFEST).read_text())
    with scratch_folder(f".{pack.name}.evalpack-", pack.parent) as scratch:
        shutil.copyfile(args.test, scratch / "test.txt")
        with (
            open(args.wikitext, encoding="utf-8") as source,
            open(scratch / "wt2-test.txt", "w", encoding="utf-8") as target,
        ):
            target.writelines(" ".join(tokens) + "\n" for tokens in sentences(source))
        new = scratch / pack.name
        shutil.copytree(pack, new, symlinks=True, copy_function=os.link)
        bundle = new / EVAL_BUNDLE
        bundle.unlink(missing_ok=True)  # a link to the earlier bundle, which stays as it was
        with lzma.open(bundle, "wb") as xz, tarfile.open(fileobj=xz, mode="w|") as tar:
            for name in EVAL_FILES:
                tar.add(scratch / name, arcname=name)
        manifest["eval"] = {"name": EVAL_BUNDLE, "files": list(EVAL_FILES), "sha256": sha256(bundle)}
        manifest["eval"]["bytes"] = bundle.stat().st_size
        write_text_atomic(new / MANIFEST, json.dumps(manifest, indent=2) + "\n")  # renamed over the link
        swap_folder_in(new, pack, scratch / SWAPPED_OUT)  # the pack put back if the new one cannot be renamed in
    print(f"{out / EVAL_BUNDLE}: {manifest['eval']['bytes']:,} bytes ({', '.join(EVAL_FILES)})")
    print_calls(out, manifest)


def part_size(part_mib: float | None, manifest: dict[str, Any] | None = None) -> int:
    """Bytes of a part: ``part_mib``, or what one device call carries beside the working tree
    (and the evaluation texts, which go with the last part)."""
    beside = travelling_bytes() + int(manifest.get("eval", {}).get("bytes", 0) if manifest else 0)
    part_bytes = int(part_mib * MiB) if part_mib else min(60 * MiB, CALL_LIMIT - beside - 2 * MiB)
    if part_bytes <= 0:
        raise ValueError("the working tree alone fills a device call's 64 MiB: pass --part-mib")
    return part_bytes


def print_calls(out: Path, manifest: dict[str, Any]) -> None:
    pieces = manifest["pieces"]
    for index, piece in enumerate(pieces):
        extra = f" {out.name}/{EVAL_BUNDLE}" if "eval" in manifest and index == len(pieces) - 1 else ""
        print(f"  call {index + 1}: carry {out.name}/{MANIFEST} {out.name}/{piece['name']}{extra}")


# -- GPU host ---------------------------------------------------------------------------------
def stash(args: argparse.Namespace) -> None:
    """Move the parts (and manifest) that came with this call into WORK/parts."""
    source, parts = Path(args.pack), Path(args.work) / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    moved = []
    for path in sorted(source.glob("part-*")) + [source / MANIFEST, source / EVAL_BUNDLE]:
        if path.is_file():
            shutil.copyfile(path, parts / path.name)
            moved.append(path.name)
    manifest = json.loads((parts / MANIFEST).read_text()) if (parts / MANIFEST).is_file() else None
    have = sorted(p.name for p in parts.glob("part-*"))
    need = [p["name"] for p in manifest["pieces"]] if manifest else []
    print(
        f"stashed {moved or 'nothing'} in {parts}; parts there: {have}; still missing: "
        f"{[n for n in need if n not in have] if manifest else 'the manifest'}"
    )


def start(args: argparse.Namespace) -> None:
    """Check and unpack the parts, then launch `elmo pretrain` under setsid (returns at once),
    and beside it (``--baseline-tokens`` N > 0) the word-embedding baseline with the same
    options over N tokens, while the model snapshots itself at N tokens: the same batches. Their command lines go
    to WORK/command.json whole or not at all (a full disk leaves an earlier one as it was)."""
    from hf_elmo.fileio import write_text_atomic

    work = Path(args.work)
    for name in LOGS:
        if _alive(_pid_file(work, name)):
            raise ValueError(f"a run is already going ({name}); poll it")
    data = _unpack(work)
    description = (data / "data_description.txt").read_text() if (data / "data_description.txt").is_file() else ""
    train_args = args.train_args or DEFAULT_TRAIN_ARGS
    runs = {RUN_NAME: train_args}
    if args.baseline_tokens > 0:
        runs[RUN_NAME] = [*train_args, "--snapshot-tokens", str(args.baseline_tokens)]
        runs[BASELINE_NAME] = baseline_args(train_args, args.baseline_tokens)
    commands = {}
    for name, options in runs.items():
        commands[name] = [
            "-m",
            "hf_elmo_cli",
            "pretrain",
            "data/train.txt",
            name,
            "--valid-file",
            "data/valid.txt",
            "--vocab",
            "data/vocab.txt",
            "--no-progress",
            "--data-description",
            description,
            *options,
        ]
        pid = _launch(work, name, [sys.executable, *commands[name]])
        print(f"started {name} (pid {pid}) in {work}: {' '.join(commands[name][2:])}")
    write_text_atomic(work / "command.json", json.dumps(commands, indent=2) + "\n")


def _unpack(work: Path) -> Path:
    """WORK/data: the training texts of the parts, and the evaluation texts when they came. Each bundle is checked and
    unpacked in a scratch folder in WORK, its files moved into WORK/data only when all are whole: an unpacking that
    fails midway (a full disk) leaves no file of it there, which the next ``start`` would take as unpacked."""
    from hf_elmo.fileio import scratch_folder

    parts, data = work / "parts", work / "data"
    manifest = json.loads((parts / MANIFEST).read_text())
    data.mkdir(parents=True, exist_ok=True)
    bundles: list[tuple[str, Any, tuple[str, ...]]] = [("bundle.tar.xz", manifest, DATA_FILES)]
    if "eval" in manifest:
        bundles.append((EVAL_BUNDLE, manifest["eval"], EVAL_FILES))
    for name, record, files in bundles:
        if all((data / f).is_file() for f in files):
            continue
        if name == EVAL_BUNDLE and not (parts / name).is_file():
            print(f"{name} did not come (carry gpu-pack/{name}): evaluate will score valid only")
            continue
        with scratch_folder(".unpacking-", work) as unpacking:
            bundle = unpacking / name
            if name == EVAL_BUNDLE:
                shutil.copyfile(parts / name, bundle)
                if sha256(bundle) != record["sha256"]:
                    raise ValueError(f"{name} does not match its sha256 in the manifest: carry it again")
            else:
                join_pieces(record, [parts], bundle)
            with tarfile.open(bundle, "r:xz") as tar:
                tar.extractall(unpacking / "files", filter="data")
            for f in files:
                os.replace(unpacking / "files" / f, data / f)
    (data / "data_description.txt").write_text(manifest["data_description"])
    return data


def baseline_args(train_args: Sequence[str], tokens: int) -> list[str]:
    """The model's ``elmo pretrain`` options for the word-embedding baseline: the same, but for
    its run length (``--max-tokens TOKENS``, no time limit), ``--token-embedding word`` and
    without the char CNN's (``--filters``, ``--n-highway``), which the baseline has none of."""
    from hf_elmo.training.settings import CHAR_CNN_FIELDS, flag

    replaced = {"--max-tokens", "--max-minutes", "--epochs", "--snapshot-tokens", "--token-embedding"}
    replaced |= {flag(name) for name in CHAR_CNN_FIELDS}
    kept: list[str] = []
    skip_value = False
    for arg in train_args:
        if skip_value:
            skip_value = False
        elif arg.split("=")[0] in replaced:
            skip_value = "=" not in arg
        else:
            kept.append(arg)
    return [*kept, "--max-tokens", str(tokens), "--token-embedding", "word"]


def _pid_file(work: Path, name: str) -> Path:
    return work / f"{LOGS[name]}.pid"


def _launch(work: Path, name: str, command: list[str]) -> int:
    """Start ``command`` in its own session (it outlives this call), logging to WORK/LOG.log."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with open(work / f"{LOGS[name]}.log", "ab") as log:
        log.write(f"$ {' '.join(command)}\n".encode())
        log.flush()
        process = subprocess.Popen(
            command,
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _pid_file(work, name).write_text(f"{process.pid}\n")
    return process.pid


def _alive(pid_file: Path) -> bool:
    if not pid_file.is_file():
        return False
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a finished child of this very process is a zombie until reaped
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return True


def poll(args: argparse.Namespace) -> None:
    """Report the runs' progress; with ``--follow S``, again every ``--every`` seconds for up to S
    seconds or until none is running any more (a device call that keeps the machine held)."""
    ends = time.monotonic() + args.follow
    while True:
        state = report(Path(args.work), args.window, args.log_lines)
        left = ends - time.monotonic()
        if state != "running" or left <= 0:
            return
        time.sleep(min(args.every, left))


def run_state(work: Path, name: str) -> str:
    """done (its model folder is written), running, or not running."""
    if (work / name / "config.json").is_file():
        return "done"
    return "running" if _alive(_pid_file(work, name)) else "not running"


def training_record(folder: Path) -> dict[str, Any]:
    """What ``elmo pretrain`` recorded beside the model it wrote into ``folder``
    (``output_folders.TRAINING_FILE``: settings, position, metrics); imports hf_elmo only now, so that a
    poll of a running job imports nothing."""
    from hf_elmo.output_folders import TRAINING_FILE

    return json.loads((folder / TRAINING_FILE).read_text())


def report(work: Path, window: int, log_lines: int) -> str:
    """For the model and (when started) the baseline: state, steps, tokens, tokens/s over the
    last ``window`` steps, their mean training loss and the log's last lines. Returns the state
    of the whole: running while either runs, else the model's."""
    states = {}
    for name in LOGS:
        if name != RUN_NAME and not _pid_file(work, name).is_file():
            continue
        states[name] = run_state(work, name)
        print(f"{name}: {states[name]}  {_progress(work / f'{name}.checkpoint' / 'losses.tsv', window)}")
        log = work / f"{LOGS[name]}.log"
        if log.is_file():
            tail = log.read_text(errors="replace").splitlines()[-log_lines:]
            print("  log:\n    " + "\n    ".join(tail))
        if states[name] == "done":
            print(f"  metrics: {json.dumps(training_record(work / name)['metrics'])}")
    state = "running" if "running" in states.values() else states[RUN_NAME]
    print(f"state: {state}")
    sys.stdout.flush()
    return state


def _progress(log_file: Path, window: int) -> str:
    rows = [line.split("\t") for line in log_file.read_text().splitlines()[1:]] if log_file.is_file() else []
    if not rows:
        return "no steps logged yet"
    last, recent = rows[-1], rows[-window:]
    before = rows[-len(recent) - 1] if len(rows) > len(recent) else ["0", "0", "0", "0", "0"]
    seconds = float(last[4]) - float(before[4])
    rate = (int(last[2]) - int(before[2])) / seconds if seconds > 0 else float("nan")
    mean_loss = sum(float(r[3]) for r in recent) / len(recent)
    return (
        f"step {int(last[0]):,}  epoch {last[1]}  tokens {int(last[2]):,}  time {float(last[4]) / 60:.1f} min  "
        f"tokens/s {rate:,.0f} (last {len(recent)} steps)  train loss {mean_loss:.3f} (mean of last {len(recent)})"
    )


def evaluate(args: argparse.Namespace) -> None:
    """Full-softmax perplexity (float32, TF32 off) of the model, its snapshot at the baseline's
    budget and the baseline, on valid and the evaluation texts that came: a table here, and
    ``perplexity.json`` in WORK and in OUT (strict JSON: a diverged model's infinite perplexity is null), each
    written whole and renamed into place: a write that fails (a full disk) leaves an earlier one as it was."""
    work, out = Path(args.work), Path(args.out or os.environ["OUT"])
    running = [name for name in LOGS if run_state(work, name) == "running"]
    if running:
        raise ValueError(f"{', '.join(running)} still running: poll until the state is done")
    import torch

    from hf_elmo.corpus import read_corpus
    from hf_elmo.devices import resolve_device
    from hf_elmo.fileio import strict_json, write_text_atomic
    from hf_elmo.training.checkpoints import snapshot_folder
    from hf_elmo.training.evaluation import load_lm, perplexity
    from hf_elmo.training.vocab import VOCAB_FILE, Vocabulary

    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    device = resolve_device(args.device)
    models = {RUN_NAME: work / RUN_NAME}
    settings_file = work / f"{RUN_NAME}.checkpoint" / "settings.json"
    tokens = json.loads(settings_file.read_text()).get("snapshot_tokens") if settings_file.is_file() else None
    if tokens:
        models[f"{RUN_NAME} at {tokens:,} tokens"] = snapshot_folder(work / f"{RUN_NAME}.checkpoint", tokens)
    models[BASELINE_NAME] = work / BASELINE_NAME
    texts = {"valid": work / "data" / "valid.txt", "test": work / "data" / "test.txt"}
    texts["wikitext-2 test"] = work / "data" / "wt2-test.txt"
    texts = {split: path for split, path in texts.items() if path.is_file()}
    corpora = {split: read_corpus(path) for split, path in texts.items()}
    results: dict[str, dict[str, object]] = {}
    for name, folder in models.items():
        if not (folder / "config.json").is_file():
            print(f"{name}: no model folder at {folder.relative_to(work)}")
            continue
        model = load_lm(folder).to(device)  # type: ignore[arg-type]  # PreTrainedModel.to as typeshed wraps it
        vocabulary = Vocabulary.from_file(folder / VOCAB_FILE)
        position = training_record(folder)["position"]
        results[name] = {"folder": str(folder.relative_to(work)), "tokens_seen": position["tokens_seen"]}
        results[name]["step"] = position["step"]
        for split, sentences in corpora.items():
            figures = perplexity(model, vocabulary, sentences, args.tokens_per_batch)
            results[name][split] = figures
            print(
                f"{name:<28} {split:<16} forward {figures['forward']:8.2f}  backward {figures['backward']:8.2f}  "
                f"average {figures['average']:8.2f}  ({figures['predictions']:,} predictions)"
            )
            sys.stdout.flush()
        del model
    text = strict_json({"device": str(device), "models": results}, indent=2) + "\n"
    write_text_atomic(work / "perplexity.json", text)
    write_text_atomic(out / "perplexity.json", text, make_folders=True)


def folder_state(folder: Path) -> list[list[Any]]:
    """Each file under ``folder``: its path there, size and modification time (ns), in path order: what a cut of
    the folder into pieces (``collect``) was cut from."""
    return [
        [path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns]
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for stat in [path.stat()]
    ]


def collect(args: argparse.Namespace) -> None:
    """Write the model folder (or its checkpoint) as pieces to OUT: from piece ``first`` as many as come
    back in one call beside the manifest and what OUT already holds (e.g. ``evaluate``'s perplexity.json). The folder
    is cut once, and again when it has changed since (``folder_state``: a checkpoint the run has written again); the
    cut's manifest is written whole or not at all, last (a full disk leaves none, and the next call cuts again)."""
    from hf_elmo.fileio import write_text_atomic

    work, out = Path(args.work), Path(args.out or os.environ["OUT"])
    folder = work / (RUN_NAME if args.what == "model" else f"{RUN_NAME}.checkpoint")
    if not folder.is_dir() or (args.what == "model" and not (folder / "config.json").is_file()):
        raise FileNotFoundError(f"{folder} is not there (yet): poll until the state is done")
    staging = work / f"collect-{args.what}"
    manifest_file = staging / MANIFEST
    state = folder_state(folder)
    # cut once; later calls bring back further pieces of the same cut, while the folder is as it was cut
    manifest = json.loads(manifest_file.read_text()) if manifest_file.is_file() else None
    if manifest is not None and manifest.get("state") != state:
        if args.first:
            raise ValueError(
                f"{folder} has changed since its pieces were cut (the run still writes it?), so piece {args.first} "
                "would not fit those already fetched: collect it again from --first 0"
            )
        shutil.rmtree(staging)  # a cut of an earlier state of the folder, which assemble would give as this one
        manifest = None
    if manifest is None:
        staging.mkdir(parents=True, exist_ok=True)
        tar_path = staging / f"{args.what}.tar"
        with tarfile.open(tar_path, "w") as tar:
            tar.add(folder, arcname=folder.name)
        pieces = split_file(tar_path, staging, int(args.piece_mib * MiB), args.what)
        manifest = {
            "what": args.what,
            "folder": folder.name,
            "pieces": pieces,
            "sha256": sha256(tar_path),
            "bytes": tar_path.stat().st_size,
            "state": state,
        }
        tar_path.unlink()
        write_text_atomic(manifest_file, json.dumps(manifest, indent=2) + "\n")
    out.mkdir(parents=True, exist_ok=True)
    present = [f for f in out.rglob("*") if f.is_file()]
    room_files = RETURN_FILES - 1 - len(present)
    room_bytes = RETURN_LIMIT - MANIFEST_ROOM - sum(f.stat().st_size for f in present)
    chosen: list[dict] = []
    for piece in manifest["pieces"][args.first :]:
        if len(chosen) >= room_files or piece["bytes"] > room_bytes:
            break
        chosen.append(piece)
        room_bytes -= piece["bytes"]
    if not chosen:
        raise ValueError(f"no room in {out} for piece {args.first}: {len(present)} files there already")
    for piece in chosen:
        shutil.copyfile(staging / piece["name"], out / piece["name"])
    shutil.copyfile(manifest_file, out / f"{args.what}-{MANIFEST}")
    following = args.first + len(chosen)
    rest = f"collect --what {args.what} --first {following}" if following < len(manifest["pieces"]) else "none"
    print(f"{args.what}: pieces {args.first}..{following - 1} of {len(manifest['pieces'])} in $OUT; next call: {rest}")


# -- here: assemble ---------------------------------------------------------------------------
def assemble(args: argparse.Namespace) -> None:
    """Join the pieces found in FOLDERS (the files of one or more collect calls) and unpack them; with
    ``--overwrite``, in place of an earlier assembly of the same folder (``check_assembly_replaceable``), moved
    aside before the new one is renamed in and removed last; in a hidden scratch folder in ``--dest``
    (``.FOLDER.assembling-XXXXXXXX``), which the next run removes after a kill, first putting back an earlier assembly
    that it moved out (was: a ``tmpXXXXXXXX`` folder left for good, with the earlier assembly in it)."""
    from hf_elmo.fileio import SWAPPED_OUT, put_back_swapped_out, scratch_folder, swap_folder_in

    folders = [Path(f) for f in args.folders]
    manifests = [f / f"{args.what}-{MANIFEST}" for f in folders if (f / f"{args.what}-{MANIFEST}").is_file()]
    if not manifests:
        raise ValueError(f"no {args.what}-{MANIFEST} in {', '.join(args.folders)}")
    manifest = json.loads(manifests[0].read_text())
    dest = Path(args.dest)
    target = dest / manifest["folder"]
    dest.mkdir(parents=True, exist_ok=True)
    put_back_swapped_out(target, f".{target.name}.assembling-")  # by an assemble killed between its renames
    with scratch_folder(f".{target.name}.assembling-", dest) as tmp:  # a killed run's, removed by the next
        joined = tmp / "joined.tar"
        join_pieces(manifest, folders, joined)
        with tarfile.open(joined) as tar:
            tar.extractall(tmp, filter="data")
        assembled, replaced = tmp / manifest["folder"], tmp / SWAPPED_OUT
        if target.exists() or target.is_symlink():
            check_assembly_replaceable(target, assembled)  # said with or without --overwrite
            if not args.overwrite:
                raise FileExistsError(f"{target} exists (pass --overwrite to replace it)")
        swap_folder_in(assembled, target, replaced)  # the old one removed with the temporary folder
    print(f"{target}: {len(manifest['pieces'])} pieces, sha256 {manifest['sha256'][:16]}... verified")


def check_assembly_replaceable(target: Path, assembled: Path) -> None:
    """Stop (one line) unless ``target``, which ``assemble --overwrite`` replaces with the folder ``assembled``,
    is an earlier assembly of that folder: a folder, not a symbolic link, neither the current folder nor one of
    its parents, holding nothing that ``assembled`` does not hold (the user's files, which it would delete, in
    its subfolders too: ``not_assembled``)."""
    from hf_elmo.fileio import is_or_holds
    from hf_elmo.messages import some_of

    if target.is_symlink() or not target.is_dir():
        kind = f"a symbolic link (to {os.readlink(target)})" if target.is_symlink() else "not a folder"
        raise ValueError(f"{target} is {kind}, so --overwrite does not replace it; assemble into another --dest")
    if is_or_holds(target, Path.cwd()):
        raise ValueError(f"{target} is the current folder or holds it, so --overwrite does not replace it")
    others = not_assembled(target, assembled)
    if others:
        raise ValueError(
            f"{target} holds files that the assembled {assembled.name} does not ({some_of(others, SHOWN_OTHERS)}), "
            "which --overwrite would delete with it; move them out, or assemble into another --dest"
        )


def not_assembled(target: Path, assembled: Path) -> list[str]:
    """The paths in ``target`` (relative, ``/``-separated, in path order) that ``assembled`` does not hold, at any
    depth: a folder it lacks is named, not each file in it; a symbolic link is not followed."""
    found = []
    for folder, folders, files in os.walk(target):
        here = Path(folder).relative_to(target)
        found += [(here / name).as_posix() for name in [*folders, *files] if not (assembled / here / name).exists()]
        folders[:] = [name for name in folders if (assembled / here / name).is_dir()]
    return sorted(found)


def stop(args: argparse.Namespace) -> None:
    """End a run early: SIGTERM to its process group (its last checkpoint stays)."""
    pid_file = Path(args.work) / "pretrain.pid"
    if not _alive(pid_file):
        print("no run is going")
        return
    os.killpg(int(pid_file.read_text()), signal.SIGTERM)
    print(f"sent SIGTERM to process group {pid_file.read_text().strip()}")


def main(argv: Sequence[str] | None = None) -> None:
    from hf_elmo_cli.commands._args import (  # no torch: stash's too
        SuggestingParser,
        exit_with_error,
        fraction,
        integer_at_least,
        non_negative,
        positive_int,
        positive_number,
    )

    parser = SuggestingParser(
        prog=Path(__file__).name, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=SuggestingParser)
    p = commands.add_parser("pack", help="here: tokenise, build the vocabulary, pack parts for the GPU host")
    shared = Path(os.environ.get("ELMO_SHARED", REPO.parent / "shared"))
    p.add_argument(
        "--source",
        type=Path,
        default=shared / "data" / "pretrain-en",
        help="raw pretrain-en shards (default $ELMO_SHARED or ../shared, then data/pretrain-en)",
    )
    p.add_argument("--tokenised", help="a folder already written by scripts/prepare_pretrain_en.py (skips tokenising)")
    p.add_argument("--train-fraction", type=fraction, default=1.0, help="passed to prepare_pretrain_en.py")
    p.add_argument("--processes", type=positive_int, default=2, help="passed to prepare_pretrain_en.py")
    p.add_argument("--out", default=str(PACK_DIR), help="where the parts go (default gpu-pack/, git-ignored)")
    p.add_argument("--vocab-size", type=positive_int, default=50_000)
    p.add_argument("--min-count", type=positive_int, default=3)
    p.add_argument(
        "--part-mib",
        type=positive_number,
        help="part size (default: what one call carries beside the working tree, at most 60 MiB)",
    )
    p.add_argument("--xz-preset", type=integer_at_least(0, 9), default=6)
    p.add_argument("--data-description", default="")
    p.add_argument("--overwrite", action="store_true")
    p.set_defaults(run=pack)
    p = commands.add_parser("evalpack", help="here: the test texts evaluate scores, as gpu-pack/eval.tar.xz")
    p.add_argument("--test", required=True, help="pretrain-en's held-out test split, tokenised as for pack")
    p.add_argument(
        "--wikitext",
        type=Path,
        default=shared / "data" / "wikitext-2" / "wiki.test.tokens",
        help="WikiText-2 wiki.test.tokens (default in $ELMO_SHARED or ../shared)",
    )
    p.add_argument("--out", default=str(PACK_DIR), help="the pack's folder (default gpu-pack/)")
    p.set_defaults(run=evalpack)
    p = commands.add_parser("resplit", help="here: cut the parts again to fit beside today's working tree")
    p.add_argument("--out", default=str(PACK_DIR), help="the pack's folder (default gpu-pack/)")
    p.add_argument("--part-mib", type=positive_number, help="part size (default: as pack's)")
    p.set_defaults(run=resplit)
    for name, function, what in (
        ("stash", stash, "GPU host: keep the parts of this call"),
        ("start", start, "GPU host: unpack and launch elmo pretrain under setsid"),
        ("poll", poll, "GPU host: progress of the runs"),
        ("evaluate", evaluate, "GPU host: perplexities of the model, its snapshot and the baseline"),
        ("collect", collect, "GPU host: the model (or checkpoint) as pieces in $OUT"),
        ("stop", stop, "GPU host: end the run early"),
    ):
        p = commands.add_parser(name, help=what)
        p.add_argument(
            "--work", default=str(DEFAULT_WORK), help=f"run folder (default $ELMO_GPU_WORK or {DEFAULT_WORK})"
        )
        p.set_defaults(run=function)
        if name == "stash":
            p.add_argument("--pack", default=str(PACK_DIR), help="where the parts arrive (default gpu-pack/)")
        if name == "start":
            p.add_argument(
                "--baseline-tokens",
                type=integer_at_least(0),
                default=BASELINE_TOKENS,
                help=f"the word-embedding baseline's tokens, and the model's snapshot (default {BASELINE_TOKENS:,}; "
                "0: no baseline)",
            )
            p.add_argument(
                "train_args",
                nargs=argparse.REMAINDER,
                help="elmo pretrain options after --, replacing the default run: " + " ".join(DEFAULT_TRAIN_ARGS),
            )
        if name == "poll":
            p.add_argument("--window", type=positive_int, default=50, help="steps for tokens/s and the mean loss")
            p.add_argument("--log-lines", type=positive_int, default=5)
            p.add_argument(
                "--follow",
                type=non_negative,
                default=0,
                help="keep reporting for up to this many seconds while the run goes on",
            )
            p.add_argument("--every", type=positive_number, default=60, help="seconds between reports with --follow")
        if name == "evaluate":
            p.add_argument("--device", help="default: cuda when available")
            p.add_argument("--tokens-per-batch", type=positive_int, default=16384, help="padded tokens per batch")
            p.add_argument("--out", help="default $OUT")
        if name == "collect":
            p.add_argument("--what", choices=["model", "checkpoint"], default="model")
            p.add_argument("--first", type=integer_at_least(0), default=0, help="first piece of this call")
            p.add_argument("--piece-mib", type=positive_number, default=PIECE_LIMIT / MiB)
            p.add_argument("--out", help="default $OUT")
    p = commands.add_parser("assemble", help="here: join and check the pieces, unpack the folder")
    p.add_argument("folders", nargs="+", help="folders holding fetched pieces (files_at of each collect call)")
    p.add_argument("--dest", required=True, help="the folder (model or model.checkpoint) is unpacked in here")
    p.add_argument("--what", choices=["model", "checkpoint"], default="model")
    p.add_argument("--overwrite", action="store_true")
    p.set_defaults(run=assemble)
    args = parser.parse_args(argv)
    if getattr(args, "train_args", None) and args.train_args[0] == "--":
        args.train_args = args.train_args[1:]
    try:
        args.run(args)
    except (ValueError, OSError) as err:  # e.g. a piece that did not come, an output there: one line, not a traceback
        exit_with_error(parser, err)


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
