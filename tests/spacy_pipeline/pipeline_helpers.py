"""Helpers of the spaCy tests: a tiny random biLM and the loader settings that point at it."""

from pathlib import Path

import torch

from hf_elmo import ElmoConfig, ElmoModel

TINY = dict(
    char_embedding_dim=4, filters=[[1, 4], [2, 8], [3, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=2
)


def tiny_elmo(seed: int = 0) -> ElmoModel:
    torch.manual_seed(seed)
    return ElmoModel(ElmoConfig(**TINY)).eval()


def loader_settings(folder: Path) -> dict:
    """``[initialize.components.elmo]`` settings that load the biLM in ``folder``."""
    return {"loader": {"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": str(folder)}}
