r"""Training throughput of `elmo pretrain`: tokens/s for size presets and biLM paths on one device.

Times full training steps (forward, backward, clipping, optimizer) of ``ElmoForBidirectionalLM``
with the sampled softmax on synthetic sentences (random words of 3-10 letters, 20 tokens each;
a new batch every step, collated as the trainer does), after one warm-up step, with
``torch.cuda.synchronize`` around each timed step on CUDA. The paths of a preset take their
steps in turn (all their models in memory at once: the original preset's fast and fused paths with
``--checkpointing``, four models, peaked at 6.4 GiB of RSS on the CPU at 2048 tokens a step), so
that a change in a shared machine's load falls on each alike. Tokens are corpus words (markers
excluded), as in the trainer's progress bar. Every preset runs clip-free (``--no-clip``, the
default here, so that the ``fused`` path can run) or with the presets' clipping (``--clip``), and
every listed biLM path runs side by side on the same batches and initial weights. With
``--checkpointing`` each also runs under activation checkpointing, beside it: tokens/s and the
MiB of values autograd keeps for the backward pass (counted in the warm-up step's forward). Each
row ends with its ratio to the preset's first path (a checkpointed one: to its own path without
checkpointing), the figure to compare on a machine shared with other work, whose absolute
tokens/s vary with its load; the header names the machine, its load at the start, the threads,
the batch and the seed (0, of the text and the weights).

    python scripts/bench_pretrain.py --presets cpu small --implementations fast fused --threads 1
    python scripts/bench_pretrain.py --device cuda --presets small --implementations fast fused \
        --tokens-per-batch 16384 --amp --steps 20
    python scripts/bench_pretrain.py --presets small --implementations fast --checkpointing --threads 1
"""

from __future__ import annotations

import argparse
import random
import string
import time
from collections.abc import Sequence
from typing import Any

import torch

from hf_elmo.configuration_elmo import BILM_IMPLEMENTATIONS, SIZE_LIMITS, ElmoConfig
from hf_elmo.devices import resolve_device
from hf_elmo.messages import first_line
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.training.data import MIN_TOKENS_PER_BATCH, LMBatch, SentenceBatcher
from hf_elmo.training.model import make_optimizer
from hf_elmo.training.settings import NO_CLIP, PRESETS
from hf_elmo.training.trainer import train_step
from hf_elmo.training.vocab import Vocabulary, build_vocabulary
from hf_elmo_cli.commands._args import SuggestingParser, exit_with_error, integer_at_least, positive_int

from bench_conditions import machine

#: The seed of the synthetic text and of the initial weights (``torch.manual_seed``), the same in every run.
SEED = 0


def synthetic_corpus(n_sentences: int, words: int, seed: int = SEED) -> list[str]:
    rng = random.Random(seed)
    lexicon = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 10))) for _ in range(words)]
    weights = [1.0 / (rank + 1) for rank in range(words)]  # Zipf-like
    return [" ".join(rng.choices(lexicon, weights, k=20)) for _ in range(n_sentences)]


def synthetic_batches(tokens_per_batch: int, steps: int, vocab_size: int) -> tuple[Vocabulary, list[LMBatch]]:
    """The vocabulary and the ``steps + 1`` batches (the first for the warm-up) every path of every preset runs."""
    sentences = synthetic_corpus(max(64, 2 * (steps + 1) * tokens_per_batch // 22), vocab_size * 2)
    vocab = build_vocabulary(sentences, max_size=vocab_size)
    batcher = SentenceBatcher(sentences, vocab, tokens_per_batch)
    return vocab, [batcher.collate(b) for b in batcher.epoch_batches(0)[: steps + 1]]


class PathRun:
    """``preset``'s LM on the biLM path ``implementation`` (under activation checkpointing if
    ``checkpointing``) after its warm-up step on ``batches[0]``, which counts the MiB autograd keeps
    for the backward; ``step(i)`` times a training step on ``batches[i]``. The paths of a preset
    take their steps in turn, so that a change in a shared machine's load falls on each alike."""

    def __init__(
        self,
        preset: str,
        implementation: str,
        vocab: Vocabulary,
        batches: list[LMBatch],
        num_sampled: int,
        amp: bool,
        device: torch.device,
        clip: bool = False,
        checkpointing: bool = False,
    ) -> None:
        torch.manual_seed(SEED)
        fields = {**PRESETS[preset], **({} if clip else NO_CLIP)}
        config = ElmoConfig(
            **fields,
            vocab_size=len(vocab),
            softmax="sampled",
            num_sampled=num_sampled,
            dropout=0.1,
            bilm_implementation=implementation,
        )
        self.model = ElmoForBidirectionalLM(config).to(device).train()  # type: ignore[arg-type]  # PreTrainedModel.to as typeshed wraps it
        if checkpointing:
            self.model.activation_checkpointing_enable()
        self.optimizer = make_optimizer("adagrad", self.model.parameters(), None)
        self.batches, self.device, self.amp = batches, device, amp
        self.seconds, self.words, self.kept = 0.0, 0, 0

        def keep(tensor: torch.Tensor) -> torch.Tensor:
            self.kept += tensor.numel() * tensor.element_size()
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
            train_step(self.model, self.optimizer, batches[0], device, 10.0, amp)  # warm-up
        _synchronize(device)

    def step(self, index: int) -> None:
        batch = self.batches[index]
        start = time.perf_counter()
        train_step(self.model, self.optimizer, batch, self.device, 10.0, self.amp)
        _synchronize(self.device)
        self.seconds += time.perf_counter() - start
        self.words += batch.n_words

    def result(self) -> dict[str, Any]:
        """The figures of the steps taken: tokens/s, MiB kept, the model's size and the batches'."""
        return dict(
            kept_mib=self.kept / 2**20,
            vocab=self.model.config.vocab_size,
            params=sum(p.numel() for p in self.model.parameters()),
            steps=len(self.batches) - 1,
            rows=self.batches[1].lengths.numel(),
            tokens=self.words,
            seconds=self.seconds,
            tokens_per_s=self.words / self.seconds,
        )


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=["cpu", "small", "original"], choices=sorted(PRESETS))
    parser.add_argument(
        "--implementations",
        nargs="+",
        default=["fast", "fused"],
        choices=BILM_IMPLEMENTATIONS,
        help="biLM paths to time side by side (default fast fused)",
    )
    parser.add_argument(
        "--device",
        default="cuda" if torch.cuda.is_available() else "cpu",
        help="cpu or cuda[:N] (default: cuda when available)",
    )
    parser.add_argument(
        "--tokens-per-batch",
        type=integer_at_least(MIN_TOKENS_PER_BATCH),
        default=2048,
        help="padded tokens a step (22 per sentence)",
    )
    parser.add_argument("--steps", type=positive_int, default=3)
    parser.add_argument("--vocab-size", type=integer_at_least(SIZE_LIMITS["vocab_size"][0]), default=30000)
    parser.add_argument("--num-sampled", type=positive_int, default=1024)
    parser.add_argument("--threads", type=positive_int, help="torch CPU threads")
    parser.add_argument("--amp", action="store_true", help="bfloat16 autocast (CUDA only, as in `elmo pretrain`)")
    parser.add_argument(
        "--clip",
        action="store_true",
        help="keep the presets' cell/projection clipping (then the fused path cannot run)",
    )
    parser.add_argument(
        "--checkpointing",
        action="store_true",
        help="run each path also under activation checkpointing, beside it (tokens/s and MiB kept for the backward; "
        "twice the models in memory: 6.4 GiB of peak RSS for the original preset's fast and fused on the CPU, "
        "2048 tokens a step)",
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        device = resolve_device(args.device)
    except ValueError as err:
        exit_with_error(parser, err)
    amp = args.amp and device.type == "cuda"
    print(
        f"device: {machine(str(device))}; torch {torch.__version__}; threads {torch.get_num_threads()}; "
        f"{args.tokens_per_batch} padded tokens a step; synthetic vocabulary up to {args.vocab_size}, "
        f"{args.num_sampled} sampled; {'clipping' if args.clip else 'clip-free'}; "
        f"{'bf16 autocast' if amp else 'float32'}; seed {SEED} (text and weights); "
        "ratio: tokens/s against the preset's first path, or a path's own without checkpointing",
        flush=True,
    )
    # seeded, and only read by the runs: every preset's paths run the same batches
    vocab, batches = synthetic_batches(args.tokens_per_batch, args.steps, args.vocab_size)
    for preset in args.presets:
        runs: dict[str, PathRun] = {}
        for implementation, checkpointing in [
            (implementation, checkpointing)
            for implementation in args.implementations
            for checkpointing in ([False, True] if args.checkpointing else [False])
        ]:
            label = f"{implementation}{'+ckpt' if checkpointing else ''}"
            try:
                runs[label] = PathRun(
                    preset, implementation, vocab, batches, args.num_sampled, amp, device, args.clip, checkpointing
                )
            except (RuntimeError, ValueError) as err:  # e.g. fused with clipping, out of memory
                print(f"{preset:9s} {label:11s} failed: {first_line(err)}", flush=True)
        for index in range(1, len(batches)):
            for label, run in list(runs.items()):
                try:
                    run.step(index)
                except RuntimeError as err:  # out of memory
                    print(f"{preset:9s} {label:11s} failed: {first_line(err)}", flush=True)
                    del runs[label]
        results = {label: run.result() for label, run in runs.items()}
        for label, r in results.items():
            implementation = label.removesuffix("+ckpt")
            against = implementation if label != implementation and implementation in results else next(iter(results))
            print(
                f"{preset:9s} {label:11s} {r['params'] / 1e6:7.1f}M params (vocabulary {r['vocab']})  "
                f"{r['rows']:4d} sentences a step  {r['steps']} steps  {r['tokens']:7d} tokens in "
                f"{r['seconds']:7.2f} s  ->  {r['tokens_per_s']:9.0f} tokens/s, {r['kept_mib']:8.1f} MiB kept, "
                f"{r['tokens_per_s'] / results[against]['tokens_per_s']:5.2f}x {against}",
                flush=True,
            )


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
