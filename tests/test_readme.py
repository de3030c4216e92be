"""The README's ```python blocks run as written, and give what their comments state: the one
home for running README code.

The README reads as one session: a block may use what an earlier one defined (``model``,
``tokenizer``, ``out``, ``nlp``), so the blocks run in README order in one namespace, each test
running the blocks before its own first (those not run yet). They run in a working folder of
their own, where the files a block names are made first (``FILES``), at test size, as the
README's own shell commands would have made them: ``options.json`` + ``weights.hdf5`` (a model
in the original format, random weights), ``my-elmo/`` (``elmo convert`` of them), ``s.txt``,
``out.hdf5.index.json`` (``elmo embed --shard i/2`` of a text as long as the block's line index
needs), ``served/`` (the Serving section's first ``elmo export`` command as written, of the shipped
model: ``serving_export``) and the Hub repository ``org/elmo-original`` (``my-elmo/`` in a Hub cache
made for the test, read offline).

One rule decides what does not run by default: a block that names a file whose making is slow
(``served/``: an ONNX export takes about 15 s) is marked ``slow``, runs with ``-m slow``, and is
not run before the blocks after it, so those may not use its names.

The blocks a new user runs first (``FIRST_BLOCKS``) run also on their own, in an empty folder: they
need nothing but the shipped model, as no block of the parts a transformers user reads does
(``TRANSFORMERS_PARTS``) but those in ``OWN_FILES``, which say why.

A statement that a comment line offers in place of one of the block's own (``# or: CODE``, ``# or,
WHEN: CODE``) runs too, after its block, in a copy of the namespace.

What a block's comments state is checked where it is cheap: an expression whose comment starts
with a list or str literal (``tokenizer.tokenize(text)  # ['The', ...]``) must equal it, without
a ``...`` in it, and ``STATED`` checks the shapes and values other comments give.
"""

from __future__ import annotations

import ast
import io
import re
import shlex
import tokenize
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import huggingface_hub.constants
import numpy as np
import pytest
import torch

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo_cli import main as elmo_command
from tests.conftest import REPO
from tests.hub_cache import add_repo_to_cache
from tests.numpy_elmo import small_options, write_random_original

README = REPO / "README.md"


@dataclass(frozen=True)
class Block:
    """One ```python block: its code, the README line of its first code line, an id made
    from the heading above it (``-2`` for a section's second block), and the ``## `` heading it is under."""

    code: str
    line: int
    id: str
    part: str

    @property
    def needs(self) -> list[str]:
        """The names in ``FILES`` that the code (not its comments) names."""
        return files_named(self.code)

    @property
    def alternatives(self) -> list[tuple[int, str]]:
        """The statements its comment lines offer in place of one of its own (``# or: CODE``,
        ``# or, WHEN: CODE``), each with its README line."""
        return [
            (self.line + number, match.group(1))
            for number, text in enumerate(self.code.splitlines())
            if (match := ALTERNATIVE.match(text))
        ]

    @property
    def slow(self) -> bool:
        return any(FILES[name].slow for name in self.needs)


#: A comment line that offers a statement in place of one of the block's own.
ALTERNATIVE = re.compile(r"^\s*# or\b[^:]*: (.+)$")


def files_named(code: str) -> list[str]:
    """The names in ``FILES`` that the strings of ``code`` name, in ``FILES``' order."""
    strings = "".join(
        token.string for token in tokenize.generate_tokens(io.StringIO(code).readline) if token.type == tokenize.STRING
    )
    return [name for name in FILES if name in strings]


def readme_blocks(text: str, language: str = "python") -> list[Block]:
    """Every ```python block of ``text`` (or of another ``language``: ```ini), in order (fences of any
    language are skipped whole, so a bash block's ``# comment`` is no heading)."""
    blocks: list[Block] = []
    per_section: Counter[str] = Counter()
    section, part, fence, start, code = "", "", None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        if fence is None and line.startswith("```"):
            fence, start, code = line[3:].strip(), number + 1, []
        elif fence is not None and line.startswith("```"):
            if fence == language:
                slug = re.sub(r"[^a-z0-9]+", "-", section.split(" (")[0].lower()).strip("-")
                per_section[slug] += 1
                count = per_section[slug]
                name = slug if count == 1 else f"{slug}-{count}"
                blocks.append(Block("\n".join(code) + "\n", start, name, part))
            fence = None
        elif fence is not None:
            code.append(line)
        elif line.startswith("#"):
            section = line.lstrip("#").strip()
            part = section if line.startswith("## ") else part
    return blocks


@dataclass(frozen=True)
class File:
    """How to make a file a block names; ``slow`` when making it takes more than a few seconds."""

    make: Callable[[Workspace], None]
    slow: bool = False


class Workspace:
    """The working folder (the current directory while blocks run), the files made in it, and
    the namespace the blocks share."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.namespace: dict[str, Any] = {}
        self.made: set[str] = set()
        self.failed: dict[int, Exception | None] = {}

    def need(self, name: str) -> None:
        if name not in self.made:
            FILES[name].make(self)
            self.made.add(name)

    def run_through(self, index: int) -> None:
        """Run the blocks before ``index`` that have not run (but no slow one: only its own test
        runs it), then block ``index``; an earlier block that failed fails this one, naming it."""
        for earlier, block in enumerate(BLOCKS[:index]):
            if block.slow:
                continue
            if earlier not in self.failed:
                self.run_recorded(earlier)
            if self.failed[earlier] is not None:
                pytest.fail(
                    f"the block at README.md line {block.line}, which this one follows, failed: {self.failed[earlier]}"
                )
        self.run_recorded(index)
        if self.failed[index] is not None:
            raise self.failed[index]

    def run_recorded(self, index: int) -> None:
        """Run block ``index`` and record its error (``None``: it ran)."""
        try:
            self.run(BLOCKS[index])
        except Exception as error:
            self.failed[index] = error
        else:
            self.failed[index] = None

    def run(self, block: Block) -> None:
        """Make the files ``block`` names, then run it (``execute``)."""
        for name in block.needs:
            self.need(name)
        self.execute(block)

    def run_alternative(self, line: int, code: str) -> None:
        """Make the files ``code``, an alternative at README line ``line``, names and run it in a copy of the
        namespace, so that the blocks after it see what their own block made."""
        for name in files_named(code):
            self.need(name)
        exec(compile("\n" * (line - 1) + code, str(README), "exec"), dict(self.namespace))  # noqa: S102

    def execute(self, block: Block) -> None:
        """Run ``block`` statement by statement (tracebacks name README.md lines), checking each
        expression against the literal its comment starts with."""
        tree = ast.parse(block.code)
        ast.increment_lineno(tree, block.line - 1)
        comments = {
            token.start[0] + block.line - 1: token.string[1:].strip()
            for token in tokenize.generate_tokens(io.StringIO(block.code).readline)
            if token.type == tokenize.COMMENT
        }
        for statement in tree.body:
            if isinstance(statement, ast.Expr):
                value = eval(compile(ast.Expression(statement.value), str(README), "eval"), self.namespace)  # noqa: S307
                stated = stated_literal(comments.get(statement.end_lineno or 0, ""))
                if stated is not None:
                    assert value == stated[0], f"README.md line {statement.lineno} states {stated[0]!r}, got {value!r}"
            else:
                exec(compile(ast.Module([statement], []), str(README), "exec"), self.namespace)  # noqa: S102


def stated_literal(comment: str) -> tuple[Any] | None:
    """``(value,)`` of the list or str literal ``comment`` starts with (the longest prefix that is
    one: ``[0, 1]: one position per word``), or ``None`` (another comment, or one with ``...``)."""
    if not comment.startswith(("[", '"', "'")):
        return None
    for end in range(len(comment), 0, -1):
        try:
            tree = ast.parse(comment[:end], mode="eval")
            value = ast.literal_eval(tree)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        if any(isinstance(node, ast.Constant) and node.value is Ellipsis for node in ast.walk(tree)):
            return None
        return (value,)
    return None


def _original(workspace: Workspace) -> None:
    write_random_original(workspace.folder, small_options(), seed=3)


def _converted(workspace: Workspace) -> None:
    workspace.need("options.json")
    assert elmo_command(["convert", "options.json", "weights.hdf5", "my-elmo/"]) == 0


def _sentences(workspace: Workspace) -> None:
    Path("s.txt").write_text("The first sentence .\nAnother one .\n", encoding="utf-8")


def _sharded_embeddings(workspace: Workspace) -> None:
    """``elmo embed big.txt out.hdf5 --shard i/2``, i = 0, 1, over as many lines as the block's
    largest ``embeddings[N]`` needs."""
    workspace.need("my-elmo/")
    block = next(block for block in BLOCKS if "out.hdf5.index.json" in block.code)
    lines = 1 + max(int(index) for index in re.findall(r"embeddings\[(\d+)\]", block.code))
    Path("big.txt").write_text("".join(f"word{i % 50}\n" for i in range(lines)), encoding="utf-8")
    for shard in ("0/2", "1/2"):
        assert (
            elmo_command(["embed", "big.txt", "out.hdf5", "--model", "my-elmo/", "--shard", shard, "--no-progress"])
            == 0
        )


def serving_export() -> list[str]:
    """The arguments of the Serving section's first ``elmo export`` command (its bash block), as a shell splits
    them: the model, the folder and the options, which ``served/`` is made with."""
    block = next(block for block in readme_blocks(README.read_text(encoding="utf-8"), "bash") if block.id == "serving")
    line = next(line for line in block.code.splitlines() if line.startswith("elmo export "))
    return shlex.split(line, comments=True)[2:]


def _export(workspace: Workspace) -> None:
    pytest.importorskip("onnxscript")
    pytest.importorskip("onnxruntime")
    assert elmo_command(["export", *serving_export()]) == 0


def _hub_repository(workspace: Workspace) -> None:
    workspace.need("my-elmo/")
    add_repo_to_cache(Path(huggingface_hub.constants.HF_HUB_CACHE), "org/elmo-original", Path("my-elmo"))


#: The files blocks name, and how each is made (in this order: ``options.json`` first).
FILES: dict[str, File] = {
    "options.json": File(_original),
    "my-elmo/": File(_converted),
    "s.txt": File(_sentences),
    "out.hdf5.index.json": File(_sharded_embeddings),
    "served/": File(_export, slow=True),
    "org/elmo-original": File(_hub_repository),
}
BLOCKS = readme_blocks(README.read_text(encoding="utf-8"))


def _python(ns: dict[str, Any]) -> None:
    out, config = ns["out"], ns["model"].config
    width = 2 * config.projection_dim
    assert len(out.hidden_states) == config.n_layers + 1  # L+1 tensors (batch, tokens, 2P)
    assert all(layer.shape == (2, 3, width) for layer in out.hidden_states)
    token_layer = out.hidden_states[0]
    assert torch.equal(token_layer[..., : width // 2], token_layer[..., width // 2 :])  # the token layer doubled
    assert not out.last_hidden_state[1, 1:].any()  # padding positions are zero
    assert ns["elmo_vectors"].shape == (2, 3, width)


def _sentence_vectors(ns: dict[str, Any]) -> None:
    out = ns["out"]  # the Python section's
    width = out.last_hidden_state.shape[-1]
    assert ns["sentence_vectors"].shape == (2, width)  # (batch, 2P)
    assert ns["layer_vectors"].shape == (len(out.hidden_states), 2, width)  # (L+1, batch, 2P)


def _coming_from_allennlp(ns: dict[str, Any]) -> None:
    width = 2 * ns["model"].config.projection_dim
    representations = ns["out"]["elmo_representations"]
    assert [tuple(r.shape) for r in representations] == [(2, 3, width)] * 2
    assert all(not r[1, 2:].any() for r in representations)  # zero after each sentence's tokens
    assert ns["out"]["mask"].dtype == torch.bool and ns["out"]["mask"].tolist() == [[True] * 3, [True, True, False]]
    assert [v.shape for v in ns["vectors"]] == [(3, 3, width), (3, 2, width)]  # each (L+1, n, 2P)


def _coming_from_bilm_tf(ns: dict[str, Any]) -> None:
    bilm, width = ns["bilm"], 2 * ns["bilm"].config.projection_dim
    layers = bilm.config.n_layers + 1
    assert ns["lm_embeddings"].shape == (2, layers, 3, width)  # (2, L+1, 3, 2P)
    assert ns["mask"].tolist() == [[True] * 3, [True, True, False]]
    assert ns["elmo_input"].shape == (2, 3, width)
    assert ns["regularization"].item() == 0.0  # zero scalar weights at the start
    dumped, stateless = ns["dumped"], ns["lm_embeddings"].detach()
    assert [tuple(d.shape) for d in dumped] == [(layers, 3, width), (layers, 2, width)]  # (L+1, n_i, 2P)
    torch.testing.assert_close(dumped[0], stateless[0], rtol=0, atol=1e-6)  # from the initial state, as elmo embed
    assert (dumped[1] - stateless[1, :, :2]).abs().max() > 1e-3  # the state carried from the first sentence
    saved = ElmoModel.from_allennlp("bilm-options.json", "bilm-weights.hdf5")
    torch.testing.assert_close(saved(input_ids=ns["character_ids"]).last_hidden_state, stateless[:, -1])


def _serving(ns: dict[str, Any]) -> None:
    config = ElmoConfig.from_pretrained(serving_export()[0])  # the model served/ was exported from
    assert isinstance(ns["layers"], np.ndarray)
    assert ns["layers"].shape == (2, config.n_layers + 1, 3, 2 * config.projection_dim)
    assert ns["mask"].tolist() == [[True] * 3, [True, False, False]]


def _hub(ns: dict[str, Any]) -> None:
    assert isinstance(ns["model"], ElmoModel) and isinstance(ns["tokenizer"], ElmoTokenizer)


def _perplexity_in_python(ns: dict[str, Any]) -> None:
    batch, sentences, vocabulary = ns["batch"], ns["sentences"], ns["vocabulary"]
    assert batch.input_ids.shape == (2, 9, 50) and batch.lengths.tolist() == [9, 7] and batch.labels.shape == (2, 9)
    words = ns["collate_sentences"](sentences, vocabulary, word_inputs=True)  # the word LM's batch: word ids
    assert torch.equal(words.input_ids, batch.labels.clamp(min=0))  # (2, 9), the labels' ids, 0 as padding


def _spacy(ns: dict[str, Any]) -> None:
    doc, layers = ns["doc"], ns["doc"]._.elmo.layers
    assert layers.shape[1] == len(doc)  # (L+1, n_tokens, 2P)
    np.testing.assert_allclose(doc[4].vector, layers[:, 4].mean(0), atol=1e-6)  # the average of the layers


#: What the comments of each block (by id) state beyond literals, checked after it ran.
STATED: dict[str, Callable[[dict[str, Any]], None]] = {
    "python": _python,
    "sentence-vectors": _sentence_vectors,
    "coming-from-allennlp": _coming_from_allennlp,
    "coming-from-bilm-tf": _coming_from_bilm_tf,
    "serving": _serving,
    "hugging-face-hub": _hub,
    "perplexity-in-python": _perplexity_in_python,
    "spacy": _spacy,
}


#: The blocks a new user runs first, with nothing of their own but the shipped model: in README order.
FIRST_BLOCKS = ("python", "tokenisation")
#: The README's parts (``## `` headings) that a transformers user reads, and the blocks there that use files of
#: the user's own (``FILES``), each with why: every other block of those parts runs with the shipped model alone.
TRANSFORMERS_PARTS = ("Python", "Hugging Face Hub")
OWN_FILES = {
    "coming-from-allennlp": "it shows AllenNLP users their own files (options.json + weights.hdf5) loaded",
    "coming-from-bilm-tf": "it shows bilm-tf users their own files (options.json + weights.hdf5) loaded",
    "hugging-face-hub": "it loads a Hub repository of the user's (org/elmo-original)",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The blocks' working folder as the current directory, and the Hub as a local cache, offline."""
    folder = tmp_path_factory.mktemp("readme")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(folder / "hub-cache"))
        patch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
        yield Workspace(folder)


def test_the_readme_blocks_have_distinct_ids_and_every_check_a_block():
    """A renamed heading fails here instead of leaving its block's checks unrun."""
    ids = [block.id for block in BLOCKS]
    assert len(ids) == len(set(ids))
    assert set(STATED) | set(FIRST_BLOCKS) | set(OWN_FILES) <= set(ids)
    assert {block.part for block in BLOCKS} >= set(TRANSFORMERS_PARTS)


@pytest.mark.parametrize(
    "index",
    [pytest.param(i, id=block.id, marks=[pytest.mark.slow] if block.slow else []) for i, block in enumerate(BLOCKS)],
)
def test_the_readme_block_runs_as_written_and_gives_what_it_states(workspace, index):
    workspace.run_through(index)
    check = STATED.get(BLOCKS[index].id)
    if check is not None:
        check(workspace.namespace)


def test_the_transformers_blocks_use_no_file_of_the_users_but_where_said_why():
    """The Task heads block started from "my-elmo/", a folder only a later part (``elmo convert``) makes."""
    assert {block.id for block in BLOCKS if block.part in TRANSFORMERS_PARTS and block.needs} == set(OWN_FILES)


def test_the_first_blocks_run_with_the_shipped_model_alone(tmp_path, monkeypatch):
    """A new user's first blocks run, offline, in an empty folder and a fresh session: no file of
    theirs (``FILES``) is made for them. The Python section's first block loaded original files,
    ``options.json``, which a new user does not have (FileNotFoundError)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    fresh = Workspace(tmp_path)
    for block in BLOCKS:
        if block.id in FIRST_BLOCKS:
            fresh.execute(block)
            check = STATED.get(block.id)
            if check is not None:
                check(fresh.namespace)
    assert sorted(path.name for path in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("index", "line", "code"),
    [
        pytest.param(i, line, code, id=f"{block.id}-line-{line}", marks=[pytest.mark.slow] if block.slow else [])
        for i, block in enumerate(BLOCKS)
        for line, code in block.alternatives
    ],
)
def test_a_readme_alternative_runs_as_written(workspace, index, line, code):
    """A statement a comment offers in place of a block's own (``# or: CODE``) runs too, after its block."""
    workspace.run_through(index)
    workspace.run_alternative(line, code)
