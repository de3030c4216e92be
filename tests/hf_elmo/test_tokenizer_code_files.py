"""The tokenizer's code travels in the modules it imports relatively (``tokenization_elmo``, ``tokenizer_settings``,
``char_ids``, ``word_splitting``, ``configuration_elmo``, ``messages``): a saved tokenizer writes the files
``output_folders`` lists for it, each a copy of the package's, and
loads from them alone, splitting raw text by spaCy's rules as the package does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hf_elmo
from hf_elmo import ElmoTokenizer
from hf_elmo.output_folders import _TOKENIZER_FILES, MODEL_CODE_FILES

PACKAGE = Path(hf_elmo.__file__).resolve().parent
TEXTS = ["It didn't sit.", "naïve <S> cafés"]

ISOLATED = """
import json, sys
sys.modules["hf_elmo"] = None  # importing hf_elmo now raises: only the folder's own code can run
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1], trust_remote_code=True)
assert type(tokenizer).__module__.startswith("transformers_modules"), type(tokenizer).__module__
batch = tokenizer(json.loads(sys.argv[2]), padding=True, return_offsets_mapping=True)
print(json.dumps({"tokens": tokenizer.tokenize("It didn't."), "batch": dict(batch), "vocab": tokenizer.get_vocab()}))
"""


def test_a_saved_tokenizer_writes_its_code_files_as_the_package_holds_them(tmp_path):
    """``--overwrite`` may replace only the files ``_TOKENIZER_FILES`` lists: a code file missing from it
    (char_ids.py, word_splitting.py) would be taken for the user's own and the folder refused."""
    ElmoTokenizer(pre_tokenizer="spacy:en").save_pretrained(tmp_path)
    written = {p.name for p in tmp_path.iterdir()}
    assert written <= set(_TOKENIZER_FILES)
    code = {p.name for p in tmp_path.glob("*.py")}
    assert code == {name for name in _TOKENIZER_FILES if name.endswith(".py")}
    assert code == {
        "tokenization_elmo.py",
        "tokenizer_settings.py",
        "char_ids.py",
        "word_splitting.py",
        "configuration_elmo.py",
        "messages.py",
    }
    assert code <= set(MODEL_CODE_FILES)  # a model's folder carries them too
    for name in code:
        assert (tmp_path / name).read_bytes() == (PACKAGE / name).read_bytes(), name


def test_a_saved_tokenizer_splits_and_encodes_raw_text_from_its_own_code_without_the_package(tmp_path):
    ElmoTokenizer(pre_tokenizer="spacy:en").save_pretrained(tmp_path)
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", ISOLATED, str(tmp_path), json.dumps(TEXTS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    remote = json.loads(result.stdout.strip().splitlines()[-1])
    tokenizer = ElmoTokenizer.from_pretrained(tmp_path)
    assert remote["tokens"] == tokenizer.tokenize("It didn't.") == ["It", "did", "n't", "."]
    expected = tokenizer(TEXTS, padding=True, return_offsets_mapping=True)
    assert remote["batch"] == json.loads(json.dumps(dict(expected)))  # offsets' tuples as JSON lists
    assert remote["vocab"] == tokenizer.get_vocab()
