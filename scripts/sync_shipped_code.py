"""Refresh the code copies and ``auto_map`` of every model shipped in ``hf_elmo/pretrained``.

    python scripts/sync_shipped_code.py

A shipped folder carries the package's remote code so that
``AutoModel.from_pretrained(folder, trust_remote_code=True)`` works without the package: the files
``save_pretrained`` copies (``hf_elmo.output_folders.MODEL_CODE_FILES``: the modeling, configuration and tokenizer files and
every sibling they import relatively), and the task heads' (``TASK_HEADS``, mapped for
``AutoModelForTokenClassification`` / ``AutoModelForSequenceClassification``: a task model starts
from the shipped biLM). After any of them changes, run this
(``tests/hf_elmo/test_remote_code.py`` fails until then). The weights, the vocabulary and the model card
are left as they are.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file
from transformers.dynamic_module_utils import custom_object_save
from transformers.utils import CONFIG_NAME

from hf_elmo import ElmoForBidirectionalLM, ElmoForSequenceClassification, ElmoForTokenClassification
from hf_elmo.fileio import atomic_file
from hf_elmo.output_folders import MODEL_CODE_FILES
from hf_elmo.pretrained import SHIPPED
from hf_elmo_cli.commands._args import SuggestingParser, run_script

#: The task models whose code the shipped folder carries beside the LM's, each mapped in ``auto_map``.
TASK_HEADS = (ElmoForTokenClassification, ElmoForSequenceClassification)

#: What the shipped folder takes over from a fresh ``save_pretrained``: the code and config.json (its
#: auto_map). tokenizer_config.json already maps AutoTokenizer and is left alone.
REFRESHED = ("*.py", CONFIG_NAME)


def sync(folder: Path) -> None:
    model = ElmoForBidirectionalLM.from_pretrained(folder, dtype="auto")
    with tempfile.TemporaryDirectory() as staging:
        model.save_pretrained(staging)
        add_task_heads(model, Path(staging))
        saved, shipped = load_file(Path(staging) / "model.safetensors"), load_file(folder / "model.safetensors")
        if saved.keys() != shipped.keys() or not all(torch.equal(saved[k], shipped[k]) for k in saved):
            raise RuntimeError(f"{folder}: re-saving changed the weights; not touching the folder")
        written = {p.name for p in Path(staging).glob("*.py")}
        if written != set(MODEL_CODE_FILES):
            raise RuntimeError(
                f"save_pretrained wrote the code files {sorted(written)}, hf_elmo.output_folders.MODEL_CODE_FILES lists "
                f"{sorted(MODEL_CODE_FILES)}: update it"
            )
        config_file = Path(staging) / CONFIG_NAME
        config = json.loads(config_file.read_text())
        # the version that wrote the shipped weights, not the one that refreshed the code
        config["transformers_version"] = json.loads((folder / CONFIG_NAME).read_text())["transformers_version"]
        config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
        for pattern in REFRESHED:  # each file whole or not at all, the folder's code gone only once the new is in
            for path in Path(staging).glob(pattern):
                with atomic_file(folder / path.name) as tmp:
                    shutil.copyfile(path, tmp)
        for old in folder.glob("*.py"):
            if old.name not in written:
                old.unlink()
    print(f"refreshed {folder}: {sorted(p.name for p in folder.glob('*.py'))}")


def add_task_heads(model: ElmoForBidirectionalLM, staging: Path) -> None:
    """Copy the task heads' code into ``staging`` and map them in its ``config.json``, as their own
    ``save_pretrained`` would (built on the meta device: no weights are made)."""
    config_file = staging / CONFIG_NAME
    config = json.loads(config_file.read_text())
    for head_class in TASK_HEADS:
        with torch.device("meta"):
            head = head_class(copy.deepcopy(model.config))
        custom_object_save(head, staging, config=config)
    config_file.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


def main() -> None:
    """Refresh every shipped model (``SHIPPED``); the command line takes only ``--help``."""
    SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    for shipped_folder in SHIPPED.values():
        sync(shipped_folder)


if __name__ == "__main__":
    run_script(main)
