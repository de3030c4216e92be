"""The model and optimizer a run trains: a fresh LM from a preset, or one continued from
``--init-model``; the biLM path it trains on; Adagrad or Adam."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import torch

from ..configuration_elmo import ElmoConfig
from ..loading import ModelSource, model_tokenizer
from ..messages import first_line
from ..modeling_elmo import ElmoModel
from ..modeling_lm import ElmoForBidirectionalLM
from .distributed import warn
from .settings import (
    CHAR_CNN_FIELDS,
    DEFAULT_LR,
    NO_CLIP,
    PRESETS,
    PretrainSettings,
    flag,
    learning_rate,
    resolve_init_model,
    resolved_token_embedding,
)
from .vocab import VOCAB_FILE, Vocabulary

#: ``bilm_implementation="auto"`` trains on the fused LSTM kernel for clip-free models on these
#: devices. On CUDA it is cuDNN; on CPU torch's kernel is slower than the fast path at the shapes
#: measured (BENCHMARKS.md, "Pretraining throughput"), so CPU training stays on "fast".
FUSED_BY_DEFAULT_ON = ("cuda",)


def _load_init_model(source: Path, model_class, **config_changes: Any):
    """``model_class.from_pretrained(source, **config_changes)`` (``config_changes`` replace those
    fields of the saved config before the model is built) with a one-line error naming ``--init-model``."""
    try:
        return model_class.from_pretrained(source, **config_changes)
    except Exception as err:  # missing or corrupt files fail in many ways (OSError, SafetensorError, ...)
        raise ValueError(f"--init-model {source} cannot be loaded ({first_line(err, with_type=True)})") from None


def _check_shape_options(settings: PretrainSettings, config: ElmoConfig) -> None:
    """Refuse a shape option that would change the ``--init-model`` config: a non-default
    ``--preset``, a config override (``--lstm-dim``, ..., ``--filters``), or ``--no-clip`` for a
    model trained with clipping (without it, its LSTM would compute other values). One that
    asks for what the model already is changes nothing and passes, as do a preset's char-CNN
    fields (``CHAR_CNN_FIELDS``) for a word-embedding model, which has no char CNN."""
    asked: dict[str, tuple[str, Any]] = {}  # config field -> (the option that asks for it, its value)
    if settings.preset != PretrainSettings.__dataclass_fields__["preset"].default:
        asked.update({name: (f"--preset {settings.preset}", v) for name, v in PRESETS[settings.preset].items()})
    for name, value in settings.config_overrides.items():
        asked[name] = ("--no-clip" if name in NO_CLIP else flag(name), value)
    for name, (option, value) in asked.items():
        if config.token_embedding == "word" and name in CHAR_CNN_FIELDS:
            if option == flag(name):  # given alone, not by the preset: it would shape nothing
                raise ValueError(
                    f"{option}: for the char CNN only, which --init-model {settings.init_model} does not have (it "
                    "embeds words); drop it"
                )
            continue
        saved = getattr(config, name)
        if name == "filters":
            saved = [list(f) for f in saved]
        if saved == value:
            continue
        if option == "--no-clip":
            raise ValueError(
                f"--no-clip cannot take the clipping out of --init-model {settings.init_model} (cell_clip="
                f"{config.cell_clip}, proj_clip={config.proj_clip}): it was trained with it and would compute "
                "other values without; drop --no-clip"
            )
        raise ValueError(
            f"{option} cannot change the shape of --init-model {settings.init_model} ({name} {json.dumps(value)}, "
            f"not its {json.dumps(saved)}): a continued model keeps its own; drop it"
        )


def build_model(
    settings: PretrainSettings, vocabulary: Vocabulary, init_source: ModelSource | None = None
) -> ElmoForBidirectionalLM:
    """A fresh LM from a preset (+ overrides), or one continued from ``settings.init_model``
    (``init_source``: its ``resolve_init_model``, when the caller has it already), which keeps
    its shape, clipping and token embedder (``_check_init_model_options`` refuses options that would
    change them; a ``token_embedding`` of None is the init model's, ``resolved_token_embedding``)."""
    source = init_source or resolve_init_model(settings)
    settings = resolved_token_embedding(settings, source)
    lm_fields = dict(
        vocab_size=len(vocabulary),
        softmax=settings.softmax,
        token_embedding=settings.token_embedding,
        dropout=settings.dropout,
    )
    if settings.num_sampled is not None:  # else the config's default (or the --init-model LM's number)
        lm_fields["num_sampled"] = settings.num_sampled
    if settings.init_model is None:
        if settings.preset not in PRESETS:
            raise ValueError(f"unknown preset {settings.preset!r}; choose one of {sorted(PRESETS)}")
        fields = {**PRESETS[settings.preset], **settings.config_overrides, **lm_fields}
        return ElmoForBidirectionalLM(ElmoConfig(**fields))
    assert source is not None  # settings.init_model is set
    if source.has_lm_head:
        # The run's softmax, dropout (and num_sampled, when given) replace the saved ones.
        changes = {k: v for k, v in lm_fields.items() if k in ("softmax", "num_sampled", "dropout")}
        model = _load_init_model(source.path, ElmoForBidirectionalLM, **changes)
        _check_init_model_options(settings, model.config)
        saved = Vocabulary.from_file(source.path / VOCAB_FILE)
        if saved.words != vocabulary.words:
            raise ValueError(
                f"{settings.init_model} was trained with its own {VOCAB_FILE}; continue with "
                f"--vocab {source.path / VOCAB_FILE}"
            )
        base: ElmoModel | ElmoForBidirectionalLM = model
    else:
        bilm = _load_init_model(source.path, ElmoModel)  # a converted folder, or original files (folder or zip)
        _check_init_model_options(settings, bilm.config)
        model = ElmoForBidirectionalLM(ElmoConfig.from_dict({**bilm.config.to_dict(), **lm_fields}))
        model.elmo.load_state_dict(bilm.state_dict())
        base = bilm
    # how the init model's corpus was split (its saved tokenizer's): kept unless --pre-tokenizer says otherwise
    model.config.pre_tokenizer = model_tokenizer(base).pre_tokenizer
    if settings.pre_tokenizer is not None and settings.pre_tokenizer != model.config.pre_tokenizer:
        warn(
            f"--pre-tokenizer {settings.pre_tokenizer} differs from --init-model {settings.init_model}'s "
            f"{model.config.pre_tokenizer}: the continued model's tokenizer will split raw text with "
            f"{settings.pre_tokenizer}, as the base model's did not"
        )
    return model


def _check_init_model_options(settings: PretrainSettings, config: ElmoConfig) -> None:
    """Refuse options that the ``--init-model`` (of ``config``) cannot follow: its shape
    (``_check_shape_options``) and its token embedder, part of the biLM."""
    _check_shape_options(settings, config)
    if config.token_embedding != settings.token_embedding:
        raise ValueError(
            f"--token-embedding {settings.token_embedding} differs from --init-model {settings.init_model}, which "
            f"embeds tokens with {config.token_embedding!r}: a continued model keeps its own; drop --token-embedding"
        )


def resolve_bilm_implementation(requested: str, config: ElmoConfig, device: torch.device) -> str:
    """The biLM path to train on: ``requested``, or for ``"auto"`` the fused LSTM kernel when
    it runs the model (``ElmoConfig.fused_lstm_unsupported``: clip-free, ``projection_dim`` below
    ``lstm_dim``) and the device is in ``FUSED_BY_DEFAULT_ON``, else ``"fast"``."""
    unsupported = config.fused_lstm_unsupported()
    if requested == "auto":
        return "fused" if unsupported is None and device.type in FUSED_BY_DEFAULT_ON else "fast"
    if requested == "fused" and unsupported:
        clips = any(getattr(config, name) is not None for name in NO_CLIP)
        raise ValueError(f"--bilm-implementation fused: {unsupported}{' (train with --no-clip)' if clips else ''}")
    return requested


def make_optimizer(name: str, params: Iterable[torch.nn.Parameter], lr: float | None) -> torch.optim.Optimizer:
    """Adagrad (accumulator 1.0, as bilm-tf) or Adam; ``lr`` None: the optimizer's ``DEFAULT_LR``."""
    if name not in DEFAULT_LR:
        raise ValueError(f"unknown optimizer {name!r}; choose one of {sorted(DEFAULT_LR)}")
    rate = learning_rate(name, lr)
    if name == "adagrad":
        return torch.optim.Adagrad(params, lr=rate, initial_accumulator_value=1.0)
    return torch.optim.Adam(params, lr=rate)
