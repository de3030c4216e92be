#!/usr/bin/env python
"""Print the max abs difference between ElmoModel and bilm-tf's reference outputs.

Replays the 10 reference batches of each fixture model statefully (as the references were made)
and the first batch statelessly. Usage: python scripts/check_parity.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import h5py
import numpy as np
import torch

from hf_elmo import ElmoModel, batch_to_ids

from shared_data import shared_dir

FIXTURES = {"elmo-allennlp": "sentences.json", "elmo-bilm-tf/model": "lm_embeddings_sentences.json"}


def max_abs_diff(root: Path, sentences_file: str, stateful: bool, n_batches: int) -> float:
    model = ElmoModel.from_allennlp(root / "options.json", root / "lm_weights.hdf5")
    sentences = json.loads((root / sentences_file).read_text())
    worst = 0.0
    with torch.inference_mode():
        for i in range(n_batches):
            batch = [s[i].split() for s in sentences]
            top = model(input_ids=batch_to_ids(batch), stateful=stateful).last_hidden_state
            for k, tokens in enumerate(batch):
                with h5py.File(root / f"lm_embeddings_{k}.hdf5", "r") as handle:
                    expected = np.concatenate(handle[str(i)][...], axis=-1)
                worst = max(worst, float(np.abs(top[k, : len(tokens)].numpy() - expected).max()))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="the shared folder (default: $ELMO_SHARED, else ../shared)")
    args = parser.parse_args()
    args.shared = args.shared or shared_dir()
    for folder, sentences_file in FIXTURES.items():
        root = Path(args.shared) / "fixtures" / folder
        stateful = max_abs_diff(root, sentences_file, stateful=True, n_batches=10)
        stateless = max_abs_diff(root, sentences_file, stateful=False, n_batches=1)
        print(f"{folder:20s} stateful 10 batches: {stateful:.2e}   stateless batch 0: {stateless:.2e}")


if __name__ == "__main__":
    main()
