"""What defines a pretraining run: ``PretrainSettings``, the size ``PRESETS``, and the checks
that refuse a run before anything is written (``check_settings``, ``resolve_init_model``,
``check_vocabulary_options``).

Imports neither torch nor transformers at module level (the checks import what they need).
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import InitVar, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..configuration_elmo import OPTIONS_KEYS, RELEASED_FILTERS, SIZE_LIMITS
from ..messages import described, error_text, one_of
from .schedule import LR_SCHEDULES

#: The smallest batch: one sentence of one token between its two markers.
MIN_TOKENS_PER_BATCH = 3
#: The largest ``--seed`` (32 bits, as NumPy's and most tools' seeds; the trainer seeds torch with
#: ``seed * 1000 + rank + 1``, which a seed of 2**63 / 1000 or more would overflow).
MAX_SEED = 2**32 - 1
#: The most ``--data-workers``, as the most ``--threads`` (``hf_elmo_cli``'s ``MAX_THREADS``): far more than any
#: machine's cores; each is a process, and thousands of them exhaust the machine before the first step.
MAX_DATA_WORKERS = 1024

if TYPE_CHECKING:
    from ..loading import ModelSource

#: The char CNN's config fields (``--filters``, ``--n-highway`` among them), which shape nothing in
#: a ``--token-embedding word`` run: given as overrides there, they are refused.
CHAR_CNN_FIELDS = tuple(name for name, key in OPTIONS_KEYS.items() if key.startswith("char_cnn."))

#: Config fields of a clip-free model (``--no-clip``): what the ``fused`` biLM path can run.
NO_CLIP: dict[str, Any] = dict(cell_clip=None, proj_clip=None)

#: Size presets: the released models' shapes ("small", "original") and a CPU-sized one ("cpu").
#: They keep ElmoConfig's clipping (3.0, as the released models); add ``NO_CLIP`` (``--no-clip``)
#: for a model that trains on the fused LSTM kernel.
PRESETS: dict[str, dict[str, Any]] = {
    "cpu": dict(
        filters=[[1, 32], [2, 32], [3, 64], [4, 128]], n_highway=1, lstm_dim=256, projection_dim=128, n_layers=2
    ),
    "small": dict(
        filters=RELEASED_FILTERS,
        n_highway=1,
        lstm_dim=1024,
        projection_dim=128,
        n_layers=2,
    ),
    "original": dict(
        filters=RELEASED_FILTERS,
        n_highway=2,
        lstm_dim=4096,
        projection_dim=512,
        n_layers=2,
    ),
}


#: The token embedder of a model from scratch that ``--token-embedding`` does not name: ELMo's char CNN.
DEFAULT_TOKEN_EMBEDDING = "char_cnn"

#: The learning rate of each optimizer when ``--lr`` is not given (Adagrad's is bilm-tf's).
DEFAULT_LR: dict[str, float] = {"adagrad": 0.2, "adam": 1e-3}


def learning_rate(optimizer: str, lr: float | None) -> float:
    """The rate a run of ``optimizer`` trains with: ``lr``, or the optimizer's ``DEFAULT_LR``."""
    return DEFAULT_LR[optimizer] if lr is None else lr


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


def input_name(name: str) -> str:
    """How errors name the text input of the settings field ``name``: ``the training file`` (a
    positional argument), else its option (``--valid-file``, ``--vocab``: ``flag``)."""
    return "the training file" if name == "train_file" else flag(name)


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
    preset: str = option("cpu", "size preset for a model from scratch", MODEL, choices=sorted(PRESETS))
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
        None, "processes that collate batches ahead of the training step (default 4 on GPU, 0 on CPU)", DATA
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


#: Settings a resumed run may change (how long it runs and how often it checkpoints).
RUN_LENGTH_FIELDS = (
    "max_steps",
    "max_tokens",
    "epochs",
    "checkpoint_every_steps",
    "checkpoint_every_minutes",
    "valid_file",
    "storage_dtype",
    "data_description",
    "pre_tokenizer",
    "license",
    "output_dir",
    "checkpoint_dir",
    "max_minutes",
    "snapshot_tokens",
    "bilm_implementation",
    "data_workers",
)


def check_settings(settings: PretrainSettings) -> None:
    """Raise ``ValueError`` (``FileNotFoundError`` for a missing file) for any setting that
    cannot run, naming it: called before anything is written, so a refused run leaves nothing.

    The model's shape (preset + overrides) is checked by building its ``ElmoConfig``; an
    ``--init-model`` is found by ``resolve_init_model`` and loaded by ``build_model``, both
    also before any write.
    """
    _check_numbers(settings)
    _check_choices(settings)
    _check_config_overrides(settings)
    _check_inputs(settings)
    if settings.license is not None and not (
        isinstance(settings.license, str) and re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", settings.license)
    ):
        raise ValueError(
            "--license must be a Hub licence id (lower case, e.g. apache-2.0, cc-by-sa-4.0, mit, other), got "
            f"{described(settings.license)}"
        )
    if settings.init_model is None:
        _check_model_shape(settings)


def _shown(value: Any) -> str:
    """A refused number as the command line gave it ("nan", "-1.0"); any other value (a PretrainSettings built
    in Python may hold an array) as ``described`` names it, on one line."""
    if type(value) is float or (type(value) is int and abs(value) < 10**40):
        return repr(value)
    return described(value)


def _check_number(name: str, value: Any, least: float, *, inclusive: bool = False, below: float | None = None) -> None:
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


def _check_integer(name: str, value: Any, least: int, most: int | None = None) -> None:
    """Refuse a setting that is no integer from ``least`` to ``most`` (a bool is none)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least or (most is not None and value > most):
        bounds = f">= {least}" + (f" and <= {most}" if most is not None else "")
        raise ValueError(f"{flag(name)} must be an integer {bounds}, got {_shown(value)}")


def _check_numbers(s: PretrainSettings) -> None:
    """The run's length (exactly one of --epochs and --max-tokens) and every numeric setting's bounds."""
    if (s.epochs is None) == (s.max_tokens is None):
        raise ValueError("set the run length with exactly one of --epochs or --max-tokens")
    _check_number("dropout", s.dropout, 0, inclusive=True, below=1)
    _check_number("clip_norm", s.clip_norm, 0, inclusive=True)
    _check_integer("seed", s.seed, 0, MAX_SEED)
    if s.data_workers is not None:
        _check_integer("data_workers", s.data_workers, 0, MAX_DATA_WORKERS)
    # (check, field, least); an optional field is checked only when set (not None)
    optional = {
        "epochs",
        "max_tokens",
        "lr",
        "num_sampled",
        "max_steps",
        "max_minutes",
        "snapshot_tokens",
    }
    for check, name, least in (
        (_check_number, "epochs", 0),
        (_check_integer, "max_tokens", 1),
        (_check_integer, "snapshot_tokens", 1),
        (_check_number, "lr", 0),
        (_check_number, "checkpoint_every_minutes", 0),
        (_check_integer, "tokens_per_batch", MIN_TOKENS_PER_BATCH),
        (_check_integer, "max_sentence_tokens", 1),
        (_check_integer, "vocab_size", 4),
        (_check_integer, "min_count", 1),
        (_check_integer, "checkpoint_every_steps", 0),
        (_check_integer, "warmup_steps", 0),
        (_check_integer, "max_steps", 1),
        (_check_number, "max_minutes", 0),
    ):
        if name not in optional or getattr(s, name) is not None:
            check(name, getattr(s, name), least)
    if s.num_sampled is not None:  # ElmoConfig's bounds, checked here for an --init-model LM too (which it would name)
        _check_integer("num_sampled", s.num_sampled, *SIZE_LIMITS["num_sampled"])


def _check_choices(s: PretrainSettings) -> None:
    """Every option of a fixed set of values (its ``choices``) holds one of them, and --num-sampled
    comes only with --softmax sampled."""
    for option_field in fields(PretrainSettings):
        allowed = option_field.metadata.get("choices")
        value = getattr(s, option_field.name)
        if allowed is not None and not one_of(value, allowed) and not (value is None and option_field.default is None):
            raise ValueError(f"{flag(option_field.name)} must be one of {allowed}, got {described(value)}")
    if s.softmax == "full" and s.num_sampled is not None:  # None: not given (a resumed run may hold its old number)
        raise ValueError(
            f"{flag('num_sampled')} applies to {flag('softmax')} sampled only; drop it, or train with "
            f"{flag('softmax')} sampled"
        )


def _check_config_overrides(s: PretrainSettings) -> None:
    """The model-shape options given (``config_overrides``): --filters a list of [width, n_channels]
    pairs, no char-CNN option with --token-embedding word, every other one a positive integer
    (--n-highway may be 0)."""
    filters = s.config_overrides.get("filters")
    if filters is not None and not (
        isinstance(filters, list)
        and filters
        and all(
            isinstance(f, list)
            and len(f) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in f)
            for f in filters
        )
    ):
        raise ValueError(
            f"--filters must be a JSON list of [width, n_channels] pairs of positive integers, "
            f"e.g. [[1,32],[2,64]]; got {json.dumps(filters)}"
        )
    char_cnn = [flag(name) for name in s.config_overrides if name in CHAR_CNN_FIELDS]
    if s.token_embedding == "word" and char_cnn:  # the preset's own char-CNN fields are left unused, not refused
        raise ValueError(
            f"{', '.join(char_cnn)}: for the char CNN only, which {flag('token_embedding')} word does not have (it "
            f"embeds words); drop {'them' if len(char_cnn) > 1 else 'it'}, or train {flag('token_embedding')} char_cnn"
        )
    for name, value in s.config_overrides.items():
        if name not in ("filters", *NO_CLIP):  # clipping (None with --no-clip) is checked by ElmoConfig
            _check_integer(name, value, 0 if name == "n_highway" else 1)


def _check_inputs(s: PretrainSettings) -> None:
    """The text files given (training, validation, vocabulary) are readable text files, and the
    --pre-tokenizer's language can be loaded."""
    from ..corpus import check_text_file
    from ..word_splitting import check_pre_tokenizer

    for name in ("train_file", "valid_file", "vocab_file"):
        path = getattr(s, name)
        if path is not None:
            check_text_file(path, input_name(name))
    if s.pre_tokenizer is not None:
        check_pre_tokenizer(s.pre_tokenizer, check_language=True)


def _check_model_shape(s: PretrainSettings) -> None:
    """The model that --preset and the shape options build is one ``ElmoConfig`` accepts; a refusal
    of a given option is said by that option's flag."""
    from ..configuration_elmo import ElmoConfig, ElmoConfigError

    try:
        ElmoConfig(**{**PRESETS[s.preset], **s.config_overrides, "dropout": s.dropout})
    except ElmoConfigError as err:  # named by its option (was: 'ElmoConfig.lstm_dim must be ...')
        name = err.field.split("[")[0]  # "filters[0] width" is --filters'
        if name not in s.config_overrides:
            raise
        raise ValueError(f"{flag(name)}{err.field[len(name) :]} {err.problem}") from None


def check_vocabulary_options(settings: PretrainSettings, init_source: ModelSource | None) -> None:
    """Refuse ``--vocab-size`` or ``--min-count`` given where they build nothing: the run's vocabulary
    is then ``--vocab``'s, or that of the ``--init-model`` LM (``init_source``, from ``resolve_init_model``)
    whose softmax it continues, never one built from the training file. As for ``--preset`` against an
    ``--init-model``, an option left to its default (or given its default value) passes."""
    given = [
        name
        for name in ("vocab_size", "min_count")
        if getattr(settings, name) != PretrainSettings.__dataclass_fields__[name].default
    ]
    if not given:
        return
    if settings.vocab_file is not None:
        vocabulary = f"the words of {flag('vocab_file')} {settings.vocab_file}"
    elif init_source is not None and init_source.has_lm_head:
        vocabulary = f"that of --init-model {settings.init_model}, whose softmax the run continues"
    else:
        return
    options = " and ".join(f"{flag(name)} {getattr(settings, name)}" for name in given)
    raise ValueError(
        f"{options} would build a vocabulary from the training file, but the run's vocabulary is {vocabulary}; "
        f"drop {' and '.join(flag(name) for name in given)}"
    )


def resolve_init_model(settings: PretrainSettings) -> ModelSource | None:
    """Where ``settings.init_model`` is (``None`` without one); a name that cannot be found or
    read fails here, before anything is written, saying that ``--init-model`` named it."""
    from ..loading import resolve_model

    if settings.init_model is None:
        return None
    try:
        return resolve_model(settings.init_model)
    except OSError as err:  # ModelNotFoundError / InvalidModelError
        raise type(err)(f"--init-model: {error_text(err)}") from None


def resolved_token_embedding(settings: PretrainSettings, init_source: ModelSource | None) -> PretrainSettings:
    """``settings`` with its ``token_embedding``: as given, else that of the ``--init-model`` at
    ``init_source`` (original files embed with the char CNN), which a continued model keeps, else
    ``DEFAULT_TOKEN_EMBEDDING``."""
    if settings.token_embedding is not None:
        return settings
    config = init_source.config if init_source is not None else None
    return replace(settings, token_embedding=DEFAULT_TOKEN_EMBEDDING if config is None else config.token_embedding)
