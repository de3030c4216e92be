"""Configuration of the ELMo character-CNN biLM (Peters et al. 2018)."""

from __future__ import annotations

import fnmatch
import json
import math
import numbers
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from filelock import FileLock, Timeout
from transformers import PretrainedConfig
from transformers.utils import CONFIG_NAME
from transformers.utils import logging as hf_logging

from .messages import another_model, described, error_reason, is_number, one_of

try:
    import fcntl
except ImportError:  # Windows: no flock, and saves into one folder wait for each other through filelock's lock there
    fcntl = None  # type: ignore[assignment]

_logger = hf_logging.get_logger(__name__)

_ACTIVATIONS = ("relu", "tanh")
BILM_IMPLEMENTATIONS = ("fast", "plain", "fused")
#: The token layer: the char CNN (ELMo), or a word-embedding lookup (the baseline without characters).
TOKEN_EMBEDDINGS = ("char_cnn", "word")
#: The training loss of ``ElmoForBidirectionalLM`` (evaluation is always the full softmax).
SOFTMAX_KINDS = ("sampled", "full")
#: Log-uniform draws per batch of the sampled softmax (``num_sampled``) unless a config says otherwise.
DEFAULT_NUM_SAMPLED = 4096
#: The class whose folders hold the biLM with its word softmax (``ElmoConfig.has_lm_head``).
LM_ARCHITECTURE = "ElmoForBidirectionalLM"
#: ``pre_tokenizer`` of a model trained on whitespace-separated tokens (the original ELMo's).
WHITESPACE = "whitespace"
#: ``pre_tokenizer`` ``"spacy:LANG"``: spaCy's rules for language LANG.
SPACY_PREFIX = "spacy:"
#: ``from_pretrained`` arguments that say where a model's files are on the Hub or in its cache
#: (those the model resolver passes on; a tokenizer also passes ``proxies`` and ``subfolder``).
HUB_KWARGS = ("cache_dir", "revision", "token", "local_files_only", "force_download")
PRE_TOKENIZER_FORMS = "'whitespace' or 'spacy:LANG' (e.g. 'spacy:en', spaCy's rules for that language)"

#: The dtypes a config's ``dtype`` may name (what ``dtype="auto"`` loads the weights into).
FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float64")

#: Allowed range of each integer field that sizes the model, its inputs or its LM head. The
#: released models use 16, 1..2, 50, 4096, 512 and 2 (vocabulary 793,471); the bounds leave
#: ample room while stopping a typo from allocating gigabytes (``vocab_size`` and
#: ``num_sampled`` size the word softmax of ``ElmoForBidirectionalLM``).
SIZE_LIMITS: dict[str, tuple[int, int]] = {
    "char_embedding_dim": (1, 1024),
    "n_highway": (0, 16),
    "max_characters_per_token": (3, 256),  # at least the begin/end-of-word ids and one byte
    "lstm_dim": (1, 16384),
    "projection_dim": (1, 8192),
    "n_layers": (1, 16),
    "vocab_size": (4, 10_000_000),
    "num_sampled": (1, 1_000_000),
    "head_hidden_size": (1, 8192),  # the task heads' BiLSTM, per direction
}
#: The char CNN: at most this many filters, channels per filter and channels in all (F).
MAX_FILTERS, MAX_FILTER_CHANNELS, MAX_TOTAL_CHANNELS = 64, 8192, 16384
#: The released models' char CNN: ``ElmoConfig``'s default, and the "small" and "original" pretraining presets'.
RELEASED_FILTERS = [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]]
_FILTERS_FORM = "a list of [width, n_channels] pairs, e.g. [[1, 32], [2, 32], [3, 64]]"

#: Where each field lives in the original ``options.json``.
OPTIONS_KEYS: dict[str, str] = {
    "char_embedding_dim": "char_cnn.embedding.dim",
    "filters": "char_cnn.filters",
    "n_highway": "char_cnn.n_highway",
    "activation": "char_cnn.activation",
    "n_characters": "char_cnn.n_characters",
    "max_characters_per_token": "char_cnn.max_characters_per_token",
    "lstm_dim": "lstm.dim",
    "projection_dim": "lstm.projection_dim",
    "n_layers": "lstm.n_layers",
    "cell_clip": "lstm.cell_clip",
    "proj_clip": "lstm.proj_clip",
    "use_skip_connections": "lstm.use_skip_connections",
}


#: The fields other libraries read for the output width and depth -> (the field they follow, factor).
_DERIVED_FIELDS: dict[str, tuple[str, int]] = {
    "hidden_size": ("projection_dim", 2),
    "num_hidden_layers": ("n_layers", 1),
}


class ElmoConfigError(ValueError):
    """A config field has the wrong type or an out-of-range value.

    ``field`` names it and ``problem`` says what is wrong; the message is
    ``f"{where}{field} {problem}"``, e.g. ``ElmoConfig.lstm_dim must be ...``.
    """

    def __init__(self, field: str, problem: str, where: str = "ElmoConfig.") -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{where}{field} {problem}")


def check_integer(
    field: str, value: Any, low: int, high: int | None = None, where: str = "ElmoConfig.", note: str = ""
) -> int:
    """``value`` as an int in ``low..high`` (``high`` ``None``: no bound above), else an
    ``ElmoConfigError`` naming ``field``: the one rule for the integer settings of the config and the
    tokenizer. Integral floats (``64.0``, as a hand-edited JSON may hold) pass as the int; ``64.7``,
    bools and strings do not."""
    if high is not None:
        wanted = f"an integer in {low}..{high}"
    else:
        wanted = "a positive integer" if low == 1 else f"an integer >= {low}"
    if isinstance(value, bool) or not (
        isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer())
    ):
        raise ElmoConfigError(field, f"must be {wanted}{note}, got {described(value)}", where)
    number = int(value)
    if high is None and number < low:
        raise ElmoConfigError(field, f"must be {wanted}{note}, got {described(value)}", where)
    if high is not None and not low <= number <= high:
        raise ElmoConfigError(field, f"must be in {low}..{high}{note}, got {value}", where)
    return number


def check_size(field: str, value: Any, where: str = "ElmoConfig.") -> int:
    """``value`` as an int within ``SIZE_LIMITS[field]``, else an ``ElmoConfigError`` naming ``field``.

    Also used by the tokenizer for its ``max_characters_per_token`` (``where=""``).
    """
    return check_integer(field, value, *SIZE_LIMITS[field], where=where)


def _clip(field: str, value: Any) -> float | None:
    if value is None:
        return None
    if not is_number(value) or value <= 0:
        raise ElmoConfigError(
            field, f"must be a positive finite number, or null for no clipping, got {described(value)}"
        )
    return float(value)


def _probability(field: str, value: Any) -> float:
    """A dropout probability: a number in [0, 1)."""
    if not is_number(value) or not 0.0 <= value < 1.0:
        raise ElmoConfigError(field, f"must be a number in [0, 1), got {described(value)}")
    return float(value)


def _positive(field: str, value: Any) -> float:
    if not is_number(value) or value <= 0:
        raise ElmoConfigError(field, f"must be a positive finite number, got {described(value)}")
    return float(value)


def _flag(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ElmoConfigError(field, f"must be true or false, got {described(value)}")
    return value


def _choice(field: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ElmoConfigError(field, f"must be one of {choices}, got {described(value)}")
    return value


def _filters(value: Any, max_characters_per_token: int = SIZE_LIMITS["max_characters_per_token"][1]) -> list[list[int]]:
    """The char-CNN filters as ``[[width, n_channels], ...]`` ints, each checked."""
    if not isinstance(value, (list, tuple)):
        raise ElmoConfigError("filters", f"must be {_FILTERS_FORM}, got {described(value)}")
    if not value:
        raise ElmoConfigError("filters", "must list at least one [width, n_channels] pair")
    if len(value) > MAX_FILTERS:
        raise ElmoConfigError("filters", f"may list at most {MAX_FILTERS} filters, got {len(value)}")
    filters = []
    for index, pair in enumerate(value):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ElmoConfigError("filters", f"must be {_FILTERS_FORM}; filter {index} is {described(pair)}")
        width = _filter_width(index, pair[0], max_characters_per_token)
        channels = check_integer(f"filters[{index}] n_channels", pair[1], 1, MAX_FILTER_CHANNELS)
        filters.append([width, channels])
    total = sum(channels for _, channels in filters)
    if total > MAX_TOTAL_CHANNELS:
        raise ElmoConfigError("filters", f"add up to {total} channels; at most {MAX_TOTAL_CHANNELS} are allowed")
    return filters


def _filter_width(index: int, value: Any, max_characters_per_token: int) -> int:
    note = " (at most max_characters_per_token)"
    return check_integer(f"filters[{index}] width", value, 1, max_characters_per_token, note=note)


def pre_tokenizer_name(value: Any) -> str | None:
    """``value`` in a pre-tokenizer's saved form (``"whitespace"`` or ``"spacy:LANG"``; ``"spacy"``
    is ``"spacy:en"``), or ``None`` where it is not one. The one definition of the names, checked
    by ``ElmoConfig.pre_tokenizer`` and ``word_splitting.check_pre_tokenizer`` (the tokenizer's check)."""
    if not isinstance(value, str):
        return None
    if value == "spacy":
        return "spacy:en"
    if value == WHITESPACE or (value.startswith(SPACY_PREFIX) and value[len(SPACY_PREFIX) :].isidentifier()):
        return value
    return None


def _pre_tokenizer(value: Any) -> str | None:
    name = pre_tokenizer_name(value)
    if value is not None and name is None:
        raise ElmoConfigError("pre_tokenizer", f"must be {PRE_TOKENIZER_FORMS}, or null, got {described(value)}")
    return name


def _n_characters(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, float)) or value not in (261, 262):
        raise ElmoConfigError("n_characters", f"must be 261 or 262 (ELMo's byte ids), got {described(value)}")
    return int(value)


#: The check of each field on its own: it returns the value as kept, or raises an
#: ``ElmoConfigError`` naming the field. ``ElmoConfig`` runs it on every assignment, so a field
#: is checked however it is set: in the constructor, from a ``config.json``, as an override
#: passed to ``from_pretrained`` or by hand. What ties fields together is ``ElmoConfig.validate``.
FIELD_CHECKS: dict[str, Callable[[Any], Any]] = {
    **{field: partial(check_size, field) for field in SIZE_LIMITS if field not in ("vocab_size", "num_sampled")},
    "vocab_size": lambda value: None if value is None else check_size("vocab_size", value),
    "num_sampled": lambda value: check_size("num_sampled", DEFAULT_NUM_SAMPLED if value is None else value),
    "filters": _filters,
    "n_characters": _n_characters,
    "activation": partial(_choice, "activation", choices=_ACTIVATIONS),
    "bilm_implementation": partial(_choice, "bilm_implementation", choices=BILM_IMPLEMENTATIONS),
    "softmax": partial(_choice, "softmax", choices=SOFTMAX_KINDS),
    "token_embedding": partial(_choice, "token_embedding", choices=TOKEN_EMBEDDINGS),
    "cell_clip": partial(_clip, "cell_clip"),
    "proj_clip": partial(_clip, "proj_clip"),
    "use_skip_connections": partial(_flag, "use_skip_connections"),
    "stateful": partial(_flag, "stateful"),
    "freeze_bilm": partial(_flag, "freeze_bilm"),
    "dropout": partial(_probability, "dropout"),
    "head_dropout": partial(_probability, "head_dropout"),
    "initializer_range": partial(_positive, "initializer_range"),
    "pre_tokenizer": _pre_tokenizer,
}


class _SavesOwnUnchanged(dict[str, float]):
    """The modification times of a folder's files before a push (``UploadsNoSaveLock``), which date a save's own
    files, whatever their names, never to change: ``SAVE_LOCK``, ``MOVING_IN`` and the hidden folders of saves
    (``is_save_aside``)."""

    def __contains__(self, name: object) -> bool:
        return _a_saves_own(name) or super().__contains__(name)

    def __getitem__(self, name: str) -> float:
        return math.inf if _a_saves_own(name) else super().__getitem__(name)


def _a_saves_own(name: object) -> bool:
    """Whether ``name`` is that of a save's own file in the folder it saves into (``_SavesOwnUnchanged``)."""
    # the hidden folders of saves too, although the push holds the folder's lock and no live save makes one meanwhile:
    # a killed save's that ``saved_aside`` removed only in part (a file in it held open, on Windows) stays, changed
    # since ``earlier_files``, which transformers would upload whole
    return isinstance(name, str) and any(fnmatch.fnmatchcase(name, pattern) for pattern in SAVES_OWN)


def upload_ignored() -> list[str]:
    """``huggingface_hub``'s ``upload_folder``'s ``ignore_patterns`` for a folder saved into: a save's own files
    (``SAVES_OWN``) and what its hidden folder holds, which no push uploads (``elmo pretrain --push-to-hub``)."""
    return [*SAVES_OWN, *(f"{pattern}/*" for pattern in SAVES_OWN)]


#: Whether this context is in a model's, config's or tokenizer's ``push_to_hub``, whose upload adds the source
#: card's terms to transformers' card (``UploadsNoSaveLock._upload_modified_files``).
_PUSHING_TO_HUB: ContextVar[bool] = ContextVar("_PUSHING_TO_HUB", default=False)


class UploadsNoSaveLock:
    """The first base of the model, config and tokenizer: their pushes (``push_to_hub``, which saves into a new
    folder and uploads it, and ``save_pretrained(push_to_hub=True)``, ``push_saved``) never upload a save's own
    files: ``SAVE_LOCK``, which filelock may leave in the folder saved (``_file_locked``), a killed save too, and
    ``save_pretrained`` holds while it pushes, ``MOVING_IN``, and the hidden folder a save writes in
    (``is_save_aside``, was: uploaded half-written): transformers uploads each file not in ``files_timestamps`` or
    changed since, and they are dated never to change (``_SavesOwnUnchanged``). Their ``push_to_hub`` says a Hub
    that cannot be reached in one line (``push_errors_said``) and, to a repository without a card, has
    transformers' card carry the licence, attribution and ``base_model`` of the card of their source
    (``carry_source_card``): the tokenizer's or config's push first no longer leaves the blank card that the
    model's push then keeps."""

    package_loader: ClassVar[Any | None]  # each class's (``ElmoConfig.package_loader``)

    def push_to_hub(self, repo_id: str, *args: Any, **kwargs: Any) -> Any:
        pushing = _PUSHING_TO_HUB.set(True)
        try:
            with push_errors_said(self.package_loader, f"{type(self).__name__}.push_to_hub", repo_id):
                return super().push_to_hub(repo_id, *args, **kwargs)  # type: ignore[misc]
        finally:
            _PUSHING_TO_HUB.reset(pushing)

    def _upload_modified_files(
        self,
        working_dir: str | os.PathLike,
        repo_id: str,
        files_timestamps: dict[str, float],
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        """In ``push_to_hub``'s upload, to a repository without a card, transformers' card in ``working_dir`` gets
        the licence, attribution and ``base_model`` of the card of the source (``carry_source_card``)."""
        if _PUSHING_TO_HUB.get() and self.package_loader is not None and not hub_has_card(repo_id, kwargs.get("token")):
            carry_source_card(self, os.fspath(working_dir), kwargs.get("token"))
        timestamps = _SavesOwnUnchanged(files_timestamps)
        return super()._upload_modified_files(working_dir, repo_id, timestamps, *args, **kwargs)  # type: ignore[misc]


class ElmoConfig(UploadsNoSaveLock, PretrainedConfig):
    r"""Shapes and arithmetic options of an ELMo biLM.

    The field names follow the original ``options.json`` (see ``from_allennlp_options``).
    Every field is checked whenever it is set (``FIELD_CHECKS``: on construction, when read
    from a ``config.json`` or an ``options.json``, as an override passed to ``from_pretrained``,
    or by hand), and the fields that depend on each other on construction, when a model is
    built and when the config is saved (``validate``): a wrong type or a size outside
    ``SIZE_LIMITS`` raises an ``ElmoConfigError`` that names the field, the value and the
    allowed range.

    Args:
        char_embedding_dim: width of each character embedding (16 in the released models).
        filters: ``[[width, n_channels], ...]`` of the char CNN; their channels add up to F.
        n_highway: number of highway layers after the char CNN.
        activation: ``"relu"`` or ``"tanh"``, applied after max-pooling each filter.
        n_characters: character vocabulary incl. the padding id 0 (262; 261 in training-time
            files, which lack the padding row and are accepted by the converter).
        max_characters_per_token: character slots per token (50).
        lstm_dim: LSTM cell size C.
        projection_dim: projection size P; every layer outputs 2P (forward ++ backward).
        n_layers: number of LSTM layers L per direction.
        cell_clip: the cell state is clipped to ``[-cell_clip, cell_clip]`` (``None``: no clip).
        proj_clip: the projected hidden state is clipped likewise (``None``: no clip).
        use_skip_connections: residual connection around LSTM layers 1..L-1.
        stateful: default of ``ElmoModel.forward(stateful=...)``: carry LSTM state from one
            call to the next per batch row, as bilm-tf / AllenNLP do. Default ``False``:
            every call starts from the model's initial state (zeros, or the warm state set by
            ``ElmoModel.warm_up``), so a sentence gets the same vectors in any batch. The task
            heads (``ElmoForTokenClassification``, ``ElmoForSequenceClassification``) run the
            biLM stateless whatever it says, and warn when it is ``True``.
        dropout: dropout on the input of every LSTM layer in training mode (bilm-tf trains with
            0.1); no effect in eval mode.
        bilm_implementation: ``"fast"`` (default): the char CNN convolves only each token's real
            characters and runs once per distinct token of a batch, and both LSTM directions
            run as one batched recurrence over length-sorted rows that drop out when they end;
            ``"plain"``: the direct step-by-step formulation (every character slot, every
            token slot, one direction at a time), kept as the reference the fast path is
            tested against (equal within 1e-5 in float32); ``"fused"``: each direction's LSTM
            layers run through torch's LSTM kernel (``torch._VF.lstm`` with a projection:
            cuDNN on CUDA, one C++ loop on CPU) over packed sequences, on the same weights
            (gate order and forget bias mapped), for configs without clipping only
            (``cell_clip`` and ``proj_clip`` ``None``: the kernel cannot clip) whose
            ``projection_dim`` is below ``lstm_dim`` (as the kernel's); the char CNN
            is the fast one. Equal to the other paths within 1e-5 in float32; on CUDA only
            with ``torch.backends.cudnn.allow_tf32 = False``: torch's default (``True``) lets
            cuDNN's LSTM multiply in TF32 (3e-4 from float32 on an H200; the fast and plain
            paths use torch's matrix products, float32 unless
            ``torch.set_float32_matmul_precision`` says otherwise). It is what
            makes training fast on a GPU, so ``elmo pretrain`` picks it by itself for
            clip-free models on CUDA (``--bilm-implementation auto``) and saves the model with
            ``"fast"``; it is never chosen silently here, because a config's path must not
            depend on the device it happens to run on. Read at call time.
        freeze_bilm: the task heads (``ElmoForTokenClassification``,
            ``ElmoForSequenceClassification``) keep the biLM fixed (no gradients, eval mode) and
            train only their own layers, as in the paper. Default ``True``.
        head_hidden_size: hidden size per direction of the task heads' BiLSTM.
        head_dropout: dropout of the task heads, on their BiLSTM's input and output.
        vocab_size: V, the words of the LM's softmax (and of the word embedding), ``None`` for a
            biLM without a softmax (a converted or task model). ``ElmoForBidirectionalLM`` needs it.
            Not the number of input ids, which a char-CNN model reads as the 262 char ids
            (``len(tokenizer)``, the rows of ``get_input_embeddings()``): a biLM or task model loaded
            from an LM's folder (the shipped model: 50,000 words) keeps the LM's V, which it does not
            use.
        softmax: the LM's training loss: ``"sampled"`` (default; bilm-tf's log-uniform sampled
            softmax) or ``"full"``. Evaluation is always the full softmax.
        num_sampled: log-uniform draws per batch of the sampled softmax (default
            ``DEFAULT_NUM_SAMPLED``, 4096; ``None`` means the default too).
        token_embedding: the token layer: ``"char_cnn"`` (default, ELMo) or ``"word"``, a
            word-embedding lookup of V rows that takes word ids (B, S) instead of char ids: the
            pretraining baseline that shows what the characters add (needs ``vocab_size``).
        initializer_range: fresh weights of the linear and convolution layers are drawn from
            U(-r, r) (default 0.05), biases are zero. The embeddings (char and word) are drawn
            from U(-1, 1) and the LM's softmax from N(0, 1/P), as bilm-tf does.
        pre_tokenizer: how the raw text of the model's training corpus was split into words:
            ``"whitespace"`` (the original models, trained on Moses-like tokens) or
            ``"spacy:LANG"`` (spaCy's rules for LANG; the shipped model was trained on
            ``"spacy:en"``), ``None`` where it is not known. The ``ElmoTokenizer`` saved with a
            model records it too (``tokenizer_config.json``, which wins); a folder saved without
            its tokenizer (``model.save_pretrained`` alone) keeps it here, so that
            ``AutoTokenizer.from_pretrained`` of that folder splits raw text as the model was
            trained.

    ``hidden_size`` (2P, the width of every output layer) and ``num_hidden_layers`` (L), which
    transformers and other libraries read, follow ``projection_dim`` and ``n_layers``; setting
    them to anything else is an ``ElmoConfigError``. ``pad_token_id`` is 0, the char id of
    padding, as the tokenizer's (transformers' ``Trainer`` aligns the two, warning when they differ).
    """

    model_type = "elmo"
    #: The hf-elmo package's loader (``hf_elmo.loading.PACKAGE_LOADER``), set when the package is
    #: imported (``ElmoPreTrainedModel.package_loader`` says why it is a hook); ``None`` in a
    #: remote-code copy.
    package_loader: ClassVar[Any | None] = None

    def __init__(
        self,
        char_embedding_dim: int = 16,
        filters: Sequence[Sequence[int]] | None = None,
        n_highway: int = 1,
        activation: str = "relu",
        n_characters: int = 262,
        max_characters_per_token: int = 50,
        lstm_dim: int = 1024,
        projection_dim: int = 128,
        n_layers: int = 2,
        cell_clip: float | None = 3.0,
        proj_clip: float | None = 3.0,
        use_skip_connections: bool = True,
        stateful: bool = False,
        dropout: float = 0.0,
        bilm_implementation: str = "fast",
        freeze_bilm: bool = True,
        head_hidden_size: int = 128,
        head_dropout: float = 0.5,
        vocab_size: int | None = None,
        softmax: str = "sampled",
        num_sampled: int | None = DEFAULT_NUM_SAMPLED,
        token_embedding: str = "char_cnn",
        initializer_range: float = 0.05,
        pre_tokenizer: str | None = None,
        **kwargs: Any,
    ) -> None:
        if filters is None:
            filters = RELEASED_FILTERS
        # Each assignment runs the field's check (``__setattr__``); ``validate`` then checks them together.
        self.char_embedding_dim: int = char_embedding_dim
        self.max_characters_per_token: int = max_characters_per_token
        self.filters: list[list[int]] = filters  # type: ignore[assignment]  # kept as lists by its check
        self.n_highway: int = n_highway
        self.activation: str = activation
        self.n_characters: int = n_characters
        self.lstm_dim: int = lstm_dim
        self.projection_dim: int = projection_dim
        self.n_layers: int = n_layers
        self.cell_clip: float | None = cell_clip
        self.proj_clip: float | None = proj_clip
        self.use_skip_connections: bool = use_skip_connections
        self.stateful: bool = stateful
        self.dropout: float = dropout
        self.bilm_implementation: str = bilm_implementation
        self.freeze_bilm: bool = freeze_bilm
        self.head_hidden_size: int = head_hidden_size
        self.head_dropout: float = head_dropout
        self.vocab_size: int | None = vocab_size
        self.softmax: str = softmax
        self.num_sampled: int = num_sampled  # type: ignore[assignment]  # None becomes the default
        self.token_embedding: str = token_embedding
        self.initializer_range: float = initializer_range
        self.pre_tokenizer: str | None = pre_tokenizer
        kwargs.setdefault("pad_token_id", 0)  # the char id of padding, which the tokenizer's pad_token_id is
        for name in ("dtype", "torch_dtype"):  # transformers reads a name as getattr(torch, name), or fails later
            if kwargs.get(name) is not None and str(kwargs[name]).removeprefix("torch.") not in FLOAT_DTYPES:
                raise ElmoConfigError(
                    name, f"must be a floating-point dtype ({', '.join(FLOAT_DTYPES)}), got {described(kwargs[name])}"
                )
        super().__init__(**kwargs)
        self.validate()

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "filters":  # their widths' bound is a field, set before them on construction
            value = _filters(
                value, getattr(self, "max_characters_per_token", SIZE_LIMITS["max_characters_per_token"][1])
            )
        elif name in FIELD_CHECKS:
            value = FIELD_CHECKS[name](value)
        elif name in _DERIVED_FIELDS:
            source, factor = _DERIVED_FIELDS[name]
            if source in self.__dict__ and not one_of(value, (factor * self.__dict__[source],)):
                raise ElmoConfigError(
                    name,
                    f"is {f'{factor} * ' if factor > 1 else ''}{source} ({factor * self.__dict__[source]}) for this "
                    f"config, got {described(value)}: set {source} instead",
                )
        super().__setattr__(name, value)
        for derived, (source, factor) in _DERIVED_FIELDS.items():
            if name == source:
                super().__setattr__(derived, factor * value)

    def validate(self) -> None:
        """Check the fields that depend on each other (each field alone is checked when set):
        filter widths within ``max_characters_per_token``, ``"fused"`` only without clipping and
        with ``projection_dim`` below ``lstm_dim``,
        ``vocab_size`` for word embeddings. Runs on construction, when a model is built from
        the config and when it is saved; raises ``ElmoConfigError`` or ``ValueError``."""
        super().validate()  # type: ignore[misc]  # added to PretrainedConfig by huggingface_hub's @strict
        for index, (width, _) in enumerate(self.filters):
            _filter_width(index, width, self.max_characters_per_token)
        unsupported = self.fused_lstm_unsupported() if self.bilm_implementation == "fused" else None
        if unsupported:
            raise ValueError(unsupported)
        if self.token_embedding == "word" and self.vocab_size is None:
            raise ElmoConfigError("vocab_size", "must be set for token_embedding='word' (one embedding row per word)")

    @property
    def n_filters(self) -> int:
        """F: the total number of char-CNN channels."""
        return sum(n for _, n in self.filters)

    @property
    def output_dim(self) -> int:
        """2P: the width of every output layer."""
        return 2 * self.projection_dim

    @property
    def has_lm_head(self) -> bool:
        """Whether the model saved with this config holds the LM's word softmax
        (``ElmoForBidirectionalLM``, written by ``elmo pretrain``); see ``names_lm_head``."""
        return names_lm_head(self.architectures)

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: Any, *args: Any, **kwargs: Any) -> Any:
        """``PretrainedConfig.from_pretrained``, whose errors for bad fields name where the bad
        value came from: an override passed here (``stateful="false"``) or the config file.

        ``ElmoModel.from_pretrained`` reads the config through this method too. With the hf-elmo
        package imported, it takes every name ``ElmoModel.from_pretrained`` takes
        (``package_loader.config_source``): shipped names (``hf-elmo:elmo-2x1024-en``), the
        original files (the config of the model they convert to), a ``subfolder`` of each, and a
        name that is no model (or a subfolder that is not there) is the same one-line
        ``ModelNotFoundError``.
        """
        overrides = {
            field: kwargs.pop(field) for field in list(kwargs) if field in FIELD_CHECKS or field in _DERIVED_FIELDS
        }
        if cls.package_loader is not None:
            subfolder = kwargs.pop("subfolder", None) or ""  # the source is the subfolder itself
            pretrained_model_name_or_path = cls.package_loader.config_source(
                pretrained_model_name_or_path, kwargs, subfolder
            )
        check_saved_whole(pretrained_model_name_or_path, kwargs.get("subfolder") or "")
        try:
            if isinstance(pretrained_model_name_or_path, ElmoConfig):  # converted from the original files
                loaded = cls.from_dict(pretrained_model_name_or_path.to_dict(), **kwargs)
            else:
                loaded = super().from_pretrained(pretrained_model_name_or_path, *args, **kwargs)
        except ElmoConfigError as err:
            where = config_file(pretrained_model_name_or_path, kwargs.get("subfolder") or "")
            raise ElmoConfigError(err.field, err.problem, where=f"{where}: field ") from None
        config = loaded[0] if isinstance(loaded, tuple) else loaded  # (config, unused kwargs)
        for field, value in overrides.items():
            try:
                setattr(config, field, value)
            except ElmoConfigError as err:
                raise ElmoConfigError(err.field, err.problem, where="from_pretrained argument ") from None
        config.validate()
        return loaded

    @classmethod
    def _dict_from_json_file(cls, json_file: str | os.PathLike) -> dict[str, Any]:
        """``PretrainedConfig``'s reader of a ``config.json`` (``from_pretrained``, ``from_json_file``),
        through ``read_json_file`` (a byte-order mark is skipped), refusing what is not an ELMo config:
        a JSON value other than an object (which transformers would fail on with a ``TypeError``), or
        another ``model_type`` (which it only warns about, then builds this model from fields it does
        not have). ``hidden_size`` and
        ``num_hidden_layers`` are left out: they follow ``projection_dim`` and ``n_layers``, so a
        file whose ``n_layers`` was edited gets them anew (and the weights that no longer fit are
        named when the model loads)."""
        config_dict = cls._decode_special_floats(read_json_file(json_file))
        if not isinstance(config_dict, dict):
            raise OSError(f"{json_file}: expected a JSON object of config fields, got {described(config_dict)}")
        model_type = config_dict.get("model_type", cls.model_type)
        if model_type != cls.model_type:
            raise ElmoConfigError(
                "model_type",
                f"must be {cls.model_type!r}, got {described(model_type)}: the config of {another_model(model_type)}, not of "
                "an ELMo one",
                where=f"{json_file}: field ",
            )
        return {key: value for key, value in config_dict.items() if key not in _DERIVED_FIELDS}

    def save_pretrained(self, save_directory: str | os.PathLike, push_to_hub: bool = False, **kwargs: Any) -> None:
        """``PretrainedConfig.save_pretrained``; ``~`` is the home folder, and a path that is a file is refused
        (``check_save_folder``); another process's save into the folder is waited for (``one_save_at_a_time``); with
        ``push_to_hub``, the folder is saved whole first, then pushed (``push_saved``): ``saving_into``."""
        with saving_into(self, save_directory, push_to_hub, kwargs, SETTINGS_SUFFIXES) as (aside, _):
            super().save_pretrained(aside, **({} if push_to_hub else kwargs))

    def fused_lstm_unsupported(self) -> str | None:
        """Why ``bilm_implementation="fused"`` cannot run this config, or ``None``: clipping, or a
        ``projection_dim`` not below ``lstm_dim`` (torch's LSTM kernel takes ``nn.LSTM``'s
        ``proj_size < hidden_size`` only; at P == C it sees no projection and fails)."""
        needs = []
        if self.cell_clip is not None or self.proj_clip is not None:
            needs.append(
                f"cell_clip and proj_clip None (torch's LSTM kernel cannot clip), got cell_clip={self.cell_clip}, "
                f"proj_clip={self.proj_clip}"
            )
        if self.projection_dim >= self.lstm_dim:
            needs.append(
                f"projection_dim below lstm_dim (torch's LSTM kernel projects only to fewer units than its cell "
                f"has), got projection_dim={self.projection_dim}, lstm_dim={self.lstm_dim}"
            )
        if not needs:
            return None
        return f"ElmoConfig.bilm_implementation='fused' needs {'; and '.join(needs)}: use 'fast' for this model"

    @classmethod
    def from_allennlp_options(cls, options: dict[str, Any], **kwargs: Any) -> ElmoConfig:
        """Build a config from the original ``options.json`` dictionary.

        Extra training-time keys (dropout, n_epochs, ...) are ignored. Missing required keys
        raise a ``ValueError`` that names them.
        """
        try:
            lstm = _options_section(options, "lstm")
            cnn = _options_section(options, "char_cnn")
            fields = dict(
                char_embedding_dim=_options_section(cnn, "char_cnn.embedding")["dim"],
                filters=cnn["filters"],
                n_highway=cnn["n_highway"],
                activation=cnn["activation"],
                n_characters=cnn.get("n_characters", 262),
                max_characters_per_token=cnn["max_characters_per_token"],
                lstm_dim=lstm["dim"],
                projection_dim=lstm["projection_dim"],
                n_layers=lstm["n_layers"],
                cell_clip=lstm.get("cell_clip"),
                proj_clip=lstm.get("proj_clip"),
                use_skip_connections=lstm.get("use_skip_connections", False),
            )
        except KeyError as err:
            raise ValueError(f"options.json is missing the required key {err}") from None
        fields.update(kwargs)
        try:
            return cls(**fields)
        except ElmoConfigError as err:
            name = err.field.split("[")[0]  # "filters[0] width" is under char_cnn.filters
            if name not in OPTIONS_KEYS:
                raise
            key = OPTIONS_KEYS[name] + err.field[len(name) :]
            raise ElmoConfigError(key, err.problem, where="options field ") from None

    def to_allennlp_options(self) -> dict[str, Any]:
        """The inverse of ``from_allennlp_options`` (with ``n_characters`` 262)."""
        return {
            "lstm": {
                "dim": self.lstm_dim,
                "projection_dim": self.projection_dim,
                "n_layers": self.n_layers,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "use_skip_connections": self.use_skip_connections,
            },
            "char_cnn": {
                "activation": self.activation,
                "n_highway": self.n_highway,
                "embedding": {"dim": self.char_embedding_dim},
                "filters": [list(f) for f in self.filters],
                "n_characters": 262,
                "max_characters_per_token": self.max_characters_per_token,
            },
        }


def _options_section(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """The object at dotted ``key`` of an ``options.json`` (its last part inside ``parent``): a
    ``KeyError`` where it is missing, an ``ElmoConfigError`` naming it where it is not an object."""
    value = parent[key.rsplit(".", 1)[-1]]
    if not isinstance(value, dict):
        raise ElmoConfigError(key, f"must be an object of its fields, got {described(value)}", where="options field ")
    return value


def names_lm_head(architectures: Sequence[str] | None) -> bool:
    """Whether a config's ``architectures`` (``save_pretrained`` writes the saved class there)
    name the biLM with its word softmax, ``LM_ARCHITECTURE``. The one test of "is this an LM
    folder?": a biLM loaded from an LM folder and saved again is not one (it has no softmax)."""
    return LM_ARCHITECTURE in (architectures or ())


#: How the files that the model's ``save_pretrained`` writes are named (the config, weights, tokenizer files, code
#: copies and, pushed, the model card): a symbolic link so named in its folder would be written through
#: (``check_save_folder``).
SAVED_SUFFIXES = (".json", ".safetensors", ".bin", ".py", ".md")
#: Those of the files that the config's and the tokenizer's ``save_pretrained`` write (settings and code copies).
SETTINGS_SUFFIXES = (".json", ".py")


def check_save_folder(save_directory: str | os.PathLike, suffixes: tuple[str, ...] = SAVED_SUFFIXES) -> str:
    """``save_directory`` with ``~`` expanded (``"~/model"`` is the home folder's, as ``from_pretrained`` reads
    it; transformers made a folder named ``~`` in the current one), after refusing, in one line, a folder that is
    a file (transformers fails on it late, after writing the code copies, or only logs it and writes nothing), a
    symbolic link to nothing (transformers said ``[Errno 17] File exists``), a folder that cannot be listed (was:
    ``[Errno 13] Permission denied``), or a folder that holds a symbolic link named as a file that the save writes
    (``suffixes``: the model's ``SAVED_SUFFIXES``, the config's and tokenizer's ``SETTINGS_SUFFIXES``; a Hugging Face
    cache snapshot's files are links to its blobs), which transformers writes through, changing the file it points
    to: the one check of the model's, config's and tokenizer's ``save_pretrained``. A trailing ``/`` goes: with
    ``push_to_hub``, transformers names the repository after the path's last part, which ``"my-elmo/"`` left empty."""
    folder = os.path.expanduser(os.fspath(save_directory))
    folder = folder.rstrip(os.sep + (os.altsep or "")) or folder  # "/" stays
    if os.path.isfile(folder):
        raise NotADirectoryError(f"{folder} is a file, but save_pretrained writes a folder: give a folder's path")
    if os.path.islink(folder) and not os.path.exists(folder):
        raise FileNotFoundError(
            f"{folder} is a symbolic link to {os.readlink(folder)}, which does not exist: create the folder it "
            "points to, or give another path"
        )
    if os.path.isdir(folder):
        try:
            entries = list(os.scandir(folder))
        except OSError as err:  # was: '[Errno 13] Permission denied: ...', of no save
            raise type(err)(
                f"save_pretrained cannot list {folder} ({error_reason(err)}): give a folder you may read and write"
            ) from None
        links = sorted(
            entry.name
            for entry in entries
            if entry.is_symlink() and entry.name.endswith(suffixes) and not os.path.isdir(entry.path)
        )
        if links:
            link = os.path.join(folder, links[0])
            raise FileExistsError(
                f"{folder} holds {links[0]}, a symbolic link (to {os.readlink(link)}) that save_pretrained would "
                "write through, changing the file it points to (a Hugging Face cache snapshot is such links): save "
                "to another folder, or remove the links first"
            )
    return folder


#: The lock file of a save under way (``one_save_at_a_time``), in the folder saved into; gone when the save ends.
SAVE_LOCK = ".elmo-saving.lock"
#: The start of the name of the hidden folder, in the folder saved into, where a save writes its files before they
#: are moved in (``saved_aside``): ``.elmo-saving-XXXXXXXX``, the X's ``tempfile.mkdtemp``'s.
SAVE_ASIDE = ".elmo-saving-"
_ASIDE_PATTERN = SAVE_ASIDE + "[a-z0-9_]" * 8
#: The file, in a folder saved into, that names (one a line) the files a save was moving in (``saved_aside``): there
#: while they are, and after a save killed meanwhile, when the folder may hold files of two saves, which
#: ``check_saved_whole`` refuses to load; the next saves into the folder that rewrite those files remove it.
MOVING_IN = ".elmo-moving-in"
#: The names (``fnmatch`` patterns) of a save's own files in the folder it saves into, ``SAVE_LOCK``, ``MOVING_IN`` and
#: the hidden folder it writes in (``is_save_aside``), which no push uploads (``_a_saves_own``, ``upload_ignored``).
SAVES_OWN = (SAVE_LOCK, MOVING_IN, _ASIDE_PATTERN)
#: The attribute of a thread that holds the folders (device, inode) whose save it holds, and the folders those saves
#: are built in (``saving_into``: the model's save saves its config): on the thread, which the remote-code copies of
#: this module (one a folder) share.
_SAVING = "hf_elmo_saving"


@contextmanager
def one_save_at_a_time(folder: str) -> Iterator[bool]:
    """Hold ``folder`` (made where it is missing) for one save for the block, the model's, config's or tokenizer's
    ``save_pretrained``: another process's save into it meanwhile (or another thread's) waits for the block to end,
    saying so, and then saves whole, so that the folder is one whole save, the last to finish (was: both wrote at
    once, and a model's folder could get the config of one model and the weights of the other). A lock on
    ``SAVE_LOCK`` in the folder: an ``flock`` (``_flocked``), or where there is none (Windows) filelock's
    (``_file_locked``); the system drops it with a killed process. Yields whether the folder is this save's own
    (made by it, and empty when it got the folder): a failed save may remove it."""
    made = not os.path.isdir(folder)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise _cannot_write(folder, err) from None
    with _flocked(folder) if fcntl is not None else _file_locked(folder):
        yield made and os.listdir(folder) == [SAVE_LOCK]


def _said_waiting(folder: str) -> None:
    """Say that a save into ``folder`` waits for another process's (``one_save_at_a_time``)."""
    _logger.warning(f"{folder} is being saved by another process: this save waits for it to end")


@contextmanager
def _flocked(folder: str) -> Iterator[None]:
    """``one_save_at_a_time``'s lock where there is ``flock``: on ``SAVE_LOCK`` in ``folder``, whose file is removed
    when the block ends (and the next save removes the one a killed save left)."""
    lock, waited = os.path.join(folder, SAVE_LOCK), False
    while True:
        try:
            os.makedirs(folder, exist_ok=True)  # a failed save before this one removed its own
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        except OSError as err:
            raise _cannot_write(folder, err) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not waited:
                _said_waiting(folder)
            waited = True
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:  # the save before this one may have removed the file after this one opened it: lock the new one
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        try:
            os.unlink(lock)
        except FileNotFoundError:  # removed with the folder of a failed save
            pass
        os.close(fd)


@contextmanager
def _file_locked(folder: str) -> Iterator[None]:
    """``one_save_at_a_time``'s lock where there is no ``flock`` (Windows): ``filelock.FileLock`` (huggingface_hub's
    lock there) on ``SAVE_LOCK`` in ``folder``, a file of ours, which filelock may leave when the block ends (no
    push uploads it, ``UploadsNoSaveLock``; the folder's checks count it a save's, ``output_folders.others_files``)."""
    path, waited = os.path.join(folder, SAVE_LOCK), False
    lock = FileLock(path)
    while True:
        try:
            os.makedirs(folder, exist_ok=True)  # a failed save before this one removed its own
            # a lock file that cannot be made is said here: filelock would wait for it forever
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666))
        except OSError as err:
            raise _cannot_write(folder, err) from None
        try:
            lock.acquire(timeout=-1 if waited else 0)
            break
        except Timeout:
            _said_waiting(folder)
            waited = True
        except FileNotFoundError:  # the folder went meanwhile, with the failed save that made it: made again
            pass
        except OSError as err:
            raise _cannot_write(folder, err) from None
    try:
        yield
    finally:
        lock.release()


def _cannot_write(folder: str, error: OSError) -> OSError:
    """The one-line error of a save into ``folder``, which this process cannot make or write in (``error``: why),
    naming the folder, not the lock file that found it (was: ``[Errno 13] Permission denied: '.../config.json'``)."""
    return type(error)(
        f"save_pretrained cannot write in {folder} ({error_reason(error)}): give a folder you may write in"
    )


def is_save_aside(name: str) -> bool:
    """Whether ``name`` is that of the hidden folder a save writes in before its files are moved in
    (``saved_aside``): a killed save leaves it, half-written, until the next save into its folder."""
    return fnmatch.fnmatchcase(name, _ASIDE_PATTERN)


def _folder_key(folder: str) -> tuple[int, int] | None:
    """The (device, inode) of ``folder``, which ``_SAVING`` holds; ``None`` where it does not exist."""
    try:
        stat = os.stat(folder)
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino)


def _held_folders() -> set[tuple[int, int] | None]:
    """The folders this thread's saves hold and build in (``_SAVING``)."""
    held: set[tuple[int, int] | None] = threading.current_thread().__dict__.setdefault(_SAVING, set())
    return held


@contextmanager
def saved_aside(folder: str, new: bool, replaced: Callable[[str], bool] = lambda name: False) -> Iterator[str]:
    """Yield a new hidden folder in ``folder`` (``SAVE_ASIDE``, on its file system) for the block to write a save
    in, so that an earlier save in ``folder`` stays whole until this one is (was: written over in place, and a
    save that failed midway, a full disk or a kill, left a half-written ``model.safetensors`` and no earlier save).
    When the block ends, each file written is synced and moved into ``folder`` (``os.replace``, one by one): first
    the weights (the files that ``replaced`` names), a shard before the index that names it, after which the earlier
    save's weights files that these replace are removed (``model.safetensors`` beside a new shard index, which
    loading would take first; the shards of an earlier save of another count); then the other files, and
    ``config.json`` last. The user's other files (a README, notes) stay. The block
    raising, the folder it wrote in is removed, and ``folder`` with it where it is this save's own (``new``: config
    and code without weights would pass for a model). For the holder of ``folder`` (``one_save_at_a_time``), which
    first removes the folders that killed saves left there (``is_save_aside``).

    A kill between two moves leaves files of two saves (shards of the same count, new and earlier, or new weights
    beside the earlier ``config.json``), which loaded silently mixed: while the files are moved in, and after such a
    kill, ``MOVING_IN`` in ``folder`` names them (``_moving_in``), and loading refuses such a folder
    (``check_saved_whole``). Where the folder is this save's own (``new``), there is no earlier save to mix with."""
    for entry in os.scandir(folder):
        if is_save_aside(entry.name) and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
    try:
        aside = tempfile.mkdtemp(prefix=SAVE_ASIDE, dir=folder)
    except OSError as err:
        raise _cannot_write(folder, err) from None
    keys = {_folder_key(folder), _folder_key(aside)}
    held = _held_folders()
    held |= keys
    try:
        yield aside
        names = os.listdir(aside)
        weights = sorted(filter(replaced, names), key=lambda name: name.endswith(".json"))  # the shards, their index
        mixed = set() if new else _moving_in(aside, folder, _mixed(folder) | set(names))
        for name in weights:
            _moved_in(aside, name, folder)
        earlier = [name for name in os.listdir(folder) if weights and replaced(name) and name not in weights]
        for path in (os.path.join(folder, name) for name in earlier):  # the earlier save's, which these replace
            if os.path.isfile(path):
                os.unlink(path)
        for name in sorted(set(names) - set(weights), key=lambda name: name == CONFIG_NAME):
            _moved_in(aside, name, folder)
        if mixed:  # those of a killed save that this one did not rewrite, if still there, stay named
            _moving_in(
                aside, folder, {name for name in mixed - set(names) if os.path.lexists(os.path.join(folder, name))}
            )
    except BaseException:
        shutil.rmtree(folder if new else aside, ignore_errors=True)
        raise
    finally:
        held -= keys
    os.rmdir(aside)
    _synced(folder)


def _mixed(folder: str) -> set[str]:
    """The names of the files in ``folder`` that a killed save may have left of two saves (``MOVING_IN``'s lines)."""
    try:
        return set(Path(folder, MOVING_IN).read_text(encoding="utf-8").splitlines())
    except FileNotFoundError:
        return set()


def _moving_in(aside: str, folder: str, names: set[str]) -> set[str]:
    """Name ``names`` in ``folder``'s ``MOVING_IN`` (written in ``aside``, then moved in, the folder synced), or, none
    left, remove it (``saved_aside``). Returns ``names``."""
    path = os.path.join(folder, MOVING_IN)
    if not names:
        if os.path.lexists(path):
            os.unlink(path)
        return names
    Path(aside, MOVING_IN).write_text("".join(f"{name}\n" for name in sorted(names)), encoding="utf-8")
    _moved_in(aside, MOVING_IN, folder)
    _synced(folder)
    return names


def check_saved_whole(name_or_path: Any, subfolder: str = "") -> None:
    """Refuse, in one line naming the files, to load the folder ``name_or_path`` (its ``subfolder``) where a save into
    it was killed while it moved its files in (``MOVING_IN``, ``saved_aside``), so that it may hold files of two saves
    (was: loaded silently mixed, shards of both, or new weights with the earlier ``config.json``): the model's,
    config's and tokenizer's ``from_pretrained``. Saves under way into the folder are waited for first
    (``_saves_ended``), then the folder is looked at again. A name that is no folder (a Hub repository) passes."""
    if not isinstance(name_or_path, (str, os.PathLike)):  # the config converted from the original files
        return
    folder = os.path.join(name_or_path, subfolder) if subfolder else os.fspath(name_or_path)
    listed = os.path.join(folder, MOVING_IN)
    if not os.path.lexists(listed):
        return
    _saves_ended(folder, listed)
    if os.path.lexists(listed):
        raise OSError(
            f"{folder} may hold files of two saves, mixed: a save_pretrained into it was killed while it moved in "
            f"{', '.join(sorted(_mixed(folder))) or 'its files'} (named in {MOVING_IN}); save that model or tokenizer "
            f"into it again, or delete those files and {MOVING_IN}"
        )


def _saves_ended(folder: str, listed: str) -> None:
    """Wait, saying so once, while ``listed`` is there and a save into ``folder`` holds its lock (``_flocked``): a
    save moving its files in holds it for moments (one pushing, for its upload), and the next save may take it
    after. Where there is no ``flock`` (Windows), nothing is waited for: there a load during a save's moves is
    refused as after a killed save. A killed save's lock file holds no lock."""
    if fcntl is None:
        return
    said = False
    while os.path.lexists(listed):
        try:
            fd = os.open(os.path.join(folder, SAVE_LOCK), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:  # no save holds the folder
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return  # none holds it
            except BlockingIOError:
                if not said:
                    _logger.warning(f"{folder} is being saved by another process: loading it waits for the save")
                    said = True
                fcntl.flock(fd, fcntl.LOCK_SH)
        finally:
            os.close(fd)


def _moved_in(aside: str, name: str, folder: str) -> None:
    """Move the file ``name`` of ``aside`` into ``folder`` (``os.replace``), flushed to the disk first
    (``_synced``), so that a crash never leaves it there empty."""
    _synced(os.path.join(aside, name))
    os.replace(os.path.join(aside, name), os.path.join(folder, name))


def _synced(path: str) -> None:
    """Flush the file ``path``, or a folder's entries, to the disk, where the system can (POSIX: Windows opens no
    folder, and no read-only file for it)."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def saving_into(
    saver: Any,
    save_directory: str | os.PathLike,
    push_to_hub: bool,
    hub: dict[str, Any],
    suffixes: tuple[str, ...] = SAVED_SUFFIXES,
    card: bool = False,
    replaced: Callable[[str], bool] = lambda name: False,
) -> Iterator[tuple[str, str]]:
    """The one frame of the model's, config's and tokenizer's ``save_pretrained`` (``saver``'s): yields, for the
    block that saves, the folder to write in and the folder its files end in. For the folder ``save_directory``
    names (``check_save_folder``, ``suffixes``), held for this save alone (``one_save_at_a_time``), the block
    writes in a folder in it whose files are moved in when the block ends (``saved_aside``, which removes the
    earlier files that ``replaced`` names); in a folder that this thread's save holds or builds in (the config's
    save within the model's), in that folder itself. With ``push_to_hub``, the block having ended without an
    error, the folder is pushed (``push_saved``, with ``hub``'s settings and ``card``): the files changed since it
    was held, not since before a save that it waited for (whose files that this one does not rewrite were pushed
    too), the folder held until the push ends, so that another save into it waits (was: let go first, and a save
    that moved its files in meanwhile had them pushed as this one's, or the push failed on a file it removed)."""
    folder = check_save_folder(save_directory, suffixes)
    within = _folder_key(folder) in _held_folders()
    with nullcontext(False) if within else one_save_at_a_time(folder) as new:
        files_timestamps = earlier_files(saver, folder) if push_to_hub else {}
        with nullcontext(folder) if within else saved_aside(folder, new, replaced) as aside:
            yield aside, folder
        if push_to_hub:  # the folder still held: no other save changes it under the upload
            push_saved(saver, folder, files_timestamps, hub, card)


def push_errors_said(
    package_loader: Any | None, what: str, repo_id: Any, saved: str | None = None
) -> AbstractContextManager[Any]:
    """Around ``what``'s push to the Hub repository ``repo_id`` (the model's, config's and tokenizer's
    ``push_to_hub`` and ``save_pretrained(push_to_hub=True)``; ``saved``: the folder saved whole before the
    push): the hf-elmo package's ``pushing`` (``hf_elmo.hub.push_said``: a Hub that cannot be reached said in
    one line), or nothing in a remote-code copy, without the package."""
    return nullcontext() if package_loader is None else package_loader.pushing(what, repo_id, saved)


def push_saved(
    saver: Any, folder: str, files_timestamps: dict[str, float], hub: dict[str, Any], card: bool = False
) -> None:
    """The push of ``saver``'s (the model's, config's or tokenizer's) ``save_pretrained(folder, push_to_hub=True,
    **hub)`` once ``folder`` is saved whole, as transformers pushes (the repository made with ``hub``'s settings,
    ``token`` and ``private`` say; with ``card``, the model's, a model card written; the files changed since
    ``files_timestamps`` uploaded with ``commit_message`` and ``create_pr``), but after the save rather than around
    it: a push that fails, the Hub out of reach included, leaves the folder saved, and the error names it
    (``push_errors_said``). The one push of the three ``save_pretrained``."""
    from transformers.utils.hub import create_and_tag_model_card, hf_api

    hub = dict(hub)
    commit_message = hub.pop("commit_message", None)
    repo_id = pushed_repo_id(folder, hub)
    hub.pop("repo_id", None)
    create_pr = hub.pop("create_pr", False)
    what = f"{type(saver).__name__}.save_pretrained(push_to_hub=True)"
    with push_errors_said(saver.package_loader, what, repo_id, saved=folder):
        repo_id = hf_api().create_repo(repo_id, exist_ok=True, **hub).repo_id
        on_the_hub = card and hub_has_card(repo_id, hub.get("token"))
        if card and not on_the_hub and os.path.isfile(os.path.join(folder, "README.md")):
            files_timestamps = {name: time for name, time in files_timestamps.items() if name != "README.md"}
        elif card:
            model_card = create_and_tag_model_card(repo_id, saver.model_tags, token=hub.get("token"))
            model_card.save(os.path.join(folder, "README.md"))
            if not on_the_hub:
                carry_source_card(saver, folder, hub.get("token"))
        saver._upload_modified_files(
            folder,
            repo_id,
            files_timestamps,
            commit_message=commit_message,
            token=hub.get("token"),
            create_pr=create_pr,
        )


def hub_has_card(repo_id: str, token: str | None) -> bool:
    """Whether the Hub repository ``repo_id`` has a model card. Where it has none, the model's
    ``save_pretrained(folder, push_to_hub=True)`` uploads ``folder``'s own card (``elmo convert``'s, ``elmo
    pretrain``'s, the user's) as it is, and a folder without one transformers' card with the source's terms
    (``carry_source_card``); where it has one, transformers' card is written in its place, the repository's
    (tagged). Was: the folder's card replaced by transformers' template, its licence, attribution and provenance
    lost."""
    from transformers.utils.hub import EntryNotFoundError, ModelCard  # huggingface_hub's, as transformers loads a card

    try:
        ModelCard.load(repo_id, token=token)
    except EntryNotFoundError:
        return False
    return True


def carry_source_card(model: Any, folder: str, token: str | None) -> None:
    """Add to ``folder``'s ``README.md``, transformers' card of ``model`` (its config, its tokenizer) pushed to a
    repository without one (``push_to_hub``, ``save_pretrained(push_to_hub=True)``), the licence, attribution and
    ``base_model`` of the card of the folder or Hub repository that ``model`` was loaded from (its
    ``name_or_path``): the hf-elmo package's ``carry_source_card``; nothing in a remote-code copy, without the
    package. Was: the weights pushed under transformers' blank card, without the licence or attribution of the card
    they came with."""
    if model.package_loader is not None:
        model.package_loader.carry_source_card(os.path.join(folder, "README.md"), model.name_or_path or None, token)


def earlier_files(saver: Any, folder: str) -> dict[str, float]:
    """The modification times of the files in ``folder``, held for ``saver``'s save (``one_save_at_a_time``),
    before it saves there: ``push_saved`` uploads the others that changed (its lock file never,
    ``UploadsNoSaveLock``)."""
    return dict(saver._get_files_timestamps(folder))


def pushed_repo_id(save_directory: str, kwargs: dict[str, Any]) -> str:
    """The Hub repository that ``save_pretrained(save_directory, push_to_hub=True, **kwargs)`` pushes to, as
    transformers takes it: ``repo_id``, or the folder's last part."""
    return str(kwargs.get("repo_id", save_directory.split(os.path.sep)[-1]))


def read_json_file(path: str | os.PathLike) -> Any:
    """The JSON value in the file ``path`` (``json_of``): how a model folder's ``config.json`` is read. Raises
    ``OSError``, and ``ValueError`` for invalid JSON or UTF-8, as ``json.load`` does."""
    return json_of(Path(path).read_bytes())


def json_of(text: bytes) -> Any:
    """The JSON value in ``text``, a file's bytes: UTF-8 with or without the byte-order mark that Windows editors
    write (transformers reads UTF-8 and fails on the mark). The one decoder of the settings files, ``config.json``
    (``read_json_file``), ``tokenizer_config.json`` (whose bytes the tokenizer also checks for the mark) and
    ``options.json``."""
    return json.loads(text.decode("utf-8-sig"))


def config_file(name_or_path: Any, subfolder: str, filename: str = CONFIG_NAME) -> str:
    """The config file (``filename``: ``config.json``, a tokenizer's ``tokenizer_config.json``) that
    ``from_pretrained(name_or_path)`` reads, for naming it in errors: a local path, or the file of a Hub repo."""
    path = os.path.join(str(name_or_path), subfolder) if subfolder else str(name_or_path)
    if os.path.isfile(path):
        return path
    if os.path.isdir(path):
        return os.path.join(path, filename)
    return f"{filename} of {name_or_path}"
