"""``elmo pretrain TRAIN_FILE OUTPUT_DIR``: train the biLM (from scratch or continued), resumable, DDP-ready.

The options are the fields of ``hf_elmo.training.settings.PretrainSettings`` (their help,
choices and defaults are its field metadata), plus the model-shape overrides (``--lstm-dim``,
..., ``--filters``, ``--no-clip``) and what only the command does (device, threads, overwrite, the Hub).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._args import (
    add_batch_size_refusal,
    add_device_option,
    add_field_option,
    add_threads_option,
    hf_elmo_module,
    integer,
    non_empty,
    quoted,
    use_threads,
)

if TYPE_CHECKING:
    from hf_elmo.training.settings import PretrainSettings

#: Model-shape options: each overrides the preset's ElmoConfig field of the same name.
SHAPE_OVERRIDES = (
    ("lstm_dim", "LSTM cell size"),
    ("projection_dim", "projection size"),
    ("n_layers", "LSTM layers"),
    ("n_highway", "highway layers"),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pretrain",
        help="pretrain (or continue pretraining) the ELMo biLM on a text file; works under torchrun",
        description="Train the biLM on a corpus of one sentence per line (whitespace tokens). The run "
        "checkpoints to OUTPUT_DIR.checkpoint and resumes from there when restarted with the same "
        "command; at the end it writes OUTPUT_DIR (save_pretrained folder, vocab.txt, model card). "
        "Under `torchrun --nproc_per_node N` it trains with DDP, each rank on its own shard.",
        speaks=speaks,
    )
    add_batch_size_refusal(parser)
    add_options(parser)
    parser.set_defaults(run=run_command, interrupted=interrupted)


def speaks() -> bool:
    """Whether this process says the command's errors: under torchrun, rank 0 alone. Every rank parses
    the same command line, and a run's refusal is rank 0's too (``hf_elmo.training.distributed``). Read from
    torchrun's environment without importing ``hf_elmo`` (torch): a usage error is said at once."""
    try:
        return bool(hf_elmo_module("torchrun").is_rank0())
    except ValueError:  # a RANK that is no number, which the run refuses: said by every process that has one
        return True


def add_options(parser: argparse.ArgumentParser) -> None:
    """One option per ``PretrainSettings`` field (but ``config_overrides``), then the shape overrides
    and the command's own options, in their ``--help`` groups (``hf_elmo.training.options``': without torch)."""
    options = hf_elmo_module("training.options")
    groups = {
        title: parser.add_argument_group(title)
        for title in (options.DATA, options.MODEL, options.OPTIMISATION, options.OUTPUT)
    }
    run_length = groups[options.DATA].add_mutually_exclusive_group(required=True)
    for settings_field in fields(options.PretrainSettings):
        metadata = settings_field.metadata
        if not metadata:  # config_overrides: from the shape options below
            continue
        group = run_length if metadata.get("run_length") else groups.get(metadata.get("group", ""), parser)
        # an empty OUTPUT_DIR is refused by output_folders.check_output_folder, as every command's output folder
        named = settings_field.name in (*options.FILE_FIELDS, "init_model") and settings_field.name != "output_dir"
        paths = {"type": non_empty} if named else {}
        add_field_option(
            group, options.PretrainSettings, settings_field.name, options.flag(settings_field.name), **paths
        )
    model = groups[options.MODEL]
    for name, what in SHAPE_OVERRIDES:
        model.add_argument(options.flag(name), type=integer, help=f"override the preset's {what}")
    model.add_argument("--filters", type=filters_json, help='override the char-CNN filters, e.g. "[[1,32],[2,64]]"')
    model.add_argument(
        "--no-clip",
        action="store_true",
        help="train without cell/projection clipping (cell_clip = proj_clip = None), which lets "
        "training run on torch's fused LSTM kernel (cuDNN on GPU)",
    )
    add_device_option(groups[options.OPTIMISATION])
    add_threads_option(groups[options.OPTIMISATION], help="torch CPU threads per process")
    output = groups[options.OUTPUT]
    output.add_argument(
        "--overwrite",
        action="store_true",
        help="replace OUTPUT_DIR if it holds an earlier ELMo model (never an export or other files); when "
        "the checkpoint folder holds a run, continue that run from its checkpoint (e.g. with a larger --epochs)",
    )
    output.add_argument("--push-to-hub", metavar="REPO_ID", help="upload the final folder to this Hub repository")
    output.add_argument("--no-progress", action="store_true", help="no progress bar")


def filters_json(text: str) -> Any:
    """``--filters``: any JSON value (``check_settings`` checks that it is a list of filters); text that is no JSON
    is quoted as every option's refused value is (``quoted``: ``got '[1,'``, cut after 40 characters, never a whole
    file's; was: ``got the str '[1,'``)."""
    try:
        return json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'must be JSON, e.g. "[[1,32],[2,64]]", got {quoted(text)}') from None


def settings_from_args(args: argparse.Namespace) -> PretrainSettings:
    """The ``PretrainSettings`` of a parsed command line (``config_overrides`` from the shape options)."""
    from hf_elmo.training.settings import NO_CLIP, PretrainSettings

    overrides = {
        name: getattr(args, name)
        for name in (*(n for n, _ in SHAPE_OVERRIDES), "filters")
        if getattr(args, name) is not None
    }
    if args.no_clip:
        overrides.update(NO_CLIP)
    return PretrainSettings(**option_values(args, PretrainSettings), config_overrides=overrides)


def option_values(args: argparse.Namespace, settings_class: type) -> dict[str, Any]:
    """The values of ``settings_class``'s (``PretrainSettings``') fields that are options, as parsed."""
    return {f.name: getattr(args, f.name) for f in fields(settings_class) if f.metadata}


def run_command(args: argparse.Namespace) -> int:
    # the numbers' bounds, checked before torch is imported (seconds); check_settings checks them again
    options = hf_elmo_module("training.options")
    options.check_numbers(options.PretrainSettings(**option_values(args, options.PretrainSettings)))
    from hf_elmo.output_folders import TRAINING_FILE
    from hf_elmo.training.distributed import is_rank0
    from hf_elmo.training.evaluation import (
        perplexity_from_json,
        perplexity_line,
        predictions_text,
        seen_in_training_text,
    )
    from hf_elmo.training.trainer import run_pretraining

    use_threads(args)
    settings = settings_from_args(args)
    if args.push_to_hub:
        check_hub_repository(args.push_to_hub)
    out, step = run_pretraining(
        settings, overwrite=args.overwrite, show_progress=not args.no_progress, device=args.device
    )
    if not is_rank0():  # under torchrun, rank 0 says what the run did
        return 0
    if out is None:
        past = (
            f" (the run was at step {step} already)"
            if settings.max_steps is not None and step > settings.max_steps
            else ""
        )
        print(
            f"stopped at --max-steps {settings.max_steps}{past}; to go on, run the command again with a larger "
            "--max-steps or without it"
        )
        return 0
    print(f"wrote {out}")
    metrics = json.loads((out / TRAINING_FILE).read_text(encoding="utf-8"))["metrics"]
    valid = metrics.get("valid")
    if valid is not None:
        line = perplexity_line(perplexity_from_json(valid))
        print(
            f"{settings.valid_file}: {line} (full softmax, {predictions_text(valid)}{seen_in_training_text(metrics)})"
        )
    if args.push_to_hub:
        push_to_hub(out, args.push_to_hub)
        print(f"pushed {out} to {args.push_to_hub}")
    return 0


def check_hub_repository(repo_id: str) -> None:
    """Refuse ``--push-to-hub REPO_ID`` before the run trains when its upload at the end could not
    start: an invalid repository id, or no Hugging Face token to upload with (both checked here,
    without the network)."""
    from huggingface_hub import get_token
    from huggingface_hub.utils import validate_repo_id

    from hf_elmo.messages import quoted

    try:
        validate_repo_id(repo_id)
    except ValueError as err:
        reason = str(err).replace(f": '{repo_id}'", "")  # the hub's text quotes the id again, whole
        raise ValueError(f"--push-to-hub {quoted(repo_id)}: {reason}") from None
    if get_token() is None:
        raise ValueError(
            f"--push-to-hub {repo_id} needs a Hugging Face token to upload with, and none is set: log in first "
            "(hf auth login, or set HF_TOKEN), or leave --push-to-hub out and upload the folder later (hf upload)"
        )


def push_to_hub(out: Path, repo_id: str) -> None:
    """Upload the model folder ``out`` to the Hub repository ``repo_id`` (created if need be), without a save's own
    files (``upload_ignored``: the lock file that filelock leaves where there is no flock); a failure is an
    ``OSError`` saying that ``out`` is written and how to push it again."""
    from huggingface_hub import HfApi

    from hf_elmo.configuration_elmo import upload_ignored
    from hf_elmo.messages import first_line

    api = HfApi()
    try:
        api.create_repo(repo_id, exist_ok=True)
        api.upload_folder(folder_path=str(out), repo_id=repo_id, ignore_patterns=upload_ignored())
    except Exception as err:  # the Hub client's: HTTP, network (httpx, no OSError), validation errors
        raise OSError(
            f"{out} is written, but pushing it to the Hub repository {repo_id} failed "
            f"({first_line(err, with_type=True)}); push it again with: hf upload {repo_id} {out}"
        ) from None


def interrupted(args: argparse.Namespace) -> str | None:
    """What Ctrl-C left (what was written is whole: files are renamed into place); said by rank 0 only."""
    from hf_elmo.training.distributed import is_rank0

    if not is_rank0():
        return None
    from hf_elmo.training.checkpoints import CHECKPOINT_FILE

    folder = settings_from_args(args).resolved_checkpoint_dir()
    if (folder / CHECKPOINT_FILE).is_file():
        return f"the last checkpoint, in {folder}, resumes with the same command"
    return "no checkpoint was taken yet: the same command starts the run again"
