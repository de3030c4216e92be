"""Pretraining the biLM (``elmo pretrain``) and its perplexity (``elmo perplexity``).

One code path for one process and for ``torchrun --nproc_per_node N`` (DDP: NCCL on GPUs, gloo
on CPU; rank r reads every N-th sentence of each epoch's order). Checkpoints hold the model,
the optimizer, the data position (epoch, batch) and every rank's RNG state, so a killed run
resumes exactly where its last checkpoint was taken.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import torch
from torch import distributed as dist
from tqdm.auto import tqdm

from ..configuration_elmo import BILM_IMPLEMENTATIONS, ElmoConfig
from ..fileio import PathLike, atomic_file, build_aside, check_output_folder, write_text_atomic
from ..loading import ModelSource, resolve_model
from ..modeling_lm import ElmoForBidirectionalLM
from ..tokenization_elmo import check_pre_tokenizer
from .data import LMBatch, SentenceBatcher, read_corpus
from .vocab import VOCAB_FILE, Vocabulary, build_vocabulary

CHECKPOINT_FILE = "checkpoint.pt"
LOSS_LOG = "losses.tsv"

#: Config fields of a clip-free model (``--no-clip``): what the ``fused`` biLM path can run.
NO_CLIP: Dict[str, Any] = dict(cell_clip=None, proj_clip=None)

#: Size presets: the released models' shapes ("small", "original") and a CPU-sized one ("cpu").
#: They keep ElmoConfig's clipping (3.0, as the released models); add ``NO_CLIP`` (``--no-clip``)
#: for a model that trains on the fused LSTM kernel.
PRESETS: Dict[str, Dict[str, Any]] = {
    "cpu": dict(filters=[[1, 32], [2, 32], [3, 64], [4, 128]], n_highway=1,
                lstm_dim=256, projection_dim=128, n_layers=2),
    "small": dict(filters=[[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]],
                  n_highway=1, lstm_dim=1024, projection_dim=128, n_layers=2),
    "original": dict(filters=[[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]],
                     n_highway=2, lstm_dim=4096, projection_dim=512, n_layers=2),
}


@dataclass
class PretrainSettings:
    """Everything that defines a pretraining run (saved with its checkpoints)."""

    train_file: str
    output_dir: str
    valid_file: Optional[str] = None
    init_model: Optional[str] = None
    preset: str = "cpu"
    config_overrides: Dict[str, Any] = field(default_factory=dict)
    token_embedding: str = "char_cnn"
    vocab_file: Optional[str] = None
    vocab_size: int = 50_000
    min_count: int = 3
    softmax: str = "sampled"
    num_sampled: int = 4096
    epochs: Optional[float] = None
    max_tokens: Optional[int] = None
    tokens_per_batch: int = 2048
    max_sentence_tokens: int = 100
    optimizer: str = "adagrad"
    lr: Optional[float] = None
    clip_norm: float = 10.0
    dropout: float = 0.1
    amp: bool = False
    seed: int = 0
    checkpoint_dir: Optional[str] = None
    checkpoint_every_steps: int = 0
    checkpoint_every_minutes: float = 10.0
    save_dtype: str = "float32"
    data_description: str = ""
    #: How the corpus was split into tokens, saved in the tokenizer's config so that raw text is
    #: split the same way: "whitespace" or "spacy:LANG" (see ``tokenization_elmo.split_words``).
    pre_tokenizer: str = "whitespace"
    max_steps: Optional[int] = None  # stop (and checkpoint) early, e.g. to split a run across sessions
    max_minutes: Optional[float] = None  # training time after which the run ends as if finished
    bilm_implementation: str = "auto"  # the biLM path in training; see resolve_bilm_implementation
    data_workers: Optional[int] = None  # processes collating batches ahead; None: see data_workers_for

    def resolved_checkpoint_dir(self) -> Path:
        if self.checkpoint_dir:
            return Path(self.checkpoint_dir)
        out = Path(self.output_dir)
        return out.with_name(out.name + ".checkpoint")


#: Settings a resumed run may change (how long it runs and how often it checkpoints).
_RUN_LENGTH_FIELDS = ("max_steps", "max_tokens", "epochs", "checkpoint_every_steps", "checkpoint_every_minutes",
                      "valid_file", "save_dtype", "data_description", "pre_tokenizer", "output_dir",
                      "checkpoint_dir", "max_minutes", "bilm_implementation", "data_workers")


def check_settings(settings: PretrainSettings) -> None:
    """Raise ``ValueError`` (``FileNotFoundError`` for a missing file) for any setting that
    cannot run, naming it: called before anything is written, so a refused run leaves nothing.

    The model's shape (preset + overrides) is checked by building its ``ElmoConfig``; an
    ``--init-model`` is found by ``resolve_init_model`` and loaded by ``build_model``, both
    also before any write.
    """
    s = settings

    def number(name: str, value: Any, least: float, *, inclusive: bool = False, below: Optional[float] = None) -> None:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and (
            value >= least if inclusive else value > least) and (below is None or value < below)
        if not ok:
            bounds = f"{'>=' if inclusive else '>'} {least}" + (f" and < {below}" if below is not None else "")
            raise ValueError(f"--{name.replace('_', '-')} must be a finite number {bounds}, got {value!r}")

    def integer(name: str, value: Any, least: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= {least}, got {value!r}")

    if (s.epochs is None) == (s.max_tokens is None):
        raise ValueError("set the run length with exactly one of --epochs or --max-tokens")
    number("dropout", s.dropout, 0, inclusive=True, below=1)
    number("clip_norm", s.clip_norm, 0, inclusive=True)
    # (check, field, least); an optional field is checked only when set (not None)
    optional = {"epochs", "max_tokens", "lr", "max_steps", "max_minutes", "data_workers"}
    for check, name, least in ((number, "epochs", 0), (integer, "max_tokens", 1), (number, "lr", 0),
                               (number, "checkpoint_every_minutes", 0), (integer, "tokens_per_batch", 1),
                               (integer, "max_sentence_tokens", 1), (integer, "vocab_size", 4),
                               (integer, "min_count", 1), (integer, "num_sampled", 1),
                               (integer, "checkpoint_every_steps", 0), (integer, "max_steps", 1),
                               (number, "max_minutes", 0), (integer, "data_workers", 0)):
        if name not in optional or getattr(s, name) is not None:
            check(name, getattr(s, name), least)
    for name, allowed in (("preset", sorted(PRESETS)), ("optimizer", ["adagrad", "adam"]),
                          ("softmax", ["sampled", "full"]), ("token_embedding", ["char_cnn", "word"]),
                          ("save_dtype", ["float32", "float16", "bfloat16"]),
                          ("bilm_implementation", ["auto", *BILM_IMPLEMENTATIONS])):
        if getattr(s, name) not in allowed:
            raise ValueError(f"--{name.replace('_', '-')} must be one of {allowed}, got {getattr(s, name)!r}")
    filters = s.config_overrides.get("filters")
    if filters is not None and not (isinstance(filters, list) and filters and all(
            isinstance(f, list) and len(f) == 2 and all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                                        for v in f) for f in filters)):
        raise ValueError(f"--filters must be a JSON list of [width, n_channels] pairs of positive integers, "
                         f"e.g. [[1,32],[2,64]]; got {json.dumps(filters)}")
    for name, value in s.config_overrides.items():
        if name not in ("filters", *NO_CLIP):  # clipping (None with --no-clip) is checked by ElmoConfig
            integer(name, value, 0 if name == "n_highway" else 1)
    for name in ("train_file", "valid_file", "vocab_file"):
        path = getattr(s, name)
        if path is not None and not Path(path).is_file():
            raise FileNotFoundError(f"--{name.replace('_', '-')} {path}: no such file")
    check_pre_tokenizer(s.pre_tokenizer)
    if s.init_model is None:
        ElmoConfig(**{**PRESETS[s.preset], **s.config_overrides, "dropout": s.dropout})


def resolve_init_model(settings: PretrainSettings) -> Optional[ModelSource]:
    """Where ``settings.init_model`` is (``None`` without one); a name that cannot be found or
    read fails here, before anything is written, saying that ``--init-model`` named it."""
    if settings.init_model is None:
        return None
    try:
        return resolve_model(settings.init_model)
    except OSError as err:  # ModelNotFoundError / InvalidModelError
        raise type(err)(f"--init-model: {err}") from None


def _load_init_model(source: Path, model_class):
    """``model_class.from_pretrained(source)`` with a one-line error naming ``--init-model``."""
    try:
        return model_class.from_pretrained(source)
    except Exception as err:  # missing or corrupt files fail in many ways (OSError, SafetensorError, ...)
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ValueError(f"--init-model {source} cannot be loaded ({type(err).__name__}: {reason})") from None


#: ``bilm_implementation="auto"`` trains on the fused LSTM kernel for clip-free models on these
#: devices. On CUDA it is cuDNN; on CPU torch's kernel is slower than the fast path at the shapes
#: measured (BENCHMARKS.md, "Pretraining throughput"), so CPU training stays on "fast".
FUSED_BY_DEFAULT_ON = ("cuda",)


# -- distributed ------------------------------------------------------------------------------
def distributed_context() -> tuple[int, int]:
    """(rank, world_size); initialises the process group when started by torchrun."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _all_reduce(value: torch.Tensor, op=None) -> torch.Tensor:
    if dist.is_initialized():
        dist.all_reduce(value, op=op or dist.ReduceOp.SUM)
    return value


# -- model ------------------------------------------------------------------------------------
def build_model(settings: PretrainSettings, vocabulary: Vocabulary,
                init_source: Optional[ModelSource] = None) -> ElmoForBidirectionalLM:
    """A fresh LM from a preset (+ overrides), or one continued from ``settings.init_model``
    (``init_source``: its ``resolve_init_model``, when the caller has it already)."""
    lm_fields = dict(vocab_size=len(vocabulary), softmax=settings.softmax, num_sampled=settings.num_sampled,
                     token_embedding=settings.token_embedding, dropout=settings.dropout)
    if settings.init_model is None:
        if settings.preset not in PRESETS:
            raise ValueError(f"unknown preset {settings.preset!r}; choose one of {sorted(PRESETS)}")
        fields = {**PRESETS[settings.preset], **settings.config_overrides, **lm_fields}
        return ElmoForBidirectionalLM(ElmoConfig(**fields))
    source = init_source or resolve_init_model(settings)
    if source.has_lm_head:
        model = _load_init_model(source.path, ElmoForBidirectionalLM)
        saved = Vocabulary.from_file(source.path / VOCAB_FILE)
        if saved.words != vocabulary.words:
            raise ValueError(f"{settings.init_model} was trained with its own {VOCAB_FILE}; continue with "
                             f"--vocab {source.path / VOCAB_FILE}")
        model.config.softmax, model.config.num_sampled = settings.softmax, settings.num_sampled
        model.config.dropout = settings.dropout
        model.elmo.bilm.dropout.p = settings.dropout
        return model
    from ..modeling_elmo import ElmoModel

    base = _load_init_model(source.path, ElmoModel)  # a converted folder, or original files (folder or zip)
    config = ElmoConfig.from_dict({**base.config.to_dict(), **lm_fields})
    model = ElmoForBidirectionalLM(config)
    model.elmo.load_state_dict(base.state_dict())
    return model


def resolve_bilm_implementation(requested: str, config: ElmoConfig, device: torch.device) -> str:
    """The biLM path to train on: ``requested``, or for ``"auto"`` the fused LSTM kernel when
    the model is clip-free and the device is in ``FUSED_BY_DEFAULT_ON``, else ``"fast"``."""
    if requested == "auto":
        fused = config.fused_lstm_unsupported() is None and device.type in FUSED_BY_DEFAULT_ON
        return "fused" if fused else "fast"
    if requested == "fused" and config.fused_lstm_unsupported():
        raise ValueError(f"--bilm-implementation fused: {config.fused_lstm_unsupported()} (train with --no-clip)")
    return requested


def data_workers_for(requested: Optional[int], device: torch.device) -> int:
    """Processes that collate batches ahead of the training step: ``requested``, or by default 4
    on CUDA (collating 16k tokens in Python takes about as long as a GPU step) and 0 on CPU
    (where the step is far longer and the cores are the model's)."""
    if requested is not None:
        return requested
    return min(4, max(1, (os.cpu_count() or 2) - 1)) if device.type == "cuda" else 0


class _CollatedBatches(torch.utils.data.Dataset):
    """The listed batches of a ``SentenceBatcher`` as tensors, one ``LMBatch`` an item."""

    def __init__(self, batcher: SentenceBatcher, batches: Sequence[Any]) -> None:
        self.batcher, self.batches = batcher, batches

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int) -> LMBatch:
        return self.batcher.collate(self.batches[index])


def collated_batches(batcher: SentenceBatcher, batches: Sequence[Any], workers: int):
    """``batcher.collate`` of every batch, in order; with ``workers`` > 0 collated ahead by that
    many processes (the same batches: the order and content never depend on them)."""
    if workers == 0:
        return (batcher.collate(indices) for indices in batches)
    # batch_size None: each item is already a batch. Its own generator: the workers' seeds must not
    # be drawn from the global RNG, which dropout and the sampled softmax use (exact resume).
    return torch.utils.data.DataLoader(_CollatedBatches(batcher, batches), batch_size=None, num_workers=workers,
                                       prefetch_factor=4, generator=torch.Generator())


# -- checkpoints ------------------------------------------------------------------------------
def _atomic_torch_save(obj: Any, path: Path) -> None:
    with atomic_file(path) as tmp:
        torch.save(obj, tmp)


def _read_json(path: Path, fix: str) -> Any:
    """A JSON file, or a ``ValueError`` naming it and saying how to ``fix`` it when it is damaged."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is damaged ({err}); {fix}") from None


def _damaged(path: Path, folder: Path, err: BaseException) -> ValueError:
    reason = (str(err).strip().splitlines() or [type(err).__name__])[0]
    return ValueError(f"{path} is damaged ({type(err).__name__}: {reason}); delete {folder} to start the run "
                      "again from the beginning")


def _torch_load(path: Path, folder: Path) -> Dict[str, Any]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; delete {folder} to start the run again from the beginning")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch reports a damaged file with many types (zip, pickle, EOF errors)
        raise _damaged(path, folder, err) from None
    if not isinstance(state, dict):
        raise _damaged(path, folder, TypeError(f"holds a {type(state).__name__}, not a checkpoint"))
    return state


def save_checkpoint(folder: Path, model, optimizer, position: Dict[str, Any], rank: int, world: int) -> None:
    """Model + optimizer (rank 0), RNG state of every rank, and the data position."""
    folder.mkdir(parents=True, exist_ok=True)
    _atomic_torch_save({"rng": torch.get_rng_state()}, folder / f"rng-rank{rank}.pt")
    if dist.is_initialized():
        dist.barrier()
    if rank == 0:
        _atomic_torch_save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "world_size": world, **position}, folder / CHECKPOINT_FILE)
    if dist.is_initialized():
        dist.barrier()


def load_checkpoint(folder: Path, model, optimizer, rank: int, world: int) -> Optional[Dict[str, Any]]:
    """Restore a checkpoint written by ``save_checkpoint``; returns the data position or None."""
    path = folder / CHECKPOINT_FILE
    if not path.is_file():
        return None
    state = _torch_load(path, folder)
    rng_path = folder / f"rng-rank{rank}.pt"
    try:
        if state["world_size"] != world:
            raise ValueError(f"{path} was written by {state['world_size']} processes; resume with as many "
                             f"(got {world})")
        try:
            model.load_state_dict(state["model"])
        except RuntimeError as err:  # e.g. a vocab.txt cut short: the softmax has other rows
            raise ValueError(f"{path} does not fit the model of {folder / 'settings.json'} and "
                             f"{folder / VOCAB_FILE} (one of them is damaged: {str(err).splitlines()[-1].strip()}); "
                             f"delete {folder} to start the run again from the beginning") from None
        optimizer.load_state_dict(state["optimizer"])
        position = {k: state[k] for k in ("epoch", "batch", "step", "tokens_seen", "elapsed")}
    except (KeyError, RuntimeError, TypeError) as err:
        raise _damaged(path, folder, err) from None
    try:
        torch.set_rng_state(_torch_load(rng_path, folder)["rng"])
    except (KeyError, RuntimeError, TypeError) as err:
        raise _damaged(rng_path, folder, err) from None
    return position


# -- training ---------------------------------------------------------------------------------
def make_optimizer(name: str, params, lr: Optional[float]) -> torch.optim.Optimizer:
    """Adagrad (lr 0.2, accumulator 1.0, as bilm-tf) or Adam (lr 1e-3)."""
    if name == "adagrad":
        return torch.optim.Adagrad(params, lr=lr or 0.2, initial_accumulator_value=1.0)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr or 1e-3)
    raise ValueError(f"unknown optimizer {name!r}; choose adagrad or adam")


def train_step(model, optimizer, batch: LMBatch, device: torch.device, clip_norm: float, amp: bool) -> torch.Tensor:
    """One optimisation step; returns the (rank-local) loss."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
        out = model(input_ids=batch.input_ids.to(device), lengths=batch.lengths.to(device),
                    labels=batch.labels.to(device))
    out.loss.backward()
    if clip_norm > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    return out.loss.detach()


def pretrain(settings: PretrainSettings, overwrite: bool = False, show_progress: bool = True) -> Optional[Path]:
    """Train (or resume) the run defined by ``settings``; returns the model folder when finished.

    The run ends at its token budget (``epochs`` or ``max_tokens``) or, with ``max_minutes``,
    after the first step that brings its training time (all sessions) to that many minutes:
    either way it checkpoints and writes the model folder. Returns None when the run stopped at
    ``settings.max_steps`` before its end (resume it with the same command).
    """
    rank, world = distributed_context()
    device = torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}" if torch.cuda.is_available() else "cpu")
    check_settings(settings)
    init_source = resolve_init_model(settings)
    ckpt_dir = settings.resolved_checkpoint_dir()
    inputs = [p for p in (settings.train_file, settings.valid_file, settings.vocab_file, settings.init_model) if p]
    out_dir = check_output_folder(settings.output_dir, overwrite=overwrite, inputs=inputs)

    sentences = read_corpus(settings.train_file, settings.max_sentence_tokens)
    saved_settings = ckpt_dir / "settings.json"
    vocab_path = ckpt_dir / VOCAB_FILE
    if vocab_path.is_file():
        try:
            vocabulary = Vocabulary.from_file(vocab_path)
        except ValueError as err:
            raise ValueError(f"{vocab_path} is damaged ({err}); delete {ckpt_dir} to start the run again from the "
                             "beginning") from None
    elif settings.vocab_file:
        vocabulary = Vocabulary.from_file(settings.vocab_file)
    elif init_source is not None and init_source.has_lm_head:
        vocabulary = Vocabulary.from_file(init_source.path / VOCAB_FILE)
    else:
        vocabulary = build_vocabulary(sentences, settings.vocab_size, settings.min_count)
    if saved_settings.is_file():
        previous = _read_json(saved_settings, f"delete {ckpt_dir} to start the run again from the beginning")
        if not isinstance(previous, dict):
            raise ValueError(f"{saved_settings} is damaged (not a JSON object); delete {ckpt_dir} to start again")
        changed = {k for k, v in asdict(settings).items() if previous.get(k) != v and k not in _RUN_LENGTH_FIELDS}
        if changed:
            raise ValueError(f"{ckpt_dir} holds a run with other settings ({sorted(changed)}); "
                             "use another --checkpoint-dir or delete it")

    torch.manual_seed(settings.seed)
    model = build_model(settings, vocabulary, init_source).to(device)  # loads --init-model: the last check before writing
    if rank == 0:
        ckpt_dir.mkdir(parents=True, exist_ok=True)
        vocabulary.save(vocab_path)
        write_text_atomic(saved_settings, json.dumps(asdict(settings), indent=2))
    model.train()
    saved_implementation = model.config.bilm_implementation  # what the model folder will say
    model.config.bilm_implementation = resolve_bilm_implementation(settings.bilm_implementation, model.config, device)
    word_inputs = model.config.token_embedding == "word"
    optimizer = make_optimizer(settings.optimizer, model.parameters(), settings.lr)
    torch.manual_seed(settings.seed * 1000 + rank + 1)  # dropout and sampled candidates: per rank
    position = load_checkpoint(ckpt_dir, model, optimizer, rank, world) or dict(
        epoch=0, batch=0, step=0, tokens_seen=0, elapsed=0.0)
    ddp_model = model
    if world > 1:
        ddp_model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None, find_unused_parameters=word_inputs)

    batcher = SentenceBatcher(sentences, vocabulary, settings.tokens_per_batch, settings.seed, rank, world,
                              word_inputs=word_inputs, max_characters_per_token=model.config.max_characters_per_token)
    total_tokens = settings.max_tokens if settings.max_tokens is not None else int(settings.epochs * batcher.n_words)
    amp = settings.amp and device.type == "cuda"
    workers = data_workers_for(settings.data_workers, device)
    progress = tqdm(total=total_tokens, initial=position["tokens_seen"], unit="tok", unit_scale=True,
                    disable=not show_progress or rank != 0, desc="pretrain", smoothing=0.05)
    started, started_tokens = time.monotonic(), position["tokens_seen"]
    last_checkpoint = time.monotonic()
    loss_ema: Optional[float] = None
    loss_log = _loss_log(ckpt_dir / LOSS_LOG, position["step"]) if rank == 0 else None
    finished = False
    while not finished:
        batches = batcher.epoch_batches(position["epoch"])
        n_batches = int(_all_reduce(torch.tensor(len(batches)), dist.ReduceOp.MIN if dist.is_initialized() else None))
        for batch in collated_batches(batcher, batches[position["batch"] : n_batches], workers):
            loss = train_step(ddp_model, optimizer, batch, device, settings.clip_norm, amp)
            loss = _all_reduce(loss.float().cpu()) / world  # the mean over ranks (what DDP optimises)
            words = int(_all_reduce(torch.tensor(batch.n_words)))
            position["batch"] += 1
            position["step"] += 1
            position["tokens_seen"] += words
            loss_ema = float(loss) if loss_ema is None else 0.98 * loss_ema + 0.02 * float(loss)
            progress.update(words)
            elapsed = time.monotonic() - started
            rate = (position["tokens_seen"] - started_tokens) / max(elapsed, 1e-9)
            progress.set_postfix({"loss": f"{loss_ema:.3f}", "tok/s": f"{rate:,.0f}"}, refresh=False)
            run_seconds = position["elapsed"] + time.monotonic() - last_checkpoint
            if rank == 0:
                loss_log.write(f"{position['step']}\t{position['epoch']}\t{position['tokens_seen']}\t{float(loss):.6f}"
                               f"\t{run_seconds:.1f}\n")
            out_of_time = settings.max_minutes is not None and run_seconds >= 60 * settings.max_minutes
            finished = position["tokens_seen"] >= total_tokens or _agree(out_of_time)
            stop_now = settings.max_steps is not None and position["step"] >= settings.max_steps
            due = (settings.checkpoint_every_steps and position["step"] % settings.checkpoint_every_steps == 0) or (
                time.monotonic() - last_checkpoint > 60 * settings.checkpoint_every_minutes)
            if finished or stop_now or _agree(bool(due)):
                position_to_save = dict(position, elapsed=position["elapsed"] + time.monotonic() - last_checkpoint)
                if loss_log is not None:
                    loss_log.flush()
                save_checkpoint(ckpt_dir, model, optimizer, position_to_save, rank, world)
                position["elapsed"] = position_to_save["elapsed"]
                last_checkpoint = time.monotonic()
            if finished:
                break
            if stop_now:
                progress.close()
                if loss_log is not None:
                    loss_log.close()
                return None
        else:
            position["epoch"] += 1
            position["batch"] = 0
    progress.close()
    if loss_log is not None:
        loss_log.close()
    divergence = rank_divergence(model)
    if rank != 0:
        dist.barrier()
        return out_dir
    model.eval()
    metrics: Dict[str, Any] = {}
    if world > 1:
        metrics["world_size"] = world
        metrics["max_weight_difference_between_ranks"] = divergence
    if settings.valid_file:
        metrics["valid"] = perplexity(model, vocabulary, read_corpus(settings.valid_file, settings.max_sentence_tokens))
    model.config.bilm_implementation = saved_implementation
    save_lm_folder(model, vocabulary, out_dir, settings, position, metrics, overwrite=overwrite)
    if dist.is_initialized():
        dist.barrier()
    return out_dir


def _loss_log(path: Path, step: int):
    """The per-step loss log (step, epoch, tokens seen, loss, training seconds so far), line-buffered
    so that it can be followed while the run goes on, cut back to ``step`` on resume."""
    kept = []
    if path.is_file() and step > 0:
        kept = [line for line in path.read_text().splitlines(keepends=True)[1:] if int(line.split("\t")[0]) <= step]
    handle = open(path, "w", encoding="utf-8", buffering=1)
    handle.write("step\tepoch\ttokens_seen\ttrain_loss\tseconds\n")
    handle.writelines(kept)
    return handle


def rank_divergence(model: torch.nn.Module) -> float:
    """The largest |weight - rank 0's weight| over all parameters and ranks (0.0 for one process)."""
    if not dist.is_initialized():
        return 0.0
    worst = torch.zeros((), dtype=torch.float64)
    for param in model.parameters():
        reference = param.detach().clone()
        dist.broadcast(reference, src=0)
        worst = torch.maximum(worst, (param.detach() - reference).abs().max().double().cpu())
    return float(_all_reduce(worst.to(next(model.parameters()).device), dist.ReduceOp.MAX))


def _agree(flag: bool) -> bool:
    """True on every rank when it is True on rank 0 (time-based triggers differ across ranks)."""
    if not dist.is_initialized():
        return flag
    value = torch.tensor(int(flag))
    dist.broadcast(value, src=0)
    return bool(value)


# -- evaluation -------------------------------------------------------------------------------
@torch.no_grad()
def perplexity(
    model: ElmoForBidirectionalLM,
    vocabulary: Vocabulary,
    sentences: Sequence[str],
    tokens_per_batch: int = 4096,
    show_progress: bool = False,
) -> Dict[str, float]:
    """Full-softmax perplexity of both directions over ``sentences`` (each ``<S> ... </S>``).

    Every sentence of n tokens gives n+1 predictions per direction (the forward LM predicts
    w1..wn and ``</S>``; the backward LM wn..w1 and ``<S>``), each from the initial state.
    Returns ``forward``, ``backward`` (exp of the mean cross-entropy), ``average`` (their
    arithmetic mean, the paper's figure), ``predictions`` per direction and ``unk_rate``.
    """
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    word_inputs = model.config.token_embedding == "word"
    batcher = SentenceBatcher(sentences, vocabulary, tokens_per_batch, word_inputs=word_inputs,
                              max_characters_per_token=model.config.max_characters_per_token)
    order = sorted(range(len(sentences)), key=lambda i: batcher.lengths[i])
    groups: List[List[int]] = [[]]
    for i in order:
        if groups[-1] and (len(groups[-1]) + 1) * (batcher.lengths[i] + 2) > tokens_per_batch:
            groups.append([])
        groups[-1].append(i)
    totals = torch.zeros(2, dtype=torch.float64)
    n_predictions, n_unk = 0, 0
    for group in tqdm(groups, disable=not show_progress, desc="perplexity", unit="batch"):
        batch = batcher.collate(group)
        out = model(input_ids=batch.input_ids.to(device), lengths=batch.lengths.to(device),
                    labels=batch.labels.to(device), full_softmax=True)
        n = int(out.n_targets)
        totals += torch.tensor([float(out.forward_loss) * n, float(out.backward_loss) * n], dtype=torch.float64)
        n_predictions += n
        n_unk += int((batch.labels == vocabulary.unk_id).sum())
    model.train(was_training)
    forward, backward = (math.exp(float(t) / n_predictions) for t in totals)
    return {"forward": forward, "backward": backward, "average": 0.5 * (forward + backward),
            "predictions": n_predictions, "unk_rate": n_unk / max(1, n_predictions - len(sentences))}


# -- output -----------------------------------------------------------------------------------
def save_lm_folder(
    model: ElmoForBidirectionalLM,
    vocabulary: Vocabulary,
    out_dir: PathLike,
    settings: PretrainSettings,
    position: Dict[str, Any],
    metrics: Dict[str, Any],
    overwrite: bool = False,
) -> Path:
    """``save_pretrained`` + ``vocab.txt`` + tokenizer + model card, built aside and renamed into place."""
    from ..model_card import write_model_card
    from ..tokenization_elmo import ElmoTokenizer

    dtype = getattr(torch, settings.save_dtype)
    expected_bytes = sum(p.numel() for p in model.parameters()) * dtype.itemsize
    with build_aside(out_dir, overwrite=overwrite, expected_bytes=expected_bytes) as staging:
        to_save = model if dtype == torch.float32 else _cast_copy(model, dtype)
        to_save.config.dropout = 0.0
        to_save.save_pretrained(staging)
        vocabulary.save(staging / VOCAB_FILE)
        ElmoTokenizer(max_characters_per_token=model.config.max_characters_per_token,
                      pre_tokenizer=settings.pre_tokenizer).save_pretrained(staging)
        training = {"settings": publishable_settings(settings), "position": position, "metrics": metrics}
        (staging / "training.json").write_text(json.dumps(training, indent=2) + "\n")
        write_model_card(staging, **model_card_fields(model, settings, position, metrics))
    return Path(out_dir)


#: PretrainSettings fields that hold paths.
_PATH_FIELDS = ("train_file", "output_dir", "valid_file", "init_model", "vocab_file", "checkpoint_dir")


def publishable_settings(settings: PretrainSettings) -> Dict[str, Any]:
    """``settings`` as a dict whose paths name nothing of the training machine: relative to the
    working directory when inside it, else the file or folder name alone."""
    fields = asdict(settings)
    for name in _PATH_FIELDS:
        if fields[name]:
            fields[name] = publishable_path(fields[name])
    return fields


def publishable_path(path: PathLike) -> str:
    """``path`` relative to the working directory when it lies inside it, else its name alone."""
    resolved, here = Path(path).resolve(), Path.cwd().resolve()
    return str(resolved.relative_to(here)) if resolved.is_relative_to(here) else resolved.name


def _cast_copy(model: ElmoForBidirectionalLM, dtype: torch.dtype) -> ElmoForBidirectionalLM:
    import copy

    return copy.deepcopy(model).to(dtype)


def model_card_fields(model, settings: PretrainSettings, position: Dict[str, Any], metrics: Dict[str, Any]) -> Dict[str, Any]:
    """Title, description and provenance rows of a pretrained model's card."""
    cfg = model.config
    kind = "char-CNN" if cfg.token_embedding == "char_cnn" else "word-embedding (baseline)"
    provenance = {
        "training data": settings.data_description or Path(settings.train_file).name,
        "tokenisation": settings.pre_tokenizer,
        "architecture": f"{kind} biLM, {cfg.n_layers} layers, LSTM {cfg.lstm_dim}, projection {cfg.projection_dim}, "
                        f"{cfg.n_filters} char filters, {cfg.n_highway} highway, vocabulary {cfg.vocab_size}",
        "optimizer": f"{settings.optimizer} (lr {settings.lr or ('0.2' if settings.optimizer == 'adagrad' else '1e-3')}), "
                     f"clip {settings.clip_norm}, dropout {settings.dropout}, {settings.softmax} softmax"
                     + (f" ({settings.num_sampled} draws)" if settings.softmax == "sampled" else ""),
        "steps": f"{position['step']:,}",
        "tokens seen": f"{position['tokens_seen']:,}",
        "training time": f"{position.get('elapsed', 0.0) / 60:.1f} min",
    }
    if "world_size" in metrics:
        provenance["processes"] = f"{metrics['world_size']} (DDP)"
    for split, values in metrics.items():
        if not isinstance(values, dict):
            continue
        provenance[f"perplexity ({split})"] = (
            f"forward {values['forward']:.2f}, backward {values['backward']:.2f}, average {values['average']:.2f} "
            f"(full softmax, {values['predictions']:,} predictions per direction)")
    return dict(
        title=f"ELMo {cfg.n_layers}x{cfg.lstm_dim}_{cfg.projection_dim} pretrained with hf_elmo",
        description=("A bidirectional LM (ELMo, Peters et al. 2018) pretrained from scratch with `elmo pretrain`. "
                     "The folder holds the biLM with its word softmax (`ElmoForBidirectionalLM`) and `vocab.txt`; "
                     "`ElmoModel.from_pretrained` loads the biLM alone."),
        provenance=provenance,
    )


def load_lm(model: PathLike, softmax_weights: Optional[PathLike] = None) -> ElmoForBidirectionalLM:
    """An ``ElmoForBidirectionalLM`` in float32 eval mode from any model name (``resolve_model``):
    a folder written by ``elmo pretrain``, or original files (folder or zip) plus a softmax dump."""
    source = resolve_model(model)
    if softmax_weights is not None:
        if source.format != "original":
            raise ValueError(f"{model} is a save_pretrained folder; --softmax-weights goes with original files "
                             "(options.json + weights .hdf5)")
        with source.original_files() as (options, weights):
            return ElmoForBidirectionalLM.from_allennlp_with_softmax(options, weights, softmax_weights)
    if not source.has_lm_head:
        raise ValueError(f"{model} holds no biLM with a softmax (written by `elmo pretrain`); for original "
                         "files pass --softmax-weights")
    return ElmoForBidirectionalLM.from_pretrained(source.path).eval()
