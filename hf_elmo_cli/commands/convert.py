"""``elmo convert OPTIONS WEIGHTS OUTPUT_DIR``: original files to a Hugging Face folder."""

from __future__ import annotations

import argparse

from ._args import non_empty, note_output_folder, output_folder_left


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "convert",
        help="convert AllenNLP/bilm-tf options.json + weights.hdf5 to a save_pretrained folder",
        description="Converts the original files of an AllenNLP / bilm-tf ELMo (OPTIONS, its options.json, "
        "n_characters 261 or 262; WEIGHTS, the weights .hdf5 that bilm-tf's dump_weights.py writes) into "
        "OUTPUT_DIR, a save_pretrained folder with the released models' whitespace tokenizer and a model card, "
        "which ElmoModel.from_pretrained and AutoModel load (after `import hf_elmo`, or with "
        "trust_remote_code=True). Converting is optional: every command's --model and from_pretrained also "
        "take a folder or zip of the original files, converted on load. A failed conversion names the problem "
        "and leaves no OUTPUT_DIR.",
    )
    parser.add_argument("options", metavar="OPTIONS", type=non_empty, help="options.json of the original model")
    parser.add_argument("weights", metavar="WEIGHTS", type=non_empty, help="weights .hdf5 of the original model")
    parser.add_argument(
        "out_dir",
        metavar="OUTPUT_DIR",
        help="folder to write (config.json, model.safetensors, tokenizer, README.md)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace OUTPUT_DIR when it holds an earlier output (an ELMo config.json); other folders are refused",
    )
    parser.set_defaults(run=run, interrupted=output_folder_left)


def run(args: argparse.Namespace) -> int:
    note_output_folder(args, args.out_dir)  # what Ctrl-C leaves of it is said (output_folder_left)
    from hf_elmo.loading import convert_to_folder

    out = convert_to_folder(args.options, args.weights, args.out_dir, overwrite=args.overwrite)
    print(f"wrote {out}")
    return 0
