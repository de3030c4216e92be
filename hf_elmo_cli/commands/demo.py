"""``elmo demo``: the same word in two contexts gets two vectors; nearest neighbours by context."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._args import (
    add_device_option,
    add_model_option,
    add_threads_option,
    non_empty,
    one_token,
    positive_int,
    use_threads,
)

if TYPE_CHECKING:
    import torch

    from hf_elmo import ElmoModel

DEFAULT_SENTENCES = ("Let's stick to improvisation in this skit", "he hit it with a stick")
#: The most tokens of a sentence that the refusal of a --word it lacks lists.
SHOWN_TOKENS = 12


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="show contextual vectors: one word in two sentences, and its nearest neighbours in a small text",
        description="Embeds WORD in two sentences with the shipped (or a given) biLM, prints the cosine "
        "similarity of its vectors layer by layer (layer 0, the char CNN, ignores context) and, for each, "
        "the nearest token occurrences by context in a small bundled text.",
    )
    add_model_option(parser)
    parser.add_argument(
        "--sentences",
        nargs=2,
        metavar="SENTENCE",
        default=list(DEFAULT_SENTENCES),
        help=(
            "the two sentences in which WORD is compared, each quoted, split into words as the model's tokenizer "
            "splits raw text (spaCy's English rules for the shipped model, whitespace for original files; "
            "default: the 'stick' pair)"
        ),
    )
    parser.add_argument(
        "--word", action="once", type=one_token, default="stick", help="the word to compare (default: stick)"
    )
    parser.add_argument(
        "--text",
        type=non_empty,
        help="text for the neighbours: UTF-8, one whitespace-tokenised sentence per line (default: bundled)",
    )
    parser.add_argument("--top", type=positive_int, default=5, help="neighbours to show (default 5)")
    parser.add_argument(
        "--any-token",
        action="store_true",
        help="neighbours among all tokens of the text (default: among occurrences of WORD)",
    )
    add_device_option(parser, default="cpu")  # the figures it prints are float32 CPU ones unless asked
    add_threads_option(parser)
    parser.set_defaults(run=run)


def embed(model: ElmoModel, sentences: Sequence[Sequence[str]]) -> list[torch.Tensor]:
    """Per sentence, a tensor (L+1, T, 2P) of its layers (``embed_sentences``: independent of
    batching); a long token is truncated as the original ELMo does, as ``elmo perplexity`` does."""
    import torch

    from hf_elmo.embed import embed_sentences

    return [torch.from_numpy(layers) for layers in embed_sentences(model, sentences, max_token_chars=None)]


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import torch
    from torch.nn.functional import cosine_similarity

    from hf_elmo.corpus import MAX_LINE_CHARS, read_corpus
    from hf_elmo.devices import resolve_device
    from hf_elmo.loading import load_bilm, resolve_model
    from hf_elmo.messages import quoted, some_of
    from hf_elmo.modeling_elmo import check_reads_char_ids
    from hf_elmo.pretrained import DEFAULT_MODEL_NAME, DEMO_SENTENCES
    from hf_elmo.tokenization_elmo import ElmoTokenizer
    from hf_elmo.word_splitting import split_words

    use_threads(args)
    device = resolve_device(args.device)
    text_path = Path(args.text) if args.text else DEMO_SENTENCES
    # checked before the model loads; a line is one sentence, never cut (a line has fewer tokens than characters)
    sentences = read_corpus(text_path, max_sentence_tokens=MAX_LINE_CHARS, what="--text")
    text = [sentence.split() for sentence in sentences]
    model_path = args.model or DEFAULT_MODEL_NAME
    # split as the model's own tokenizer splits raw text (model_tokenizer's), read before the weights load;
    # the model resolved first, and once, so that a bad one is refused in the words of every command
    source = resolve_model(model_path)
    pre_tokenizer = ElmoTokenizer.from_pretrained(source.path).pre_tokenizer
    queries = [split_words(s, pre_tokenizer)[0] for s in args.sentences]
    positions = []
    for sentence, tokens in zip(args.sentences, queries):  # checked before the model loads too
        if args.word not in tokens:
            hint = (
                "; give two sentences that contain it with --sentences 'SENTENCE 1' 'SENTENCE 2'"
                if args.sentences == list(DEFAULT_SENTENCES)
                else ""
            )
            listed = some_of([quoted(token) for token in tokens], SHOWN_TOKENS)  # a pasted paragraph: not all of it
            raise ValueError(f"{quoted(args.word)} is not a token of {quoted(sentence)} (tokens: [{listed}]){hint}")
        positions.append(tokens.index(args.word))
    model, _ = load_bilm(source)
    check_reads_char_ids(model, "elmo demo")
    model.to(device)  # type: ignore[arg-type]  # typeshed's functools.wraps leaves PreTrainedModel.to unbound
    vectors = [layers[:, i] for layers, i in zip(embed(model, queries), positions)]  # (L+1, 2P) each
    print(f"model: {model_path}")
    for n, tokens in enumerate(queries, start=1):
        print(f"  sentence {n}: " + " ".join(f"[{t}]" if i == positions[n - 1] else t for i, t in enumerate(tokens)))
    print(f"\ncosine similarity of {args.word!r} in sentence 1 vs sentence 2:")
    for layer in range(vectors[0].shape[0]):
        name = "layer 0 (char CNN, no context)" if layer == 0 else f"layer {layer} (biLSTM)"
        print(f"  {name:32s} {float(cosine_similarity(vectors[0][layer], vectors[1][layer], dim=0)):.3f}")

    occurrences: list[tuple[int, int]] = [
        (s, t) for s, tokens in enumerate(text) for t, w in enumerate(tokens) if args.any_token or w == args.word
    ]
    if not occurrences:
        print(
            f"\nno neighbours: {text_path.name} has no occurrence of {args.word!r} "
            "(pass --any-token to rank all its tokens, or --text for another text)"
        )
        return 0
    layers_by_sentence = embed(model, text)
    top_layers = torch.stack([layers_by_sentence[s][-1, t] for s, t in occurrences])  # (N, 2P)
    where = "all tokens" if args.any_token else f"occurrences of {args.word!r}"
    for n, vector in enumerate(vectors, start=1):
        scores = cosine_similarity(top_layers, vector[-1].unsqueeze(0), dim=1)
        print(f"\nnearest {where} to {args.word!r} of sentence {n}, by top-layer cosine ({text_path.name}):")
        for rank, index in enumerate(scores.argsort(descending=True)[: args.top].tolist(), start=1):
            s, t = occurrences[index]
            shown = " ".join(f"[{w}]" if i == t else w for i, w in enumerate(text[s]))
            print(f"  {rank}. {float(scores[index]):.3f}  {shown}")
    return 0
