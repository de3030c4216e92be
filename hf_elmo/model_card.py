"""Model cards (README.md with Hub metadata) for saved ELMo folders."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

import yaml  # type: ignore[import-untyped]
from huggingface_hub import ModelCard, ModelCardData

from .messages import INSTALL_HF_ELMO

#: The licence of a card written without one (``write_model_card``'s default).
DEFAULT_LICENSE = "apache-2.0"
#: How a card's attribution paragraph begins (the shipped model's card has one); a model continued
#: from that model carries the paragraph on.
ATTRIBUTION = "**Attribution.**"

_USAGE = """## Usage

```python
import hf_elmo  # hf-elmo ({install}) registers the Auto classes; or pass trust_remote_code=True
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("{path}")
model = AutoModel.from_pretrained("{path}")
batch = tokenizer([["Let's", "stick", "to", "improvisation"]], is_split_into_words=True, return_tensors="pt")
layers = model(**batch).hidden_states  # L+1 tensors (batch, tokens, 2P)
```
"""

#: The usage of a model shipped in the package (``hf_elmo.pretrained.SHIPPED``): by its name, which works wherever
#: hf-elmo is installed (a wheel too), the folder of a clone (``path``) as remote code without the package.
_SHIPPED_USAGE = """## Usage

```python
from hf_elmo import ElmoModel, ElmoTokenizer  # hf-elmo ({install})

tokenizer = ElmoTokenizer.from_pretrained("{name}")
model = ElmoModel.from_pretrained("{name}")
batch = tokenizer([["Let's", "stick", "to", "improvisation"]], is_split_into_words=True, return_tensors="pt")
layers = model(**batch).hidden_states  # L+1 tensors (batch, tokens, 2P)
```

Without hf-elmo, this folder loads as remote code, e.g. from the root of a clone:
`AutoModel.from_pretrained("{path}", trust_remote_code=True)` (and `AutoTokenizer` alike).
"""

#: The usage of a word-embedding baseline (``token_embedding="word"``): it reads the ids of its
#: ``vocab.txt``'s words, sentence markers included, not char ids: its tokenizer only splits the text.
_WORD_USAGE = """## Usage

This word-embedding baseline reads word ids (the lines of `vocab.txt`), not char ids: split the
text as its training text was split (its tokenizer's `tokenize`), look the words up in `vocab.txt`
and call `encode` with the sentence markers in place.

```python
import hf_elmo  # hf-elmo ({install}) registers the Auto classes; or pass trust_remote_code=True
import torch
from transformers import AutoModel, AutoTokenizer
from transformers.utils import cached_file

tokenizer = AutoTokenizer.from_pretrained("{path}")  # splits raw text as the training text was split
model = AutoModel.from_pretrained("{path}")
with open(cached_file("{path}", "vocab.txt"), encoding="utf-8") as lines:
    vocabulary = [line.split()[0] for line in lines if line.split()]  # a word a line, ids in this order
index = {{word: i for i, word in enumerate(vocabulary)}}
words = ["<S>", *tokenizer.tokenize("Let's stick to improvisation"), "</S>"]
word_ids = torch.tensor([[index.get(word, index["<UNK>"]) for word in words]])
layers, _ = model.encode(word_ids, torch.tensor([len(words)]))
layers = [layer[:, 1:-1] for layer in layers]  # L+1 tensors (batch, tokens, 2P), the markers left out
```
"""


def write_model_card(
    folder: Path,
    title: str,
    description: str,
    provenance: Mapping[str, str],
    datasets: Sequence[str] | None = None,
    license: str | None = DEFAULT_LICENSE,
    path: str = ".",
    base_model: str | None = None,
    reads_word_ids: bool = False,
    language: str | None = None,
    shipped_name: str | None = None,
) -> Path:
    """Write ``folder/README.md``: Hub metadata, a description, a provenance table and usage.

    ``license`` ``None`` leaves the licence out of the metadata (one that is not known);
    ``base_model`` (a Hub id) goes into the metadata of a model trained on from that one;
    ``language`` (an ISO 639 code, e.g. ``en``: the Hub's language filter) that of a model whose
    training text is known to be in that language;
    ``reads_word_ids`` (a word-embedding baseline, ``token_embedding="word"``) gives the usage
    code that looks words up in ``vocab.txt`` in place of the tokenizer's char ids, and no
    ``feature-extraction`` tag: that pipeline feeds the model char ids, which it refuses;
    ``shipped_name`` (``hf-elmo:NAME``, a model shipped in the package) gives the usage code that
    loads it by that name, which works wherever hf-elmo is installed, ``path`` its remote-code alternative.
    """
    data = ModelCardData(
        language=language,
        license=license,
        base_model=base_model,
        library_name="transformers",
        tags=["elmo"] if reads_word_ids else ["elmo", "feature-extraction"],  # the pipeline feeds char ids
        datasets=None if datasets is None else list(datasets),
    )
    rows = "\n".join(f"| {_cell(key)} | {_cell(value)} |" for key, value in provenance.items())
    today = datetime.date.today().isoformat()
    content = (
        f"---\n{data.to_yaml()}\n---\n\n# {title}\n\n{description}\n\n## Provenance\n\n"
        f"| what | value |\n|---|---|\n{rows}\n| written | {today} by hf_elmo |\n\n"
        + usage(path, reads_word_ids, shipped_name)
    )
    card_path = Path(folder) / "README.md"
    ModelCard(content).save(card_path)
    return card_path


def usage(path: str, reads_word_ids: bool = False, shipped_name: str | None = None) -> str:
    """The ``## Usage`` section of ``write_model_card``'s card (its arguments of the same names)."""
    if shipped_name is not None:
        return _SHIPPED_USAGE.format(name=shipped_name, path=path, install=INSTALL_HF_ELMO)
    return (_WORD_USAGE if reads_word_ids else _USAGE).format(path=path, install=INSTALL_HF_ELMO)


def _cell(text: str) -> str:
    """``text`` as one cell of a Markdown table row: ``|`` escaped, line breaks as spaces (a file
    named ``opt|x.json`` would otherwise split the row)."""
    return " ".join(str(text).splitlines()).replace("|", "\\|")


def card_license_and_attribution(folder: Path) -> tuple[str | None, str | None]:
    """The ``license:`` metadata of ``folder/README.md`` and its attribution paragraph (the one
    that begins with ``ATTRIBUTION``); ``None`` for what the card lacks, both without a card."""
    card = Path(folder) / "README.md"
    if not card.is_file():
        return None, None
    text = card.read_text(encoding="utf-8", errors="replace")  # a card in another encoding keeps its ASCII
    try:
        metadata = ModelCard(text, ignore_metadata_errors=True).data.to_dict()
    except (ValueError, yaml.YAMLError):  # a YAML header that does not parse: the text is still read
        metadata = {}
    attribution = next((part.strip() for part in text.split("\n\n") if part.startswith(ATTRIBUTION)), None)
    value = metadata.get("license")
    return (value if isinstance(value, str) else None), attribution


#: The ``License`` line of huggingface_hub's card template (transformers' card) without a licence.
_NO_LICENSE_LINE = "- **License:** [More Information Needed]"


def carry_source_card(card_path: Path, source: str | None, token: str | None = None) -> None:
    """Add to the card at ``card_path`` (transformers' card of a model pushed to a repository that has none) what
    the card of the folder or Hub repository the model was loaded from (``source``, its ``name_or_path``) says
    of its terms: its ``license`` (in the metadata and the template's ``- **License:**`` line) and attribution
    paragraph (``card_license_and_attribution``), and, for a Hub id, ``base_model``; what the card already has is
    kept. Was: the weights pushed without licence or attribution
    (``push_to_hub`` of the shipped model, of a folder ``elmo convert`` or ``elmo pretrain`` wrote)."""
    folder, base_model = _source_card_folder(source, token)
    license, attribution = card_license_and_attribution(folder) if folder is not None else (None, None)
    if license is None and attribution is None and base_model is None:
        return
    card = ModelCard(Path(card_path).read_text(encoding="utf-8"))
    data = cast(ModelCardData, card.data)  # a ModelCard's
    if data.license is None and license is not None:
        data.license = license
        card.text = card.text.replace(_NO_LICENSE_LINE, f"- **License:** {license}")  # the template's line
    if data.base_model is None and base_model is not None:
        data.base_model = base_model
    if attribution is not None and ATTRIBUTION not in card.text:
        lines = card.text.split("\n")
        title = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
        card.text = "\n".join([*lines[:title], "", attribution, "", *lines[title:]])
    card.save(card_path)


def _source_card_folder(source: str | None, token: str | None) -> tuple[Path | None, str | None]:
    """The folder that holds the card of the model loaded from ``source`` (``None`` for none: a model built from
    scratch, a Hub repository without a card) and ``source`` where it is a Hub id (``base_model``)."""
    if not source:
        return None, None
    if Path(source).is_dir():
        return Path(source), None
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, HFValidationError, RepositoryNotFoundError

    try:
        return Path(hf_hub_download(source, "README.md", token=token)).parent, source
    except EntryNotFoundError:  # a repository without a card
        return None, source
    except (HFValidationError, RepositoryNotFoundError):  # not a Hub id: a folder since moved, a file
        return None, None
