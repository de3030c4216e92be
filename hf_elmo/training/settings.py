"""What defines a pretraining run: ``PretrainSettings`` (``options``'), the size ``PRESETS``, and the checks
that refuse a run before anything is written (``check_settings``, ``resolve_init_model``,
``check_vocabulary_options``).

Imports neither torch nor transformers at module level (the checks import what they need).
"""

from __future__ import annotations

import json
import re
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from ..configuration_elmo import OPTIONS_KEYS, RELEASED_FILTERS, SIZE_LIMITS
from ..messages import described, error_text, one_of
from .options import DATA as DATA
from .options import DEFAULT_LR as DEFAULT_LR
from .options import FILE_FIELDS as FILE_FIELDS
from .options import MAX_DATA_WORKERS as MAX_DATA_WORKERS
from .options import MAX_SEED as MAX_SEED
from .options import MIN_TOKENS_PER_BATCH as MIN_TOKENS_PER_BATCH
from .options import MODEL as MODEL
from .options import OPTIMISATION as OPTIMISATION
from .options import OUTPUT as OUTPUT
from .options import PRESET_NAMES, PretrainSettings, check_integer, check_numbers, flag
from .options import learning_rate as learning_rate

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
PRESETS: dict[str, dict[str, Any]] = dict(
    zip(
        PRESET_NAMES,
        (
            dict(
                filters=[[1, 32], [2, 32], [3, 64], [4, 128]], n_highway=1, lstm_dim=256, projection_dim=128, n_layers=2
            ),
            dict(filters=RELEASED_FILTERS, n_highway=1, lstm_dim=1024, projection_dim=128, n_layers=2),
            dict(filters=RELEASED_FILTERS, n_highway=2, lstm_dim=4096, projection_dim=512, n_layers=2),
        ),
        strict=True,
    )
)


#: The token embedder of a model from scratch that ``--token-embedding`` does not name: ELMo's char CNN.
DEFAULT_TOKEN_EMBEDDING = "char_cnn"


def input_name(name: str) -> str:
    """How errors name the text input of the settings field ``name``: ``the training file`` (a
    positional argument), else its option (``--valid-file``, ``--vocab``: ``flag``)."""
    return "the training file" if name == "train_file" else flag(name)


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


def _check_numbers(s: PretrainSettings) -> None:
    """The run's length and every numeric setting's bounds (``options.check_numbers``, which the command line runs
    before torch is imported), and --num-sampled within ``ElmoConfig``'s."""
    check_numbers(s)
    if s.num_sampled is not None:  # ElmoConfig's bounds, checked here for an --init-model LM too (which it would name)
        check_integer("num_sampled", s.num_sampled, *SIZE_LIMITS["num_sampled"])


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
            check_integer(name, value, 0 if name == "n_highway" else 1)


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
        check_pre_tokenizer(s.pre_tokenizer, check_language=True, what=flag("pre_tokenizer"))


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
