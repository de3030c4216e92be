"""What defines a pretraining run: ``PretrainSettings``, the size ``PRESETS``, and the checks
that refuse a run before anything is written (``check_settings``, ``resolve_init_model``).

Imports neither torch nor transformers at module level (the checks import what they need).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Optional

if TYPE_CHECKING:
    from ..loading import ModelSource

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
RUN_LENGTH_FIELDS = ("max_steps", "max_tokens", "epochs", "checkpoint_every_steps", "checkpoint_every_minutes",
                     "valid_file", "save_dtype", "data_description", "pre_tokenizer", "output_dir",
                     "checkpoint_dir", "max_minutes", "bilm_implementation", "data_workers")


def check_settings(settings: PretrainSettings) -> None:
    """Raise ``ValueError`` (``FileNotFoundError`` for a missing file) for any setting that
    cannot run, naming it: called before anything is written, so a refused run leaves nothing.

    The model's shape (preset + overrides) is checked by building its ``ElmoConfig``; an
    ``--init-model`` is found by ``resolve_init_model`` and loaded by ``build_model``, both
    also before any write.
    """
    from ..configuration_elmo import BILM_IMPLEMENTATIONS, ElmoConfig
    from ..tokenization_elmo import check_pre_tokenizer

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
    from ..loading import resolve_model

    if settings.init_model is None:
        return None
    try:
        return resolve_model(settings.init_model)
    except OSError as err:  # ModelNotFoundError / InvalidModelError
        raise type(err)(f"--init-model: {err}") from None
