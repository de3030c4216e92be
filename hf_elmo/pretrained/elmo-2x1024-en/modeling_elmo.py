"""The ELMo character-CNN biLM as a ``transformers`` model.

Data flow (B sentences, T tokens, 50 char ids per token; P projection, C cell, L layers):

    input_ids (B, T, 50) --add <S>/</S>--> (B, T+2, 50)
      -> ElmoCharCNN: char embedding -> convolutions, max-pool, activation -> highway -> projection
      -> token layer (B, T+2, P)
      -> ElmoBiLm: L forward and L backward LSTM-with-projection layers (TF gate order i, j, f, o,
         forget bias +1, cell and projection clipping, residual from layer 1 on; for clip-free
         configs optionally torch's fused LSTM kernel, ``bilm_implementation="fused"``)
      -> hidden_states: L+1 tensors (B, T, 2P), boundaries removed, padding zeroed.

The char CNN and the biLM (their plain paths) live in ``elmo_layers.py``, the fast and fused
paths' kernels in ``elmo_kernels.py``, what the model keeps between calls (derived weights, the
token-layer cache) in ``elmo_cache.py``, the checks of its inputs in ``elmo_inputs.py``, how its
weights are saved, loaded and checked in ``elmo_weights.py``. This file imports only torch,
transformers and those siblings (and the configuration and the tokenizer's char ids), so that a
saved model folder can carry them all for ``trust_remote_code=True``; resolving names and
converting original files is the hf-elmo package's (``ElmoPreTrainedModel.package_loader``).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast

import torch
from torch import nn
from transformers import PreTrainedModel
from transformers.utils import CONFIG_NAME, ModelOutput
from transformers.utils import logging as hf_logging

from .char_ids import add_sentence_markers, batch_to_ids
from .configuration_elmo import (
    ElmoConfig,
    UploadsNoSaveLock,
    check_saved_whole,
    saving_into,
)
from .elmo_cache import TokenLayerCache
from .elmo_inputs import INPUT_ID_DTYPES, check_inputs, check_no_attention, eager_only, takes_only_its_arguments
from .elmo_kernels import at_least_float32
from .elmo_layers import (
    CheckpointedParts,
    ElmoBiLm,
    ElmoCharCNN,
    ElmoHighway,
    ElmoLstmProjectionLayer,
    ElmoState,
    runs_as_built,
)
from .elmo_weights import (
    BILM_PARTS,
    STORAGE_DTYPES,
    WARM_STATE,
    InvalidModelError,
    check_finite_weights,
    is_weights_file,
    load_report_held,
    never_loaded_error,
    no_weight_progress_bars,
    not_float_weight,
    said_if_never_loaded,
    saved_code,
    stored_in,
    weights_file,
    weights_never_loaded,
    weights_source,
)
from .messages import INSTALL_HF_ELMO, described, one_of, some_of

#: The public names: those defined here, and those of the parts (``elmo_layers``), the input checks
#: (``elmo_inputs``) and the weights' handling (``elmo_weights``) that were defined here before they
#: got their own modules, so that ``from hf_elmo.modeling_elmo import ElmoHighway`` still works.
__all__ = [
    "BILM_PARTS",
    "check_config_reads_char_ids",
    "check_finite_weights",
    "check_inputs",
    "check_loaded_weights",
    "check_no_attention",
    "check_reads_char_ids",
    "check_runs_as_built",
    "CheckpointedParts",
    "ElmoBiLm",
    "ElmoCharCNN",
    "ElmoHighway",
    "ElmoLstmProjectionLayer",
    "ElmoModel",
    "ElmoModelOutput",
    "ElmoPreTrainedModel",
    "ElmoState",
    "INPUT_ID_DTYPES",
    "InvalidModelError",
    "mean_pool",
    "model_name",
    "not_float_weight",
    "require_package_loader",
    "runs_as_built",
    "said_if_never_loaded",
    "STORAGE_DTYPES",
    "stored_in",
    "takes_only_its_arguments",
    "WARM_STATE",
    "weights_file",
    "weights_never_loaded",
    "WORD_IDS_MODEL",
]

_logger = hf_logging.get_logger(__name__)


#: What a model of ``token_embedding="word"`` (the pretraining baseline) is, for the errors of
#: what takes char ids only.
WORD_IDS_MODEL = "this biLM embeds word ids (token_embedding='word', the pretraining baseline), not char ids"


def check_reads_char_ids(model: ElmoPreTrainedModel, what: str) -> None:
    """Refuse, in one line naming the model's folder (or Hub id), a word-embedding baseline
    (``token_embedding="word"``, ``elmo pretrain --token-embedding word``) given to ``what``, a
    command, function or model class that runs the char CNN: the baseline reads word ids, not
    char ids. Here, not in ``hf_elmo.loading``, so that the task heads' remote-code copies check too."""
    check_config_reads_char_ids(model.config, model_name(model), what)


def check_config_reads_char_ids(config: ElmoConfig, name: str, what: str) -> None:
    """``check_reads_char_ids`` of the model called ``name`` whose config is ``config``, before it is
    loaded (``spacy_elmo.loader.find_model``)."""
    if config.token_embedding == "word":
        raise ValueError(f"{name}: {WORD_IDS_MODEL}; {what} needs a char-CNN biLM")


def model_name(model: PreTrainedModel) -> str:
    """What a model's errors call it: the folder (or Hub id) it was loaded from, else "the model"."""
    return model.name_or_path or "the model"


@dataclass
class ElmoModelOutput(ModelOutput):
    """Output of ``ElmoModel``.

    Args:
        last_hidden_state: (B, T, 2P) the top biLM layer.
        hidden_states: L+1 tensors (B, T, 2P): layer 0 is the token representation doubled,
            layers 1..L concatenate the forward and backward LSTM outputs.
        attention_mask: (B, T) bool, True for real tokens (the mask passed in, or the one derived
            from the ids); padding positions of every layer are zero.
    """

    last_hidden_state: torch.Tensor | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None
    attention_mask: torch.Tensor | None = None


def mean_pool(hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Sentence vectors: the mean of each sentence's token vectors over its real tokens.

    Args:
        hidden: (..., B, T, D), e.g. one layer (B, T, D) or ``torch.stack(hidden_states)``
            (L+1, B, T, D).
        attention_mask: (B, T), 1 (or True) for real tokens.

    Returns:
        (..., B, D) in ``hidden``'s dtype; padding positions do not count (a row without tokens gives
        zeros). The sum and the count are taken in float32 at least, so a float16 or bfloat16 mean
        is the exact one rounded once: in float16 a sum over a few thousand tokens overflows to
        inf, and bfloat16 holds no count above 256 exactly.
    """
    values = at_least_float32(hidden)
    weights = attention_mask.unsqueeze(-1).to(values.dtype)  # (B, T, 1)
    return ((values * weights).sum(dim=-2) / weights.sum(dim=-2).clamp(min=1)).to(hidden.dtype)


_Model = TypeVar("_Model", bound="ElmoPreTrainedModel")


def check_runs_as_built(model: ElmoModel, reads: str, parts: Sequence[str], remedy: str) -> None:
    """Refuse, with one ``ValueError`` line, a ``model`` whose ``parts`` (``"bilm"``, ``"char_cnn"``)
    do not run as built (``runs_as_built``) to what computes from their weights alone and would
    silently skip what was added: ``reads`` says what reads them how, ``remedy`` what to do."""
    for name in parts:
        if not runs_as_built(getattr(model, name)):
            shown = {"bilm": "biLM", "char_cnn": "char CNN"}[name]
            raise ValueError(
                f"{reads}, but this model's {shown} has hooks or replaced layers (LoRA, quantised or pruned layers, "
                f"say), which only the model's own forward applies: {remedy}"
            )


class ElmoPreTrainedModel(UploadsNoSaveLock, PreTrainedModel):  # type: ignore[misc]  # push_to_hub: copy_func-typed
    """Weight initialisation and loading conventions shared by the ELMo models."""

    config_class = ElmoConfig
    config: ElmoConfig
    base_model_prefix = "elmo"
    main_input_name = "input_ids"
    _no_split_modules = ["ElmoLstmProjectionLayer"]
    supports_gradient_checkpointing = True
    #: The hf-elmo package's loader (``hf_elmo.loading.PACKAGE_LOADER``), set here when the package
    #: is imported; this file cannot import it (the package sits above the model, and a saved
    #: folder's copy of this file travels without it). ``from_pretrained`` hands it the name (shipped
    #: models, original files and their archives, Hub ids) and ``from_allennlp`` the original files,
    #: each with the calling class. ``None`` in a remote-code copy: folders and Hub ids then load as
    #: for any transformers model, and converting original files asks for the package.
    package_loader: ClassVar[Any | None] = None
    #: Top-level parts whose weights a folder may lack: a task head's own layers, new when it is
    #: loaded from a biLM folder (``ElmoTaskPreTrainedModel``; see ``check_loaded_weights``).
    _new_on_load: ClassVar[tuple[str, ...]] = ()
    #: transformers pipelines that serve this class where the stock ones cannot, task -> class (in a
    #: file this class's code imports relatively, so that a saved folder carries it): ``save_pretrained``
    #: writes them as ``config.json``'s ``custom_pipelines``, which ``pipeline(task, model=FOLDER,
    #: trust_remote_code=True)`` follows (without ``trust_remote_code`` transformers asks for it).
    _custom_pipelines: ClassVar[dict[str, type]] = {}
    #: Whether the class predicts words over the config's vocabulary (the LM's softmax).
    _has_word_softmax: ClassVar[bool] = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """Refuse, in one line, what an ELMo model's ``__init__`` (which takes only its config) would
        get beside the config: what ``from_pretrained`` passes on as neither one of its options nor a
        field of the config it loads (a misspelt option, say), or every config field when given
        ``config=``. Python's ``TypeError`` named ``__init__``, which the caller never called."""
        unknown = [name for name in kwargs if name != "config"]
        if len(args) > 1 or (args and "config" in kwargs):
            raise TypeError(
                f"{cls.__name__} takes only its config, got more positional arguments: from_pretrained passes on "
                "those after the name; give its options as keywords"
            )
        if unknown:
            fields = [name for name in unknown if hasattr(ElmoConfig(), name)]
            why = (
                f"{', '.join(fields)} {'is a field' if len(fields) == 1 else 'are fields'} of the config, which "
                "from_pretrained sets only on a config it loads: set it on the config you pass as config=, or "
                "leave config= out"
                if fields
                else "from_pretrained passes on what is neither one of its options nor a config field: check the "
                "spelling"
            )
            raise TypeError(f"{cls.__name__} takes only its config, got {', '.join(unknown)}; {why}")
        return super().__new__(cls)

    def _check_and_adjust_attn_implementation(self, attn_implementation: str | None, *args: Any, **kwargs: Any) -> str:
        """transformers' check of ``attn_implementation`` (the config's, ``from_pretrained``'s,
        ``set_attn_implementation``'s), which would refuse ``"sdpa"``, flash and flex attention and Hub
        kernels as not supported "yet", asking for an implementation: ELMo has no attention, so only
        ``"eager"``, what transformers gives a model without one, is taken (and changes nothing);
        the others are refused in one line that says so."""
        return eager_only(attn_implementation)

    def get_correct_attn_implementation(self, requested_attention: str | None, *args: Any, **kwargs: Any) -> str:
        """The same check where transformers applies it to a model inside another (a task head's biLM)."""
        return eager_only(requested_attention)

    def _warn_of_dropout_in_prediction(self, sampled_softmax: bool = False) -> None:
        """Warn once where this model runs without gradients (a pipeline, a prediction loop) in
        training mode with a dropout that acts (p > 0), as a model is when built, after
        ``model.train()`` or after a ``Trainer`` run (transformers' pipelines do not call
        ``eval()``): its outputs vary from call to call. Not while torch.compile or export traces it.
        One message for every class, so that a task head and the biLM it runs warn in one line.
        ``sampled_softmax``: the call's loss is an LM's sampled softmax's (training mode only), which
        varies too and is no perplexity, as its own message says."""
        tracing = torch.compiler.is_compiling() or torch.compiler.is_exporting()
        if not self.training or torch.is_grad_enabled() or tracing:
            return
        if sampled_softmax:
            _logger.warning_once(
                "This ELMo LM is in training mode, where its loss is the sampled softmax's, which varies from call to "
                "call and is no perplexity: call model.eval() (the full softmax, no dropout) before evaluating"
            )
        elif any(isinstance(m, nn.Dropout) and m.training and m.p > 0 for m in self.modules()):
            _logger.warning_once(
                "This ELMo model is in training mode, where dropout makes its outputs vary from call to call "
                "(a pipeline's too: pipelines do not call eval()): call model.eval() before predicting"
            )

    def resize_token_embeddings(
        self, new_num_tokens: int | None = None, pad_to_multiple_of: int | None = None, mean_resizing: bool = True
    ) -> nn.Embedding:
        """The input embeddings unchanged where they already have ``new_num_tokens`` rows (or it is
        ``None``) and a ``pad_to_multiple_of`` divides them, as transformers' own resize does:
        ``model.resize_token_embeddings(len(tokenizer))``, the first line of many fine-tuning scripts,
        is the 262 char ids of a char-CNN model. ``config.vocab_size`` (an LM's softmax words) stays.

        Any other size is refused: ELMo reads characters, so its input ids are the fixed 262 char
        ids (UTF-8 bytes and markers) and every word is already covered; there is no vocabulary to
        grow. The word vocabulary of an LM's softmax, or of the word-embedding baseline, is that of
        its training (``elmo pretrain``), which a resize would not train."""
        embeddings = cast(nn.Embedding, self.get_input_embeddings())  # ElmoModel's, a task head's or an LM's too
        rows = embeddings.num_embeddings
        padded = pad_to_multiple_of is None or (
            isinstance(pad_to_multiple_of, int) and pad_to_multiple_of > 0 and rows % pad_to_multiple_of == 0
        )
        if new_num_tokens in (None, rows) and padded:
            return embeddings
        config = self.config
        if config.token_embedding == "word" or self._has_word_softmax:
            raise ValueError(
                f"resize_token_embeddings is not supported: this model's word vocabulary ({config.vocab_size} words, "
                "its vocab.txt) is the one it was pretrained on, and new rows would be untrained; pretrain a model "
                "on a vocabulary with the new words (elmo pretrain --vocab FILE)"
            )
        raise ValueError(
            "ELMo has no word vocabulary to resize: its input ids are the 262 fixed char ids (UTF-8 bytes and "
            "markers), so any word, new ones included, is already covered"
        )

    def activation_checkpointing_enable(
        self,
        activation_checkpointing_kwargs: dict[str, Any] | None = None,
        every_n_layers: int = 1,
        offload: bool = False,
    ) -> None:
        """``PreTrainedModel.activation_checkpointing_enable`` (also reached by the deprecated
        ``gradient_checkpointing_enable`` and by ``Trainer``'s ``activation_checkpointing``): in
        training, the char CNN (each chunk of tokens), each biLM layer and a task head's BiLSTM keep
        only their inputs and outputs for the backward pass and compute the rest again there
        (``CheckpointedParts``). The loss and gradients are those without it; inference is unchanged.

        Refused in one line: ``use_reentrant=True`` (the char CNN's input is char ids, integers,
        through which a reentrant checkpoint passes no gradient: its weights would get none), and
        ``every_n_layers`` other than 1 (every part is checkpointed alike). Kwargs that leave
        ``use_reentrant`` out (or ``None``) get ``False``: torch's checkpoint would be reentrant.
        """
        if (activation_checkpointing_kwargs or {}).get("use_reentrant"):
            raise ValueError(
                "ELMo's activation checkpointing is non-reentrant: its char CNN reads char ids (integers), through "
                "which a reentrant checkpoint passes no gradient; leave use_reentrant unset or pass False"
            )
        activation_checkpointing_kwargs = {**(activation_checkpointing_kwargs or {}), "use_reentrant": False}
        if every_n_layers != 1:
            raise ValueError(
                f"every_n_layers={every_n_layers}: ELMo checkpoints its char CNN and every biLM layer alike; leave "
                "every_n_layers at 1"
            )
        super().activation_checkpointing_enable(activation_checkpointing_kwargs, every_n_layers, offload)

    def enable_input_require_grads(self) -> None:
        """Nothing to do (``activation_checkpointing_enable`` and PEFT call it): it is for reentrant
        checkpoints, whose first input must require grad, and ELMo's are non-reentrant. transformers'
        own hook on the char embedding would turn the fast char CNN and its token cache off for good
        (``runs_as_built``): the shipped model's inference 2.35x slower and its training (the biLM
        fine-tuned, forward and backward) 1.45x (batches of 16 CoNLL-2003 sentences, one CPU thread:
        ``python scripts/bench_overheads.py hook --repeat 3``, both in one run, on a quiet 2-core AMD EPYC
        VM, load 0.7; under other jobs' load, 4.8 and 4.1, it gave 2.29x and 1.76x, 1.79x and 1.35x)."""

    @property
    def dummy_inputs(self) -> dict[str, torch.Tensor]:
        """Char ids (2, 3, W) of two sentences, the second padded, as ``input_ids`` must be."""
        return {
            "input_ids": batch_to_ids(
                [["An", "ELMo", "input"], ["A", "sentence"]], self.config.max_characters_per_token
            )
        }

    def _init_weights(self, module: nn.Module) -> None:
        bound = self.config.initializer_range
        if isinstance(module, (nn.Linear, nn.Conv1d)):
            nn.init.uniform_(module.weight, -bound, bound)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):  # the char embedding, or the word embedding of the baseline
            nn.init.uniform_(module.weight, -1.0, 1.0)
            if module.padding_idx is not None:
                with torch.no_grad():
                    module.weight[module.padding_idx].zero_()
        elif isinstance(module, ElmoModel):
            nn.init.zeros_(module.warm_h)
            nn.init.zeros_(module.warm_c)

    @classmethod
    def from_allennlp(cls: type[_Model], options_path: str | os.PathLike, weights_path: str | os.PathLike) -> _Model:
        """Convert the original ``options.json`` + ``weights.hdf5`` (needs the hf-elmo package and h5py)."""
        return require_package_loader(cls).from_allennlp(cls, options_path, weights_path)

    @classmethod
    def from_pretrained(  # (name, *args, **kwargs): passes every argument on
        cls, pretrained_model_name_or_path: str | os.PathLike | None, *args: Any, **kwargs: Any
    ) -> Any:  # the model, or (model, info) with output_loading_info, as transformers' own
        """``PreTrainedModel.from_pretrained``: float32 unless ``dtype`` is given, safetensors only.

        Weights may be stored in float16 or bfloat16 (smaller files), but unless the caller passes
        ``dtype`` they load as float32, the fast and exact choice on CPU. ``dtype="auto"`` (what
        transformers pipelines pass) takes ``config.json``'s ``dtype``: float32 for folders saved
        with ``save_pretrained(storage_dtype=...)`` (the shipped model, ``elmo pretrain``).
        With the hf-elmo package imported (not needed for ``trust_remote_code``), the name goes
        through its resolver first (``package_loader.resolve``, ``hf_elmo.loading``): shipped names
        (``hf-elmo:elmo-2x1024-en``), folders and zip archives of the original files (converted on load,
        into ``ElmoModel``), a ``subfolder`` of any folder or Hub repository it takes, and a one-line
        error naming a model (or subfolder) that cannot be found or read.
        ``None`` with ``config=`` and ``state_dict=`` loads weights held in memory, as transformers does.

        Weights that do not fit the config (``check_loaded_weights``: a missing, unexpected or
        differently shaped weight of the biLM or the softmax, e.g. after an edit of ``config.json``)
        are an ``InvalidModelError`` that names the folder; ``ignore_mismatched_sizes=True`` lets
        only a task head's own layers differ in shape (a new ``num_labels``). Weights that hold NaN
        or infinite values are one too (``check_finite_weights``). ``use_safetensors=False`` (pickled
        weights) is a ``ValueError``.
        """
        if kwargs.get("use_safetensors") is False:
            raise ValueError(
                "use_safetensors=False asks for pickled weights (pytorch_model.bin), which ELMo models never load "
                "(only safetensors); leave use_safetensors unset"
            )
        if kwargs.get("dtype") is None and kwargs.get("torch_dtype") is None:
            kwargs["dtype"] = torch.float32
        kwargs["use_safetensors"] = True  # None would let transformers fall back to pytorch_model.bin
        for key, tensor in (kwargs.get("state_dict") or {}).items():
            if isinstance(tensor, torch.Tensor) and not tensor.is_floating_point():
                dtype = str(tensor.dtype).removeprefix("torch.")
                raise not_float_weight(weights_source(None), key, dtype, "pass the model's own weights")
        if cls.package_loader is not None and pretrained_model_name_or_path is not None:
            subfolder = kwargs.pop("subfolder", None) or ""  # resolved: the subfolder itself
            resolved = cls.package_loader.resolve(cls, pretrained_model_name_or_path, kwargs, subfolder)
            if not isinstance(resolved, (str, os.PathLike)):  # the original files, converted and loaded with kwargs
                return resolved
            pretrained_model_name_or_path = resolved
        if pretrained_model_name_or_path is not None:
            check_saved_whole(pretrained_model_name_or_path, kwargs.get("subfolder") or "")
        output_loading_info = kwargs.pop("output_loading_info", False)
        ignore_mismatched_sizes = kwargs.pop("ignore_mismatched_sizes", False)
        with no_weight_progress_bars(), load_report_held():
            # Mismatched shapes come back in the loading info (for the one-line error below)
            # instead of raising transformers' RuntimeError.
            loaded = super().from_pretrained(
                pretrained_model_name_or_path,
                *args,
                output_loading_info=True,
                ignore_mismatched_sizes=True,
                **kwargs,
            )
            model, info = cast(tuple[ElmoPreTrainedModel, dict[str, Any]], loaded)
            check_loaded_weights(model, pretrained_model_name_or_path, info, ignore_mismatched_sizes)
            check_finite_weights(model, pretrained_model_name_or_path)
        return (model, info) if output_loading_info else model

    def save_pretrained(
        self,
        save_directory: str | os.PathLike,
        *args: Any,
        storage_dtype: torch.dtype | None = None,
        **kwargs: Any,
    ) -> None:
        """``PreTrainedModel.save_pretrained``, without a progress bar, and with the weight files
        as readable as the ``config.json`` written beside them (safetensors creates them 0600).

        ``storage_dtype`` (e.g. ``torch.float16``: half the file) stores the floating-point
        weights in that dtype while ``config.json`` keeps the model's own ``dtype``, the one that
        ``dtype="auto"`` (transformers pipelines' default) loads them into: a float32 model saved
        so loads as float32 everywhere, as fast on CPU as before.

        ``config.json``'s ``auto_map`` keeps only the classes whose code the folder gets (this
        class's module and its siblings): the biLM saved from an LM or task folder maps neither
        ``AutoModelForPreTraining`` nor the task heads, whose files it does not carry.

        The files are written in a hidden folder in the folder, then moved in (``saved_aside``): a folder that holds
        an earlier save keeps it whole until this one is, a save that fails (a bad ``max_shard_size``, a full disk)
        leaves it as it was, or removes the folder where it created it, and the weights are this save's, sharded or
        not: the earlier save's weights files go (``is_weights_file``). A model whose weights were never loaded
        (``weights_never_loaded``) is refused before anything is written, and so is a path that is a file (``~`` is
        the home folder, ``check_save_folder``), and so is ``safe_serialization=False`` (pickled weights, which
        ELMo models never load; transformers 5 would ignore it and save safetensors). Another process's save into
        the folder is waited for, so that it holds one whole save, the last to finish (``one_save_at_a_time``,
        ``saving_into``). With
        ``push_to_hub`` the folder is saved whole first, then pushed with a model card (``push_saved``), as the
        config and tokenizer are: a push that fails leaves it, and says so in one line naming it.
        """
        if kwargs.get("safe_serialization") is False:  # transformers 5 takes it no more: it would save safetensors
            raise ValueError(
                "safe_serialization=False asks for pickled weights (pytorch_model.bin), which ELMo models never write "
                "or load (only safetensors); leave safe_serialization unset"
            )
        if "state_dict" not in kwargs and weights_never_loaded(self):
            raise never_loaded_error()  # transformers would fail on the first weight, the config and code written
        self._write_custom_pipelines()
        auto_map = getattr(self.config, "auto_map", None)
        if auto_map:  # e.g. the biLM of an LM folder maps no AutoModelForPreTraining: modeling_lm.py stays behind
            saved = saved_code(type(self))
            self.config.auto_map = {
                auto: name
                for auto, name in auto_map.items()
                if not isinstance(name, str) or name.split("--")[-1].rsplit(".", 1)[0] in saved
            }
        if storage_dtype is not None and not one_of(storage_dtype, STORAGE_DTYPES):
            raise ValueError(
                f"storage_dtype must be torch.float32, torch.float16 or torch.bfloat16 (a floating-point "
                f"dtype that holds the weights), got {described(storage_dtype)}"
            )
        if storage_dtype is not None and "state_dict" not in kwargs:
            kwargs["state_dict"] = {
                name: stored_in(storage_dtype, name, tensor) if tensor.is_floating_point() else tensor
                for name, tensor in self.state_dict().items()
            }
        saving = inspect.signature(PreTrainedModel.save_pretrained).bind_partial(self, save_directory, *args, **kwargs)
        push = saving.arguments.pop("push_to_hub", False)
        hub = saving.arguments.pop("kwargs", {}) if push else {}  # the repository's and commit's (private=...)
        token = saving.arguments.get("token")
        push = push and self.should_save_on_this_rank(saving.arguments.get("is_main_process", True))
        hub = hub if token is None else {**hub, "token": token}
        replaced = partial(is_weights_file, variant=saving.arguments.get("variant"))
        with saving_into(self, save_directory, push, hub, card=True, replaced=replaced) as (aside, _):
            folder = saving.arguments["save_directory"] = Path(aside)  # "~/model": the home folder's
            with no_weight_progress_bars():
                super().save_pretrained(*saving.args[1:], **saving.kwargs)
            config_file = folder / CONFIG_NAME
            if config_file.is_file():
                mode = config_file.stat().st_mode & 0o666
                for weights in folder.glob("*.safetensors"):
                    weights.chmod(mode)

    def _write_custom_pipelines(self) -> None:
        """Put this class's own pipelines (``_custom_pipelines``) into ``config.custom_pipelines``, in
        the form transformers' ``Pipeline.save_pretrained`` writes, beside any of the user's own; the
        package's (``pipelines.Elmo*``) of another class go (e.g. the biLM saved from a tagger),
        and the field with them when nothing is left."""
        kept = {
            task: info
            for task, info in (getattr(self.config, "custom_pipelines", None) or {}).items()
            if not (isinstance(info, dict) and str(info.get("impl", "")).startswith("pipelines.Elmo"))
        }
        if self._auto_class:
            for task, impl in self._custom_pipelines.items():
                module = impl.__module__.rsplit(".", 1)[-1]
                kept[task] = {"impl": f"{module}.{impl.__name__}", "pt": [self._auto_class], "type": "text"}
        if kept:
            self.config.custom_pipelines = kept
        elif hasattr(self.config, "custom_pipelines"):
            del self.config.custom_pipelines


def check_loaded_weights(
    model: ElmoPreTrainedModel,
    source: str | os.PathLike | None,
    info: dict[str, Any],
    ignore_mismatched_sizes: bool = False,
) -> None:
    """Refuse, with one line naming ``source`` (``None``: the ``state_dict`` passed to
    ``from_pretrained``), weights that do not fit ``model``'s config.

    ``info`` is ``from_pretrained``'s loading info (after the classes'
    ``_keys_to_ignore_on_load_unexpected``). Refused: a missing weight, except the warm state and
    a task head's own layers when the folder holds none of them (a biLM folder); an unexpected
    weight of the model's own parts or of a biLM; a weight of another shape, except, with
    ``ignore_mismatched_sizes``, a task head's own. Left alone: the weights of parts the model
    does not have (the biLM alone loaded from a task model's folder).
    """
    state = model.state_dict()
    own = {key.split(".")[0] for key in state}
    head = {key for key in state if key.split(".")[0] in model._new_on_load}
    missing = {key for key in info["missing_keys"] if key.rsplit(".", 1)[-1] not in WARM_STATE}
    if head <= missing:  # a biLM folder: the task head is new
        missing -= head
    unexpected = {
        key
        for key in info["unexpected_keys"]
        if key.split(".")[0] in own or key.removeprefix("elmo.").split(".")[0] in BILM_PARTS
    }
    mismatched = sorted(
        (key, tuple(stored), tuple(wanted))
        for key, stored, wanted in info["mismatched_keys"]
        if not (ignore_mismatched_sizes and key.split(".")[0] in model._new_on_load)
    )
    if not (missing or unexpected or mismatched):
        return
    problems = []
    if missing:
        problems.append(f"missing {some_of(sorted(missing), 4)}")
    if unexpected:
        problems.append(f"unexpected {some_of(sorted(unexpected), 4)}")
    if mismatched:
        shapes = [f"{key} {stored} in the file, {wanted} for the config" for key, stored, wanted in mismatched]
        problems.append(f"of another shape {some_of(shapes, 4)}")
    if missing and all(key.startswith("softmax.") for key in missing):
        hint = "it holds a biLM without the LM softmax: load it with ElmoModel"
    elif (
        mismatched
        and not (missing or unexpected)
        and all(k.split(".")[0] in model._new_on_load for k, *_ in mismatched)
    ):
        hint = "for a task head of another size (num_labels, say) pass ignore_mismatched_sizes=True to start it afresh"
    elif source is None:
        hint = "pass the state_dict of a model of this config"
    else:
        hint = "restore its config.json (was it edited?) or re-create the folder with elmo convert or save_pretrained"
    fitted = "the config" if source is None else "its config.json"
    raise InvalidModelError(
        f"{weights_source(source)}: its weights do not fit {fitted} ({type(model).__name__}: "
        f"{'; '.join(problems)}); {hint}"
    )


def require_package_loader(cls: type[ElmoPreTrainedModel]) -> Any:
    """``cls.package_loader``, or a one-line error where there is none (a remote-code copy of this
    file, or ``hf_elmo`` never imported)."""
    if cls.package_loader is None:
        raise ImportError(
            f"converting original ELMo files needs the hf-elmo package ({INSTALL_HF_ELMO}), then import hf_elmo"
        )
    return cls.package_loader


class ElmoModel(ElmoPreTrainedModel):
    """The ELMo biLM: character ids in, L+1 layers of 2P-dimensional token vectors out.

    By default every call starts from the model's initial state (zeros, or the warm state set by
    ``warm_up``), so the same sentence gets the same vectors in any batch. With
    ``stateful=True`` (argument or config) the LSTM state of batch row r carries over to row r of
    the next call, exactly as bilm-tf and AllenNLP do; ``reset_states()`` forgets it.

    The token embedder is the char CNN (``char_cnn``), or with ``config.token_embedding="word"``
    a word-embedding lookup (``word_embedding``, V x P), the pretraining baseline: its ``encode``
    takes word ids (B, S) with the markers' word ids in place, and it has no ``forward`` on char ids.
    """

    warm_h: torch.Tensor  # (2, L, P) buffer: the initial h of every row in stateless calls
    warm_c: torch.Tensor  # (2, L, C) buffer: the initial c

    # A folder written by ``elmo pretrain`` (``ElmoForBidirectionalLM``) also holds the LM's word
    # softmax. Loading the biLM alone from it leaves the softmax out on purpose, so it is not
    # reported as unexpected; nor, in a word-embedding biLM only, is the unused char CNN that
    # word-baseline folders saved before the word embedding moved into the biLM hold (a char-CNN
    # biLM must refuse char CNN weights it has no place for: see ``check_loaded_weights``).
    _keys_to_ignore_on_load_unexpected = [r"^softmax\."]

    def __init__(self, config: ElmoConfig) -> None:
        config.validate()  # the fields together, overrides included (each alone was checked when set)
        super().__init__(config)
        if config.token_embedding == "word":
            assert config.vocab_size is not None  # ElmoConfig requires it with token_embedding="word"
            self._keys_to_ignore_on_load_unexpected = [r"^softmax\.", r"^(elmo\.)?char_cnn\."]
            self.word_embedding = nn.Embedding(config.vocab_size, config.projection_dim)
        else:
            self.char_cnn = ElmoCharCNN(config)
        self.bilm = ElmoBiLm(config)
        n, p, c = config.n_layers, config.projection_dim, config.lstm_dim
        # The initial state of every row in stateless calls; zeros until ``warm_up``.
        self.register_buffer("warm_h", torch.zeros(2, n, p))
        self.register_buffer("warm_c", torch.zeros(2, n, c))
        self._carried_state: ElmoState | None = None
        #: The token layer of recently seen tokens (fast path, inference only).
        self.token_cache = TokenLayerCache()
        self.post_init()

    def get_input_embeddings(self) -> nn.Embedding:
        """The lookup of the input ids: the char embedding (262 char ids x ``char_embedding_dim``),
        or with ``token_embedding="word"`` the word embedding (V x P)."""
        if self.config.token_embedding == "word":
            return self.word_embedding
        return self.char_cnn.char_embedding

    def set_input_embeddings(self, value: nn.Module) -> None:
        """Replace ``get_input_embeddings()`` with ``value``, an ``nn.Embedding`` of the same shape
        (the ids are fixed: 262 char ids, or the model's words)."""
        current = self.get_input_embeddings()
        if not isinstance(value, nn.Embedding) or value.weight.shape != current.weight.shape:
            shape = tuple(value.weight.shape) if isinstance(value, nn.Embedding) else described(value)
            raise ValueError(
                f"the input embeddings must be an nn.Embedding of shape {tuple(current.weight.shape)} (the ids are "
                f"fixed; resize_token_embeddings is refused likewise), got {shape}"
            )
        if self.config.token_embedding == "word":
            self.word_embedding = value
        else:
            self.char_cnn.char_embedding = value

    def clear_caches(self) -> None:
        """Forget what the model keeps between calls: ``token_cache`` and the re-laid-out weights
        of the fast and fused paths. Every change of the parameters is noticed by itself except
        one made through ``.data``, which leaves no trace in their version counters: call this
        after such an edit."""
        self.token_cache.clear()
        self.bilm._derived.clear()
        if self.config.token_embedding == "char_cnn":
            self.char_cnn._derived.clear()

    # -- state -----------------------------------------------------------------------------
    def reset_states(self) -> None:
        """Forget the state carried by stateful calls; the next one starts from the initial state."""
        self._carried_state = None

    def initial_state(self, batch_size: int, stateful: bool = False) -> ElmoState:
        """The state a call over ``batch_size`` rows starts from: the warm state (zeros until
        ``warm_up``) of every row, or with ``stateful`` the state carried from the last stateful
        call for the rows it had, in the model's dtype and on its device (moved there, when the
        model was since, by ``.to``, ``.half()``, ``.cuda()``). h (2, L, B, P), c (2, L, B, C)."""
        n = self.config.n_layers
        warm = ElmoState(
            self.warm_h.unsqueeze(2).expand(2, n, batch_size, -1),
            self.warm_c.unsqueeze(2).expand(2, n, batch_size, -1),
        )
        carried = self._carried_state if stateful else None
        if carried is None:
            return warm
        kept = min(batch_size, carried.h.shape[2])
        h = torch.cat([carried.h[:, :, :kept].to(warm.h), warm.h[:, :, kept:]], dim=2)
        c = torch.cat([carried.c[:, :, :kept].to(warm.c), warm.c[:, :, kept:]], dim=2)
        return ElmoState(h, c)

    def carry_state(self, final: ElmoState) -> None:
        """Keep ``final`` (``encode``'s) as the state the next stateful call starts from; rows
        beyond this batch keep what they had (AllenNLP semantics)."""
        old = self._carried_state
        final = ElmoState(final.h.detach(), final.c.detach())
        if old is not None and old.h.shape[2] > final.h.shape[2]:
            n = final.h.shape[2]
            h, c = old.h[:, :, n:].to(final.h), old.c[:, :, n:].to(final.c)
            final = ElmoState(torch.cat([final.h, h], 2), torch.cat([final.c, c], 2))
        self._carried_state = final

    @torch.no_grad()
    def warm_up(self, sentences: Sequence[Sequence[str]], batch_size: int = 32) -> None:
        """Set a fixed, deterministic initial state from a warm-up text.

        Runs ``sentences`` (token lists, in order; in eval mode, without gradients) statefully in batches of ``batch_size`` from
        the current initial state, then stores the mean over rows of the final LSTM state as the
        initial state of every later call. The state is saved with the model. Prefer it to zero
        state when vectors should resemble those of a model that has been reading text for a
        while (how ELMo was trained) yet must not depend on the batch or call order.
        """
        check_reads_char_ids(self, "warm_up")  # it runs the sentences' char ids
        if len(sentences) == 0:
            raise ValueError("warm_up needs at least one sentence")
        self.reset_states()
        device = self.warm_h.device
        training = self.training
        self.eval()  # no dropout: the same state in either mode
        try:
            with torch.no_grad():
                for start in range(0, len(sentences), batch_size):
                    ids = batch_to_ids(sentences[start : start + batch_size], self.config.max_characters_per_token)
                    self(input_ids=ids.to(device), stateful=True)
                state = self._carried_state
                assert state is not None  # the stateful calls above carried it
                self.warm_h.copy_(state.h.mean(dim=2))
                self.warm_c.copy_(state.c.mean(dim=2))
        finally:
            self.train(training)
            self.reset_states()

    # -- forward ---------------------------------------------------------------------------
    @said_if_never_loaded
    def token_embeddings(self, char_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The token layer (B, S, P) for ``char_ids`` (B, S, W), zero where ``mask`` is False;
        for ``token_embedding="word"``, the word embeddings of word ids (B, S).

        The fast path runs the char CNN once per distinct token of the batch (on running text
        about half the slots), and in inference only on those not in ``token_cache``; the
        vectors are the same as running it on every slot.
        """
        if self.config.token_embedding == "word":
            return self.word_embedding(char_ids.clamp(min=0)) * mask.unsqueeze(-1)
        out = char_ids.new_zeros(*mask.shape, self.config.projection_dim, dtype=self.dtype)
        # the tokens' (row, step) indices, not the boolean mask: the backward of a write through a
        # mask finds its positions again (a nonzero, which torch.compile's inductor cannot compile)
        positions = mask.nonzero(as_tuple=True)
        tokens = char_ids[positions]  # (N, W)
        if self.config.bilm_implementation == "plain" or not runs_as_built(self.char_cnn):
            vectors = self.char_cnn(tokens)
        else:
            distinct, inverse = torch.unique(tokens, dim=0, return_inverse=True)  # (U, W), (N,)
            vectors = self.token_cache.token_layer(distinct, self.char_cnn)[inverse]
        return out.index_put_(positions, vectors.to(out.dtype))

    def encode(
        self, char_ids: torch.Tensor, lengths: torch.Tensor, initial_state: ElmoState | None = None
    ) -> tuple[list[torch.Tensor], ElmoState]:
        """The biLM over char ids that already hold any sentence markers.

        Args:
            char_ids: (B, S, W) left-aligned char ids (word ids (B, S) for
                ``token_embedding="word"``), ``lengths`` (B,) real steps per row.
            initial_state: state to start from (default: ``initial_state``, zeros or warm).

        Returns:
            L+1 layers (B, S, 2P), zero beyond each row's length, and the final ``ElmoState``
            (forward: after each row's last step; backward: after its first).
        """
        steps = char_ids.shape[1]
        mask = torch.arange(steps, device=lengths.device) < lengths.unsqueeze(1)
        return self.contextualize(self.token_embeddings(char_ids, mask), lengths, initial_state)

    @said_if_never_loaded
    def contextualize(
        self, tokens: torch.Tensor, lengths: torch.Tensor, initial_state: ElmoState | None = None
    ) -> tuple[list[torch.Tensor], ElmoState]:
        """``encode`` from a token layer already computed: ``tokens`` (B, S, P), markers included,
        zero beyond each row's ``lengths`` (B,); e.g. rows looked up from a precomputed vocabulary
        (``hf_elmo.Elmo``'s ``vocab_to_cache``). Returns what ``encode`` returns."""
        if initial_state is None:
            initial_state = self.initial_state(tokens.shape[0])
        lstm_layers, final = self.bilm(tokens, lengths, initial_state)
        return [torch.cat([tokens, tokens], dim=-1)] + lstm_layers, final

    @takes_only_its_arguments
    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        stateful: bool | None = None,
        return_dict: bool | None = None,
        output_hidden_states: bool | None = None,
        output_attentions: bool | None = None,
    ) -> ElmoModelOutput | tuple:
        """Embed a batch of tokenised sentences.

        Args:
            input_ids: (B, T, max_characters_per_token) char ids 0..261 of the tokens only (no
                sentence markers), left-aligned, padding tokens all zero; an integer tensor
                (``check_inputs`` says which, and refuses bad inputs with one line).
            attention_mask: (B, T) 1 for real tokens; derived from ``input_ids`` when absent.
            stateful: carry LSTM state per batch row across calls (default ``config.stateful``):
                the model's one carried state, so not for threads sharing the model (a call
                continues from whichever thread's call came last); stateless calls are.
            output_hidden_states: accepted as other transformers models take it; every layer is
                ELMo's output, so ``hidden_states`` is always returned.
            output_attentions: accepted as other transformers models take it; ``True`` is an error
                (a biLSTM has no attention), and so is ``config.output_attentions`` True when it is unset.

        Returns:
            ``ElmoModelOutput``: ``last_hidden_state`` (B, T, 2P), ``hidden_states`` (L+1 tensors
            (B, T, 2P)) and ``attention_mask`` (B, T) bool; with ``return_dict=False`` (or
            ``config.return_dict`` False) the tuple of those three, in that order.

        Run without gradients in training mode with ``config.dropout`` > 0 (as the model is when built:
        a pipeline does not call ``eval()``), it warns once that its outputs vary from call to call
        (``_warn_of_dropout_in_prediction``).
        """
        check_no_attention(output_attentions, self.config)
        self._warn_of_dropout_in_prediction()
        if self.config.token_embedding == "word":
            raise ValueError(  # a feature-extraction pipeline's first call too: name the folder
                f"{model_name(self)}: {WORD_IDS_MODEL}: call encode(word_ids, lengths) with the sentence markers' "
                "word ids in place"
            )
        input_ids, mask = check_inputs(input_ids, attention_mask, self.config.max_characters_per_token)
        if input_ids.device.type == "cpu" and self.dtype == torch.float16:
            _logger.warning_once(
                "ElmoModel runs in float16 on the CPU, which is 8-52x slower than float32 there (CPUs have no "
                "float16 matrix units); use model.float(), or bfloat16 on a CPU with AVX512-bf16"
            )
        lengths = mask.sum(dim=1)
        steps = input_ids.shape[1]
        stateful = self.config.stateful if stateful is None else stateful

        char_ids = add_sentence_markers(input_ids, lengths)  # (B, T+2, W)
        initial = self.initial_state(input_ids.shape[0], stateful)
        layers, final = self.encode(char_ids, lengths + 2, initial)
        if stateful:
            self.carry_state(final)

        keep = mask.unsqueeze(-1).to(layers[0].dtype)
        hidden_states = tuple(layer[:, 1 : steps + 1] * keep for layer in layers)
        output = ElmoModelOutput(last_hidden_state=hidden_states[-1], hidden_states=hidden_states, attention_mask=mask)
        return_dict = self.config.return_dict if return_dict is None else return_dict
        return output if return_dict else output.to_tuple()
