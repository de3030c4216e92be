"""The training loop of ``elmo pretrain``: ``pretrain(settings)`` runs a ``Trainer``.

One code path for one process and for ``torchrun --nproc_per_node N`` (``distributed``: rank r
takes every N-th batch of each epoch's, ``data.SentenceBatcher``). A run checks everything before it writes
(``settings``; the validation file is read then, and the folders it writes in must be writable),
restores its last checkpoint when there is one (``checkpoints``), trains until
its token budget, ``max_minutes`` or ``max_steps``, and at its end writes the model folder
(``output``) with the validation perplexity (``evaluation``) in its card. A step whose loss is not
finite (the run diverged) stops it with one line, saving nothing of that step.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
import torch
from tqdm.auto import tqdm

from ..corpus import read_corpus
from ..devices import resolve_device
from ..fileio import (
    check_writable,
    exclusive_lock,
    folder_for_the_run,
    input_identity,
    lock_path,
    remove_stale_temporaries,
)
from ..modeling_lm import ElmoForBidirectionalLM
from ..output_folders import check_output_folder, output_kind
from .checkpoints import (
    check_checkpoint_folder,
    check_resumed_init_model,
    init_model_record,
    load_checkpoint,
    open_loss_log,
    resumed_settings,
    run_started,
    save_checkpoint,
    saved_vocabulary,
    snapshot_folder,
    start_run,
)
from .data import LMBatch, SentenceBatcher, collated_batches, data_workers_for
from .distributed import (
    agree,
    all_reduce,
    barrier,
    distributed_context,
    end_distributed,
    from_rank0,
    rank_divergence,
    refused_together,
    warn,
)
from .evaluation import VALID_SEEN_KEY, perplexity, valid_share_seen_in_training
from .model import build_model, make_optimizer, resolve_bilm_implementation
from .output import init_model_card, round_to_storage, save_lm_folder, warn_of_a_license_change
from .schedule import budget_spent, scheduled_lr
from .settings import (
    PretrainSettings,
    check_settings,
    check_vocabulary_options,
    flag,
    input_name,
    resolve_init_model,
)
from .vocab import VOCAB_FILE, Vocabulary, build_vocabulary

#: The share of the validation sentences found in the training text from which a run warns that its
#: --valid-file is not held out (``Trainer._warn_of_valid_sentences_in_training``); held-out text of a
#: natural corpus shares far fewer, its most common short sentences.
VALID_SEEN_IN_TRAINING = 0.5
#: The share of the training tokens outside a vocabulary that was not built from the training file
#: (``--vocab``, an ``--init-model`` LM's) from which a run warns that it trains on ``<UNK>``
#: (``Trainer._warn_of_an_unfit_vocabulary``): a vocabulary of text cased or split otherwise, or of
#: another language; a natural corpus leaves a few percent out of a vocabulary made from its kind of text.
UNKNOWN_IN_TRAINING = 0.2
#: At most this many sentences, spread evenly over the training file, are counted for that warning
#: and for the next.
UNKNOWN_SAMPLE_SENTENCES = 10_000
#: The rank correlation between the ids of such a vocabulary and the counts of its words in those
#: sentences (``Vocabulary.frequency_rank_correlation``) above which a run of the sampled softmax warns
#: that the vocabulary is not in decreasing frequency, the order its log-uniform candidates assume
#: (``Trainer._warn_of_an_unfit_vocabulary``). A vocabulary built by count from other text of the
#: language measures about -0.3 or below, one in alphabetical or random order about 0 (within 0.05
#: once it has ``ORDER_SAMPLE_WORDS`` words).
ORDER_CORRELATION = -0.1
#: The fewest words of the vocabulary (the special words left out) that those sentences must hold for
#: that warning: with fewer, text of one topic can put a vocabulary by frequency near 0 too.
ORDER_SAMPLE_WORDS = 500


def train_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batch: LMBatch,
    device: torch.device,
    clip_norm: float,
    amp: bool,
) -> torch.Tensor:
    """One optimisation step; returns the (rank-local) loss."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
        out = model(
            input_ids=batch.input_ids.to(device), lengths=batch.lengths.to(device), labels=batch.labels.to(device)
        )
    out.loss.backward()
    if clip_norm > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    return out.loss.detach()


def pretrain(
    settings: PretrainSettings, overwrite: bool = False, show_progress: bool = True, device: str | None = None
) -> Path | None:
    """Train (or resume) the run defined by ``settings`` on ``device`` (``devices.resolve_device``:
    default cuda when available, under torchrun ``cuda:LOCAL_RANK``; a resumed run may change it);
    returns the model folder when finished.

    The run ends at its token budget (``epochs`` or ``max_tokens``) or, with ``max_minutes``,
    after the first step that brings its training time (all sessions) to that many minutes:
    either way it checkpoints and writes the model folder. Returns None when the run stopped at
    ``settings.max_steps`` before its end (resume it with the same command).
    """
    return run_pretraining(settings, overwrite=overwrite, show_progress=show_progress, device=device)[0]


def run_pretraining(
    settings: PretrainSettings, overwrite: bool = False, show_progress: bool = True, device: str | None = None
) -> tuple[Path | None, int]:
    """``pretrain``'s folder (or None) and the step the run was at when it ended (what ``elmo pretrain``
    says when it stopped at ``max_steps``). The trainer is freed before ``end_distributed`` destroys
    its process group: a DDP model freed after it can hang a torchrun rank at exit."""
    try:
        trainer = Trainer(settings, overwrite=overwrite, show_progress=show_progress, device=device)
        out, step = trainer.run(), int(trainer.position["step"])
        del trainer
        return out, step
    finally:
        end_distributed()


class Trainer:
    """One pretraining run on this process (one rank of ``world``).

    ``run`` = ``_check`` (everything that can refuse the run, before any write) -> ``_prepare``
    (corpus, vocabulary, model, optimizer, the position restored from the last checkpoint) ->
    ``_train`` (``_step`` a batch, ``_record`` it, ``_snapshot`` at ``snapshot_tokens``,
    ``_checkpoint`` when due) -> ``_finish`` (validation perplexity and the model folder).
    ``position`` is the data position saved in checkpoints: epoch, batch (within the epoch),
    step, tokens_seen (all ranks) and elapsed (training seconds of every session before the last
    checkpoint).
    """

    def __init__(
        self, settings: PretrainSettings, overwrite: bool = False, show_progress: bool = True, device: str | None = None
    ) -> None:
        self.settings, self.overwrite, self.show_progress = settings, overwrite, show_progress
        self.device = resolve_device(device)
        self.rank, self.world = distributed_context(self.device)

    def run(self) -> Path | None:
        """The model folder when the run is finished; None when it stopped at ``max_steps``."""
        with refused_together():  # every rank has checked the folders before rank 0 writes the checkpoint folder
            self._check()
        with self._one_run():
            self._prepare()
            if not self._train():
                return None
            return self._finish()

    @contextmanager
    def _one_run(self) -> Iterator[None]:
        """Rank 0 holds ``OUTPUT_DIR.lock`` and ``CHECKPOINT_DIR.lock`` (``fileio.lock_path``,
        ``exclusive_lock``) for the run: a second run that writes the same model folder or trains
        into the same checkpoint folder is refused at once, on every rank, before it reads the
        checkpoint. The folders on the way to them that rank 0 creates for the locks
        (``fileio.folder_for_the_run``) go again with the locks when the run wrote nothing in them."""
        folders = (  # (folder, who writes it, what to do)
            (self.out_dir, "is being trained by another run of elmo pretrain", "write elsewhere"),
            (
                self.checkpoint_dir,
                "is the checkpoint folder of another run of elmo pretrain",
                "give another --checkpoint-dir",
            ),
        )
        with ExitStack() as held:
            with refused_together():  # busy, or a file of that name that is no lock
                if self.rank == 0:
                    for folder, taken, what_to_do in folders:
                        lock = lock_path(folder)
                        held.enter_context(folder_for_the_run(lock.parent))
                        busy = f"{folder} {taken} (it holds {lock}); wait for it to end, or {what_to_do}"
                        held.enter_context(exclusive_lock(lock, busy, what=folder))
                        remove_stale_temporaries(folder)  # those a killed run's writes left
            yield

    # -- before training ---------------------------------------------------------------------
    def _check(self) -> None:
        """Refuse a run that cannot start, before anything is written."""
        s = self.settings
        check_settings(s)
        self.init_source = resolve_init_model(s)
        # --init-model as resolved (~, a shipped name, a Hub id: the folder it names), never as typed
        init_path = [self.init_source.path] if self.init_source is not None else []
        inputs: list[Path] = [*(Path(p) for p in (s.train_file, s.valid_file, s.vocab_file) if p), *init_path]
        self.out_dir = check_output_folder(
            s.output_dir, overwrite=self.overwrite, inputs=inputs, not_empty=self._holds_a_runs_model()
        )
        # after the output's check, which refuses an OUTPUT_DIR such as '.' (no name to put .checkpoint after)
        self.checkpoint_dir = s.resolved_checkpoint_dir()
        check_checkpoint_folder(self.checkpoint_dir, self.out_dir, inputs)
        check_writable(self.checkpoint_dir, self.checkpoint_dir)  # the output's folder: check_output_folder
        check_vocabulary_options(s, self.init_source)
        # read now, so that a bad file stops the run before anything is written (rank 0 scores it at the end)
        valid = (
            read_corpus(s.valid_file, s.max_sentence_tokens, what=input_name("valid_file")) if s.valid_file else None
        )
        self.valid_sentences = valid if self.rank == 0 else None
        #: The share of the validation sentences that are also training sentences (``_prepare``), for the card.
        self.valid_seen_in_training: float | None = None

    def _holds_a_runs_model(self) -> str | None:
        """The refusal of an output folder that holds a model whose run's checkpoint is there (what
        --overwrite does then: continue that run), else None (--overwrite replaces the folder)."""
        out = Path(self.settings.output_dir)
        if not out.name or output_kind(out) != "model":  # '.' has no checkpoint folder: refused as the current one
            return None
        folder = self.settings.resolved_checkpoint_dir()
        if not run_started(folder):
            return None
        return (
            f"{out} holds the model of the run whose checkpoint is {folder}: pass --overwrite to continue that run "
            "from its checkpoint (e.g. with a larger --epochs or --max-tokens) and replace the model, or choose "
            f"another output folder (or delete {folder} first, to train a new model with --overwrite)"
        )

    def _vocabulary(self, sentences) -> Vocabulary:
        """The resumed run's, else ``--vocab``, else the ``--init-model`` LM's, else built from the corpus."""
        s = self.settings
        resumed = saved_vocabulary(self.checkpoint_dir)
        if resumed is not None:
            return resumed
        if s.vocab_file:
            return Vocabulary.from_file(s.vocab_file)
        if self.init_source is not None and self.init_source.has_lm_head:
            return Vocabulary.from_file(self.init_source.path / VOCAB_FILE)
        try:
            return build_vocabulary(sentences, s.vocab_size, s.min_count)
        except ValueError as err:  # e.g. --min-count above every word's count
            raise ValueError(f"{s.train_file}: {err}") from None

    def _prepare(self) -> None:
        """Corpus, vocabulary, model and optimizer, restored from the last checkpoint when there is one, checked
        on every rank before rank 0 records the run in its checkpoint folder (``start_run``), its first write."""
        with refused_together():  # a refusal of one rank (e.g. its damaged RNG state) stops every rank
            sentences = read_corpus(
                self.settings.train_file, self.settings.max_sentence_tokens, what=input_name("train_file")
            )
            if self.valid_sentences is not None:
                self._warn_of_valid_sentences_in_training(sentences)
            train_file_identity = input_identity(self.settings.train_file)
            self.vocabulary = self._vocabulary(sentences)
            self.settings = s = resumed_settings(
                self.checkpoint_dir, self.settings, train_file_identity, self.init_source
            )
            torch.manual_seed(s.seed)
            # loading --init-model is the last check before writing
            model = build_model(s, self.vocabulary, self.init_source).to(self.device)  # type: ignore[arg-type]  # typeshed's functools.wraps leaves PreTrainedModel.to unbound
            init_config = init_model_record(model.config) if self.init_source is not None else None
            check_resumed_init_model(self.checkpoint_dir, s, init_config)
            # what the cards of this run say of --init-model: read once, as it is when the run starts
            self.init_card = init_model_card(self.init_source)
            warn_of_a_license_change(s, self.init_card)
            model.train()
            self.saved_implementation = model.config.bilm_implementation  # what the model folder will say
            model.config.bilm_implementation = resolve_bilm_implementation(
                s.bilm_implementation, model.config, self.device
            )
            word_inputs = model.config.token_embedding == "word"
            self.model: ElmoForBidirectionalLM = model
            self.base_lr = s.resolved_lr()  # the schedule's rate before warm-up and decay
            self.optimizer = make_optimizer(s.optimizer, model.parameters(), self.base_lr)
            torch.manual_seed(s.seed * 1000 + self.rank + 1)  # dropout and sampled candidates: per rank
            self.position: dict[str, Any] = load_checkpoint(
                self.checkpoint_dir, model, self.optimizer, self.rank, self.world
            ) or dict(epoch=0, batch=0, step=0, tokens_seen=0, elapsed=0.0)
            self.batcher = SentenceBatcher(
                sentences,
                self.vocabulary,
                s.tokens_per_batch,
                s.seed,
                self.rank,
                self.world,
                word_inputs=word_inputs,
                max_characters_per_token=model.config.max_characters_per_token,
            )
            longer = int((self.batcher.lengths + 2 > s.tokens_per_batch).sum())
            if longer:
                warn(
                    f"--tokens-per-batch {s.tokens_per_batch} is below --max-sentence-tokens {s.max_sentence_tokens} + 2 "
                    f"(the sentence markers): {longer} of the {len(self.batcher.lengths)} sentences of {s.train_file} get a "
                    "batch of their own, "
                    f"larger than {s.tokens_per_batch} tokens; raise --tokens-per-batch or lower --max-sentence-tokens"
                )
            if s.max_tokens is not None:
                self.total_tokens = s.max_tokens
            else:
                assert s.epochs is not None  # check_settings: one of the two is set
                self.total_tokens = self.batcher.words_in_epochs(s.epochs)
                if self.total_tokens == 0:
                    raise ValueError(
                        f"--epochs {s.epochs} of {s.train_file} ({self.batcher.n_words} tokens) is less than one "
                        "token; raise --epochs"
                    )
            self._check_snapshot_tokens()
            if self.world > 1:  # every rank has a batch (a check before writing; one process always has one)
                self._epoch_batches(self.position["epoch"])
        with refused_together():  # the last step before training: nothing is written for a run that cannot start
            if self.rank == 0:
                self._warn_of_an_unfit_vocabulary(sentences)
                start_run(self.checkpoint_dir, s, self.vocabulary, train_file_identity, init_config)
        self.ddp_model: torch.nn.Module = model
        if self.world > 1:
            self.ddp_model = torch.nn.parallel.DistributedDataParallel(
                model,
                device_ids=[self.device.index] if self.device.type == "cuda" else None,
                find_unused_parameters=word_inputs,
            )

    def _check_snapshot_tokens(self) -> None:
        """Refuse a ``snapshot_tokens`` that the run would never write (``_step`` writes it at the step
        that reaches it): beyond its token budget, or reached already by the position it resumes from
        without its snapshot folder (the option given or its folder deleted since)."""
        s, tokens, seen = self.settings, self.settings.snapshot_tokens, self.position["tokens_seen"]
        if tokens is None:
            return
        option = flag("snapshot_tokens")
        if tokens > self.total_tokens:
            budget = (
                f"{flag('max_tokens')} {s.max_tokens}"
                if s.max_tokens is not None
                else f"{flag('epochs')} {s.epochs} of {s.train_file}"
            )
            raise ValueError(
                f"{option} {tokens} is beyond the run's budget of {self.total_tokens:,} tokens ({budget}), so it would "
                f"never be written; give at most {self.total_tokens}"
            )
        folder = snapshot_folder(self.checkpoint_dir, tokens)
        if tokens <= seen and not folder.is_dir():
            raise ValueError(
                f"{option} {tokens} is passed already: the run in {self.checkpoint_dir} has seen {seen:,} tokens, and "
                f"its snapshot {folder} was not written then; drop {option}, or give more than {seen}"
            )

    def _warn_of_valid_sentences_in_training(self, sentences: Sequence[str]) -> None:
        """Measure the share of the validation sentences among the training ``sentences`` (rank 0, which
        holds them), which the card states beside the validation perplexity, and warn when it is
        ``VALID_SEEN_IN_TRAINING`` or more (the same file, a copy, a part of it): that perplexity would
        then measure text the model was trained on."""
        valid, s = self.valid_sentences, self.settings
        assert valid is not None
        self.valid_seen_in_training = share = valid_share_seen_in_training(valid, sentences)
        if share >= VALID_SEEN_IN_TRAINING:
            shared = round(share * len(valid))
            warn(
                f"{shared:,} of the {len(valid):,} sentences of --valid-file {s.valid_file} ({share:.0%}) "
                f"are also in the training file {s.train_file}: the validation perplexity of the model card would "
                "measure text the model was trained on; give text held out from the training file"
            )

    def _warn_of_an_unfit_vocabulary(self, sentences: Sequence[str]) -> None:
        """Warn when ``UNKNOWN_IN_TRAINING`` or more of the training tokens (of at most
        ``UNKNOWN_SAMPLE_SENTENCES`` of its ``sentences``, spread evenly) are not words of a vocabulary that
        the run did not build from them: ``--vocab``'s, or the ``--init-model`` LM's ``vocab.txt``. They
        train as ``<UNK>``; the warning names the commonest. From the same counts, a run of the sampled
        softmax also warns when that vocabulary is not in decreasing frequency (``ORDER_CORRELATION``,
        ``ORDER_SAMPLE_WORDS``): its log-uniform candidates would then be words drawn at random rather
        than the frequent ones."""
        s = self.settings
        if s.vocab_file is not None:
            source = f"{flag('vocab_file')} {s.vocab_file}"
            reorder = (
                f"sort {s.vocab_file} by decreasing count (<S>, </S>, <UNK> first), as elmo pretrain builds it "
                f"without {flag('vocab_file')}, or give --softmax full"
            )
        elif self.init_source is not None and self.init_source.has_lm_head:
            source = f"the {VOCAB_FILE} of --init-model {s.init_model}"
            reorder = "give --softmax full (its softmax rows follow that order)"
        else:  # built from the training file: its --vocab-size and --min-count say what is left out
            return
        sample = sentences[:: math.ceil(len(sentences) / UNKNOWN_SAMPLE_SENTENCES)]
        counts = Counter(token for sentence in sample for token in sentence.split())
        n_tokens = counts.total()
        unknown = Counter({word: count for word, count in counts.items() if word not in self.vocabulary})
        share = unknown.total() / n_tokens
        sampled = "" if len(sample) == len(sentences) else f" (on {len(sample):,} of its sentences, spread through it)"
        if share >= UNKNOWN_IN_TRAINING:
            commonest = ", ".join(repr(word) for word, _ in unknown.most_common(3))
            warn(
                f"{share:.0%} of the {n_tokens:,} tokens of the training file {s.train_file}{sampled} are not words "
                f"of {source} and "
                f"train as <UNK> (the commonest: {commonest}): the biLM would learn little of them; split and case "
                "the training text as the vocabulary's words are"
            )
        if s.softmax != "sampled":  # the full softmax has no candidates: any order trains alike
            return
        correlation = self.vocabulary.frequency_rank_correlation(counts, min_words=ORDER_SAMPLE_WORDS)
        if correlation is not None and correlation > ORDER_CORRELATION:
            warn(
                f"{source} is not in decreasing frequency: the rank correlation of its ids with the counts of its "
                f"words in the training file {s.train_file}{sampled} is {correlation:+.2f} (one sorted by count is "
                f"near -1), and the sampled softmax draws its candidates as if the first ids were the commonest "
                f"words; {reorder}"
            )

    def _epoch_batches(self, epoch: int) -> list[np.ndarray]:
        """This rank's batches of ``epoch`` (``SentenceBatcher.epoch_batches``)."""
        try:
            return self.batcher.epoch_batches(epoch)
        except ValueError as err:  # fewer batches than processes
            raise ValueError(f"{self.settings.train_file}: {err}") from None

    # -- training ----------------------------------------------------------------------------
    def _train(self) -> bool:
        """Train from ``position`` on; True when the run is finished, False when it stopped at
        ``max_steps`` (checkpointed, to be resumed)."""
        s = self.settings
        workers = data_workers_for(s.data_workers, self.device)
        self.progress = tqdm(
            total=self.total_tokens,
            initial=self.position["tokens_seen"],
            unit="tok",
            unit_scale=True,
            disable=not self.show_progress or self.rank != 0,
            desc="pretrain",
            smoothing=0.05,
        )
        self.started, self.started_tokens = time.monotonic(), self.position["tokens_seen"]
        self.last_checkpoint = time.monotonic()
        self.loss_ema: float | None = None
        self.loss_log: IO[str] | None = (
            open_loss_log(self.checkpoint_dir, self.position["step"]) if self.rank == 0 else None
        )
        self._schedule_lr(self.position["elapsed"])
        try:
            if self._run_is_over(self.position["elapsed"]):  # its model folder was not written (e.g. a full disk)
                return True
            if s.max_steps is not None and self.position["step"] >= s.max_steps:  # resumed there: not a step more
                return False
            while True:
                batches = self._epoch_batches(self.position["epoch"])  # as many on every rank
                for batch in collated_batches(self.batcher, batches[self.position["batch"] :], workers):
                    finished, stop_now = self._step(batch)
                    if finished:
                        return True
                    if stop_now:
                        return False
                self.position["epoch"] += 1
                self.position["batch"] = 0
        finally:
            self.progress.close()
            if self.loss_log is not None:
                self.loss_log.close()

    def _step(self, batch: LMBatch) -> tuple[bool, bool]:
        """Train on ``batch``, record it, checkpoint when due; returns (finished, stop_now)."""
        s, position = self.settings, self.position
        amp = s.amp and self.device.type == "cuda"
        loss = train_step(self.ddp_model, self.optimizer, batch, self.device, s.clip_norm, amp)
        loss = all_reduce(loss.float().cpu()) / self.world  # the mean over ranks (what DDP optimises)
        if not math.isfinite(float(loss)):  # the same mean on every rank: all of them stop
            raise ValueError(self._diverged(float(loss)))
        words = int(all_reduce(torch.tensor(batch.n_words)))
        position["batch"] += 1
        position["step"] += 1
        position["tokens_seen"] += words
        run_seconds = self._record(float(loss), words)
        self._schedule_lr(run_seconds)
        finished = self._run_is_over(run_seconds)
        stop_now = s.max_steps is not None and position["step"] >= s.max_steps
        due = (s.checkpoint_every_steps and position["step"] % s.checkpoint_every_steps == 0) or (
            time.monotonic() - self.last_checkpoint > 60 * s.checkpoint_every_minutes
        )
        snapshot = s.snapshot_tokens
        if snapshot is not None and position["tokens_seen"] - words < snapshot <= position["tokens_seen"]:
            self._snapshot(snapshot)
        if finished or stop_now or agree(bool(due)):
            self._checkpoint()
        return finished, stop_now

    def _diverged(self, loss: float) -> str:
        """What stops a run whose training loss is no longer finite (its weights are not either):
        the step is neither recorded nor saved, so the checkpoint folder keeps the steps before."""
        folder, again = self.checkpoint_dir, "start the run again with a lower --lr (or with --clip-norm)"
        if run_started(folder):  # its checkpoint binds a run in that folder to its settings
            kept = f"its last checkpoint, in {folder}, is kept; {again} in another --checkpoint-dir, or delete {folder} first"
        else:
            kept = f"no checkpoint was taken; {again}"
        step = self.position["step"] + 1
        return f"the training loss is {loss} at step {step}: the run diverged, and it stops without saving this step; {kept}"

    def _run_is_over(self, run_seconds: float) -> bool:
        """Whether the run has seen its token budget or, with ``max_minutes``, its training time
        (rank 0's clock)."""
        s = self.settings
        out_of_time = s.max_minutes is not None and run_seconds >= 60 * s.max_minutes
        return self.position["tokens_seen"] >= self.total_tokens or agree(out_of_time)

    def _record(self, loss: float, words: int) -> float:
        """Progress bar and loss log for the step just taken; returns the run's training seconds."""
        position = self.position
        self.loss_ema = loss if self.loss_ema is None else 0.98 * self.loss_ema + 0.02 * loss
        self.progress.update(words)
        rate = (position["tokens_seen"] - self.started_tokens) / max(time.monotonic() - self.started, 1e-9)
        self.progress.set_postfix({"loss": f"{self.loss_ema:.3f}", "tok/s": f"{rate:,.0f}"}, refresh=False)
        run_seconds = self._training_seconds()
        if self.loss_log is not None:
            self.loss_log.write(
                f"{position['step']}\t{position['epoch']}\t{position['tokens_seen']}\t{loss:.6f}\t{run_seconds:.1f}\n"
            )
        return run_seconds

    def _schedule_lr(self, run_seconds: float) -> None:
        """Set the rate of the next step (``schedule``); a linear decay by training time follows
        rank 0's clock, so that every rank steps with the same rate."""
        s, position = self.settings, self.position
        by_time = s.lr_schedule == "linear" and s.max_minutes is not None
        seconds = from_rank0(run_seconds) if by_time else run_seconds  # no collective when time does not count
        spent = budget_spent(position["tokens_seen"], self.total_tokens, seconds, s.max_minutes)
        lr = scheduled_lr(self.base_lr, s.lr_schedule, s.warmup_steps, position["step"], spent)
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def _checkpoint(self) -> None:
        """Save model, optimizer, RNG states and ``position`` (its training seconds brought up to now)."""
        position = self._position_now()
        if self.loss_log is not None:
            self.loss_log.flush()
        save_checkpoint(self.checkpoint_dir, self.model, self.optimizer, position, self.rank, self.world)
        self.position["elapsed"] = position["elapsed"]
        self.last_checkpoint = time.monotonic()

    def _snapshot(self, tokens: int) -> None:
        """Rank 0 writes the model folder as it is now to ``snapshot_folder`` (no validation:
        ``elmo perplexity`` measures it), replacing one an earlier session of the run wrote."""
        if self.rank != 0:
            return
        folder = snapshot_folder(self.checkpoint_dir, tokens)
        with self._as_saved():
            save_lm_folder(
                self.model,
                self.vocabulary,
                folder,
                self.settings,
                self._position_now(),
                {},
                self.init_card,
                overwrite=True,
            )

    def _training_seconds(self) -> float:
        """Training seconds of the run up to now: ``elapsed`` (every session's, before the last
        checkpoint) and those since."""
        return self.position["elapsed"] + time.monotonic() - self.last_checkpoint

    def _position_now(self) -> dict[str, Any]:
        """``position`` with its training seconds brought up to now."""
        return dict(self.position, elapsed=self._training_seconds())

    @contextmanager
    def _as_saved(self) -> Iterator[None]:
        """The model's config as a model folder gets it (the config's biLM path, no dropout), and
        back to the training values afterwards."""
        config = self.model.config
        training = config.bilm_implementation, config.dropout
        config.bilm_implementation, config.dropout = self.saved_implementation, 0.0
        try:
            yield
        finally:
            config.bilm_implementation, config.dropout = training

    # -- after training ----------------------------------------------------------------------
    def _finish(self) -> Path:
        """Rank 0 writes the model folder (with the validation perplexity); every rank returns it."""
        divergence = rank_divergence(self.model)
        if self.rank != 0:
            barrier()
            return self.out_dir
        model, s = self.model, self.settings
        model.eval()
        metrics: dict[str, Any] = {}
        if self.world > 1:
            metrics["world_size"] = self.world
            metrics["max_weight_difference_between_ranks"] = divergence
        if self.valid_sentences is not None:
            round_to_storage(model, getattr(torch, s.storage_dtype))  # the card's figure is that of the saved weights
            metrics["valid"] = perplexity(model, self.vocabulary, self.valid_sentences)
            metrics[VALID_SEEN_KEY] = self.valid_seen_in_training
        with self._as_saved():  # what loads from the folder embeds without dropout
            save_lm_folder(
                model,
                self.vocabulary,
                self.out_dir,
                s,
                self.position,
                metrics,
                self.init_card,
                overwrite=self.overwrite,
            )
        barrier()
        return self.out_dir
