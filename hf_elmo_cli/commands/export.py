"""``elmo export MODEL OUTPUT_DIR --format onnx|torch-export``: the biLM as a graph for serving."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._args import (
    add_max_token_chars_option,
    add_model_option,
    add_threads_option,
    hf_elmo_module,
    non_empty,
    note_output_folder,
    one_model,
    output_folder_left,
    tokenizer_settings,
    use_threads,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="export the biLM for serving: an ONNX file or a torch.export program, with its tokenizer config",
        description="Writes OUTPUT_DIR, a folder with the inference graph (model.onnx or model.pt2: char_ids (batch, "
        "tokens, 50) int64 in; layers (batch, L+1, tokens, 2P) and mask (batch, tokens) out; any batch size "
        "and length), tokenizer_config.json with tokenization_elmo.py, tokenizer_settings.py, char_ids.py, "
        "word_splitting.py, "
        "configuration_elmo.py and messages.py (the model's tokenizer: how raw text is split) and elmo_export.json. "
        "The graph is stateless: every call starts "
        "from the model's initial state (zeros, or the warm state of `warm_up`). Load it with "
        "hf_elmo.export.OnnxElmo(OUTPUT_DIR) or TorchExportElmo(OUTPUT_DIR), which take raw text (split by the folder's "
        "tokenizer) or lists of words. After writing, the graph is run on a few "
        "sentences and compared with the model in eager mode. There is no --device: the graph is traced on the "
        "CPU, and runs on the device its runtime is given (OnnxElmo(OUTPUT_DIR, providers=[...])).",
    )
    parser.add_argument(
        "model",
        nargs="?",
        metavar="MODEL",
        type=non_empty,
        help="the model to export: any name --model takes (or give it as --model)",
    )
    parser.add_argument("out", metavar="OUTPUT_DIR", help="folder to write")
    add_model_option(parser, dest="model_option", default=None)
    add_format_options(parser)
    add_max_token_chars_option(parser)
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace OUTPUT_DIR when it holds an earlier export (elmo_export.json); a model folder or any other "
        "non-empty folder is refused",
    )
    add_threads_option(parser)
    parser.set_defaults(run=run, interrupted=output_folder_left)


def add_format_options(parser: argparse.ArgumentParser) -> None:
    """--format and --dtype, whose choices are ``FORMATS`` and ``DTYPES`` (``hf_elmo.export_formats``': without
    torch)."""
    known = hf_elmo_module("export_formats")
    dtypes = list(dict.fromkeys(name for names in known.DTYPES.values() for name in names))
    parser.add_argument(
        "--format",
        choices=list(known.FORMATS),
        default="onnx",
        help="onnx (for ONNX Runtime) or torch-export (a .pt2 ExportedProgram); default onnx",
    )
    only = [
        f"{name} only for {' and '.join(f for f, names in known.DTYPES.items() if name in names)}"
        for name in dtypes
        if not all(name in names for names in known.DTYPES.values())
    ]
    parser.add_argument(
        "--dtype",
        choices=dtypes,
        default="float32",
        help=f"dtype of the weights and activations (default float32{''.join(f'; {o}' for o in only)})",
    )


def run(args: argparse.Namespace) -> int:
    note_output_folder(args, args.out)  # what Ctrl-C leaves of it is said (output_folder_left)
    name = one_model(args.model, args.model_option)  # before hf_elmo is imported (torch: seconds)
    if name is None:
        raise ValueError(
            "give the model to export: elmo export MODEL OUTPUT_DIR (or elmo export OUTPUT_DIR --model MODEL)"
        )

    from hf_elmo.configuration_elmo import LM_ARCHITECTURE
    from hf_elmo.export import (
        PARITY_KEY,
        check_export_folder_name,
        export_dtype,
        export_model,
        read_manifest,
        require_export_packages,
    )
    from hf_elmo.loading import load_bilm, model_tokenizer
    from hf_elmo.modeling_elmo import check_reads_char_ids
    from hf_elmo.output_folders import check_output_folder

    use_threads(args)
    export_dtype(args.format, args.dtype)  # before the model loads
    model_path = Path(name).expanduser()
    local = [model_path] if model_path.exists() else []  # not a shipped name or Hub id
    check_output_folder(args.out, overwrite=args.overwrite, inputs=local, kind="export")  # before the model loads
    check_export_folder_name(args.out)
    require_export_packages(args.format)
    model, source = load_bilm(name)  # the resolver's errors name the model and what was tried
    check_reads_char_ids(model, "elmo export")
    heads = [a for a in model.config.architectures or () if a not in ("ElmoModel", LM_ARCHITECTURE)]
    if heads:  # a task model's folder: load_bilm left its head out, which the graph cannot hold
        print(
            f"elmo export: note: {name} holds an {' and '.join(heads)}; the export holds its biLM alone (the layers "
            "and mask its head reads), not the head, whose scores the graph does not give",
            file=sys.stderr,
        )
    # the model's tokenizer splits raw text as its corpus was; --max-token-chars, if given, replaces its limit
    tokenizer = model_tokenizer(model, **tokenizer_settings(args))
    out = export_model(
        model, args.out, args.format, args.dtype, tokenizer, overwrite=args.overwrite, model_path=source.path
    )
    error = read_manifest(out)[PARITY_KEY]  # export_model's one check of the written graph
    shown = "none (the model's own layers are not finite)" if error is None else f"{error:.2g}"
    print(
        f"wrote {out} ({args.format}, {args.dtype}); max abs difference from the eager model on a test batch: {shown}"
    )
    return 0
