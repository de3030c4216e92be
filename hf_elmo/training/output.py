"""The model folder a finished run writes: ``save_pretrained`` + ``vocab.txt`` + tokenizer +
``training.json`` + model card, built aside and renamed into place, naming no absolute path of
the training machine."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from ..fileio import PathLike, build_aside
from ..model_card import write_model_card
from ..modeling_lm import ElmoForBidirectionalLM
from ..tokenization_elmo import ElmoTokenizer
from .settings import PretrainSettings
from .vocab import VOCAB_FILE, Vocabulary


def save_lm_folder(
    model: ElmoForBidirectionalLM,
    vocabulary: Vocabulary,
    out_dir: PathLike,
    settings: PretrainSettings,
    position: dict[str, Any],
    metrics: dict[str, Any],
    overwrite: bool = False,
) -> Path:
    """``save_pretrained`` + ``vocab.txt`` + tokenizer + model card, built aside and renamed into place.

    The weights are stored in ``settings.save_dtype``; ``config.json`` keeps the model's dtype
    (float32), so that every way of loading the folder computes in float32 unless asked otherwise.
    """
    dtype = getattr(torch, settings.save_dtype)
    expected_bytes = sum(p.numel() for p in model.parameters()) * dtype.itemsize
    with build_aside(out_dir, overwrite=overwrite, expected_bytes=expected_bytes) as staging:
        model.config.pre_tokenizer = settings.pre_tokenizer  # how the corpus was split, for a model saved alone
        model.save_pretrained(staging, storage_dtype=dtype)
        vocabulary.save(staging / VOCAB_FILE)
        ElmoTokenizer(
            max_characters_per_token=model.config.max_characters_per_token, pre_tokenizer=settings.pre_tokenizer
        ).save_pretrained(staging)
        training = {"settings": publishable_settings(settings), "position": position, "metrics": metrics}
        (staging / "training.json").write_text(json.dumps(training, indent=2) + "\n")
        write_model_card(staging, **model_card_fields(model, settings, position, metrics))
    return Path(out_dir)


#: PretrainSettings fields that hold paths.
_PATH_FIELDS = ("train_file", "output_dir", "valid_file", "init_model", "vocab_file", "checkpoint_dir")


def publishable_settings(settings: PretrainSettings) -> dict[str, Any]:
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


def model_card_fields(
    model, settings: PretrainSettings, position: dict[str, Any], metrics: dict[str, Any]
) -> dict[str, Any]:
    """Title, description and provenance rows of a pretrained model's card."""
    cfg = model.config
    kind = "char-CNN" if cfg.token_embedding == "char_cnn" else "word-embedding (baseline)"
    provenance = {
        "training data": settings.data_description or Path(settings.train_file).name,
        "tokenisation": settings.pre_tokenizer,
        "architecture": f"{kind} biLM, {cfg.n_layers} layers, LSTM {cfg.lstm_dim}, projection {cfg.projection_dim}, "
        f"{cfg.n_filters} char filters, {cfg.n_highway} highway, vocabulary {cfg.vocab_size}",
        "optimizer": f"{settings.optimizer} (lr {settings.resolved_lr():g}"
        + (f", {settings.lr_schedule} schedule" if settings.lr_schedule != "constant" else "")
        + (f", {settings.warmup_steps} warm-up steps" if settings.warmup_steps else "")
        + f"), clip {settings.clip_norm}, dropout {settings.dropout}, {settings.softmax} softmax"
        + (f" ({cfg.num_sampled} draws)" if settings.softmax == "sampled" else ""),
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
            f"(full softmax, {values['predictions']:,} predictions per direction)"
        )
    return dict(
        title=f"ELMo {cfg.n_layers}x{cfg.lstm_dim}_{cfg.projection_dim} pretrained with hf_elmo",
        description=(
            "A bidirectional LM (ELMo, Peters et al. 2018) pretrained from scratch with `elmo pretrain`. "
            "The folder holds the biLM with its word softmax (`ElmoForBidirectionalLM`) and `vocab.txt`; "
            "`ElmoModel.from_pretrained` loads the biLM alone."
        ),
        provenance=provenance,
    )
