"""The pretraining run on a remote GPU host, in steps that each fit one short device command.

The GPU host is reached by a tool that runs one shell command at a time (at most 10 minutes),
copies the working tree there (at most 64 MiB a call, ignored folders only when named) and
brings back what the command writes to ``$OUT`` (at most 8 files of 16 MiB a call). A process
started with ``setsid`` keeps running between calls. So (README.md beside this file has the
exact calls):

    here:      pack      tokenise pretrain-en (scripts/prepare_pretrain_en.py), build the vocabulary,
                         pack train/valid text + vocab.txt as one tar.xz cut into parts (gpu-pack/)
               resplit   cut the parts again (checked) when the working tree has grown since pack
    GPU host:  stash     move the parts that came with this call out of the working tree
               start     check and unpack the parts, launch `elmo pretrain` under setsid
               poll      steps, tokens/s, loss, and whether the process is alive or done
               collect   the final model folder (or the checkpoint) as <= 15 MiB pieces in $OUT
    here:      assemble  put the pieces of one or more calls together, check every checksum, unpack

The host needs no spaCy and no network: training reads the tokenised text (``python -m
hf_elmo_cli``, ``PYTHONPATH`` = the working tree). Every step is a subcommand of this file.
"""

from __future__ import annotations

import argparse
import hashlib
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

REPO = Path(__file__).resolve().parents[2]
PACK_DIR = REPO / "gpu-pack"  # ignored (.gitignore): the parts travel as named ignored paths
MANIFEST = "manifest.json"
MiB = 1 << 20
CALL_LIMIT = 64 * MiB  # files that travel with one device call
PIECE_LIMIT = 15 * MiB  # one file brought back from $OUT (the limit is 16 MiB)
PIECES_PER_CALL = 7  # $OUT brings back 8 files a call: 7 pieces and their manifest
DATA_FILES = ("train.txt", "valid.txt", "vocab.txt")
RUN_NAME = "model"  # the model folder under the work folder; its checkpoint is model.checkpoint
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


def split_file(path: Path, out_dir: Path, piece_bytes: int, prefix: str) -> list[dict[str, object]]:
    """Cut ``path`` into ``prefix-000``, ``prefix-001``, ... of at most ``piece_bytes``; their records."""
    pieces = []
    with open(path, "rb") as handle:
        for index in range(10_000):
            block = handle.read(piece_bytes)
            if not block:
                break
            piece = out_dir / f"{prefix}-{index:03d}"
            piece.write_bytes(block)
            pieces.append({"name": piece.name, "bytes": len(block), "sha256": hashlib.sha256(block).hexdigest()})
    return pieces


def join_pieces(manifest: dict[str, object], folders: Sequence[Path], target: Path) -> None:
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


def travelling_bytes() -> int:
    """Bytes of the files that go with every device call anyway (tracked + untracked, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    return sum(
        (REPO / os.fsdecode(name)).stat().st_size for name in listed if name and (REPO / os.fsdecode(name)).is_file()
    )


# -- here: pack -------------------------------------------------------------------------------
def pack(args: argparse.Namespace) -> None:
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        if not args.overwrite:
            raise SystemExit(f"{out} is not empty (pass --overwrite to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    tokenised = Path(args.tokenised) if args.tokenised else out / "tokenised"
    if not args.tokenised:
        subprocess.run(
            [
                sys.executable,
                str(REPO / "scripts" / "prepare_pretrain_en.py"),
                str(args.source),
                str(tokenised),
                "--train-fraction",
                str(args.train_fraction),
                "--processes",
                str(args.processes),
            ],
            check=True,
        )
    sys.path.insert(0, str(REPO))
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
    print(
        f"{out}: {len(pieces)} part(s) of at most {part_bytes:,} bytes, {manifest['bytes']:,} bytes "
        f"in all; {words:,} training tokens, vocabulary {len(vocabulary):,}"
    )
    print_calls(out, pieces)


def resplit(args: argparse.Namespace) -> None:
    """Cut a pack's parts again (checked, not re-tokenised or recompressed), e.g. to fit beside a
    working tree that has grown since ``pack``."""
    out = Path(args.out)
    manifest = json.loads((out / MANIFEST).read_text())
    bundle = out / "bundle.tar.xz"
    try:
        join_pieces(manifest, [out], bundle)
    except ValueError as err:
        bundle.unlink(missing_ok=True)
        raise SystemExit(str(err)) from None
    part_bytes = part_size(args.part_mib)
    for piece in manifest["pieces"]:
        (out / piece["name"]).unlink()
    manifest["pieces"] = split_file(bundle, out, part_bytes, "part")
    bundle.unlink()
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{out}: {len(manifest['pieces'])} part(s) of at most {part_bytes:,} bytes")
    print_calls(out, manifest["pieces"])


def part_size(part_mib: float | None) -> int:
    """Bytes of a part: ``part_mib``, or what one device call carries beside the working tree."""
    part_bytes = int(part_mib * MiB) if part_mib else min(60 * MiB, CALL_LIMIT - travelling_bytes() - 2 * MiB)
    if part_bytes <= 0:
        raise SystemExit("the working tree alone fills a device call's 64 MiB: pass --part-mib")
    return part_bytes


def print_calls(out: Path, pieces: Sequence[dict[str, object]]) -> None:
    for index, piece in enumerate(pieces):
        print(f"  call {index + 1}: carry {out.name}/{MANIFEST} {out.name}/{piece['name']}")


# -- GPU host ---------------------------------------------------------------------------------
def stash(args: argparse.Namespace) -> None:
    """Move the parts (and manifest) that came with this call into WORK/parts."""
    source, parts = Path(args.pack), Path(args.work) / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    moved = []
    for path in sorted(source.glob("part-*")) + [source / MANIFEST]:
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
    """Check and unpack the parts, then launch `elmo pretrain` under setsid (returns at once)."""
    work = Path(args.work)
    parts, data = work / "parts", work / "data"
    pid_file = work / "pretrain.pid"
    if _alive(pid_file):
        raise SystemExit(f"a run is already going (pid {pid_file.read_text().strip()}); poll it")
    if not all((data / name).is_file() for name in DATA_FILES):
        manifest = json.loads((parts / MANIFEST).read_text())
        bundle = work / "bundle.tar.xz"
        join_pieces(manifest, [parts], bundle)
        data.mkdir(parents=True, exist_ok=True)
        with tarfile.open(bundle, "r:xz") as tar:
            tar.extractall(data, filter="data")
        bundle.unlink()
        (data / "data_description.txt").write_text(manifest["data_description"])
    description = (data / "data_description.txt").read_text() if (data / "data_description.txt").is_file() else ""
    train_args = args.train_args or DEFAULT_TRAIN_ARGS
    command = [
        sys.executable,
        "-m",
        "hf_elmo_cli",
        "pretrain",
        "data/train.txt",
        RUN_NAME,
        "--valid-file",
        "data/valid.txt",
        "--vocab",
        "data/vocab.txt",
        "--no-progress",
        "--data-description",
        description,
        *train_args,
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with open(work / "pretrain.log", "ab") as log:
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
        )  # setsid: outlives this call
    pid_file.write_text(f"{process.pid}\n")
    (work / "command.json").write_text(json.dumps(command[1:], indent=2) + "\n")
    print(f"started pid {process.pid} in {work}: {' '.join(command[2:])}")


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
    """Report the run's progress; with ``--follow S``, again every ``--every`` seconds for up to S
    seconds or until it is no longer running (a device call that keeps the machine held)."""
    ends = time.monotonic() + args.follow
    while True:
        state = report(Path(args.work), args.window, args.log_lines)
        left = ends - time.monotonic()
        if state != "running" or left <= 0:
            return
        time.sleep(min(args.every, left))


def report(work: Path, window: int, log_lines: int) -> str:
    """Print the run's state (running, done, not running), steps, tokens, tokens/s over the last
    ``window`` steps, their mean training loss and the log's last lines; returns the state."""
    log_file = work / f"{RUN_NAME}.checkpoint" / "losses.tsv"
    rows = [line.split("\t") for line in log_file.read_text().splitlines()[1:]] if log_file.is_file() else []
    state = (
        "done"
        if (work / RUN_NAME / "config.json").is_file()
        else ("running" if _alive(work / "pretrain.pid") else "not running")
    )
    print(f"state: {state}")
    if rows:
        last, recent = rows[-1], rows[-window:]
        before = rows[-len(recent) - 1] if len(rows) > len(recent) else ["0", "0", "0", "0", "0"]
        seconds = float(last[4]) - float(before[4])
        rate = (int(last[2]) - int(before[2])) / seconds if seconds > 0 else float("nan")
        mean_loss = sum(float(r[3]) for r in recent) / len(recent)
        print(
            f"step {int(last[0]):,}  epoch {last[1]}  tokens {int(last[2]):,}  time {float(last[4]) / 60:.1f} min  "
            f"tokens/s {rate:,.0f} (last {len(recent)} steps)  train loss {mean_loss:.3f} (mean of last {len(recent)})"
        )
    else:
        print("no steps logged yet")
    if (work / "pretrain.log").is_file():
        tail = (work / "pretrain.log").read_text(errors="replace").splitlines()[-log_lines:]
        print("log:\n  " + "\n  ".join(tail))
    if state == "done":
        metrics = json.loads((work / RUN_NAME / "training.json").read_text())["metrics"]
        print(f"metrics: {json.dumps(metrics)}")
    sys.stdout.flush()
    return state


def collect(args: argparse.Namespace) -> None:
    """Write the model folder (or its checkpoint) as pieces to OUT: pieces first..first+6 and the manifest."""
    work, out = Path(args.work), Path(args.out or os.environ["OUT"])
    folder = work / (RUN_NAME if args.what == "model" else f"{RUN_NAME}.checkpoint")
    if not folder.is_dir() or (args.what == "model" and not (folder / "config.json").is_file()):
        raise SystemExit(f"{folder} is not there (yet): poll until the state is done")
    staging = work / f"collect-{args.what}"
    manifest_file = staging / MANIFEST
    if not manifest_file.is_file():  # cut once; later calls bring back further pieces of the same cut
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
        }
        tar_path.unlink()
        manifest_file.write_text(json.dumps(manifest, indent=2) + "\n")
    manifest = json.loads(manifest_file.read_text())
    chosen = manifest["pieces"][args.first : args.first + PIECES_PER_CALL]
    out.mkdir(parents=True, exist_ok=True)
    for piece in chosen:
        shutil.copyfile(staging / piece["name"], out / piece["name"])
    shutil.copyfile(manifest_file, out / f"{args.what}-{MANIFEST}")
    following = args.first + len(chosen)
    rest = f"collect --what {args.what} --first {following}" if following < len(manifest["pieces"]) else "none"
    print(f"{args.what}: pieces {args.first}..{following - 1} of {len(manifest['pieces'])} in $OUT; next call: {rest}")


# -- here: assemble ---------------------------------------------------------------------------
def assemble(args: argparse.Namespace) -> None:
    """Join the pieces found in FOLDERS (the files of one or more collect calls) and unpack them."""
    folders = [Path(f) for f in args.folders]
    manifests = [f / f"{args.what}-{MANIFEST}" for f in folders if (f / f"{args.what}-{MANIFEST}").is_file()]
    if not manifests:
        raise SystemExit(f"no {args.what}-{MANIFEST} in {', '.join(args.folders)}")
    manifest = json.loads(manifests[0].read_text())
    dest = Path(args.dest)
    target = dest / manifest["folder"]
    if target.exists() and not args.overwrite:
        raise SystemExit(f"{target} exists (pass --overwrite to replace it)")
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest) as tmp:
        joined = Path(tmp) / "joined.tar"
        try:
            join_pieces(manifest, folders, joined)
        except ValueError as err:
            raise SystemExit(str(err)) from None
        with tarfile.open(joined) as tar:
            tar.extractall(tmp, filter="data")
        if target.exists():
            shutil.rmtree(target)
        os.replace(Path(tmp) / manifest["folder"], target)
    print(f"{target}: {len(manifest['pieces'])} pieces, sha256 {manifest['sha256'][:16]}... verified")


def stop(args: argparse.Namespace) -> None:
    """End a run early: SIGTERM to its process group (its last checkpoint stays)."""
    pid_file = Path(args.work) / "pretrain.pid"
    if not _alive(pid_file):
        print("no run is going")
        return
    os.killpg(int(pid_file.read_text()), signal.SIGTERM)
    print(f"sent SIGTERM to process group {pid_file.read_text().strip()}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pack", help="here: tokenise, build the vocabulary, pack parts for the GPU host")
    shared = Path(os.environ.get("ELMO_SHARED", REPO.parent / "shared"))
    p.add_argument(
        "--source",
        type=Path,
        default=shared / "data" / "pretrain-en",
        help="raw pretrain-en shards (default $ELMO_SHARED or ../shared, then data/pretrain-en)",
    )
    p.add_argument("--tokenised", help="a folder already written by scripts/prepare_pretrain_en.py (skips tokenising)")
    p.add_argument("--train-fraction", type=float, default=1.0, help="passed to prepare_pretrain_en.py")
    p.add_argument("--processes", type=int, default=2, help="passed to prepare_pretrain_en.py")
    p.add_argument("--out", default=str(PACK_DIR), help="where the parts go (default gpu-pack/, git-ignored)")
    p.add_argument("--vocab-size", type=int, default=50_000)
    p.add_argument("--min-count", type=int, default=3)
    p.add_argument(
        "--part-mib",
        type=float,
        help="part size (default: what one call carries beside the working tree, at most 60 MiB)",
    )
    p.add_argument("--xz-preset", type=int, default=6)
    p.add_argument("--data-description", default="")
    p.add_argument("--overwrite", action="store_true")
    p.set_defaults(run=pack)
    p = commands.add_parser("resplit", help="here: cut the parts again to fit beside today's working tree")
    p.add_argument("--out", default=str(PACK_DIR), help="the pack's folder (default gpu-pack/)")
    p.add_argument("--part-mib", type=float, help="part size (default: as pack's)")
    p.set_defaults(run=resplit)
    for name, function, what in (
        ("stash", stash, "GPU host: keep the parts of this call"),
        ("start", start, "GPU host: unpack and launch elmo pretrain under setsid"),
        ("poll", poll, "GPU host: progress of the run"),
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
                "train_args",
                nargs=argparse.REMAINDER,
                help="elmo pretrain options after --, replacing the default run: " + " ".join(DEFAULT_TRAIN_ARGS),
            )
        if name == "poll":
            p.add_argument("--window", type=int, default=50, help="steps for tokens/s and the mean loss")
            p.add_argument("--log-lines", type=int, default=5)
            p.add_argument(
                "--follow",
                type=float,
                default=0,
                help="keep reporting for up to this many seconds while the run goes on",
            )
            p.add_argument("--every", type=float, default=60, help="seconds between reports with --follow")
        if name == "collect":
            p.add_argument("--what", choices=["model", "checkpoint"], default="model")
            p.add_argument("--first", type=int, default=0, help="first piece of this call")
            p.add_argument("--piece-mib", type=float, default=PIECE_LIMIT / MiB)
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
    args.run(args)


if __name__ == "__main__":
    main()
