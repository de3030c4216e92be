"""The settings of a pretraining run (``PretrainSettings``: every field an ``elmo pretrain`` option, its help,
choices and default in the field's metadata) and the other defaults and bounds that ``elmo pretrain --help`` and
``elmo perplexity --help`` state.

Imports the standard library and ``messages`` and ``schedule`` only (which import nothing else): the command line
reads it without importing ``hf_elmo`` (torch, seconds before a help text: ``hf_elmo_cli.commands._args.hf_elmo_module``). The
checks of a run's settings are ``settings``', but for the numbers' bounds (``check_numbers``), which ``elmo pretrain``
checks here before torch is imported.
"""

from __future__ import annotations

import math
import os
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

from ..messages import described, one_of
from .schedule import LR_SCHEDULES

#: The smallest batch: one sentence of one token between its two markers.
MIN_TOKENS_PER_BATCH = 3
#: Padded tokens (rows x longest, markers included) per batch when computing a perplexity.
EVAL_TOKENS_PER_BATCH = 4096
#: The names of the size presets (``settings.PRESETS``, whose shapes are ``configuration_elmo``'s: transformers).
PRESET_NAMES = ("cpu", "small", "original")

#: The learning rate of each optimizer when ``--lr`` is not given (Adagrad's is bilm-tf's).
DEFAULT_LR: dict[str, float] = {"adagrad": 0.2, "adam": 1e-3}


def learning_rate(optimizer: str, lr: float | None) -> float:
    """The rate a run of ``optimizer`` trains with: ``lr``, or the optimizer's ``DEFAULT_LR``."""
    return DEFAULT_LR[optimizer] if lr is None else lr


#: The largest ``--seed`` (32 bits, as NumPy's and most tools' seeds; the trainer seeds torch with
#: ``seed * 1000 + rank + 1``, which a seed of 2**63 / 1000 or more would overflow).
MAX_SEED = 2**32 - 1
#: The most ``--data-workers``, as the most ``--threads`` (``hf_elmo_cli``'s ``MAX_THREADS``): far more than any
#: machine's cores; each is a process, and thousands of them exhaust the machine before the first step.
MAX_DATA_WORKERS = 1024

#: ``--help`` groups of the ``elmo pretrain`` options, in order.
DATA, MODEL, OPTIMISATION, OUTPUT = "data and run length", "model", "optimisation", "checkpoints and output"


def option(default: Any, help: str, group: str, **argparse_keywords: Any) -> Any:
    """A settings field that is also an ``elmo pretrain`` option ``--NAME-WITH-DASHES``.

    Its default is the option's default; ``help`` and ``group`` place it in ``--help``;
    ``argparse_keywords`` go to ``add_argument`` (``choices``, ``metavar``), except ``flag``
    (another option name), ``aliases`` (more option names: the option's old ones) and ``run_length``
    (one of the required, exclusive run lengths).
    ``check_settings`` refuses a value outside ``choices`` whoever built the settings.
    """
    return field(default=default, metadata={"help": help, "group": group, **argparse_keywords})


def flag(name: str) -> str:
    """The ``elmo pretrain`` option of the settings field or config override ``name``: ``--vocab``
    for ``vocab_file``, else the name with dashes (``--lstm-dim``)."""
    settings_field = PretrainSettings.__dataclass_fields__.get(name)
    metadata = settings_field.metadata if settings_field else {}
    return metadata.get("flag", "--" + name.replace("_", "-"))


#: The ``PretrainSettings`` fields that name files and folders (``--init-model`` may name a Hub model or a
#: shipped one: ``loading`` reads it).
FILE_FIELDS = ("train_file", "output_dir", "valid_file", "vocab_file", "checkpoint_dir")


@dataclass
class PretrainSettings:
    """Everything that defines a pretraining run (saved with its checkpoints, and as
    ``training.json`` in the model folder). Every field but ``config_overrides`` is an option of
    ``elmo pretrain`` (its ``metadata``; see ``option``); ``train_file`` and ``output_dir`` are
    its arguments."""

    train_file: str = field(
        metadata={"help": "training text: one sentence per line, tokens split by whitespace", "metavar": "TRAIN_FILE"}
    )
    output_dir: str = field(metadata={"help": "folder for the final model", "metavar": "OUTPUT_DIR"})
    valid_file: str | None = option(None, "held-out text: its full-softmax perplexity goes into the model card", DATA)
    init_model: str | None = option(
        None, "continue from this model folder (converted, original or pretrained LM)", MODEL
    )
    preset: str = option("cpu", "size preset for a model from scratch", MODEL, choices=sorted(PRESET_NAMES))
    #: ElmoConfig fields over the preset's (the options --lstm-dim, ..., --filters, --no-clip).
    config_overrides: dict[str, Any] = field(default_factory=dict)
    #: None: the --init-model's own, or ``DEFAULT_TOKEN_EMBEDDING`` for a model from scratch (``resolved_token_embedding``).
    token_embedding: str | None = option(
        None,
        "word: the word-embedding baseline instead of the char CNN (default: the --init-model's, else char_cnn)",
        MODEL,
        choices=["char_cnn", "word"],
    )
    vocab_file: str | None = option(
        None,
        "vocab.txt (one word a line, with <S>, </S>, <UNK>) (default: an --init-model LM's own, else built from "
        "TRAIN_FILE by --vocab-size and --min-count)",
        DATA,
        flag="--vocab",
    )
    vocab_size: int = option(
        50_000, "at most this many words in a vocabulary built from TRAIN_FILE, <S> </S> <UNK> included", DATA
    )
    min_count: int = option(
        3, "a word enters a vocabulary built from TRAIN_FILE if it occurs there this many times or more", DATA
    )
    softmax: str = option("sampled", "training softmax", MODEL, choices=["sampled", "full"])
    #: None: the model config's default (ElmoConfig), or the --init-model LM's own number.
    num_sampled: int | None = option(
        None,
        "log-uniform draws of the sampled softmax, for --softmax sampled only (default: the model config's, or the "
        "--init-model LM's)",
        MODEL,
    )
    epochs: float | None = option(None, "passes over the training file (fractions allowed)", DATA, run_length=True)
    max_tokens: int | None = option(None, "training tokens to see (all ranks together)", DATA, run_length=True)
    tokens_per_batch: int = option(2048, "padded tokens per batch and rank, markers included", DATA)
    max_sentence_tokens: int = option(100, "longer lines are cut into pieces", DATA)
    optimizer: str = option("adagrad", "Adagrad (as bilm-tf) or Adam", OPTIMISATION, choices=sorted(DEFAULT_LR))
    lr: float | None = option(None, "learning rate (default 0.2 for adagrad, 1e-3 for adam)", OPTIMISATION)
    lr_schedule: str = option(
        "constant",
        "constant, or linear: decay to zero over the run's budget (its tokens, or its --max-minutes when that "
        "is further along)",
        OPTIMISATION,
        choices=list(LR_SCHEDULES),
    )
    warmup_steps: int = option(0, "raise the rate linearly from lr / N to lr over the first N steps", OPTIMISATION)
    clip_norm: float = option(10.0, "gradient norm clip (0: none)", OPTIMISATION)
    dropout: float = option(0.1, "dropout of the biLM", OPTIMISATION)
    amp: bool = option(False, "bfloat16 autocast on GPU", OPTIMISATION)
    seed: int = option(0, "seed of the initialisation, the data order, dropout and the sampled softmax", OPTIMISATION)
    checkpoint_dir: str | None = option(None, "checkpoint folder (default: OUTPUT_DIR.checkpoint)", OUTPUT)
    checkpoint_every_steps: int = option(0, "checkpoint every this many steps (0: by time only)", OUTPUT)
    checkpoint_every_minutes: float = option(10.0, "checkpoint at the first step after this many minutes", OUTPUT)
    storage_dtype: str = option(
        "float32",
        "dtype the saved weights are stored in, as save_pretrained(storage_dtype=...) stores them; config.json "
        "keeps float32, which they load as",
        OUTPUT,
        choices=["float32", "float16", "bfloat16"],
        aliases=["--save-dtype"],
    )
    data_description: str = option("", "the training data, for the model card", DATA)
    #: None: the --init-model's own, or whitespace for a model from scratch (``output.resolved_card_settings``).
    pre_tokenizer: str | None = option(
        None,
        "how TRAIN_FILE's tokens were made from raw text (spacy:en for spaCy's English rules); "
        "saved with the tokenizer, which then splits raw text the same way (word_splitting.split_words) "
        "(default: the --init-model's, else whitespace)",
        DATA,
        metavar="whitespace|spacy:LANG",
    )
    #: None: the --init-model card's licence, else ``model_card.DEFAULT_LICENSE``.
    license: str | None = option(
        None,
        "licence of the model card (a Hub licence id: apache-2.0, cc-by-sa-3.0, mit, other, ...), e.g. that of "
        "the training text (default: the --init-model's, else apache-2.0)",
        OUTPUT,
    )
    max_steps: int | None = option(
        None, "checkpoint and stop after this many steps (resume later with the same command)", OUTPUT
    )
    snapshot_tokens: int | None = option(
        None,
        "also write the model folder as it is at the step that reaches this many training tokens, to "
        "CHECKPOINT_DIR/tokens-N (no validation; N beyond the run's budget, or passed already by the run it "
        "resumes without its folder, is refused). With the constant rate (the default --lr-schedule) it equals "
        "the end of a run of --max-tokens N with the same options, which sees the same batches (an equal-budget "
        "comparison, e.g. with --token-embedding word); with --lr-schedule linear it does not, since the rate "
        "decays over the whole budget",
        OUTPUT,
    )
    max_minutes: float | None = option(
        None,
        "end the run (checkpoint and final model folder) after the step that reaches this many minutes of "
        "training time, even before its token budget",
        OUTPUT,
    )
    bilm_implementation: str = option(
        "auto",
        "biLM path in training (auto: fused for a clip-free model whose --projection-dim is below its --lstm-dim "
        "on CUDA, else fast); the saved model "
        "keeps its config's path (fast)",
        MODEL,
        choices=["auto", "fast", "plain", "fused"],
    )
    data_workers: int | None = option(
        None,
        "processes that collate batches ahead of the training step (default on GPU: 4, or the CPU cores less one "
        "where fewer, at least 1; on CPU: 0)",
        DATA,
    )
    #: ``storage_dtype`` under its name before it took ``save_pretrained``'s: taken from Python code and
    #: from the ``settings.json`` and ``training.json`` written then (``PretrainSettings(**record)``).
    save_dtype: InitVar[str | None] = None

    def __post_init__(self, save_dtype: str | None) -> None:
        """The ``FILE_FIELDS`` with ``~`` expanded (``"~/corpus.txt"`` from Python names the home folder's, as
        the shell has it: else the checkpoint went to a folder named ``~`` in the current folder); ``save_dtype``
        (the old name) into ``storage_dtype``; both at once is a ``TypeError``."""
        for name in FILE_FIELDS:
            value = getattr(self, name)
            if isinstance(value, (str, os.PathLike)):
                setattr(self, name, os.path.expanduser(value))
        if save_dtype is None:
            return
        default = PretrainSettings.__dataclass_fields__["storage_dtype"].default
        if not one_of(self.storage_dtype, (default,)) and (
            getattr(self.storage_dtype, "shape", ()) != () or not one_of(save_dtype, (self.storage_dtype,))
        ):
            raise TypeError(
                f"PretrainSettings got storage_dtype {described(self.storage_dtype)} and save_dtype "
                f"{described(save_dtype)}, its old name: give storage_dtype alone"
            )
        self.storage_dtype = save_dtype

    def resolved_lr(self) -> float:
        """``lr``, or the optimizer's default (``learning_rate``)."""
        return learning_rate(self.optimizer, self.lr)

    def resolved_checkpoint_dir(self) -> Path:
        if self.checkpoint_dir:
            return Path(self.checkpoint_dir)
        out = Path(self.output_dir)
        return out.with_name(out.name + ".checkpoint")


def _shown(value: Any) -> str:
    """A refused number as the command line gave it ("nan", "-1.0"); any other value (a PretrainSettings built
    in Python may hold an array) as ``described`` names it, on one line."""
    if type(value) is float or (type(value) is int and abs(value) < 10**40):
        return repr(value)
    return described(value)


def check_number(name: str, value: Any, least: float, *, inclusive: bool = False, below: float | None = None) -> None:
    """Refuse a setting that is no finite number above ``least`` (or at it, ``inclusive``) and below ``below``."""
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value >= least if inclusive else value > least)
        and (below is None or value < below)
    )
    if not ok:
        bounds = f"{'>=' if inclusive else '>'} {least}" + (f" and < {below}" if below is not None else "")
        raise ValueError(f"{flag(name)} must be a finite number {bounds}, got {_shown(value)}")


def check_integer(name: str, value: Any, least: int, most: int | None = None) -> None:
    """Refuse a setting that is no integer from ``least`` to ``most`` (a bool is none)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least or (most is not None and value > most):
        bounds = f">= {least}" + (f" and <= {most}" if most is not None else "")
        raise ValueError(f"{flag(name)} must be an integer {bounds}, got {_shown(value)}")


def check_numbers(s: PretrainSettings) -> None:
    """Raise ``ValueError`` naming the option for a run length that is not exactly one of --epochs and --max-tokens,
    or a numeric setting out of its bounds (but --num-sampled, whose bounds are ``ElmoConfig``'s:
    ``settings.check_settings`` checks it, after these)."""
    if (s.epochs is None) == (s.max_tokens is None):
        raise ValueError("set the run length with exactly one of --epochs or --max-tokens")
    check_number("dropout", s.dropout, 0, inclusive=True, below=1)
    check_number("clip_norm", s.clip_norm, 0, inclusive=True)
    check_integer("seed", s.seed, 0, MAX_SEED)
    if s.data_workers is not None:
        check_integer("data_workers", s.data_workers, 0, MAX_DATA_WORKERS)
    # (check, field, least); an optional field is checked only when set (not None)
    optional = {"epochs", "max_tokens", "lr", "max_steps", "max_minutes", "snapshot_tokens"}
    for check, name, least in (
        (check_number, "epochs", 0),
        (check_integer, "max_tokens", 1),
        (check_integer, "snapshot_tokens", 1),
        (check_number, "lr", 0),
        (check_number, "checkpoint_every_minutes", 0),
        (check_integer, "tokens_per_batch", MIN_TOKENS_PER_BATCH),
        (check_integer, "max_sentence_tokens", 1),
        (check_integer, "vocab_size", 4),
        (check_integer, "min_count", 1),
        (check_integer, "checkpoint_every_steps", 0),
        (check_integer, "warmup_steps", 0),
        (check_integer, "max_steps", 1),
        (check_number, "max_minutes", 0),
    ):
        if name not in optional or getattr(s, name) is not None:
            check(name, getattr(s, name), least)
