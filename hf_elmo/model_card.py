"""Model cards (README.md with Hub metadata) for saved ELMo folders."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path

from huggingface_hub import ModelCard, ModelCardData

_USAGE = """## Usage

```python
import hf_elmo  # pip install hf-elmo: registers the Auto classes; or pass trust_remote_code=True without it
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("{path}")
model = AutoModel.from_pretrained("{path}")
batch = tokenizer([["Let's", "stick", "to", "improvisation"]], is_split_into_words=True, return_tensors="pt")
layers = model(**batch).hidden_states  # L+1 tensors (batch, tokens, 2P)
```
"""


def write_model_card(
    folder: Path,
    title: str,
    description: str,
    provenance: Mapping[str, str],
    datasets: Sequence[str] | None = None,
    license: str = "apache-2.0",
    path: str = ".",
) -> Path:
    """Write ``folder/README.md``: Hub metadata, a description, a provenance table and usage."""
    data = ModelCardData(
        license=license,
        library_name="transformers",
        tags=["elmo", "feature-extraction"],
        datasets=None if datasets is None else list(datasets),
    )
    rows = "\n".join(f"| {key} | {value} |" for key, value in provenance.items())
    today = datetime.date.today().isoformat()
    content = (
        f"---\n{data.to_yaml()}\n---\n\n# {title}\n\n{description}\n\n## Provenance\n\n"
        f"| what | value |\n|---|---|\n{rows}\n| written | {today} by hf_elmo |\n\n" + _USAGE.format(path=path)
    )
    card_path = Path(folder) / "README.md"
    ModelCard(content).save(card_path)
    return card_path
