"""The model folder a finished run writes: ``save_pretrained`` + ``vocab.txt`` + tokenizer +
``training.json`` + model card, built aside and renamed into place, naming no absolute path of
the training machine."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import torch

from ..configuration_elmo import WHITESPACE
from ..elmo_weights import stored_in
from ..fileio import PathLike, strict_json
from ..loading import ModelSource
from ..model_card import DEFAULT_LICENSE, card_license_and_attribution, write_model_card
from ..modeling_lm import ElmoForBidirectionalLM
from ..output_folders import TRAINING_FILE, build_aside
from ..tokenization_elmo import ElmoTokenizer
from .distributed import warn
from .evaluation import predictions_text, seen_in_training_text
from .settings import FILE_FIELDS, PretrainSettings
from .vocab import VOCAB_FILE, Vocabulary


def save_lm_folder(
    model: ElmoForBidirectionalLM,
    vocabulary: Vocabulary,
    out_dir: PathLike,
    settings: PretrainSettings,
    position: dict[str, Any],
    metrics: dict[str, Any],
    init: InitModelCard | None,
    overwrite: bool = False,
) -> Path:
    """``save_pretrained`` + ``vocab.txt`` + tokenizer + model card, built aside and renamed into place;
    returns the folder written (``~`` expanded).

    ``init``: the ``init_model_card`` of the ``--init-model`` (``None`` for a model from
    scratch), built once when the run starts: the card says what that model was then, even if
    its folder has moved since. The weights are stored in ``settings.storage_dtype``; ``config.json`` keeps the model's dtype
    (float32), so that every way of loading the folder computes in float32 unless asked otherwise.
    """
    settings = resolved_card_settings(model, settings, init)
    pre_tokenizer = settings.pre_tokenizer
    assert pre_tokenizer is not None  # resolved
    dtype = getattr(torch, settings.storage_dtype)
    expected_bytes = sum(p.numel() for p in model.parameters()) * dtype.itemsize
    with build_aside(out_dir, overwrite=overwrite, expected_bytes=expected_bytes) as staging:
        model.config.pre_tokenizer = pre_tokenizer  # how the corpus was split, for a model saved alone
        model.save_pretrained(staging, storage_dtype=dtype)
        vocabulary.save(staging / VOCAB_FILE)
        ElmoTokenizer(
            max_characters_per_token=model.config.max_characters_per_token, pre_tokenizer=pre_tokenizer
        ).save_pretrained(staging)
        training = {"settings": publishable_settings(settings), "position": position, "metrics": metrics}
        (staging / TRAINING_FILE).write_text(strict_json(training, indent=2) + "\n")
        write_model_card(staging, **model_card_fields(model, settings, position, metrics, init))
    return Path(out_dir).expanduser()  # where build_aside wrote it ("~/out": the home folder's)


@torch.no_grad()
def round_to_storage(model: torch.nn.Module, dtype: torch.dtype) -> None:
    """Round the floating tensors of ``model``'s state (weights and buffers such as the warm
    state) in place to what storing them in ``dtype`` keeps (they stay float32): the model then
    computes as its folder loads, e.g. for the card's perplexity."""
    if dtype != torch.float32:
        for name, tensor in model.state_dict().items():
            if tensor.is_floating_point():
                tensor.copy_(stored_in(dtype, name, tensor))


@dataclass(frozen=True)
class InitModelCard:
    """What the card of a model continued from ``--init-model`` says of that model.

    Attributes:
        name: the init model as the user named it, without the training machine's paths (a Hub
            id or shipped name as given, a local folder by ``publishable_path``).
        hub_id: its Hub id (the card's ``base_model:``); ``None`` for a shipped or local model.
        license: its card's ``license:``; ``None`` without one (original files, no card).
        attribution: its card's attribution paragraph (``model_card.ATTRIBUTION``), carried on.
    """

    name: str
    hub_id: str | None
    license: str | None
    attribution: str | None


def init_model_card(source: ModelSource | None) -> InitModelCard | None:
    """The ``InitModelCard`` of the ``--init-model`` that ``resolve_init_model`` found (``None``
    for a model from scratch)."""
    if source is None:
        return None
    name = source.name if source.origin in ("hub", "shipped") else publishable_path(source.path)
    license, attribution = card_license_and_attribution(source.path) if source.path.is_dir() else (None, None)
    return InitModelCard(name, source.name if source.origin == "hub" else None, license, attribution)


def resolved_card_settings(
    model: ElmoForBidirectionalLM, settings: PretrainSettings, init: InitModelCard | None
) -> PretrainSettings:
    """``settings`` with the defaults that depend on the model filled in, as the folder records them:
    ``pre_tokenizer`` (not given: the ``--init-model``'s, which ``build_model`` put in the model's
    config, else whitespace) and ``license`` (not given: the card's of the ``--init-model``, whose
    ``init_model_card`` is ``init``, else ``DEFAULT_LICENSE``)."""
    pre_tokenizer = settings.pre_tokenizer or model.config.pre_tokenizer or WHITESPACE
    license = settings.license or (init.license if init else None) or DEFAULT_LICENSE
    return replace(settings, pre_tokenizer=pre_tokenizer, license=license)


def warn_of_a_license_change(settings: PretrainSettings, init: InitModelCard | None) -> None:
    """Warn when ``--license`` differs from the licence on the card of the ``--init-model``
    (``init``): the continued model derives from it."""
    base_license = init.license if init is not None else None
    if settings.license is not None and base_license is not None and settings.license != base_license:
        warn(
            f"--license {settings.license} differs from the licence of --init-model {settings.init_model} "
            f"({base_license}): check that its terms let you share a model derived from it under {settings.license}"
        )


#: PretrainSettings fields that hold paths.
_PATH_FIELDS = (*FILE_FIELDS, "init_model")


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
    model: ElmoForBidirectionalLM,
    settings: PretrainSettings,
    position: dict[str, Any],
    metrics: dict[str, Any],
    init: InitModelCard | None = None,
) -> dict[str, Any]:
    """Title, description, provenance rows, licence and base model of a pretrained model's card
    (``settings`` as ``resolved_card_settings`` gives them; ``init``: the model it continued)."""
    cfg = model.config
    char_cnn = cfg.token_embedding == "char_cnn"
    kind = "char-CNN" if char_cnn else "word-embedding (baseline)"
    token_layer = f"{cfg.n_filters} char filters, {cfg.n_highway} highway, " if char_cnn else ""
    provenance = {
        "training data": settings.data_description or Path(settings.train_file).name,
        "tokenisation": settings.pre_tokenizer,
        "architecture": f"{kind} biLM, {cfg.n_layers} layers, LSTM {cfg.lstm_dim}, projection {cfg.projection_dim}, "
        f"{token_layer}vocabulary {cfg.vocab_size}",
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
        caveat = seen_in_training_text(metrics) if split == "valid" else ""
        provenance[f"perplexity ({split})"] = (
            f"forward {values['forward']:.2f}, backward {values['backward']:.2f}, average {values['average']:.2f} "
            f"= sqrt(forward x backward) (full softmax, {predictions_text(values)}{caveat})"
        )
    how = "pretrained from scratch" if init is None else f"continued from `{init.name}`"
    description = (
        f"A bidirectional LM (ELMo, Peters et al. 2018) {how} with `elmo pretrain`. "
        "The folder holds the biLM with its word softmax (`ElmoForBidirectionalLM`) and `vocab.txt`; "
        "`ElmoModel.from_pretrained` loads the biLM alone."
    )
    if init is not None:
        provenance = {"continued from": init.name, **provenance}
        description += (
            f" The training data, steps, tokens seen and time below are this run's only; `{init.name}`'s own "
            "card says how it was trained before."
        )
        if init.attribution:
            description += f"\n\nThe attribution of `{init.name}`, which this model carries on:\n\n{init.attribution}"
    return dict(
        title=f"ELMo {cfg.n_layers}x{cfg.lstm_dim}_{cfg.projection_dim} "
        + ("pretrained with hf_elmo" if init is None else f"continued from {init.name} with hf_elmo"),
        description=description,
        provenance=provenance,
        license=settings.license,
        base_model=init.hub_id if init else None,
        reads_word_ids=cfg.token_embedding == "word",
    )
