"""``elmo perplexity MODEL FILE``: full-softmax forward, backward and average perplexity."""

from __future__ import annotations

import argparse
import json

from ._args import positive_int


def register(subparsers: "argparse._SubParsersAction") -> None:
    parser = subparsers.add_parser(
        "perplexity",
        help="full-softmax forward / backward / average perplexity of a biLM on a text file",
        description="MODEL is a folder written by `elmo pretrain` (with vocab.txt), or an original-format "
        "folder (options.json + weights hdf5) given with --softmax-weights and --vocab. FILE holds one "
        "sentence per line, whitespace tokens; every sentence is scored from the initial state as "
        "<S> tokens </S> (n+1 predictions per direction).",
    )
    parser.add_argument("model", help="model folder")
    parser.add_argument("file", help="text: one sentence per line, whitespace tokens")
    parser.add_argument("--vocab", help="vocab.txt (default: MODEL/vocab.txt)")
    parser.add_argument("--softmax-weights", help="hdf5 softmax dump (softmax/W, softmax/b) for an original-format MODEL")
    parser.add_argument("--unk-token", help="the file's unknown-word token (e.g. <unk> in WikiText), read as <UNK>")
    parser.add_argument("--tokens-per-batch", type=int, default=4096)
    parser.add_argument("--max-sentence-tokens", type=int, default=100, help="longer lines are cut into pieces")
    parser.add_argument("--threads", type=positive_int, help="torch CPU threads")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import torch

    from hf_elmo.lm_data import read_corpus
    from hf_elmo.lm_vocab import UNK, VOCAB_FILE, Vocabulary
    from hf_elmo.pretrain import load_lm, perplexity

    if args.threads:
        torch.set_num_threads(args.threads)
    model = load_lm(args.model, softmax_weights=args.softmax_weights)
    vocabulary = Vocabulary.from_file(args.vocab or Path(args.model) / VOCAB_FILE)
    if len(vocabulary) != model.config.vocab_size:
        raise ValueError(f"the vocabulary has {len(vocabulary)} words but the softmax {model.config.vocab_size} rows")
    sentences = read_corpus(args.file, args.max_sentence_tokens)
    if args.unk_token:
        sentences = [" ".join(UNK if t == args.unk_token else t for t in s.split()) for s in sentences]
    result = perplexity(model, vocabulary, sentences, args.tokens_per_batch, show_progress=True)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.file}: {result['predictions']:,} predictions per direction, {result['unk_rate']:.2%} <UNK>")
        print(f"perplexity forward {result['forward']:.3f}  backward {result['backward']:.3f}  "
              f"average {result['average']:.3f}")
    return 0
