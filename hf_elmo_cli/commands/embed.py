"""``elmo embed INPUT OUTPUT.hdf5``: every line's vectors into an AllenNLP-compatible HDF5 file."""

from __future__ import annotations

import argparse

from ._args import (
    add_batch_size_refusal,
    add_device_option,
    add_max_token_chars_option,
    add_model_option,
    add_old_name,
    add_replaced_options,
    add_threads_option,
    hf_elmo_module,
    non_empty,
    positive_int,
    tokenizer_settings,
    use_threads,
)

#: What ``allennlp elmo --options-file O --weight-file W`` becomes.
_MODEL_FOLDER = (
    "use --model FOLDER, the folder of the options and weight files (under AllenNLP's names or as options.json + "
    "*.hdf5), or the folder that elmo convert OPTIONS WEIGHTS FOLDER writes"
)
#: ``allennlp elmo``'s options (AllenNLP 0.9, the last release with the command), each refused with
#: elmo embed's way: (whether it takes a value, what to use instead).
ALLENNLP_OPTIONS = {
    "--all": (False, "all layers are the default (--layers all)"),
    "--top": (False, "use --layers top"),
    "--average": (False, "use --layers average"),
    "--options-file": (True, _MODEL_FOLDER),
    "--weight-file": (True, _MODEL_FOLDER),
    "--cuda-device": (True, "use --device cuda:N (or cpu)"),
    "--forget-sentences": (False, "not taken here: sentence_to_index is always written"),
    "--use-sentence-keys": (
        False,
        "not taken here: datasets are named by line index (sentence_to_index maps each line to its index)",
    ),
}


def register(subparsers: argparse._SubParsersAction) -> None:
    settings = hf_elmo_module("embed_options")  # hf_elmo.embed's, read without torch
    parser = subparsers.add_parser(
        "embed",
        help="embed every line of a text file into HDF5 (AllenNLP `elmo` format); resumable, shardable",
        description="Embeds INPUT (UTF-8, one whitespace-tokenised sentence per line) with the biLM and writes "
        "OUTPUT in the format of AllenNLP's `allennlp elmo` command. The format, the checks, resuming after a "
        "kill, sharding (--shard or torchrun) and their guarantees: README.md, section 'Bulk embedding'.",
    )
    parser.add_argument(
        "input", metavar="INPUT", type=non_empty, help="text: one sentence per line, tokens separated by whitespace"
    )
    parser.add_argument("output", metavar="OUTPUT", type=non_empty, help="HDF5 file to write")
    add_model_option(parser)
    parser.add_argument(
        "--layers",
        choices=settings.LAYERS,
        default="all",
        help="per line: all layers (L+1, T, 2P), the top one (T, 2P), or their mean (T, 2P) (default all)",
    )
    parser.add_argument(
        "--pool",
        choices=[pool for pool in settings.POOLS if pool is not None],
        help="one vector per line, the mean over its tokens: (L+1, 2P) for --layers all, "
        "(2P,) for top and average (default: one vector per token)",
    )
    tokens_per_batch = parser.add_argument(
        "--tokens-per-batch",
        type=positive_int,
        default=settings.DEFAULT_BATCH_TOKENS,
        help="padded tokens per batch (default %(default)s); a longer sentence runs alone",
    )
    add_old_name(parser, "--batch-tokens", tokens_per_batch)  # its name before it took elmo pretrain's and perplexity's
    add_device_option(parser)
    parser.add_argument(
        "--dtype",
        choices=["float32", "bfloat16"],
        default="float32",
        help="compute dtype (default float32); the file holds float32 either way",
    )
    parser.add_argument(
        "--cuda-graphs",
        action="store_true",
        help="replay the biLM from one CUDA graph per batch/length bucket (the same vectors; the biLM runs faster on "
        "a GPU, but elmo embed's time there is mostly the host's: no faster on an H200, BENCHMARKS.md)",
    )
    parser.add_argument("--shard", metavar="I/N", help="embed only the lines whose index is I modulo N")
    parser.add_argument(
        "--chunk-lines",
        type=positive_int,
        default=settings.DEFAULT_CHUNK_LINES,
        help="lines per resumable chunk (default %(default)s)",
    )
    add_max_token_chars_option(parser)
    add_threads_option(parser)
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing OUTPUT, or an unfinished run with other settings (never the files of a sharded run "
        "beside those of a run without shards, nor the reverse: move them first)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_replaced_options(parser, "allennlp elmo", ALLENNLP_OPTIONS)
    add_batch_size_refusal(parser)  # allennlp elmo's and transformers' name, refused as pretrain and perplexity do
    parser.set_defaults(run=run, interrupted=interrupted)


def run(args: argparse.Namespace) -> int:
    from hf_elmo.corpus import check_text_file
    from hf_elmo.devices import resolve_device, resolve_dtype
    from hf_elmo.embed import check_output, embed_file, run_shard
    from hf_elmo.loading import load_bilm, model_tokenizer, source_description
    from hf_elmo.modeling_elmo import check_reads_char_ids
    from hf_elmo.pretrained import DEFAULT_MODEL_NAME

    shard = run_shard(args.shard)
    check_output(args.output, shard)  # before the model loads (embed_file checks it again)
    check_text_file(args.input, "the input")  # so too (was: said after the model loaded, or downloaded)
    device = resolve_device(args.device)
    use_threads(args)
    model, source = load_bilm(args.model or DEFAULT_MODEL_NAME)
    check_reads_char_ids(model, "elmo embed")
    model_id = source_description(source)
    tokenizer = model_tokenizer(model, **tokenizer_settings(args))
    _warn_if_unsplit(args.input, tokenizer.pre_tokenizer)
    model.to(device=device, dtype=resolve_dtype(args.dtype))  # type: ignore[call-arg]  # typeshed's functools.wraps leaves PreTrainedModel.to unbound
    result = embed_file(
        model,
        args.input,
        args.output,
        model_id=model_id,
        layers=args.layers,
        tokens_per_batch=args.tokens_per_batch,
        chunk_lines=args.chunk_lines,
        shard=shard,
        max_token_chars=tokenizer.max_token_chars,
        overwrite=args.overwrite,
        show_progress=not args.no_progress,
        pool=args.pool,
        cuda_graphs=args.cuda_graphs,
        model_path=source.path,
    )
    resumed = (
        f"; {result.chunks_reused} of {result.chunks} chunks were done by an earlier run"
        if result.chunks_reused
        else ""
    )
    lines = f"{result.lines:,} line{'s' * (result.lines != 1)}"
    print(f"wrote {result.output}: {lines}, {result.tokens:,} token{'s' * (result.tokens != 1)}{resumed}")
    if result.index is not None:
        print(f"wrote {result.index}: the index of {shard.count} shards")
    return 0


def interrupted(args: argparse.Namespace) -> str:
    """What Ctrl-C left: once the output is renamed into place, a complete output; before, the
    finished chunks (whole, renamed into place) and an older OUTPUT stay; before the first chunk,
    nothing that binds a later run's settings."""
    from hf_elmo.embed import finished_chunks, output_is_complete, run_shard

    shard = run_shard(args.shard)
    target = shard.output_file(args.output)
    chunks, partial = finished_chunks(target)
    if output_is_complete(target):
        return f"{target} is complete; the same command finishes its run (it removes {partial})"
    if chunks == 1:
        return f"the finished chunk in {partial} is kept: the command that wrote it resumes from it"
    if chunks:
        return f"the {chunks} finished chunks in {partial} are kept: the command that wrote them resumes from them"
    return "no chunk was finished yet, so nothing binds the next run: it starts afresh, whatever its settings"


def _warn_if_unsplit(input_path: str, pre_tokenizer: str) -> None:
    """Say on stderr when INPUT reads as raw text to the model's own word splitting (its corpus was
    split that way; ``elmo embed`` embeds the whitespace tokens it is given)."""
    import sys
    from pathlib import Path

    from hf_elmo.embed import UNSPLIT_SHARE, unsplit_tokens

    if not Path(input_path).is_file():
        return  # embed_file says what is wrong with it
    try:
        found = unsplit_tokens(input_path, pre_tokenizer)
    except ImportError:  # spaCy (a dependency) is missing or broken: this advice is all it serves here
        print(
            f"elmo embed: note: skipped the check that {input_path} is split as the model's training text was "
            f"({pre_tokenizer}): spaCy, which splits that way, cannot be imported; the input is embedded as given",
            file=sys.stderr,
        )
        return
    if found.share > UNSPLIT_SHARE and found.example is not None:
        token, words = found.example
        print(
            f"elmo embed: warning: {found.share:.0%} of the tokens on the first lines of {input_path} are split "
            f"further by the model's own word splitting ({pre_tokenizer}; e.g. {token!r} -> {words}), with which "
            "its training text was split: its vectors for unsplit text are worse; split the input that way first "
            "(hf_elmo.word_splitting.split_words), or ignore this if the tokens are as you want them",
            file=sys.stderr,
        )
