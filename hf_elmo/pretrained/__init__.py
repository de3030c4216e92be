"""Models shipped inside the package.

``DEFAULT_MODEL`` is a biLM pretrained with ``elmo pretrain`` on English Wikipedia / Wikinews
prose (its README.md is the model card: data, licences, steps, tokens seen, perplexities).
``demo_sentences.txt`` is a small hand-written text (spaCy tokens) for ``elmo demo``.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MODEL = HERE / "elmo-tiny-en"
DEMO_SENTENCES = HERE / "demo_sentences.txt"
