"""Tokenise ../shared/data/pretrain-en for `elmo pretrain`: one sentence a line, tokens split by spaces.

The raw shards hold one paragraph a line. Each paragraph is tokenised with spaCy's English
tokenizer (``spacy.blank("en")``, the tokens the spaCy pipelines see) and split into sentences
with spaCy's rule-based ``sentencizer``. Held-out data are whole blocks of consecutive
paragraphs (``--block`` paragraphs, i.e. runs of whole articles' paragraphs): in every 200
blocks of a shard, block 0 goes to ``valid.txt`` and block 100 to ``test.txt`` (0.5% each);
``--train-fraction`` keeps only the first part of the remaining blocks of every 200 for
``train.txt`` (for a compute budget that sees fewer tokens than the corpus has).

    python scripts/prepare_pretrain_en.py ../shared/data/pretrain-en /tmp/pretrain-en-tok --train-fraction 0.4

The files are written in a hidden folder of the run's inside the output folder (``.prepare-XXXXXXXX``) and moved
into place at the end, the earlier outputs moved out first: a run stopped part-way (Ctrl-C, an error) leaves earlier
outputs as they were and no file of its own; one killed (``kill -9``) while it moves them leaves some files of one
run, never the splits of one beside those of another, and its folder is removed by the next run. One run writes a folder at a time
(it holds ``prepare.json.lock``): a second fails at once.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import signal
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path

from hf_elmo.fileio import (
    OutputBusyError,
    check_locked_output,
    check_writable_output,
    folder_for_the_run,
    scratch_folder,
    sole_writer,
)
from hf_elmo_cli.commands._args import SuggestingParser, exit_with_error, fraction, positive_int

SPLITS = ("train", "valid", "test")
#: What the run records beside the splits: its settings and token counts.
SUMMARY = "prepare.json"
CYCLE = 200


def split_of(paragraph_index: int, block: int, train_fraction: float) -> str | None:
    """The split of a paragraph, or None when it is left out of the training fraction."""
    position = (paragraph_index // block) % CYCLE
    if position == 0:
        return "valid"
    if position == CYCLE // 2:
        return "test"
    return "train" if position < CYCLE * train_fraction else None


def tokenise_shard(job: tuple[str, str, int, float]) -> dict[str, int]:
    """Tokenise one gzip shard into ``OUT/<shard>.<split>.txt``; returns token counts per split."""
    import spacy

    shard, out_dir, block, train_fraction = job
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    name = Path(shard).name.removesuffix(".txt.gz")
    handles = {s: open(Path(out_dir) / f"{name}.{s}.txt", "w", encoding="utf-8") for s in SPLITS}
    counts = {s: 0 for s in SPLITS}
    with gzip.open(shard, "rt", encoding="utf-8") as f:
        kept: list[tuple[str, str]] = [
            (split, line.strip())
            for i, line in enumerate(f)
            if (split := split_of(i, block, train_fraction)) is not None and line.strip()
        ]
    for (split, _), doc in zip(kept, nlp.pipe((text for _, text in kept), batch_size=512)):
        for sent in doc.sents:
            tokens = [t.text for t in sent if not t.is_space]
            if tokens:
                handles[split].write(" ".join(tokens) + "\n")
                counts[split] += len(tokens)
    for handle in handles.values():
        handle.close()
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    """The command; ``argv`` (default: ``sys.argv[1:]``) as on its command line."""
    parser = SuggestingParser(
        prog=Path(__file__).name, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", type=Path, help="folder of *.txt.gz shards (one paragraph a line)")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--block", type=positive_int, default=50, help="paragraphs per held-out block (default 50)")
    parser.add_argument(
        "--train-fraction",
        type=fraction,
        metavar="FRACTION",
        default=1.0,
        help="keep the first FRACTION of every 200 blocks for train.txt (held-out blocks aside), > 0 and <= 1 "
        "(default 1)",
    )
    parser.add_argument("--processes", type=positive_int, default=2, help="tokenising processes (default 2)")
    args = parser.parse_args(argv)
    shards = sorted(str(p) for p in args.source.glob("*.txt.gz"))
    if not shards:
        exit_with_error(parser, f"no *.txt.gz shards in {args.source}")
    outputs = [args.out_dir / f"{split}.txt" for split in SPLITS] + [args.out_dir / SUMMARY]
    try:  # before the shards are read: a file where the folder goes, an output that is a folder or link, or a
        # folder that cannot be written; a lock's place (of the summary, written last) that is taken by a file
        for output in outputs:
            check_writable_output(output)
        check_locked_output(args.out_dir / SUMMARY)
    except OSError as error:
        exit_with_error(parser, error)
    # the shards' parts and the files being written: in a hidden folder of this run's, removed however it ends
    # (a killed run's: by the next run), so that no file of the user's is written over and no half-written output
    # is left; the output folder, made if missing, goes with it when the run leaves it empty. One run at a time
    # (the summary's lock): two would each move their files in, the splits of one beside the summary of the other
    try:
        with (
            folder_for_the_run(args.out_dir),
            sole_writer(args.out_dir / SUMMARY),
            scratch_folder(".prepare-", args.out_dir) as staging,
        ):
            prepare(args, shards, staging)
    except OutputBusyError as error:
        exit_with_error(parser, error)


def prepare(args: argparse.Namespace, shards: list[str], staging: Path) -> None:
    """Tokenise ``shards`` into ``staging`` and move the split files and their summary into ``args.out_dir``."""
    jobs = [(s, str(staging), args.block, args.train_fraction) for s in shards]
    with Pool(args.processes, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)) as pool:
        # Ctrl-C is the parent's alone, which ends the workers (run_script: one line; was: a traceback of each)
        results = pool.map(tokenise_shard, jobs, chunksize=1)
    totals = {s: 0 for s in SPLITS}
    for split in SPLITS:
        with open(staging / f"{split}.txt", "w", encoding="utf-8") as out:
            for shard in shards:
                part = staging / f"{Path(shard).name.removesuffix('.txt.gz')}.{split}.txt"
                out.write(part.read_text(encoding="utf-8"))
                part.unlink()
    for counts in results:
        for split, n in counts.items():
            totals[split] += n
    summary = {
        "source": str(args.source),
        "shards": [Path(s).name for s in shards],
        "block": args.block,
        "train_fraction": args.train_fraction,
        "tokens": totals,
        "tokenizer": "spacy.blank('en') + sentencizer",
    }
    (staging / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    move_in(staging, args.out_dir, [*(f"{split}.txt" for split in SPLITS), SUMMARY])
    print(json.dumps(summary))


def move_in(staging: Path, out_dir: Path, names: list[str]) -> None:
    """Move the files ``names`` of ``staging`` into ``out_dir``, the last (the summary) last, so that the folder never
    holds files of two runs: the earlier run's of those names are moved out into ``staging`` first, the last first
    (was: moved in over them one by one, and a run killed part-way left a new ``train.txt`` beside the held-out text
    and summary of other settings or data, which may overlap it). A run killed part-way leaves some of one run's
    files, never a mix (its staging folder, with what it moved out, is removed by the next run); one stopped by an
    error or Ctrl-C puts the earlier files back."""
    replaced = staging / "replaced"
    replaced.mkdir()
    moved_out: list[str] = []
    moved_in: list[str] = []
    try:
        for name in reversed(names):
            if (out_dir / name).exists():
                os.replace(out_dir / name, replaced / name)
                moved_out.append(name)
        for name in names:
            os.replace(staging / name, out_dir / name)
            moved_in.append(name)
    except BaseException:
        for name in moved_in:
            os.replace(out_dir / name, staging / name)
        for name in moved_out:
            os.replace(replaced / name, out_dir / name)
        raise


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
