"""`elmo demo` with the model shipped in the package (offline, no ../shared needed)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import torch

from hf_elmo.cli import main as elmo_main
from hf_elmo.pretrained import DEFAULT_MODEL, DEMO_SENTENCES


def test_shipped_model_is_small_safetensors_with_a_card_and_vocabulary():
    names = {p.name for p in DEFAULT_MODEL.iterdir()}
    assert {"config.json", "model.safetensors", "vocab.txt", "README.md", "training.json"} <= names
    assert not any(n.endswith((".bin", ".pt", ".pkl")) for n in names)
    assert sum(p.stat().st_size for p in DEFAULT_MODEL.iterdir()) <= 50e6  # the package's budget for it
    card = (DEFAULT_MODEL / "README.md").read_text()
    for needed in ("CC BY-SA 3.0", "CC BY 2.5", "tokens seen", "steps", "perplexity"):
        assert needed in card
    figures = json.loads((DEFAULT_MODEL / "training.json").read_text())["figures"]
    assert set(figures) >= {"ours", "baseline", "commands"}


def test_demo_gives_stick_different_vectors_in_its_two_sentences(capsys):
    assert elmo_main(["demo"]) == 0
    out = capsys.readouterr().out
    layers = dict(re.findall(r"layer (\d) \(.*?\)\s+(-?[\d.]+)", out))
    assert float(layers["0"]) == 1.0  # the char CNN sees only the word
    assert float(layers["2"]) < 0.95  # the biLM sees the context
    assert out.count("[stick]") >= 2 + 2 * 5  # the two sentences and five neighbours each
    assert DEMO_SENTENCES.name in out


def test_demo_runs_on_the_cpu_unless_given_a_device(monkeypatch, capsys):
    """Was: no --device (the CPU always, which stays its default, also where cuda is available)."""
    assert elmo_main(["demo", "--top", "1", "--device", "cpu"]) == 0
    on_cpu = capsys.readouterr().out
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # a GPU machine, as far as --device's default goes
    assert elmo_main(["demo", "--top", "1"]) == 0
    assert capsys.readouterr().out == on_cpu


def test_demo_names_a_word_missing_from_its_sentence(capsys):
    assert elmo_main(["demo", "--word", "banana"]) == 2
    assert "'banana' is not a token" in capsys.readouterr().err


def test_demo_refuses_a_negative_top_with_one_usage_error():
    result = subprocess.run(
        [sys.executable, "-m", "hf_elmo.cli", "demo", "--top", "-3"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "elmo demo: error: argument --top: must be a positive integer, got '-3'"


@pytest.mark.parametrize("top", ["0", "2.5", "five"])
def test_demo_refuses_a_top_that_is_not_a_positive_integer(top, capsys):
    with pytest.raises(SystemExit) as exited:
        elmo_main(["demo", "--top", top])
    assert exited.value.code == 2
    expected = f"elmo demo: error: argument --top: must be a positive integer, got '{top}'"
    assert capsys.readouterr().err.splitlines()[-1] == expected


def test_demo_with_a_word_the_bundled_text_lacks_shows_similarities_and_no_neighbours(capsys):
    sentences = ["I went to the bank to deposit money", "We sat on the bank of the river"]
    assert "bank" not in DEMO_SENTENCES.read_text(encoding="utf-8").split()
    assert elmo_main(["demo", "--word", "bank", "--sentences", *sentences]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"layer \d \(.*?\)\s+-?[\d.]+", out)) == 3  # token layer and 2 biLSTM layers
    assert "no neighbours" in out and "'bank'" in out


def test_demo_names_a_text_file_that_is_not_utf8_and_its_line_before_any_output(tmp_path, capsys):
    text = tmp_path / "bad.txt"
    text.write_bytes(b"he hit it with a stick\n\xff\n")
    assert elmo_main(["demo", "--text", str(text)]) == 2
    captured = capsys.readouterr()
    assert (
        captured.err
        == f"elmo demo: error: {text}:2: not valid UTF-8 (byte 0xff at character 1); --text must be UTF-8 text\n"
    )
    assert captured.out == ""


def test_demo_truncates_a_too_long_token_of_its_text_as_the_original_does(tmp_path, capsys):
    text = tmp_path / "long.txt"
    text.write_text("stick " + "x" * 10_000 + "\nhe hit it with a stick\n", encoding="utf-8")
    assert elmo_main(["demo", "--text", str(text), "--any-token"]) == 0
    out = capsys.readouterr().out
    assert "[stick] xxxx" in out and "by top-layer cosine (long.txt)" in out


def test_demo_keeps_a_long_line_of_its_text_one_sentence(tmp_path, capsys):
    text = tmp_path / "long-line.txt"
    text.write_text(" ".join(["word"] * 150 + ["stick"]) + "\n", encoding="utf-8")
    assert elmo_main(["demo", "--text", str(text)]) == 0
    out = capsys.readouterr().out
    neighbours = [line for line in out.splitlines() if line.startswith("  1. ")]
    assert len(neighbours) == 2 and all(line.endswith(" word" * 150 + " [stick]") for line in neighbours)
