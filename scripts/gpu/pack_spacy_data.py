"""Copy what scripts/bench_spacy.py reads from ../shared into a git-ignored folder that travels
to the GPU host with a device call (issue 13 part 1; README.md beside this file has the calls).

    python scripts/gpu/pack_spacy_data.py            # -> gpu-spacy/ (git-ignored)

The device tool copies the working tree and the ignored paths named in ``carry`` (64 MiB a call
in all), never ``../shared``. The folder is laid out like ``../shared``: the CoNLL-2003 and SST
splits of ``bench_spacy.TASKS`` under ``data/`` (with each folder's SOURCE.txt: research use
only, never committed), and ``fixtures/`` (the Apache-2.0 test models; ``shared_dir()`` and the
GPU tests need it), so ``ELMO_SHARED=gpu-spacy`` works on the host. The run stops, writing
nothing, if the folder would not fit one call beside the working tree and the other carried
paths (``--with``, default ``.whl/spacy-deps``: the wheels of fetch_spacy_wheels.sh that travel
with it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # scripts/: shared_data, bench_spacy

from bench_spacy import TASKS  # noqa: E402
from gpu_run import CALL_LIMIT, MiB, travelling_bytes  # noqa: E402

from hf_elmo.fileio import SWAPPED_OUT, put_back_swapped_out, scratch_folder, swap_folder_in  # noqa: E402
from hf_elmo_cli.commands._args import SuggestingParser, exit_with_error, run_script  # noqa: E402

from shared_data import shared_dir  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PACK_DIR = REPO / "gpu-spacy"  # ignored (.gitignore)


def files_to_copy(tasks: list[str]) -> list[Path]:
    """Paths relative to the shared folder: the tasks' train/dev/test files and their SOURCE.txt,
    then every file of ``fixtures/``."""
    shared = shared_dir()
    wanted: list[Path] = []
    for task in tasks:
        _, folder, files = TASKS[task]
        source = Path(folder).parts[0]  # data/<dataset>/SOURCE.txt
        wanted += [Path("data") / source / "SOURCE.txt"] + [Path("data") / folder / name for _, name in files]
    wanted += sorted(p.relative_to(shared) for p in (shared / "fixtures").rglob("*") if p.is_file())
    return list(dict.fromkeys(wanted))


def tree_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def pack(out: Path, tasks: list[str], also_carried: list[Path], overwrite: bool) -> int:
    """Write the folder, built in a hidden scratch folder beside it (``.OUT.packing-XXXXXXXX/OUT``) and swapped in
    when whole (``swap_folder_in``): a run that fails or is killed leaves the earlier pack as it was (was: removed
    before the new one was renamed in, and a kill meanwhile left it half-removed, or none; one killed between the
    renames leaves it in its scratch folder, put back by the next run, ``put_back_swapped_out``); its bytes."""
    shared = shared_dir()
    relative = files_to_copy(tasks)
    size = sum((shared / r).stat().st_size for r in relative)
    # the spaCy calls carry the shipped weights (the GPU tests load the shipped model)
    beside = travelling_bytes(weights_aside=False) + sum(
        tree_bytes(p) for p in also_carried if p.resolve() != out.resolve()
    )
    if size + beside > CALL_LIMIT:
        raise ValueError(
            f"{out.name}: {size / MiB:.1f} MiB of data + {beside / MiB:.1f} MiB of working tree and carried "
            f"paths exceed one device call's {CALL_LIMIT / MiB:.0f} MiB: pack fewer --tasks or carry less"
        )
    put_back_swapped_out(out, f".{out.name}.packing-")  # by a run killed between its renames, before the check
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists (pass --overwrite to replace it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with scratch_folder(f".{out.name}.packing-", out.parent) as scratch:  # a killed run's, removed by the next
        building = scratch / out.name
        for r in relative:
            (building / r).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(shared / r, building / r)
        swap_folder_in(building, out, scratch / SWAPPED_OUT)  # the earlier pack removed with the scratch folder
    print(
        f"{out}: {len(relative)} files, {size / MiB:.1f} MiB from {shared} (tasks {' '.join(tasks)}); with the "
        f"working tree and carried paths a call takes {(size + beside) / MiB:.1f} of {CALL_LIMIT / MiB:.0f} MiB"
    )
    return size


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(
        prog=Path(__file__).name, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=PACK_DIR, help="default gpu-spacy/ (git-ignored)")
    parser.add_argument("--tasks", nargs="+", choices=sorted(TASKS), default=sorted(TASKS))
    parser.add_argument(
        "--with",
        dest="also_carried",
        nargs="*",
        type=Path,
        default=[REPO / ".whl" / "spacy-deps"],
        help="other paths carried in the same call, counted towards its 64 MiB (default .whl/spacy-deps)",
    )
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    try:
        pack(args.out, args.tasks, args.also_carried, args.overwrite)
    except (ValueError, OSError) as err:  # too much for one call, an output there, a file that cannot be read
        exit_with_error(parser, err)


if __name__ == "__main__":
    run_script(main)
