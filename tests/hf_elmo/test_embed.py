"""`elmo embed` and `hf_elmo.embed`: AllenNLP's file layout, batching independence, streaming,
validation, resume after SIGKILL, torchrun shards, bounded memory."""

from __future__ import annotations

import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch

import hf_elmo.corpus
import hf_elmo.embed.run
import hf_elmo.embed.scan
import hf_elmo.word_splitting
from hf_elmo import ElmoModel, ElmoTokenizer, batch_to_ids
from hf_elmo.cli import main as elmo_main
from hf_elmo.cuda_graphs import GraphedElmo
from hf_elmo.embed import SENTENCE_TO_INDEX, SETTINGS_ATTRIBUTE, Shard, embed_file, embed_sentences, open_embeddings
from hf_elmo.modeling_elmo import mean_pool

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models run fastest on one thread

WORDS = "the a cat dog sat on mat and of to in is was it he she they café naïve 's".split()
# Runs the command in a child process and prints its peak resident memory (KiB).
REPORT_PEAK = (
    "import resource, sys\nfrom hf_elmo.cli import main\nrc = main(sys.argv[1:])\n"
    "print('peak_kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\nsys.exit(rc)"
)
# Runs the command in a child process that SIGKILLs itself at the os.replace onto the file named
# $KILL_AT, just before it ($KILL_WHEN=before) or just after it (after).
KILL_AT_RENAME = """
import os, signal, sys
rename = os.replace
def replace(src, dst):
    hit = os.path.basename(dst) == os.environ["KILL_AT"]
    if hit and os.environ["KILL_WHEN"] == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    rename(src, dst)
    if hit:
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
from hf_elmo.cli import main
sys.exit(main(sys.argv[1:]))
"""
CHILD_ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    """23 lines of 1 to 15 tokens; line 16 repeats line 2, line 4 has extra whitespace and CRLF."""
    rng = random.Random(0)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 15))) for _ in range(23)]
    lines[16] = lines[2]
    lines[4] = "  cat \t sat  \r"
    path = tmp_path_factory.mktemp("text") / "text.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="")
    return path


@pytest.fixture(scope="module")
def reference(model_dir, text, tmp_path_factory) -> Path:
    """An uninterrupted single-process run, all layers."""
    out = tmp_path_factory.mktemp("reference") / "reference.hdf5"
    assert elmo_main(["embed", str(text), str(out), "--model", str(model_dir), "--no-progress"]) == 0
    return out


def embed_cli(text: Path, out: Path, model_dir: Path, *extra: str) -> int:
    return elmo_main(
        ["embed", str(text), str(out), "--model", str(model_dir), "--no-progress", "--chunk-lines", "4", *extra]
    )


def sentences_of(text: Path) -> list[list[str]]:
    return [line.split() for line in text.read_text(encoding="utf-8").splitlines()]


def read_all(path: Path) -> dict[str, np.ndarray]:
    with h5py.File(path, "r") as handle:
        return {name: handle[name][()] for name in handle}


def assert_same_file(path: Path, expected: Path) -> None:
    got, want = read_all(path), read_all(expected)
    assert got.keys() == want.keys()
    assert got.pop(SENTENCE_TO_INDEX)[0] == want.pop(SENTENCE_TO_INDEX)[0]
    for name, array in want.items():
        np.testing.assert_allclose(got[name], array, rtol=0, atol=1e-6, err_msg=name)


def alone(model, tokens: list[str]) -> np.ndarray:
    """(L+1, T, 2P): a direct model call on one sentence."""
    with torch.no_grad():
        return torch.stack(model(input_ids=batch_to_ids([tokens])).hidden_states)[:, 0].numpy()


# -- the file ---------------------------------------------------------------------------------
@pytest.mark.parametrize("layers", ["all", "top", "average"])
def test_output_has_allennlp_layout_and_each_sentence_alone_vectors(
    layers, allennlp_model, model_dir, text, tmp_path, capsys
):
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--layers", layers, "--tokens-per-batch", "20") == 0
    assert "wrote" in capsys.readouterr().out
    assert not (tmp_path / "out.hdf5.partial").exists()
    lines = text.read_text(encoding="utf-8").splitlines()
    with h5py.File(out, "r") as handle:
        assert set(handle) == {str(i) for i in range(len(lines))} | {SENTENCE_TO_INDEX}
        index = handle[SENTENCE_TO_INDEX]
        assert index.shape == (1,) and h5py.check_string_dtype(index.dtype) is not None
        expected_index = {}
        for i, line in enumerate(lines):
            expected_index[line.strip()] = str(i)  # as AllenNLP builds it: the last duplicate wins
        assert index.asstr()[0] == json.dumps(expected_index)
        assert json.loads(index.asstr()[0])[lines[2]] == "16"
        for i, line in enumerate(lines):
            layers_alone = alone(allennlp_model, line.split())
            want = {"all": layers_alone, "top": layers_alone[-1], "average": layers_alone.mean(axis=0)}[layers]
            assert handle[str(i)].dtype == np.float32
            np.testing.assert_allclose(handle[str(i)][()], want, rtol=0, atol=1e-6, err_msg=f"line {i}")
    with open_embeddings(out) as embeddings:
        assert len(embeddings) == len(lines)
        np.testing.assert_array_equal(embeddings[5], read_all(out)["5"])
        with pytest.raises(IndexError):
            embeddings[len(lines)]


def test_bfloat16_computes_in_bfloat16_and_stores_float32(model_dir, text, reference, tmp_path):
    out = tmp_path / "bf16.hdf5"
    assert embed_cli(text, out, model_dir, "--dtype", "bfloat16") == 0
    got, want = read_all(out), read_all(reference)
    assert all(got[name].dtype == np.float32 for name in got if name != SENTENCE_TO_INDEX)
    differences = [np.abs(got[name] - want[name]).max() for name in want if name != SENTENCE_TO_INDEX]
    assert 0 < max(differences) < 0.05


def test_cuda_graphs_option_runs_the_static_bilm_and_writes_the_same_vectors(
    model_dir, text, reference, tmp_path, monkeypatch
):
    calls = []
    static_forward = GraphedElmo.static_forward

    def counting(self, tokens, real):
        calls.append(tuple(tokens.shape))
        return static_forward(self, tokens, real)

    monkeypatch.setattr(GraphedElmo, "static_forward", counting)
    out = tmp_path / "graphs.hdf5"
    assert embed_cli(text, out, model_dir, "--cuda-graphs", "--tokens-per-batch", "20") == 0
    assert calls and all(rows in (1, 2, 4, 8, 16) and steps % 16 == 0 for rows, steps, _ in calls)
    assert_same_file(out, reference)


def test_embed_file_names_the_model_as_elmo_embed_does_by_default(model_dir, text, reference, tmp_path):
    """Was: a TypeError, embed_file() missing the required keyword argument 'model_id'; now the folder the
    model was loaded from, resolved, which the command records, so that either resumes the other's run."""
    out = tmp_path / "out.hdf5"
    model = ElmoModel.from_pretrained(str(model_dir))
    embed_file(model, text, out, chunk_lines=4, show_progress=False)
    assert_same_file(out, reference)
    with h5py.File(out) as written, h5py.File(reference) as expected:
        recorded = json.loads(written.attrs[SETTINGS_ATTRIBUTE])["model"]
        assert recorded == json.loads(expected.attrs[SETTINGS_ATTRIBUTE])["model"] == str(model_dir.resolve())


def test_existing_output_is_refused_unless_overwrite(model_dir, text, reference, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--layers", "top") == 0
    older = out.read_bytes()
    assert embed_cli(text, out, model_dir) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert out.read_bytes() == older
    assert embed_cli(text, out, model_dir, "--overwrite") == 0
    assert_same_file(out, reference)


@pytest.mark.parametrize("content", [b"my notes", b"\x89HDF\r\n\x1a\n garbage"], ids=["text", "damaged-hdf5"])
def test_overwrite_replaces_only_an_earlier_output_of_elmo_embed_not_a_users_file(
    model_dir, text, tmp_path, capsys, content
):
    out = tmp_path / "notes.hdf5"
    out.write_bytes(content)
    assert embed_cli(text, out, model_dir, "--overwrite") == 2
    assert f"{out} is no output of elmo embed" in capsys.readouterr().err
    assert out.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == ["notes.hdf5"]


# -- sentence vectors -------------------------------------------------------------------------
def test_a_byte_order_mark_at_the_start_of_the_input_is_dropped(model_dir, text, reference, tmp_path):
    with_bom = tmp_path / "bom.txt"
    with_bom.write_bytes(b"\xef\xbb\xbf" + text.read_bytes())  # as some editors save UTF-8
    assert embed_cli(with_bom, tmp_path / "out.hdf5", model_dir) == 0
    assert_same_file(tmp_path / "out.hdf5", reference)  # first key and vectors included


def test_mean_pool_averages_each_sentences_real_tokens_only():
    hidden = torch.randn(3, 2, 4, 5)  # (L+1, B, T, D); padding positions hold non-zero values
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]])
    pooled = mean_pool(hidden, mask)
    assert pooled.shape == (3, 2, 5)
    expected = np.stack([hidden[:, 0, :3].numpy().mean(axis=1), hidden[:, 1, :1].numpy().mean(axis=1)], axis=1)
    np.testing.assert_allclose(pooled.numpy(), expected, rtol=0, atol=1e-6)
    np.testing.assert_allclose(mean_pool(hidden[0], mask.bool()).numpy(), expected[0], rtol=0, atol=1e-6)


@pytest.mark.parametrize("layers, shape", [("all", (3, 32)), ("top", (32,)), ("average", (32,))])
def test_pooled_sentence_vectors_are_the_mean_of_the_unpadded_token_vectors(layers, shape, allennlp_model, text):
    sentences = sentences_of(text)
    tokens = list(embed_sentences(allennlp_model, sentences, layers=layers, tokens_per_batch=40))
    pooled = list(embed_sentences(allennlp_model, sentences, layers=layers, tokens_per_batch=40, pool="mean"))
    assert len(pooled) == len(sentences)
    for i, (vector, per_token) in enumerate(zip(pooled, tokens)):
        assert vector.shape == shape and vector.dtype == np.float32
        np.testing.assert_allclose(vector, per_token.mean(axis=-2), rtol=0, atol=1e-6, err_msg=f"sentence {i}")


def test_embed_sentences_takes_a_dtype_by_name_as_from_pretrained_does(allennlp_model):
    """Was: torch's TypeError 'to() received an invalid combination of arguments - got (dtype=str, ...)'."""
    model = copy.deepcopy(allennlp_model)
    (vectors,) = embed_sentences(model, [["a", "cat"]], dtype="bfloat16")
    assert model.dtype == torch.bfloat16 and vectors.dtype == np.float32
    with pytest.raises(ValueError, match="dtype 'half-ish' is no floating-point torch dtype"):
        next(embed_sentences(model, [["a"]], dtype="half-ish"))


def test_an_unknown_pool_is_refused(allennlp_model):
    with pytest.raises(ValueError, match="pool must be one of"):
        embed_sentences(allennlp_model, [["a"]], pool="max")


@pytest.mark.parametrize("layers", ["all", "top"])
def test_embed_pool_mean_writes_one_vector_per_line_in_the_allennlp_layout(
    layers, model_dir, text, reference, tmp_path
):
    out = tmp_path / "pooled.hdf5"
    assert embed_cli(text, out, model_dir, "--layers", layers, "--pool", "mean") == 0
    got, per_token = read_all(out), read_all(reference)  # the reference holds all layers, unpooled
    assert got.keys() == per_token.keys()
    assert got.pop(SENTENCE_TO_INDEX)[0] == per_token.pop(SENTENCE_TO_INDEX)[0]
    for name, array in per_token.items():
        want = array.mean(axis=1) if layers == "all" else array[-1].mean(axis=0)  # (L+1, T, 2P) -> (L+1, 2P) / (2P,)
        np.testing.assert_allclose(got[name], want, rtol=0, atol=1e-6, err_msg=name)


# -- batching and streaming -------------------------------------------------------------------
def test_vectors_do_not_depend_on_the_batch_token_budget(allennlp_model, text):
    sentences = sentences_of(text)
    runs = [list(embed_sentences(allennlp_model, sentences, tokens_per_batch=budget)) for budget in (1, 9, 10_000)]
    for first, *others in zip(*runs):
        for other in others:
            np.testing.assert_allclose(other, first, rtol=0, atol=1e-6)


def test_embed_sentences_and_embed_file_take_batch_tokens_as_the_old_name_of_tokens_per_batch(
    allennlp_model, model_dir, text, reference, tmp_path
):
    """Was: batch_tokens alone, where elmo pretrain's settings and perplexity() say tokens_per_batch;
    the old name still works, with a FutureWarning naming the new one."""
    sentences = sentences_of(text)
    new = list(embed_sentences(allennlp_model, sentences, tokens_per_batch=9))
    renamed = r"embed_sentences\(batch_tokens=...\) is now embed_sentences\(tokens_per_batch=...\)"
    with pytest.warns(FutureWarning, match=renamed):
        old = list(embed_sentences(allennlp_model, sentences, batch_tokens=9))
    for first, second in zip(new, old, strict=True):
        np.testing.assert_array_equal(first, second)
    with pytest.raises(TypeError, match="got tokens_per_batch and batch_tokens, its old name"):
        embed_sentences(allennlp_model, sentences, tokens_per_batch=9, batch_tokens=9)
    model = ElmoModel.from_pretrained(model_dir)
    out = tmp_path / "out.hdf5"
    with pytest.warns(FutureWarning, match=r"embed_file\(batch_tokens=...\) is now embed_file\(tokens_per_batch"):
        embed_file(model, text, out, model_id=str(model_dir), batch_tokens=9, chunk_lines=4, show_progress=False)
    assert_same_file(out, reference)


def test_embed_sentences_streams_in_input_order_with_bounded_lookahead(allennlp_model, text):
    sentences = sentences_of(text) * 3
    pulled = []

    def source():
        for sentence in sentences:
            pulled.append(sentence)
            yield sentence

    stream = embed_sentences(allennlp_model, source(), layers="top", tokens_per_batch=8, lookahead_tokens=16)
    first = next(stream)
    assert sum(len(s) for s in pulled[:-1]) < 16 < len(sentences)  # read ahead by at most 16 tokens
    arrays = [first, *stream]
    assert len(arrays) == len(sentences)
    for tokens, array in zip(sentences, arrays):
        np.testing.assert_allclose(array, alone(allennlp_model, tokens)[-1], rtol=0, atol=1e-6)


# -- validation -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "content, expected",
    [
        (b"a b\n\nc d\n \t \n", ["2 of 4 lines", "line 2: blank line", "line 4: blank line"]),
        (b"fine\nnot \xff utf8\n", ["1 of 2 lines", "line 2: not valid UTF-8 (byte 0xff at character 5)"]),
        (b"ok\nok " + b"x" * 101 + b"\n", ["line 2: token of 101 characters"]),
        (b"a\n" + b"\n" * 7 + b"b\n", ["7 of 9 lines", "line 6: blank line; 2 more); nothing was written"]),
        (b"a b\nc\x00d e\n", ["1 of 2 lines", "line 2: NUL byte at character 2 (binary data, not text)"]),
    ],
)
def test_bad_lines_stop_the_run_before_anything_is_written(content, expected, model_dir, tmp_path, capsys):
    text = tmp_path / "bad.txt"
    text.write_bytes(content)
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir) == 2
    err = capsys.readouterr().err
    assert f"elmo embed: error: {text}: " in err
    for needed in expected:
        assert needed in err
    assert "line 7:" not in err  # at most 5 lines quoted
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]


def test_the_bad_lines_error_says_to_fix_or_remove_them(model_dir, tmp_path, capsys):
    """A file with a blank last line (an editor's extra newline), as AllenNLP's command refused it too
    ("Please remove them"), is told what to do. Was: the bad lines alone, 'line 3: blank line'."""
    text = tmp_path / "blank.txt"
    text.write_bytes(b"a b\nc\n\n")
    assert embed_cli(text, tmp_path / "out.hdf5", model_dir) == 2
    err = capsys.readouterr().err
    assert "nothing was written: fix or remove them (each line is embedded as one sentence" in err
    assert "line 3: blank line" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blank.txt"]


def test_an_empty_input_is_an_error_and_nothing_is_written(model_dir, tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert embed_cli(empty, tmp_path / "out.hdf5", model_dir) == 2
    assert f"elmo embed: error: {empty} is empty: there are no lines to embed" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.txt"]


def test_the_token_limit_is_the_models_tokenizers_unless_max_token_chars_is_given(model_dir, tmp_path, capsys):
    """As elmo export's and the tokenizer's (was: 100 whatever the model's tokenizer says)."""
    folder = tmp_path / "model"
    shutil.copytree(model_dir, folder)
    ElmoTokenizer.from_pretrained(folder, max_token_chars=None).save_pretrained(folder)
    text = tmp_path / "long.txt"
    text.write_text("ok " + "x" * 101 + "\n")
    assert embed_cli(text, tmp_path / "out.hdf5", folder) == 0
    assert read_all(tmp_path / "out.hdf5")["0"].shape[1] == 2
    assert embed_cli(text, tmp_path / "out2.hdf5", folder, "--max-token-chars", "100") == 2
    assert "is longer than max_token_chars=100" in capsys.readouterr().err


def test_embed_sentences_and_embed_file_take_the_models_tokenizers_token_limit_as_elmo_embed_does(
    model_dir, tmp_path, capsys
):
    """Was: 100 (DEFAULT_MAX_TOKEN_CHARS) from Python whatever the tokenizer saved with the model says,
    while elmo embed took the tokenizer's: the same model refused a token from one and not the other."""
    folder = tmp_path / "model"
    shutil.copytree(model_dir, folder)
    ElmoTokenizer.from_pretrained(folder, max_token_chars=5).save_pretrained(folder)
    model = ElmoModel.from_pretrained(folder)
    text = tmp_path / "six.txt"
    text.write_text("ok sixsix\n")
    assert embed_cli(text, tmp_path / "cli.hdf5", folder) == 2
    assert "is longer than max_token_chars=5" in capsys.readouterr().err
    with pytest.raises(ValueError, match="is longer than max_token_chars=5"):
        list(embed_sentences(model, [["ok", "sixsix"]]))
    with pytest.raises(ValueError, match="is longer than max_token_chars=5"):
        embed_file(model, text, tmp_path / "python.hdf5", show_progress=False)
    assert not (tmp_path / "python.hdf5").exists()
    # a limit given (None: none) wins, as --max-token-chars does
    assert [a.shape[1] for a in embed_sentences(model, [["ok", "sixsix"]], max_token_chars=None)] == [2]
    embed_file(model, text, tmp_path / "python.hdf5", max_token_chars=6, show_progress=False)
    assert read_all(tmp_path / "python.hdf5")["0"].shape[1] == 2


def test_long_tokens_are_truncated_with_max_token_chars_none(model_dir, tmp_path):
    text = tmp_path / "long.txt"
    text.write_text("ok " + "x" * 101 + "\n")
    assert embed_cli(text, tmp_path / "out.hdf5", model_dir, "--max-token-chars", "none") == 0
    assert read_all(tmp_path / "out.hdf5")["0"].shape[1] == 2


@pytest.mark.parametrize(
    "option, message",
    [
        (["--device", "cuda"], "no CUDA device is available"),
        (
            ["--shard", "2/2"],
            "argument --shard: must be I/N, whole numbers with 0 <= I < N <= 1024 (e.g. 0/2), got '2/2'",
        ),
        (
            ["--shard", "-1/2"],
            "argument --shard: must be I/N, whole numbers with 0 <= I < N <= 1024 (e.g. 0/2), got '-1/2'",
        ),
        (
            ["--shard", "first"],
            "argument --shard: must be I/N, whole numbers with 0 <= I < N <= 1024 (e.g. 0/2), got 'first'",
        ),
        (
            ["--shard", "\u00b2/3"],
            "got '\u00b2/3'",
        ),  # a superscript two is a digit to str.isdigit
        (["--shard", "0/1025"], "got '0/1025'"),
    ],
)
def test_bad_options_are_clear_errors(option, message, model_dir, text, tmp_path, capsys):
    if option[0] == "--device" and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert embed_cli(text, tmp_path / "out.hdf5", model_dir, *option) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("limit", ["0", "-3", "many"])
def test_a_max_token_chars_that_is_not_a_positive_integer_or_none_is_a_usage_error(
    limit, model_dir, text, tmp_path, capsys
):
    with pytest.raises(SystemExit) as exit:
        embed_cli(text, tmp_path / "out.hdf5", model_dir, "--max-token-chars", limit)
    assert exit.value.code == 2
    assert f"--max-token-chars: must be a positive integer or 'none', got '{limit}'" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("option", ["--tokens-per-batch", "--chunk-lines"])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_tokens_per_batch_or_chunk_lines_below_one_is_a_usage_error_naming_the_option(
    option, value, model_dir, text, tmp_path, capsys
):
    """Was: 'batch_tokens must be at least 1', embed_file's parameter rather than the option."""
    with pytest.raises(SystemExit) as exit:
        embed_cli(text, tmp_path / "out.hdf5", model_dir, option, value)
    assert exit.value.code == 2
    # an option with an alias is named with it: argument --tokens-per-batch/--batch-tokens
    assert re.search(
        rf"argument {option}(/--[a-z-]+)?: must be a positive integer, got '{value}'", capsys.readouterr().err
    )
    assert not any(tmp_path.iterdir())


def test_a_huge_shard_count_is_refused_at_once():
    with pytest.raises(ValueError, match=r"0 <= I < N <= 1024"):
        Shard(0, 10**9)


@pytest.mark.parametrize("name", ["out.hdf5", "run[1].hdf5", "a*b.h5"])
def test_the_shard_files_of_an_output_are_found_whatever_characters_its_name_holds(name, tmp_path):
    """Was: a glob of the output's name, so an output named run[1].hdf5 had no shard files."""
    output = tmp_path / name
    shards = [Shard(index, 2).output_file(output) for index in range(2)]
    for path in [*shards, tmp_path / "other.shard-0-of-2.hdf5", output.with_name(output.stem + ".shard-x-of-2.hdf5")]:
        path.touch()
    assert Shard.shard_files(output) == shards
    assert all(Shard.is_shard_file(path) for path in shards) and not Shard.is_shard_file(output)


@pytest.mark.parametrize(
    "rank, world_size, said",
    [
        (
            "x",
            "2",
            "the environment's RANK='x' is no whole number, as torchrun sets it: unset RANK, or start the "
            "command with torchrun, or pass --shard i/N",
        ),
        (
            "2",
            "2",
            "the environment's RANK=2 and WORLD_SIZE=2 (as torchrun sets them) are no shard: need "
            "0 <= RANK < WORLD_SIZE <= 1024; unset them, or pass --shard i/N",
        ),
    ],
)
def test_a_torchrun_environment_that_is_no_shard_names_its_variables(
    rank, world_size, said, model_dir, text, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("RANK", rank)
    monkeypatch.setenv("WORLD_SIZE", world_size)
    assert embed_cli(text, tmp_path / "out.hdf5", model_dir) == 2
    assert capsys.readouterr().err == f"elmo embed: error: {said}\n"
    assert not any(tmp_path.iterdir())


# -- resume -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kill_at, when, reused",
    [
        ("part-000002.hdf5", "before", 2),  # mid-run: 2 chunks done, the third written but not renamed
        # after the final rename, before the partial folder is removed (~10 s)
        pytest.param("out.hdf5", "after", 6, marks=pytest.mark.slow),
    ],
)
def test_rerun_after_sigkill_finishes_without_recomputing_finished_chunks(
    kill_at, when, reused, model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out.hdf5"
    command = [
        "embed",
        str(text),
        str(out),
        "--model",
        str(model_dir),
        "--no-progress",
        "--chunk-lines",
        "4",
        "--tokens-per-batch",
        "12",
    ]
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_RENAME, *command],
        capture_output=True,
        text=True,
        env={**CHILD_ENV, "KILL_AT": kill_at, "KILL_WHEN": when},
        timeout=300,
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    partial = tmp_path / "out.hdf5.partial"
    assert partial.is_dir() and out.exists() == (when == "after")

    embedded = []
    real = hf_elmo.embed.run.embed_sentences

    def counting(model, sentences, **kwargs):
        return real(model, (embedded.append(s) or s for s in sentences), **kwargs)

    monkeypatch.setattr(hf_elmo.embed.run, "embed_sentences", counting)
    assert elmo_main(command) == 0
    assert f"{reused} of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert len(embedded) == max(0, 23 - 4 * reused)  # only the unfinished chunks' lines
    assert not partial.exists() and not (tmp_path / "out.hdf5.tmp").exists()
    assert_same_file(out, reference)


def test_unfinished_run_with_other_settings_is_an_error_unless_overwrite(
    model_dir, text, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out.hdf5"

    class Interrupted(Exception):
        pass

    real = os.replace

    def interrupt_at_the_second_part(src, dst):  # the first is finished: the run's settings bind
        if Path(dst).name == "part-000001.hdf5":
            raise Interrupted
        real(src, dst)

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", interrupt_at_the_second_part)
        with pytest.raises(Interrupted):
            embed_cli(text, out, model_dir)
    assert (tmp_path / "out.hdf5.partial").is_dir()
    assert embed_cli(text, out, model_dir, "--layers", "top") == 2
    assert "unfinished run with other settings (layers)" in capsys.readouterr().err
    assert embed_cli(text, out, model_dir, "--pool", "mean") == 2
    assert "unfinished run with other settings (pool)" in capsys.readouterr().err
    assert embed_cli(text, out, model_dir, "--layers", "top", "--overwrite") == 0
    assert read_all(out)["0"].ndim == 2


# -- shards -----------------------------------------------------------------------------------
def test_shard_0_does_not_replace_a_users_file_at_the_index_nor_an_index_of_another_shard_count(
    model_dir, text, tmp_path, capsys
):
    out = tmp_path / "out.hdf5"
    index = tmp_path / "out.hdf5.index.json"
    index.write_text('{"my": "notes"}')
    for extra in ((), ("--overwrite",)):
        assert embed_cli(text, out, model_dir, "--shard", "0/2", *extra) == 2
        assert f"{index} exists and is no shard index of elmo embed" in capsys.readouterr().err
    assert index.read_text() == '{"my": "notes"}' and sorted(p.name for p in tmp_path.iterdir()) == [index.name]
    index.unlink()
    assert embed_cli(text, out, model_dir, "--shard", "0/2") == 0
    written = index.read_text()
    assert embed_cli(text, out, model_dir, "--shard", "0/3") == 2
    assert f"{index} indexes 2 shards of this output, and this run is shard 0 of 3" in capsys.readouterr().err
    assert index.read_text() == written
    assert embed_cli(text, out, model_dir, "--shard", "0/3", "--overwrite") == 0
    assert json.loads(index.read_text())["num_shards"] == 3


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{", r"not JSON: Expecting property name"),
        ('["out.shard-0-of-2.hdf5"]', r"it holds the list \['out\.shard-0-of-2\.hdf5'\], not a JSON object\)"),
        ('{"format": "notes"}', r"format 'notes'"),
    ],
    ids=["not-JSON", "list", "other-format"],
)
def test_opening_a_json_file_that_is_no_shard_index_says_so_in_one_line(tmp_path, content, reason):
    """Was: json's 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)' and
    "AttributeError: 'list' object has no attribute 'get'", naming no file."""
    index = tmp_path / "out.hdf5.index.json"
    index.write_text(content)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(index))} is not a shard index of elmo embed \({reason}"):
        open_embeddings(index)


_INDEX = {"format": "elmo-embed-shards", "num_shards": 2, "num_lines": 3, "files": ["a.hdf5", "b.hdf5"]}


@pytest.mark.parametrize(
    "changes, reason",
    [
        ({"files": None}, "no files"),
        ({"num_lines": None, "files": None}, "no num_lines or files"),
        ({"num_lines": "3"}, 'num_lines "3", not a whole number >= 0'),
        ({"num_lines": True}, "num_lines true, not a whole number >= 0"),
        ({"num_shards": 0}, "num_shards 0, not a whole number from 1 to 1024"),
        ({"files": "a.hdf5"}, r"files is not a list of 2 file names \(num_shards\), one for each shard"),
        ({"files": ["a.hdf5"]}, r"files is not a list of 2 file names"),
        ({"files": ["a.hdf5", 7]}, r"files is not a list of 2 file names"),
    ],
    ids=[
        "no-files",
        "no-num-lines",
        "num-lines-text",
        "num-lines-bool",
        "no-shards",
        "files-text",
        "one-file",
        "number",
    ],
)
def test_opening_a_shard_index_missing_a_field_or_with_one_of_another_type_says_so_in_one_line(
    tmp_path, changes, reason
):
    """Was: a KeyError ('files') or a TypeError once the record was used, naming no file."""
    index = tmp_path / "out.hdf5.index.json"
    record = {**_INDEX, **changes}
    index.write_text(json.dumps({k: v for k, v in record.items() if v is not None}))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(index))} is not a shard index of elmo embed \({reason}"):
        open_embeddings(index)


@pytest.mark.slow  # ~18 s: two torchrun processes
def test_torchrun_shards_read_back_equal_to_one_process(model_dir, text, reference, tmp_path):
    out = tmp_path / "out.hdf5"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node",
            "2",
            "-m",
            "hf_elmo.cli",
            "embed",
            str(text),
            str(out),
            "--model",
            str(model_dir),
            "--threads",
            "1",
            "--no-progress",
            "--chunk-lines",
            "3",
        ],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    index_file = tmp_path / "out.hdf5.index.json"
    index = json.loads(index_file.read_text())
    assert index == {
        "format": "elmo-embed-shards",
        "num_shards": 2,
        "num_lines": 23,
        "assignment": "line % num_shards",
        "files": ["out.shard-0-of-2.hdf5", "out.shard-1-of-2.hdf5"],
        "layers": "all",
    }
    lines = text.read_text(encoding="utf-8").splitlines()
    for rank in (0, 1):
        shard = read_all(tmp_path / f"out.shard-{rank}-of-2.hdf5")
        mine = range(rank, len(lines), 2)
        assert set(shard) == {str(i) for i in mine} | {SENTENCE_TO_INDEX}
        assert set(json.loads(shard[SENTENCE_TO_INDEX][0]).values()) <= {str(i) for i in mine}
    want = read_all(reference)
    with open_embeddings(index_file) as embeddings:
        assert len(embeddings) == len(lines)
        for i in range(len(lines)):
            np.testing.assert_allclose(embeddings[i], want[str(i)], rtol=0, atol=1e-6, err_msg=f"line {i}")


def test_a_shard_with_other_settings_than_a_finished_shard_of_the_output_is_refused(model_dir, text, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--shard", "0/2") == 0
    capsys.readouterr()
    assert embed_cli(text, out, model_dir, "--shard", "1/2", "--layers", "top") == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'out.shard-0-of-2.hdf5'}, shard 0 of this output, differs in --layers " in err
    assert "(all; this run: top)" in err and "--overwrite" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out.shard-1-of-2.hdf5").exists()

    edited = tmp_path / "edited.txt"
    edited.write_text(text.read_text(encoding="utf-8").replace("cat", "dog"), encoding="utf-8")
    assert embed_cli(edited, out, model_dir, "--shard", "1/2") == 2
    assert "differs in input (SHA-256 " in capsys.readouterr().err

    other_model = tmp_path / "other-model"
    changed = ElmoModel.from_pretrained(model_dir)
    with torch.no_grad():
        for parameter in changed.parameters():
            parameter.mul_(1.5)
    changed.save_pretrained(other_model)
    assert embed_cli(text, out, other_model, "--shard", "1/2") == 2
    assert f"differs in model ({model_dir}, SHA-256 " in capsys.readouterr().err

    assert embed_cli(text, out, model_dir, "--shard", "1/2") == 0  # the same settings


def test_an_index_of_shards_made_with_other_settings_is_refused(model_dir, text, tmp_path):
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--shard", "0/2") == 0
    assert embed_cli(text, out, model_dir, "--shard", "1/2", "--pool", "mean", "--overwrite") == 0
    with pytest.raises(ValueError, match=r"its shards differ in --pool \(out.shard-0-of-2.hdf5: none; "):
        open_embeddings(tmp_path / "out.hdf5.index.json")
    assert embed_cli(text, out, model_dir, "--shard", "0/2", "--pool", "mean", "--overwrite") == 0
    with open_embeddings(tmp_path / "out.hdf5.index.json") as embeddings:
        assert embeddings[1].shape == (3, 32)


def test_an_index_of_shards_that_record_no_settings_opens_unless_only_some_do(model_dir, text, reference, tmp_path):
    out = tmp_path / "out.hdf5"
    for shard in ("0/2", "1/2"):
        assert embed_cli(text, out, model_dir, "--shard", shard) == 0
    with h5py.File(tmp_path / "out.shard-1-of-2.hdf5", "a") as shard_file:  # as written by an older version
        del shard_file.attrs[SETTINGS_ATTRIBUTE]
    with pytest.raises(
        ValueError, match=r"recorded settings \(out.shard-0-of-2.hdf5: recorded; out.shard-1-of-2.hdf5: none: an older"
    ):
        open_embeddings(tmp_path / "out.hdf5.index.json")
    with h5py.File(tmp_path / "out.shard-0-of-2.hdf5", "a") as shard_file:
        del shard_file.attrs[SETTINGS_ATTRIBUTE]
    with open_embeddings(tmp_path / "out.hdf5.index.json") as embeddings:
        np.testing.assert_allclose(embeddings[3], read_all(reference)["3"], rtol=0, atol=1e-6)


def _open_hdf5_files() -> int:
    return len(h5py.h5f.get_obj_ids(types=h5py.h5f.OBJ_FILE))


def test_opening_shards_that_fail_leaves_no_file_open(model_dir, text, tmp_path):
    """Was: the files opened before the failure (settings that are no JSON) stayed open as long as
    the error's traceback lived (an interactive session keeps the last one: sys.last_traceback)."""
    out = tmp_path / "out.hdf5"
    for shard in ("0/2", "1/2"):
        assert embed_cli(text, out, model_dir, "--shard", shard) == 0
    with h5py.File(tmp_path / "out.shard-1-of-2.hdf5", "a") as shard_file:
        shard_file.attrs[SETTINGS_ATTRIBUTE] = "{not JSON"
    before = _open_hdf5_files()
    with pytest.raises(ValueError) as index_error:
        open_embeddings(tmp_path / "out.hdf5.index.json")
    with pytest.raises(ValueError) as file_error:
        open_embeddings(tmp_path / "out.shard-1-of-2.hdf5")
    assert _open_hdf5_files() == before, "the tracebacks, held here, hold no open file"
    (tmp_path / "out.shard-1-of-2.hdf5").write_bytes(b"no HDF5 file")
    with pytest.raises(OSError) as open_error:
        open_embeddings(tmp_path / "out.hdf5.index.json")
    assert _open_hdf5_files() == before
    del index_error, file_error, open_error


# -- memory -----------------------------------------------------------------------------------
def start_embed(text: Path, out: Path, model_dir: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            REPORT_PEAK,
            "embed",
            str(text),
            str(out),
            "--model",
            str(model_dir),
            "--threads",
            "1",
            "--no-progress",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=CHILD_ENV,
    )


def peak_bytes(process: subprocess.Popen) -> int:
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr[-2000:]
    return int(stdout.split("peak_kib")[-1]) * 1024


@pytest.mark.slow  # ~22 s: a memory bound at scale
def test_peak_memory_does_not_grow_with_the_number_of_lines(model_dir, tmp_path):
    rng = random.Random(1)
    files = []
    for n in (100, 1000):  # lines of 100 tokens; both runs fill the read-ahead (8 x 1024 tokens)
        path = tmp_path / f"lines-{n}.txt"
        path.write_text("".join(" ".join(rng.choice(WORDS) for _ in range(100)) + "\n" for _ in range(n)))
        files.append(path)
    runs = [
        start_embed(path, path.with_suffix(".hdf5"), model_dir, "--chunk-lines", "100", "--tokens-per-batch", "1024")
        for path in files
    ]
    small, large = (peak_bytes(run) for run in runs)
    # Holding the larger run's vectors would take 1000 lines x 100 tokens x 3 layers x 32 floats
    # = 38 MB; what does grow with the lines (sentence_to_index, HDF5's index of the datasets)
    # is a few MB.
    output_bytes = 1000 * 100 * 3 * 32 * 4
    assert large - small < 0.4 * output_bytes, (small, large)


@pytest.mark.slow  # ~30 s: a memory bound at scale
def test_a_100000_token_line_embeds_in_bounded_memory(model_dir, tmp_path):
    short, long = tmp_path / "short.txt", tmp_path / "long.txt"
    short.write_text("a b c\n")
    long.write_text(" ".join(WORDS[i % len(WORDS)] for i in range(100_000)) + "\n")
    runs = [start_embed(path, path.with_suffix(".hdf5"), model_dir) for path in (short, long)]
    base, peak = (peak_bytes(run) for run in runs)
    with h5py.File(long.with_suffix(".hdf5"), "r") as handle:
        assert handle["0"].shape == (3, 100_000, 32)
    # The output (38 MB) exists a few times over (the model's layers, the copy written, HDF5's
    # buffers), and the model's own per-token activations are a few times more; running the
    # char CNN over all tokens at once would alone take over 2 GB.
    output_bytes = 3 * 100_000 * 32 * 4
    assert peak - base < 10 * output_bytes, (base, peak)


@pytest.mark.parametrize(
    "kill_at, when, reused",
    [
        ("part-000002.hdf5", "before", 2),  # mid-run: the older output must still be there
        ("out.hdf5", "after", 6),  # the new output is in place, the partial folder not yet removed
    ],
)
def test_overwrite_keeps_the_older_output_until_the_new_one_replaces_it(
    kill_at, when, reused, model_dir, text, reference, tmp_path, capsys
):
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--layers", "top") == 0  # an older output, of other settings
    older = out.read_bytes()
    capsys.readouterr()
    command = ["embed", str(text), str(out), "--model", str(model_dir), "--no-progress", "--chunk-lines", "4"]
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_RENAME, *command, "--overwrite"],
        capture_output=True,
        text=True,
        env={**CHILD_ENV, "KILL_AT": kill_at, "KILL_WHEN": when},
        timeout=300,
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    if when == "before":
        assert out.read_bytes() == older
        assert elmo_main(command) == 2  # the older output is not replaced without --overwrite
        assert "exists; pass --overwrite" in capsys.readouterr().err
        assert out.read_bytes() == older
        command.append("--overwrite")
    assert elmo_main(command) == 0  # the killed run's output, once merged, needs no --overwrite
    assert f"{reused} of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.hdf5"]
    assert_same_file(out, reference)


@pytest.mark.parametrize(
    "lines, warned",
    [
        (["Hello, world! I can't come.", "The old man (a sailor) walked home."], True),  # raw text
        (["Hello , world ! I ca n't come .", "The old man ( a sailor ) walked home ."], False),  # split as spaCy does
        (["EU rejects German call to boycott British lamb .", "Peter Blackburn 1996-08-22"], False),  # CoNLL-2003
    ],
)
def test_input_that_reads_as_raw_text_to_the_models_word_splitting_is_warned_about_and_embedded(
    lines, warned, tmp_path, capsys
):
    text = tmp_path / "in.txt"
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert elmo_main(["embed", str(text), str(tmp_path / "out.hdf5"), "--no-progress"]) == 0  # the shipped model
    err = capsys.readouterr().err
    if warned:
        assert err.startswith("elmo embed: warning: ") and f"of the tokens on the first lines of {text}" in err
        assert "(spacy:en; e.g. 'Hello,' -> ['Hello', ','])" in err and len(err.strip().splitlines()) == 1
    else:
        assert "warning" not in err
    with h5py.File(tmp_path / "out.hdf5") as out:  # embedded as given either way
        assert [out[str(i)].shape[1] for i in range(len(lines))] == [len(line.split()) for line in lines]


def test_a_model_that_splits_on_whitespace_is_not_warned_about_raw_text(model_dir, tmp_path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("Hello, world! I can't come.\n", encoding="utf-8")
    assert elmo_main(["embed", str(text), str(tmp_path / "out.hdf5"), "--model", str(model_dir), "--no-progress"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_embed_without_spacy_skips_the_raw_text_check_in_one_line_and_embeds(tmp_path, capsys, monkeypatch):
    """The check only serves a warning. Was: an ImportError traceback from it (unsplit_tokens ->
    word_splitting._spacy_tokenizer), and nothing embedded."""
    text = tmp_path / "in.txt"
    text.write_text("Hello, world! I can't come.\n", encoding="utf-8")
    hf_elmo.word_splitting._spacy_tokenizer.cache_clear()  # a tokenizer an earlier test made needs no import
    monkeypatch.setitem(sys.modules, "spacy", None)  # import spacy: ImportError
    assert elmo_main(["embed", str(text), str(tmp_path / "out.hdf5"), "--no-progress"]) == 0  # the shipped model
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"elmo embed: note: skipped the check that {text} is split as") and len(err.splitlines()) == 1
    assert "(spacy:en): spaCy, which splits that way, cannot be imported" in err and "warning" not in err
    with h5py.File(tmp_path / "out.hdf5") as out:
        assert out["0"].shape[1] == 5  # its whitespace tokens


def test_the_raw_text_share_parts_split_corpora_from_raw_prose_as_the_readme_states(shared, tmp_path):
    """README: raw Wikinews prose 13%, CoNLL-2003 / PTB / SST / WikiText-2 at most 1.6% (first 1000 lines)."""
    import gzip

    data = shared / "data"
    conll = tmp_path / "conll.txt"  # one sentence per line from the column format
    sentences, words = [], []
    for line in (data / "conll2003-en" / "eng.train").read_text(encoding="utf-8").splitlines()[:20_000]:
        if not line.strip() or line.startswith("-DOCSTART-"):
            sentences += [" ".join(words)] if words else []
            words = []
        else:
            words.append(line.split()[0])
    conll.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    prose = tmp_path / "wikinews.txt"
    with gzip.open(data / "pretrain-en" / "wikinews-00.txt.gz", "rt", encoding="utf-8") as handle:
        prose.write_text("".join(line for _, line in zip(range(1000), handle)), encoding="utf-8")
    split = [conll, data / "ptb" / "ptb.train.txt", data / "sst" / "sentence-level" / "stsa.binary.dev"]
    split.append(data / "wikitext-2" / "wiki.test.tokens")
    shares = {path.name: hf_elmo.embed.unsplit_tokens(path, "spacy:en").share for path in [*split, prose]}
    assert shares.pop("wikinews.txt") == pytest.approx(0.13, abs=0.01)
    assert max(shares.values()) == pytest.approx(0.016, abs=0.001), shares


def test_the_raw_text_check_reads_a_bounded_sample_of_a_file_without_line_breaks(tmp_path, monkeypatch):
    text = tmp_path / "one-line.txt"
    text.write_text("Hello, world! " * 500_000, encoding="utf-8")  # 7M characters, no line break
    pieces: list[int] = []

    def counted(path, max_chars=None):
        for line in hf_elmo.corpus.read_lines(path, max_chars):
            pieces.append(len(line))
            yield line

    monkeypatch.setattr(hf_elmo.embed.scan, "read_lines", counted)
    found = hf_elmo.embed.unsplit_tokens(text, "spacy:en")
    assert found.tokens == 0  # the one line is over MAX_LINE_CHARS: not sampled
    assert max(pieces) <= hf_elmo.corpus.MAX_LINE_CHARS + 1
    assert sum(pieces) <= hf_elmo.embed.SPLIT_SAMPLE_CHARS + hf_elmo.corpus.MAX_LINE_CHARS + 1


def test_the_raw_text_check_skips_a_line_over_the_line_limit_whole_counting_it_as_one_line(tmp_path):
    """read_lines gives such a line in pieces. Was: the pieces after the first were sampled as lines of
    their own, their tokens (cut at the piece's end) counted and the sample's lines used up by them."""
    text = tmp_path / "long-line.txt"
    long_line = "Hello, world! " * 10_000  # 140,000 characters: a first piece of 100,001, then the rest
    text.write_text(f"{long_line}\nthe cat sat .\nHello, world!\n", encoding="utf-8")
    found = hf_elmo.embed.unsplit_tokens(text, "spacy:en", sample_lines=2)  # the long line and 'the cat sat .'
    assert (found.tokens, found.unsplit, found.share) == (4, 0, 0.0)
    found = hf_elmo.embed.unsplit_tokens(text, "spacy:en")
    assert (found.tokens, found.unsplit) == (4 + 2, 2)  # 'Hello,' and 'world!' of the last line


def test_the_raw_text_check_samples_a_line_of_exactly_the_line_limit(tmp_path):
    """A line of MAX_LINE_CHARS characters is not over the limit (read_corpus takes it too). Was: its
    line end was counted as a character, and the line skipped as too long."""
    text = tmp_path / "limit.txt"
    line = ("Hello, world! " * hf_elmo.corpus.MAX_LINE_CHARS)[: hf_elmo.corpus.MAX_LINE_CHARS - 1] + "!"
    text.write_text(f"{line}\n", encoding="utf-8")
    found = hf_elmo.embed.unsplit_tokens(text, "spacy:en")
    assert found.tokens == len(line.split()) and found.unsplit > 0


def test_a_sharded_output_opens_by_its_output_name_and_counts_from_the_end(model_dir, text, reference, tmp_path):
    out = tmp_path / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--shard", "1/2") == 0
    with pytest.raises(FileNotFoundError, match=r"out.hdf5 not found; there are shard files \(out.shard-1-of-2.hdf5"):
        open_embeddings(out)
    assert embed_cli(text, out, model_dir, "--shard", "0/2") == 0
    want = read_all(reference)
    with open_embeddings(out) as embeddings:  # the index, as out.hdf5 is not there
        assert len(embeddings) == 23
        np.testing.assert_allclose(embeddings[-1], want["22"], rtol=0, atol=1e-6)
        np.testing.assert_allclose(embeddings[-23], want["0"], rtol=0, atol=1e-6)
        for line in (23, -24):
            with pytest.raises(IndexError, match=rf"line {line} is out of range: there are 23 lines \(0 to 22, or -23"):
                embeddings[line]
    with open_embeddings(tmp_path / "out.shard-1-of-2.hdf5") as shard:
        np.testing.assert_allclose(shard[21], want["21"], rtol=0, atol=1e-6)
        with pytest.raises(IndexError, match="is one shard of an output, indexed by the input's line numbers"):
            shard[-1]


def test_a_whole_output_counts_from_the_end_as_a_list_does(reference):
    want = read_all(reference)
    with open_embeddings(reference) as embeddings:
        np.testing.assert_allclose(embeddings[-2], want["21"], rtol=0, atol=0)
        with pytest.raises(IndexError, match="line 23 is out of range"):
            embeddings[23]


def test_a_missing_output_is_one_line_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=rf"^{tmp_path / 'none.hdf5'} not found$"):
        open_embeddings(tmp_path / "none.hdf5")


@pytest.mark.parametrize("words", [["the", "", "cat"], ["the cat", "sat"], ["the", "cat\t"]])
def test_embed_sentences_refuses_words_that_the_tokenizer_refuses(words, allennlp_model):
    with pytest.raises(ValueError, match=r"^sentence 1, word \d \(.*\) is empty or holds whitespace"):
        list(embed_sentences(allennlp_model, [["a"], words], layers="top"))


@pytest.mark.parametrize(
    "sentence, message",
    [(7, "the int 7"), (None, "None")],
    ids=["int", "none"],
)
def test_embed_sentences_names_a_sentence_that_is_no_list_of_words(sentence, message, allennlp_model):
    """Was "object of type 'int' has no len()" (and 'NoneType'), from the empty-sentence check."""
    with pytest.raises(TypeError, match=rf"^sentence 1 is {message}, not a list of words$"):
        list(embed_sentences(allennlp_model, [["a"], sentence], layers="top"))


def test_embed_sentences_refuses_elmoembedders_batch_size_naming_tokens_per_batch(allennlp_model):
    """ElmoEmbedder.embed_sentences(sentences, batch_size=32) ported as the README maps it. Was:
    "embed_sentences() got an unexpected keyword argument 'batch_size'"."""
    with pytest.raises(
        TypeError, match=r"^embed_sentences\(\) takes no batch_size .*tokens_per_batch=N \(default 4096\)"
    ):
        embed_sentences(allennlp_model, [["a"]], batch_size=32)


@pytest.mark.parametrize(
    "how, message",
    [
        (
            "open file",
            r"^embed_file\(\) takes the input file's path, not a value of type TextIOWrapper .*: pass its path \('.*text.txt'\)",
        ),
        ("output_format", r"^embed_file\(\) takes no output_format .*: use layers='top' \(one of"),
        ("batch_size", r"^embed_file\(\) takes no batch_size .*tokens_per_batch=N \(default 4096\)"),
    ],
)
def test_embed_file_refuses_elmoembedders_embed_file_arguments_naming_its_own_way(
    how, message, allennlp_model, text, tmp_path
):
    """ElmoEmbedder.embed_file(open(path), out, output_format="top", batch_size=64) ported as it was,
    refused before anything is written. Was: "expected str, bytes or os.PathLike object, not
    TextIOWrapper", "embed_file() got an unexpected keyword argument 'output_format'" ('batch_size')."""
    out = tmp_path / "out.hdf5"
    with open(text, encoding="utf-8") as handle:
        given = {
            "open file": ((handle, out), {}),
            "output_format": ((text, out), {"output_format": "top"}),
            "batch_size": ((text, out), {"batch_size": 64}),
        }[how]
        with pytest.raises(TypeError, match=message):
            embed_file(allennlp_model, *given[0], **given[1], show_progress=False)
    assert list(tmp_path.iterdir()) == []


def test_embed_sentences_takes_a_sentence_as_any_iterable_of_words(allennlp_model):
    """A generator of words, as batch_to_ids and AllenNLP take it. Was "object of type 'generator' has no len()"."""
    (got,) = embed_sentences(allennlp_model, [(w for w in ["the", "cat"])], layers="top")
    (want,) = embed_sentences(allennlp_model, [["the", "cat"]], layers="top")
    np.testing.assert_array_equal(got, want)


def test_the_merge_into_the_final_file_shows_its_progress_unless_no_progress(model_dir, text, tmp_path, capsys):
    assert elmo_main(["embed", str(text), str(tmp_path / "a.hdf5"), "--model", str(model_dir)]) == 0
    assert "merging chunks into a.hdf5: 100%" in capsys.readouterr().err.replace("\r", "\n")
    assert embed_cli(text, tmp_path / "b.hdf5", model_dir) == 0
    assert "merging" not in capsys.readouterr().err


def test_embed_file_and_embed_sentences_given_a_word_baseline_name_its_folder_and_write_nothing(
    word_baseline_folder, tmp_path
):
    """Was: the model's forward refused it without naming the folder, after embed_file had begun
    its output (OUTPUT.partial left behind)."""
    model = ElmoModel.from_pretrained(word_baseline_folder)
    text = tmp_path / "s.txt"
    text.write_text("the cat sees a dog .\n")
    reads = re.escape(f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining")
    with pytest.raises(ValueError, match=rf"^{reads} baseline\), not char ids; embed_file needs a char-CNN biLM$"):
        embed_file(model, text, tmp_path / "o.hdf5", show_progress=False)
    with pytest.raises(ValueError, match=rf"^{reads} baseline\), not char ids; embed_sentences needs a char-CNN"):
        embed_sentences(model, [["the", "cat"]])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.txt"]
