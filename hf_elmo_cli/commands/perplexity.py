"""``elmo perplexity FILE --model MODEL``: full-softmax forward, backward and average perplexity."""

from __future__ import annotations

import argparse

from ._args import (
    EMPTY_REFUSED,
    add_batch_size_refusal,
    add_device_option,
    add_field_option,
    add_model_option,
    add_threads_option,
    hf_elmo_module,
    integer_at_least,
    non_empty,
    one_model,
    one_token,
    positive_int,
    use_threads,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "perplexity",
        help="full-softmax forward / backward / average perplexity of a biLM on a text file",
        description="Scores FILE, one sentence per line, whitespace tokens: every sentence from the initial "
        "state as <S> tokens </S> (n+1 predictions per direction). MODEL (--model) is a model written by "
        "`elmo pretrain` (with vocab.txt): a folder, Hub id or shipped name (default: the shipped model), or "
        "original files (a folder or zip with options.json + weights hdf5) given with --softmax-weights and "
        "--vocab. `elmo perplexity MODEL FILE` is the same as `elmo perplexity FILE --model MODEL`.",
    )
    parser.add_argument(
        "model",
        nargs="?",
        metavar="MODEL",
        help="MODEL before FILE, as --model gives it; with one argument, it is FILE",
    )  # an empty one refused once it is known to be MODEL or FILE (run): was 'argument MODEL' for FILE
    parser.add_argument(
        "file", nargs="?", metavar="FILE", type=non_empty, help="text: one sentence per line, whitespace tokens"
    )
    add_model_option(parser, dest="model_option")
    parser.add_argument("--vocab", metavar="VOCAB_FILE", type=non_empty, help="vocab.txt (default: MODEL/vocab.txt)")
    parser.add_argument(
        "--softmax-weights",
        type=non_empty,
        help="hdf5 softmax dump (softmax/W, softmax/b) for an original-format MODEL",
    )
    parser.add_argument(
        "--unk-token",
        type=one_token,
        help="the file's unknown-word token (e.g. <unk> in WikiText), read as <UNK>",
    )
    add_device_option(parser)
    add_threads_option(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the figures as one JSON object (forward, backward, average; the mean losses in nats, "
        "forward_loss and backward_loss; predictions per direction and unk_rate); strict JSON: a perplexity "
        "beyond float64 or NaN (a diverged model) is null",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_batch_size_refusal(parser)
    add_reading_options(parser)
    parser.set_defaults(run=run, usage_error=parser.error)


def add_reading_options(parser: argparse.ArgumentParser) -> None:
    """How FILE is read and batched: as ``elmo pretrain`` reads its corpora (``PretrainSettings``),
    in batches of ``EVAL_TOKENS_PER_BATCH`` padded tokens by default (``hf_elmo.training.options``': without torch)."""
    options = hf_elmo_module("training.options")
    for name, overrides in (
        (
            "tokens_per_batch",
            dict(
                default=options.EVAL_TOKENS_PER_BATCH,
                type=integer_at_least(options.MIN_TOKENS_PER_BATCH),
                help="padded tokens per batch, markers included",
            ),
        ),
        ("max_sentence_tokens", dict(type=positive_int)),
    ):
        add_field_option(parser, options.PretrainSettings, name, options.flag(name), **overrides)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    # the arguments checked before hf_elmo is imported (torch: seconds)
    if args.file is None:  # one argument: it is FILE
        args.model, args.file = None, args.model
    for metavar, value in (("MODEL", args.model), ("FILE", args.file)):
        if value == "":
            args.usage_error(f"argument {metavar}: {EMPTY_REFUSED}")
    if args.model is None:
        if args.file is None:
            raise ValueError("give the text FILE to score (elmo perplexity FILE [--model MODEL])")
        if args.model_option is None and (Path(args.file).is_dir() or _shipped_name(args.file)):
            what = "a folder" if Path(args.file).is_dir() else "a shipped model's name"
            raise ValueError(
                f"{args.file} is {what}: give the text FILE to score too (elmo perplexity FILE --model {args.file})"
            )
    elif _shipped_name(args.file) and Path(args.model).is_file():  # FILE MODEL (was: 'no such file', of the model)
        raise ValueError(
            f"{args.file} is a shipped model's name and {args.model} a file: give the model first "
            f"(elmo perplexity {args.file} {args.model})"
        )
    elif args.json and args.file.lower().endswith(".json") and Path(args.model).is_file() and not _zip(args.model):
        # FILE --json OUT.json, as the scripts' --json takes a file (was: 'FILE is a file, but a model is a folder',
        # or OUT.json's 'no such file')
        raise ValueError(
            f"--json takes no file: it prints the figures as JSON on stdout, and {args.file} was read as FILE and "
            f"{args.model} as MODEL; to write them to a file: elmo perplexity {args.model} --json > {args.file}"
        )
    model = one_model(args.model, args.model_option)

    from hf_elmo.corpus import read_corpus
    from hf_elmo.devices import resolve_device
    from hf_elmo.fileio import strict_json
    from hf_elmo.loading import resolve_model
    from hf_elmo.pretrained import DEFAULT_MODEL_NAME
    from hf_elmo.training.evaluation import load_lm, perplexity, perplexity_line, predictions_text
    from hf_elmo.training.vocab import UNK, VOCAB_FILE, Vocabulary

    args.model = model or DEFAULT_MODEL_NAME
    use_threads(args)
    device = resolve_device(args.device)
    # read before the model loads (seconds, and gigabytes for an original model's softmax): a missing or binary
    # FILE is said at once
    sentences = read_corpus(args.file, args.max_sentence_tokens)
    if args.unk_token:
        sentences = [" ".join(UNK if t == args.unk_token else t for t in s.split()) for s in sentences]
    source = resolve_model(args.model)
    if args.vocab is None and source.format != "transformers" and args.softmax_weights is not None:
        # before the softmax loads (793k rows for the 1B Word Benchmark's); without either, load_lm names both
        raise ValueError(f"{args.model} holds original files: give their vocabulary with --vocab")
    if args.vocab is None and source.has_lm_head and not (source.path / VOCAB_FILE).is_file():
        raise ValueError(
            f"{source.described} has no {VOCAB_FILE}, the words of its softmax: put back the one it was saved with, "
            "or give it with --vocab VOCAB.txt"
        )
    own = source.path / VOCAB_FILE
    # --vocab read before the model loads too; the model's own after it (load_lm says what a model without a softmax
    # lacks)
    vocabulary = None if args.vocab is None else Vocabulary.from_file(args.vocab)
    if vocabulary is not None and source.format == "transformers" and own.is_file():
        if vocabulary.words != Vocabulary.from_file(own).words:  # the softmax's rows are that file's words
            raise ValueError(
                f"--vocab {args.vocab} differs from {own}, the words of the model's softmax; leave --vocab out"
            )
    model = load_lm(source, softmax_weights=args.softmax_weights).to(device)  # type: ignore[arg-type]  # PreTrainedModel.to as typeshed wraps it
    vocabulary_file = args.vocab or own
    if vocabulary is None:
        vocabulary = Vocabulary.from_file(own)
    if len(vocabulary) != model.config.vocab_size:
        remedy = f"restore the {VOCAB_FILE} it was saved with" if args.vocab is None else "give that vocabulary"
        raise ValueError(
            f"{vocabulary_file} has {len(vocabulary)} words, but the softmax of {args.softmax_weights or args.model} "
            f"has {model.config.vocab_size} rows, one for each word it was trained with: {remedy}"
        )
    result = perplexity(model, vocabulary, sentences, args.tokens_per_batch, show_progress=not args.no_progress)
    if args.json:
        print(strict_json(result))  # a diverged model's infinite perplexity is null; its mean losses stay numbers
    else:
        print(f"{args.file}: {predictions_text(result)}")
        print(perplexity_line(result))
    return 0


def _zip(path: str) -> bool:
    """Whether the file ``path`` is a zip archive, as a model of the original files may be."""
    import zipfile

    return zipfile.is_zipfile(path)


def _shipped_name(text: str) -> bool:
    """Whether ``text``, given as FILE, is a shipped model's name (``hf-elmo:NAME``), not a path to a file."""
    from pathlib import Path

    return text.startswith(hf_elmo_module("pretrained").SHIPPED_PREFIX) and not Path(text).exists()
