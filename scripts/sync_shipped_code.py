"""Refresh the code copies and ``auto_map`` of every model shipped in ``hf_elmo/pretrained``.

    python scripts/sync_shipped_code.py

A shipped folder carries the package's remote code so that
``AutoModel.from_pretrained(folder, trust_remote_code=True)`` works without the package: the files
``save_pretrained`` copies (``REMOTE_CODE``: the modeling, configuration and tokenizer files and
every sibling they import relatively). After any of them changes, run this
(``tests/hf_elmo/test_remote_code.py`` fails until then). The weights, the vocabulary and the model card
are left as they are.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file

from hf_elmo import ElmoForBidirectionalLM
from hf_elmo.pretrained import SHIPPED

#: The code a fresh ``save_pretrained`` of the shipped LM writes (transformers copies each Auto class's
#: file and, recursively, the files it imports relatively); ``sync`` refuses to run if that changes
#: without this list (and ``tests/hf_elmo/test_remote_code.py``'s) being updated.
REMOTE_CODE = {
    "configuration_elmo.py",
    "elmo_cache.py",
    "elmo_kernels.py",
    "modeling_elmo.py",
    "modeling_lm.py",
    "tokenization_elmo.py",
}
#: What the shipped folder takes over from a fresh ``save_pretrained``: the code and config.json (its
#: auto_map). tokenizer_config.json already maps AutoTokenizer and is left alone.
REFRESHED = ("*.py", "config.json")


def sync(folder: Path) -> None:
    model = ElmoForBidirectionalLM.from_pretrained(folder, dtype="auto")
    with tempfile.TemporaryDirectory() as staging:
        model.save_pretrained(staging)
        saved, shipped = load_file(Path(staging) / "model.safetensors"), load_file(folder / "model.safetensors")
        if saved.keys() != shipped.keys() or not all(torch.equal(saved[k], shipped[k]) for k in saved):
            raise RuntimeError(f"{folder}: re-saving changed the weights; not touching the folder")
        written = {p.name for p in Path(staging).glob("*.py")}
        if written != REMOTE_CODE:
            raise RuntimeError(
                f"save_pretrained wrote the code files {sorted(written)}, REMOTE_CODE lists "
                f"{sorted(REMOTE_CODE)}: update REMOTE_CODE (and tests/hf_elmo/test_remote_code.py)"
            )
        for old in folder.glob("*.py"):
            old.unlink()
        for pattern in REFRESHED:
            for path in Path(staging).glob(pattern):
                shutil.copyfile(path, folder / path.name)
    print(f"refreshed {folder}: {sorted(p.name for p in folder.glob('*.py'))}")


if __name__ == "__main__":
    for shipped_folder in SHIPPED.values():
        sync(shipped_folder)
