"""A run's checkpoint folder (``OUTPUT_DIR.checkpoint`` unless ``--checkpoint-dir``).

It holds ``settings.json`` (with the training file's SHA-256, ``TRAIN_FILE_IDENTITY``)
and ``vocab.txt`` (written when the run starts), ``checkpoint.pt``
(model, optimizer, data position: epoch, batch, step, tokens seen, training seconds; the number
of processes and the data order, ``data.DATA_ORDER``, that the position stands for),
``rng-rankR-stepS.pt`` (every rank's RNG state at the step S of ``checkpoint.pt``: a kill
between the files keeps the previous pair whole) and ``losses.tsv`` (one line a step), so a killed
run resumes exactly where its last checkpoint was taken; with ``--snapshot-tokens N``, also
``tokens-N/``, the model folder as it was at N tokens (``snapshot_folder``). Every file is
written aside and renamed into place, after checking that the disk has room for it (a full
disk keeps the last checkpoint); a damaged one is named with what to do. A folder that is not a
run's (files but no ``settings.json``, the inputs, the output folder) is refused before the run
writes (``check_checkpoint_folder``), and so is resuming on a training file whose content
changed, a ``--vocab`` or an ``--init-model`` LM's ``vocab.txt`` of other words (``resumed_settings``)
or an ``--init-model`` of another config (``check_resumed_init_model``), with another number of
processes, or under another data order (``load_checkpoint``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import torch

from ..configuration_elmo import OPTIONS_KEYS, ElmoConfig
from ..fileio import (
    atomic_file,
    check_file_size_limit,
    check_parent_folders,
    ensure_free_space,
    is_or_holds,
    write_text_atomic,
)
from ..messages import described, error_reason, first_line
from ..output_folders import CHECKPOINT_FILE, SETTINGS_FILE
from .data import DATA_ORDER, same_batches
from .distributed import refused_together
from .settings import (
    CHAR_CNN_FIELDS,
    DEFAULT_LR,
    RUN_LENGTH_FIELDS,
    PretrainSettings,
    flag,
    learning_rate,
    resolved_token_embedding,
)
from .vocab import VOCAB_FILE, Vocabulary

if TYPE_CHECKING:
    from ..loading import ModelSource

LOSS_LOG = "losses.tsv"
#: The key of ``settings.json`` that records the training file (``fileio.input_identity``).
TRAIN_FILE_IDENTITY = "train_file_identity"
#: The key of ``settings.json`` that records what the run took from its ``--init-model`` (``init_model_record``).
INIT_MODEL_CONFIG = "init_model_config"
#: The data position a checkpoint saves; every field a count but ``elapsed`` (seconds).
POSITION_FIELDS = ("epoch", "batch", "step", "tokens_seen", "elapsed")
#: The key of ``checkpoint.pt`` that records the data order of its position (``data.DATA_ORDER``).
DATA_ORDER_KEY = "data_order"
#: What to do after a failed checkpoint write.
_RESUME = "run the same command again: it resumes from the last checkpoint, if one was taken"


#: A snapshot's folder in the checkpoint folder: this prefix and its token count.
SNAPSHOT_PREFIX = "tokens-"


def snapshot_folder(checkpoint_dir: Path, tokens: int) -> Path:
    """Where a run with ``--snapshot-tokens TOKENS`` writes its model folder of that moment."""
    return Path(checkpoint_dir) / f"{SNAPSHOT_PREFIX}{tokens}"


def run_started(folder: Path) -> bool:
    """Whether the run in ``folder`` left anything of its training: a checkpoint, or a snapshot
    (``--snapshot-tokens`` can come before the first checkpoint). Such a run binds the next one
    to its settings; one that left neither (it failed or was stopped in its first steps) does not."""
    folder = Path(folder)
    return (folder / CHECKPOINT_FILE).is_file() or any(
        p.is_dir() for p in folder.glob(f"{SNAPSHOT_PREFIX}*") if p.name[len(SNAPSHOT_PREFIX) :].isdigit()
    )


def rng_file(folder: Path, rank: int, step: int) -> Path:
    """The RNG state of ``rank`` at the checkpoint of ``step``."""
    return Path(folder) / f"rng-rank{rank}-step{step}.pt"


def old_rng_file(folder: Path, rank: int) -> Path:
    """Where a checkpoint written before the RNG files named their step keeps ``rank``'s RNG state."""
    return Path(folder) / f"rng-rank{rank}.pt"


def check_checkpoint_folder(folder: Path, out_dir: Path, inputs: Iterable[str | Path]) -> None:
    """Refuse a checkpoint folder that is not a run's, before anything is written: a file, one under
    a file (``check_parent_folders``), one that is, holds or lies in the output folder ``out_dir``
    (which the model folder replaces at the end), one that holds or lies in one of ``inputs``, or a
    folder with files but no ``settings.json`` (what a run writes first), whose files the run would
    take for its own or overwrite."""
    where = f"the checkpoint folder {folder}"
    other = "pick another --checkpoint-dir"
    check_parent_folders(folder)
    if folder.exists() and not folder.is_dir():
        raise FileExistsError(f"{where} is a file, not a folder; {other}")
    if is_or_holds(folder, out_dir) or is_or_holds(out_dir, folder):
        raise ValueError(
            f"{where} is, holds or lies in the output folder {out_dir}, which the model folder replaces at the "
            f"end of the run; {other}, outside {out_dir}"
        )
    for source in inputs:
        if is_or_holds(folder, source):
            raise ValueError(f"{where} holds the input {source}; {other} (the run writes its own files there)")
        if is_or_holds(source, folder):  # e.g. inside the --init-model folder, which the run would change
            raise ValueError(f"{where} lies inside the input {source}; {other}, outside it")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / SETTINGS_FILE).is_file():
        raise ValueError(
            f"{where} is not empty and has no {SETTINGS_FILE}, so it is not a run's checkpoint folder; {other}"
        )


def _start_again(folder: Path) -> str:
    return f"delete {folder} to start the run again from the beginning"


def _damaged(path: Path, folder: Path, err: BaseException) -> ValueError:
    return ValueError(f"{path} is damaged ({first_line(err, with_type=True)}); {_start_again(folder)}")


def _tensor_bytes(obj: Any) -> int:
    """The bytes of the tensors in ``obj`` (nested dicts, lists and tuples): about its ``torch.save`` size."""
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, dict):
        return sum(_tensor_bytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_tensor_bytes(v) for v in obj)
    return 0


def _atomic_torch_save(obj: Any, path: Path) -> None:
    """``torch.save`` through ``atomic_file``; a failed write (torch reports a full disk as a
    ``RuntimeError``) is an ``OSError`` naming the file, and the file before it stays."""
    with atomic_file(path) as tmp:
        try:
            torch.save(obj, tmp)
        except RuntimeError as err:
            raise OSError(
                f"could not write {path} ({first_line(err)}); the last checkpoint is kept: {_RESUME}"
            ) from None


def _torch_load(path: Path, folder: Path) -> dict[str, Any]:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; {_start_again(folder)}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except PermissionError:  # unreadable, not damaged: said as the system says it ("FILE: Permission denied")
        raise
    except Exception as err:  # torch reports a damaged file with many types (zip, pickle, EOF errors)
        raise _damaged(path, folder, err) from None
    if not isinstance(state, dict):
        raise _damaged(path, folder, TypeError(f"holds {described(state)}, not a checkpoint"))
    return state


def saved_vocabulary(folder: Path) -> Vocabulary | None:
    """The vocabulary of the run in ``folder`` (None when it left no checkpoint or snapshot,
    ``run_started``: a new run starts there)."""
    path = folder / VOCAB_FILE
    if not path.is_file() or not run_started(folder):
        return None
    try:
        return Vocabulary.from_file(path)
    except ValueError as err:
        raise ValueError(f"{path} is damaged ({err}); {_start_again(folder)}") from None


_OPTIONS = {f.name for f in fields(PretrainSettings) if f.metadata}


def resumed_settings(
    folder: Path,
    settings: PretrainSettings,
    train_file_identity: dict[str, Any],
    init_source: ModelSource | None = None,
) -> PretrainSettings:
    """``settings`` for the run in ``folder``; refused when they change more than how long it runs
    and how often it checkpoints (``RUN_LENGTH_FIELDS``), when the training file's content is
    not the one the run recorded (``train_file_identity``, from ``fileio.input_identity``: its
    SHA-256; its date may change, e.g. with a copy), or when the words of ``--vocab`` are not those of
    the run's ``vocab.txt`` (a copy of the file elsewhere resumes; whether ``--vocab`` is given at all
    is a setting), or when the ``--init-model`` (``init_source``) is not the model the run started
    from by what it gave the run: an LM's ``vocab.txt`` (the run's words), its token embedder (the
    run's ``token_embedding``) or its shape and clipping (those of the record, ``_init_model_shape``);
    refused as a resume, before ``build_model`` would refuse it as a new run (``continue with --vocab
    ...``, ``--token-embedding ... differs``, ``--lstm-dim cannot change the shape ...`` where the run
    gave a shape option, which a resume gives again). A run saved before
    the training file's record existed resumes unchecked (and records its file from then on). A run
    that left no checkpoint and no snapshot (``run_started``: it failed or was stopped in its first
    steps) binds nothing: ``start_run`` replaces its ``settings.json``.

    The returned settings name their token embedder: ``token_embedding`` left to its default (None)
    is the ``--init-model``'s, or ``DEFAULT_TOKEN_EMBEDDING`` (``resolved_token_embedding``).
    ``num_sampled`` left to its default (None) takes the run's saved number: runs started
    before that default moved to the model config saved one (4096 then), and resume with it.
    A setting that ``settings.json`` lacks (added to ``elmo pretrain`` after the run started)
    counts as its default, which is how such runs trained (``lr_schedule`` constant, no warmup).
    """
    previous = _saved_settings(folder)
    if previous is None:
        return resolved_token_embedding(settings, init_source)
    settings = _given_by_the_run(settings, previous, init_source)
    defaults = asdict(resolved_token_embedding(PretrainSettings(train_file="", output_dir=""), None))
    previous = {**defaults, **previous}  # + the defaults it lacks, those of a run from scratch
    # the training file is compared by its content when the run recorded it, by its name before that;
    # --vocab by its words (the run's vocab.txt); --init-model by its config when the run recorded it
    # (its shape below, before build_model; all of it in check_resumed_init_model, once the model is built),
    # by its name before that
    by_content = {
        "train_file": isinstance(previous.get(TRAIN_FILE_IDENTITY), dict),
        "vocab_file": None not in (previous["vocab_file"], settings.vocab_file),
        "init_model": isinstance(previous.get(INIT_MODEL_CONFIG), dict)
        and None not in (previous["init_model"], settings.init_model),
    }
    _check_same_settings(folder, settings, previous, {name for name, compared in by_content.items() if compared})
    _check_same_train_file(folder, settings, previous, train_file_identity)
    vocabulary = saved_vocabulary(folder)  # the run's
    if vocabulary is None:
        return settings
    if by_content["vocab_file"]:
        _check_same_vocab_file(folder, settings, vocabulary)
    if init_source is not None:
        _check_same_init_model(folder, settings, previous, vocabulary, init_source, by_content["init_model"])
    return settings


def _given_by_the_run(
    settings: PretrainSettings, previous: dict[str, Any], init_source: ModelSource | None
) -> PretrainSettings:
    """``settings`` with what was left to its default taken from the run's saved ``previous``:
    ``num_sampled``, and ``token_embedding`` with an ``--init-model`` (which must be the run's, as
    ``_check_same_init_model`` checks); the token embedder then named (``resolved_token_embedding``)."""
    if settings.num_sampled is None and isinstance(previous.get("num_sampled"), int):
        settings = replace(settings, num_sampled=previous["num_sampled"])
    if settings.token_embedding is None and settings.init_model is not None and "token_embedding" in previous:
        # not given: the --init-model's, which must be the run's (compared by _check_same_init_model, naming it)
        settings = replace(settings, token_embedding=previous["token_embedding"])
    return resolved_token_embedding(settings, init_source)


def _check_same_settings(
    folder: Path, settings: PretrainSettings, previous: dict[str, Any], by_content: set[str]
) -> None:
    """Refuse ``settings`` that differ from the run's ``previous`` in more than its length and
    checkpointing (``RUN_LENGTH_FIELDS``), leaving out the inputs compared by their content
    (``by_content``); the learning rates compared are those that run, not --lr as typed."""
    ignored = {*RUN_LENGTH_FIELDS, *by_content}
    new = {k: v for k, v in asdict(settings).items() if k not in ignored}
    saved = {k: previous.get(k) for k in new}
    # the rate that runs, not --lr as typed (or left to the optimizer's default)
    if saved["optimizer"] in DEFAULT_LR:
        saved["lr"] = learning_rate(saved["optimizer"], saved["lr"])
    new["lr"] = settings.resolved_lr()
    changed = _differences(saved, new)
    if changed:
        raise ValueError(
            f"{folder} holds a run with other settings ({'; '.join(changed)}); run the command with the saved "
            f"values to resume it, or use another --checkpoint-dir, or delete {folder}"
        )


def _check_same_train_file(
    folder: Path, settings: PretrainSettings, previous: dict[str, Any], train_file_identity: dict[str, Any]
) -> None:
    """Refuse a training file whose SHA-256 is not the one the run recorded (a run that recorded none
    passes)."""
    recorded = previous.get(TRAIN_FILE_IDENTITY)
    if isinstance(recorded, dict) and recorded.get("input_sha256") != train_file_identity["input_sha256"]:
        raise ValueError(
            f"the training file {settings.train_file} changed since the run in {folder} started (its SHA-256 is "
            f"not the one in {folder / SETTINGS_FILE}); put the original file back to resume, or "
            f"{_start_again(folder)}"
        )


def _check_same_vocab_file(folder: Path, settings: PretrainSettings, vocabulary: Vocabulary) -> None:
    """Refuse a ``--vocab`` whose words are not those of the run's ``vocabulary``."""
    assert settings.vocab_file is not None  # compared by its content only when given
    if Vocabulary.from_file(settings.vocab_file).words != vocabulary.words:
        raise ValueError(
            f"{flag('vocab_file')} {settings.vocab_file} is not the vocabulary of the run in {folder} (its words "
            f"are not those of {folder / VOCAB_FILE}); give the file the run started with to resume, or "
            f"{_start_again(folder)}"
        )


def _check_same_init_model(
    folder: Path,
    settings: PretrainSettings,
    previous: dict[str, Any],
    vocabulary: Vocabulary,
    init_source: ModelSource,
    by_shape: bool,
) -> None:
    """Refuse an ``--init-model`` that is not the model the run started from by what it gave the run:
    an LM's words (the run's ``vocabulary``), its token embedder, and (``by_shape``: the run recorded
    its config) its shape and clipping; every difference named in one error."""
    differs = []
    if init_source.has_lm_head and Vocabulary.from_file(init_source.path / VOCAB_FILE).words != vocabulary.words:
        differs.append(f"its {VOCAB_FILE}'s words are not those of {folder / VOCAB_FILE}")
    embedding = init_source.config.token_embedding if init_source.config is not None else None
    if embedding not in (None, settings.token_embedding):
        differs.append(f"its token_embedding {json.dumps(embedding)}, not {json.dumps(settings.token_embedding)}")
    char_cnn = "word" not in (settings.token_embedding, embedding)
    shape = _init_model_changes(previous, _init_model_shape(init_source), char_cnn) if by_shape else None
    if shape:
        differs.append(shape)
    if differs:
        raise _not_the_init_model(folder, settings, "; ".join(differs))


def _saved_settings(folder: Path) -> dict[str, Any] | None:
    """The ``settings.json`` of the run in ``folder`` as ``start_run`` wrote it; None when the run
    left no checkpoint and no snapshot (``run_started``), which binds nothing. A damaged one is named."""
    path = folder / SETTINGS_FILE
    if not path.is_file() or not run_started(folder):
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is damaged ({err}); {_start_again(folder)}") from None
    if not isinstance(saved, dict):
        raise ValueError(f"{path} is damaged (not a JSON object); {_start_again(folder)}")
    return saved


def init_model_record(config: ElmoConfig, names: Iterable[str] = (*OPTIONS_KEYS, "pre_tokenizer")) -> dict[str, Any]:
    """What a run takes from its ``--init-model`` beyond the weights, which a resumed run has from its
    checkpoint: the biLM's shape and arithmetic (the fields of an original ``options.json``,
    ``OPTIONS_KEYS``) and how its tokenizer splits raw text (``pre_tokenizer``), read from ``config``,
    that of the model ``build_model`` made from it. ``start_run`` records it (``INIT_MODEL_CONFIG``).
    ``names``: those fields of it only."""
    return {name: json.loads(json.dumps(getattr(config, name))) for name in names}


def _init_model_shape(source: ModelSource) -> dict[str, Any]:
    """The shape and arithmetic (``OPTIONS_KEYS``) of ``init_model_record`` for the ``--init-model``
    at ``source``, read before its model is loaded: from its ``config.json``, or the original files'
    ``options.json`` (which alone is extracted from a ``.zip``); those of the model ``build_model`` makes."""
    from ..original_files import original_config

    if source.config is not None:
        return init_model_record(source.config, OPTIONS_KEYS)
    with source.original_options() as options:  # an archive's weights are extracted once, by build_model
        return init_model_record(original_config(options), OPTIONS_KEYS)


def check_resumed_init_model(folder: Path, settings: PretrainSettings, record: dict[str, Any] | None) -> None:
    """Refuse to resume the run in ``folder`` from an ``--init-model`` whose ``init_model_record``
    (``record``) is not the one the run recorded: the resumed model would be built with another
    shape, clipping or word splitting than its checkpoint's. The model is compared by this config,
    not by its path (a copy elsewhere resumes) nor by its weights, which the checkpoint replaces
    (a base model trained on or saved in float16 since changes nothing of the run). A run saved
    before the record existed was compared by the path (``resumed_settings``)."""
    changed = _init_model_changes(_saved_settings(folder), record, settings.token_embedding != "word")
    if changed:
        raise _not_the_init_model(folder, settings, changed)


def _init_model_changes(previous: dict[str, Any] | None, record: dict[str, Any] | None, char_cnn: bool) -> str | None:
    """``its NAME VALUE, not RECORDED; ...`` for the fields of ``record`` (an ``init_model_record``, or
    some of its fields) that are not those the run's ``settings.json`` (``previous``) recorded; None
    when none differs, or when there is nothing to compare (a run saved before the record existed).
    The char CNN's fields (``CHAR_CNN_FIELDS``) are compared only when ``char_cnn``: both the run and
    the model embed tokens with one (a word model's shape nothing)."""
    recorded = previous.get(INIT_MODEL_CONFIG) if previous is not None else None
    if record is None or not isinstance(recorded, dict):
        return None
    changed = [
        f"{name} {json.dumps(value)}, not {json.dumps(recorded.get(name))}"
        for name, value in record.items()
        if (char_cnn or name not in CHAR_CNN_FIELDS) and recorded.get(name) != value
    ]
    return f"its {'; '.join(changed)}" if changed else None


def _not_the_init_model(folder: Path, settings: PretrainSettings, differs: str) -> ValueError:
    """The refusal of an ``--init-model`` that is not the model the run in ``folder`` started from,
    saying what ``differs``."""
    return ValueError(
        f"--init-model {settings.init_model} is not the model the run in {folder} started from ({differs}); "
        f"give that model to resume, or {_start_again(folder)}"
    )


def _differences(saved: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """``--option SAVED (now NEW)`` for each setting and each model shape option that differs
    (``preset``: a shape option not given, which takes the preset's value; ``not given``: another
    option left out, ``--vocab`` say)."""
    changed = []
    for name, value in new.items():
        if name == "config_overrides" and isinstance(saved[name], dict):
            for key in sorted({*saved[name], *value} - {k for k in value if saved[name].get(k, ...) == value[k]}):
                was, now = (json.dumps(d[key]) if key in d else "preset" for d in (saved[name], value))
                changed.append(f"{flag(key)} {was} (now {now})")
        elif saved[name] != value:
            shown = flag(name) if name in _OPTIONS else name.upper()  # TRAIN_FILE, an argument
            changed.append(f"{shown} {_shown(saved[name])} (now {_shown(value)})")
    return sorted(changed)


def _shown(value: Any) -> str:
    """A setting's value as ``_differences`` names it: its JSON, or ``not given`` for an option left out."""
    return "not given" if value is None else json.dumps(value)


def start_run(
    folder: Path,
    settings: PretrainSettings,
    vocabulary: Vocabulary,
    train_file_identity: dict[str, Any],
    init_model_config: dict[str, Any] | None = None,
) -> None:
    """Create ``folder`` with the run's ``settings.json`` (recording ``train_file_identity`` and, for
    a run from ``--init-model``, its ``init_model_record``) and ``vocab.txt`` (rank 0 only)."""
    folder.mkdir(parents=True, exist_ok=True)
    # settings.json first: it marks the folder as a run's (check_checkpoint_folder)
    record = {**asdict(settings), TRAIN_FILE_IDENTITY: train_file_identity, INIT_MODEL_CONFIG: init_model_config}
    write_text_atomic(folder / SETTINGS_FILE, json.dumps(record, indent=2))
    vocabulary.save(folder / VOCAB_FILE)


def save_checkpoint(
    folder: Path,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    position: dict[str, Any],
    rank: int,
    world: int,
) -> None:
    """Model + optimizer (rank 0), RNG state of every rank, and the data position.

    Every rank writes its RNG state of this step (``rng_file``), then rank 0 the model, optimizer
    and position (``checkpoint.pt``), and only then does every rank delete its RNG state of the
    checkpoint before: a kill at any moment leaves ``checkpoint.pt`` with the RNG states of its
    step; a rank that cannot delete one stops every rank (``refused_together``), rank 0 saying why.
    Before writing anything, the disk must have room for all of it (``ensure_free_space``): a full
    disk stops the run (every rank, when one of them has no room) with the last checkpoint whole,
    its RNG states included.
    """
    rng = {"rng": torch.get_rng_state()}
    state = (
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "world_size": world,
            DATA_ORDER_KEY: DATA_ORDER,
            **position,
        }
        if rank == 0
        else {}
    )
    current = rng_file(folder, rank, position["step"])
    state_bytes = _tensor_bytes(state)
    with refused_together():
        folder.mkdir(parents=True, exist_ok=True)
        ensure_free_space(folder, _tensor_bytes(rng) + state_bytes, f"a checkpoint of step {position['step']}", _RESUME)
        # torch reports a write refused past ulimit -f as "[enforce fail at inline_container.cc] unexpected pos"
        check_file_size_limit(state_bytes, f"the checkpoint of step {position['step']}", _RESUME)
        _atomic_torch_save(rng, current)
    with refused_together():
        if rank == 0:
            _atomic_torch_save(state, folder / CHECKPOINT_FILE)
    with refused_together():
        for earlier in [*folder.glob(f"rng-rank{rank}-step*.pt"), old_rng_file(folder, rank)]:
            if earlier != current:
                try:
                    earlier.unlink(missing_ok=True)
                except OSError as err:
                    raise OSError(
                        f"could not delete {earlier}, an RNG state of an earlier checkpoint ({error_reason(err)}); "
                        f"the checkpoint of step {position['step']} is whole: remove {earlier}, then run the same "
                        "command again: it resumes from that checkpoint"
                    ) from None


def load_checkpoint(
    folder: Path, model: torch.nn.Module, optimizer: torch.optim.Optimizer, rank: int, world: int
) -> dict[str, Any] | None:
    """Restore a checkpoint written by ``save_checkpoint``; returns the data position or None.

    Refused before anything is restored: a checkpoint of another number of processes, and one whose
    position stands for other batches than ``SentenceBatcher`` deals now (``data.same_batches``: a
    run of several processes saved before ``DATA_ORDER_KEY`` was recorded dealt them otherwise).
    """
    path = folder / CHECKPOINT_FILE
    if not path.is_file():
        return None
    state = _torch_load(path, folder)
    try:
        order = state.get(DATA_ORDER_KEY, 1)
        if not same_batches(order, state["world_size"]):
            raise ValueError(
                f"{path} was written by an elmo pretrain of {state['world_size']} processes that dealt the batches "
                f"to them otherwise (data order {order}; this one's is {DATA_ORDER}), so its position (epoch "
                f"{state['epoch']}, batch {state['batch']}) stands for other batches now; finish the run with the "
                f"hf-elmo that wrote it, or {_start_again(folder)}"
            )
        if state["world_size"] != world:
            raise ValueError(
                f"{path} was written by {state['world_size']} processes; resume with as many (got {world})"
            )
        try:
            model.load_state_dict(state["model"])
        except RuntimeError as err:  # e.g. a vocab.txt cut short: the softmax has other rows
            raise ValueError(
                f"{path} does not fit the model of {folder / SETTINGS_FILE} and "
                f"{folder / VOCAB_FILE} (one of them is damaged: {str(err).splitlines()[-1].strip()}); "
                f"{_start_again(folder)}"
            ) from None
        try:
            optimizer.load_state_dict(state["optimizer"])
        except ValueError as err:  # e.g. other parameter groups: not this run's optimizer state
            raise _damaged(path, folder, err) from None
        position = {k: state[k] for k in POSITION_FIELDS}
        for name, value in position.items():
            kinds = (int, float) if name == "elapsed" else (int,)
            if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) or value < 0:
                raise TypeError(
                    f"its {name} is {value!r}, not a {'number of seconds' if name == 'elapsed' else 'count'}"
                )
    except (KeyError, RuntimeError, TypeError) as err:
        raise _damaged(path, folder, err) from None
    rng_path = rng_file(folder, rank, position["step"])
    if not rng_path.is_file() and old_rng_file(folder, rank).is_file():
        rng_path = old_rng_file(folder, rank)
    try:
        torch.set_rng_state(_torch_load(rng_path, folder)["rng"])
    except (KeyError, RuntimeError, TypeError) as err:
        raise _damaged(rng_path, folder, err) from None
    return position


def open_loss_log(folder: Path, step: int) -> IO[str]:
    """The per-step loss log (step, epoch, tokens seen, loss, training seconds so far), line-buffered
    so that it can be followed while the run goes on, cut back to ``step`` on resume.

    A last line without its line end (cut by a full disk) is dropped; any other line that is not
    a step's is named, with what to do. The kept lines are rewritten whole (``write_text_atomic``).
    """
    path = folder / LOSS_LOG
    kept = []
    if path.is_file() and step > 0:
        *lines, _ = path.read_bytes().decode("utf-8", errors="replace").split("\n")  # "" or a cut line
        for number, line in enumerate(lines[1:], start=2):
            fields = line.split("\t")
            if len(fields) != 5 or not (fields[0].isascii() and fields[0].isdigit()):
                raise ValueError(
                    f"{path}:{number}: not a step of the loss log (step, epoch, tokens seen, loss, seconds): "
                    f"{line.strip()[:60]!r}; delete that line (or the file, losing the log of the earlier steps) "
                    "and run the command again"
                )
            if int(fields[0]) <= step:
                kept.append(line + "\n")
    # rewritten aside and renamed into place: Ctrl-C or a full disk meanwhile keeps the log of the earlier steps
    write_text_atomic(path, "step\tepoch\ttokens_seen\ttrain_loss\tseconds\n" + "".join(kept))
    return open(path, "a", encoding="utf-8", buffering=1)
