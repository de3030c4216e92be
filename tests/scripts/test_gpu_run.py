"""scripts/gpu/gpu_run.py end to end on CPU: pack + evalpack -> (two device calls) stash ->
start (the model and the word baseline) -> poll -> evaluate -> collect (two calls) -> assemble ->
ElmoModel.from_pretrained, with a tiny model and budget."""

from __future__ import annotations

import gzip
import json
import random
import re
import shutil

import pytest
import torch

from hf_elmo import ElmoModel, batch_to_ids
from tests.conftest import REPO, load_script, strict_json_loads
from tests.hf_elmo.training.test_pretraining import TINY_SHAPE_ARGS, write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")

TINY_TRAINING = [
    "--",
    *TINY_SHAPE_ARGS,
    "--no-clip",
    "--max-tokens",
    "10000000",
    "--max-minutes",
    "0.05",
    "--tokens-per-batch",
    "128",
    "--num-sampled",
    "16",
    "--checkpoint-every-steps",
    "3",
    "--threads",
    "1",
]


def failure(capture, argv: list[str]) -> str:
    """What ``gpu_run.main(argv)`` says on stderr (``capture``: capsys or capfd) as it fails with exit code 1."""
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(argv)
    assert stopped.value.code == 1
    return capture.readouterr().err


def _raw_shards(folder):
    """One gzip shard of raw paragraphs, as in ../shared/data/pretrain-en (block 0 of 50 is held out)."""
    rng = random.Random(0)
    words = "the a cat dog sat ran on under mat house red old new big small quickly".split()
    folder.mkdir()
    with gzip.open(folder / "toy-00.txt.gz", "wt", encoding="utf-8") as f:
        for _ in range(120):
            f.write(
                " ".join(". ".join(" ".join(rng.choices(words, k=6)).capitalize() for _ in range(3)).split()) + ".\n"
            )
    return folder


def _wikitext(path):
    """A few lines in the layout of WikiText's wiki.test.tokens."""
    path.write_text(" = Heading = \n\n the cat sat on the mat . The dog ran @-@ off . \n a <unk> sat . \n")
    return path


def _device_call(pack, device_pack, names):
    """What a device call with ``carry`` does to the host's gpu-pack/: these files arrive, others stay."""
    device_pack.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(pack / name, device_pack / name)


def _tokenised(folder):
    """A folder as scripts/prepare_pretrain_en.py writes it."""
    folder.mkdir()
    write_corpus(folder / "train.txt", n=300)
    write_corpus(folder / "valid.txt", n=20, seed=1)
    write_corpus(folder / "test.txt", n=20, seed=2)
    return ["--tokenised", str(folder)]


@pytest.mark.parametrize(
    "source",
    [
        "tokenised",
        pytest.param("raw", marks=pytest.mark.slow),  # tokenises with spaCy via prepare_pretrain_en.py (~40 s in all)
    ],
)
def test_pack_start_poll_collect_assemble_gives_a_loadable_model(tmp_path, capsys, source):
    pack, device_pack, work = tmp_path / "gpu-pack", tmp_path / "device" / "gpu-pack", tmp_path / "device" / "work"
    data = (
        _tokenised(tmp_path / "tok")
        if source == "tokenised"
        else ["--source", str(_raw_shards(tmp_path / "raw")), "--processes", "1"]
    )
    gpu_run.main(["pack", *data, "--out", str(pack), "--part-mib", "0.0005", "--vocab-size", "100", "--min-count", "1"])
    test_split = tmp_path / "test.txt"
    write_corpus(test_split, n=20, seed=2)
    gpu_run.main(
        ["evalpack", "--out", str(pack), "--test", str(test_split), "--wikitext", str(_wikitext(tmp_path / "w"))]
    )
    manifest = json.loads((pack / "manifest.json").read_text())
    parts = [p["name"] for p in manifest["pieces"]]
    assert len(parts) >= 2 and manifest["train_tokens"] > 500 and manifest["vocabulary"] > 10
    assert all((pack / p).stat().st_size <= 0.0005 * 2**20 for p in parts)

    _device_call(pack, device_pack, ["manifest.json", parts[0]])  # call 1: the first part
    gpu_run.main(["stash", "--pack", str(device_pack), "--work", str(work)])
    for name in parts[1:]:
        (device_pack / parts[0]).unlink(missing_ok=True)
        extra = ["eval.tar.xz"] if name == parts[-1] else []  # the evaluation texts go with the last part
        _device_call(pack, device_pack, ["manifest.json", name, *extra])  # call 2..: the others, then start
        gpu_run.main(["stash", "--pack", str(device_pack), "--work", str(work)])
    gpu_run.main(["start", "--work", str(work), "--baseline-tokens", "200", *TINY_TRAINING])
    started = capsys.readouterr().out
    assert "started model" in started and "started baseline" in started
    gpu_run.main(["poll", "--work", str(work), "--follow", "240", "--every", "0.5"])  # returns when both are done
    report = capsys.readouterr().out
    assert report.rstrip().endswith("state: done"), report + (work / "pretrain.log").read_text()
    assert "baseline: done" in report and "tokens/s" in report and "metrics:" in report
    assert (
        work / "data" / "wt2-test.txt"
    ).read_text() == "the cat sat on the mat .\nThe dog ran - off .\na <UNK> sat .\n"

    gpu_run.main(["evaluate", "--work", str(work), "--device", "cpu", "--out", str(tmp_path / "eval")])
    figures = json.loads((tmp_path / "eval" / "perplexity.json").read_text())["models"]
    snapshot, baseline = figures["model at 200 tokens"], figures["baseline"]
    assert set(figures) == {"model", "model at 200 tokens", "baseline"}
    assert snapshot["tokens_seen"] == baseline["tokens_seen"] >= 200 and snapshot["step"] == baseline["step"]
    assert figures["model"]["tokens_seen"] > snapshot["tokens_seen"]
    assert all(set(f) >= {"valid", "test", "wikitext-2 test"} for f in figures.values())
    trained_valid = json.loads((work / "model" / "training.json").read_text())["metrics"]["valid"]
    assert figures["model"]["valid"]["average"] == pytest.approx(trained_valid["average"], rel=1e-4)
    assert figures["model"]["test"]["predictions"] == sum(len(line.split()) + 1 for line in test_split.open())

    calls = []
    first = 0
    while True:  # small pieces, so that the model comes back in more than one call
        out = tmp_path / f"out{len(calls)}"
        gpu_run.main(["collect", "--work", str(work), "--out", str(out), "--piece-mib", "0.005", "--first", str(first)])
        calls.append(out)
        said = capsys.readouterr().out
        if "next call: none" in said:
            break
        first = int(said.split("--first ")[1].split()[0])
    assert len(calls) >= 2 and all(len(list(c.iterdir())) <= 8 for c in calls)

    gpu_run.main(["assemble", *map(str, calls), "--dest", str(tmp_path / "local")])
    local = tmp_path / "local" / "model"
    for path in (work / "model").iterdir():
        assert (local / path.name).read_bytes() == path.read_bytes(), path.name
    model = ElmoModel.from_pretrained(local).eval()
    assert model.config.cell_clip is None and model.config.proj_clip is None
    with torch.inference_mode():
        assert model(input_ids=batch_to_ids([["the", "cat", "sat"]])).last_hidden_state.shape == (1, 3, 16)
    training = json.loads((local / "training.json").read_text())
    assert training["settings"]["train_file"] == "data/train.txt" and training["settings"]["output_dir"] == "model"


def test_assemble_names_a_corrupt_or_missing_piece_and_writes_nothing(tmp_path, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "weights.bin").write_bytes(bytes(range(256)) * 400)
    work, out = tmp_path / "work", tmp_path / "out"
    work.mkdir()
    shutil.move(str(folder), work / "model")
    (work / "model" / "config.json").write_text("{}")
    gpu_run.main(["collect", "--work", str(work), "--out", str(out), "--piece-mib", "0.02"])
    pieces = sorted(out.glob("model-0*"))
    assert len(pieces) >= 3
    data = bytearray(pieces[1].read_bytes())
    data[7] ^= 1
    pieces[1].write_bytes(bytes(data))
    said = failure(capsys, ["assemble", str(out), "--dest", str(tmp_path / "local")])
    assert re.fullmatch(f"gpu_run.py: error: piece .*{pieces[1].name} does not match its sha256.*\n", said)
    pieces[2].unlink()
    pieces[1].write_bytes(bytes(data[:7] + bytes([data[7] ^ 1]) + data[8:]))
    said = failure(capsys, ["assemble", str(out), "--dest", str(tmp_path / "local")])
    assert said.startswith(f"gpu_run.py: error: piece {pieces[2].name} is missing")
    assert not (tmp_path / "local" / "model").exists() and not list((tmp_path / "local").iterdir())


def test_resplit_cuts_the_same_bundle_into_other_parts(tmp_path, capsys):
    pack = tmp_path / "gpu-pack"
    tokenised = _tokenised(tmp_path / "tok")
    gpu_run.main(
        ["pack", *tokenised, "--out", str(pack), "--part-mib", "0.0005", "--vocab-size", "100", "--min-count", "1"]
    )
    before = json.loads((pack / "manifest.json").read_text())
    joined = b"".join((pack / p["name"]).read_bytes() for p in before["pieces"])
    gpu_run.main(["resplit", "--out", str(pack), "--part-mib", "0.0002"])
    after = json.loads((pack / "manifest.json").read_text())
    assert len(after["pieces"]) > len(before["pieces"]) and after["sha256"] == before["sha256"]
    assert {k: v for k, v in after.items() if k != "pieces"} == {k: v for k, v in before.items() if k != "pieces"}
    assert sorted(p.name for p in pack.glob("part-*")) == [p["name"] for p in after["pieces"]]
    assert b"".join((pack / p["name"]).read_bytes() for p in after["pieces"]) == joined
    assert f"call {len(after['pieces'])}: carry gpu-pack/manifest.json" in capsys.readouterr().out


def test_resplit_refuses_a_damaged_part_and_keeps_the_parts(tmp_path, capsys):
    pack = tmp_path / "gpu-pack"
    tokenised = _tokenised(tmp_path / "tok")
    gpu_run.main(
        ["pack", *tokenised, "--out", str(pack), "--part-mib", "0.0005", "--vocab-size", "100", "--min-count", "1"]
    )
    damaged = pack / "part-001"
    damaged.write_bytes(b"x" + damaged.read_bytes()[1:])
    names = sorted(p.name for p in pack.iterdir())
    capsys.readouterr()
    said = failure(capsys, ["resplit", "--out", str(pack), "--part-mib", "0.0002"])
    assert re.fullmatch("gpu_run.py: error: .*part-001 does not match its sha256.*\n", said)
    assert sorted(p.name for p in pack.iterdir()) == names


def test_collect_brings_back_only_what_one_call_returns_beside_the_files_already_in_out(tmp_path, capsys, monkeypatch):
    work = tmp_path / "work"
    (work / "model").mkdir(parents=True)
    weights = bytes(range(256)) * 400
    (work / "model" / "weights.bin").write_bytes(weights)
    (work / "model" / "config.json").write_text("{}")
    monkeypatch.setattr(gpu_run, "RETURN_LIMIT", gpu_run.MANIFEST_ROOM + 50_000)  # room for 2 pieces of 20,972
    calls, first = [], 0
    while True:
        out = tmp_path / f"out{len(calls)}"
        out.mkdir()
        (out / "perplexity.json").write_text("{}" * 500)  # evaluate's file, in the same call
        gpu_run.main(["collect", "--work", str(work), "--out", str(out), "--piece-mib", "0.02", "--first", str(first)])
        calls.append(out)
        said = capsys.readouterr().out
        assert sum(f.stat().st_size for f in out.iterdir()) <= gpu_run.RETURN_LIMIT
        if "next call: none" in said:
            break
        first = int(said.split("--first ")[1].split()[0])
    counts = [len(list(c.glob("model-0*"))) for c in calls]  # the tar of ~105 kB: 6 pieces
    assert counts == [2] * len(counts) and len(counts) == 3
    gpu_run.main(["assemble", *map(str, calls), "--dest", str(tmp_path / "local")])
    assert (tmp_path / "local" / "model" / "weights.bin").read_bytes() == weights

    full = tmp_path / "full"
    full.mkdir()
    for i in range(gpu_run.RETURN_FILES - 1):
        (full / f"other-{i}").write_text("x")
    said = failure(capsys, ["collect", "--work", str(work), "--out", str(full)])
    assert said == f"gpu_run.py: error: no room in {full} for piece 0: 7 files there already\n"
    (full / "other-7").write_text("x")  # already more than a call brings back
    said = failure(capsys, ["collect", "--work", str(work), "--out", str(full)])
    assert said == f"gpu_run.py: error: no room in {full} for piece 0: 8 files there already\n"


def test_parts_are_sized_for_the_calls_that_set_the_shipped_weights_aside():
    weights = sum((REPO / path).stat().st_size for path in gpu_run.SET_ASIDE)
    assert weights > 30 * gpu_run.MiB  # the shipped model's weights are in the working tree
    tree = gpu_run.travelling_bytes()  # the working tree less its weights: what travels beside a part
    assert tree < 5 * gpu_run.MiB  # 4.0 MiB on 2026-11-29: code, tests and docs
    assert gpu_run.part_size(None) == min(60 * gpu_run.MiB, gpu_run.CALL_LIMIT - tree - 2 * gpu_run.MiB)
    assert gpu_run.part_size(None) > gpu_run.CALL_LIMIT - tree - weights  # larger than if the weights travelled


def test_start_with_a_part_that_did_not_come_is_one_line(tmp_path, capsys):
    work = tmp_path / "work"
    (work / "parts").mkdir(parents=True)
    manifest = {"pieces": [{"name": "part-000", "sha256": "0" * 64}], "sha256": "0" * 64, "data_description": ""}
    (work / "parts" / gpu_run.MANIFEST).write_text(json.dumps(manifest))
    assert failure(capsys, ["start", "--work", str(work)]).startswith("gpu_run.py: error: piece part-000 is missing")


def test_poll_reads_the_runs_record_by_the_name_output_folders_gives_it(tmp_path, capsys, monkeypatch):
    """output_folders.TRAINING_FILE is the one home of the name of the file elmo pretrain writes its metrics to."""
    import hf_elmo.output_folders

    monkeypatch.setattr(hf_elmo.output_folders, "TRAINING_FILE", "record.json")
    model = tmp_path / "work" / gpu_run.RUN_NAME
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}")
    (model / "record.json").write_text(json.dumps({"metrics": {"world_size": 1}}))
    assert gpu_run.report(tmp_path / "work", window=5, log_lines=3) == "done"
    assert 'metrics: {"world_size": 1}' in capsys.readouterr().out


def test_evaluate_writes_a_diverged_models_perplexities_as_strict_json_with_null(tmp_path, capsys):
    """Was: "forward": Infinity in perplexity.json (plain json.dumps), which jq and strict JSON parsers refuse."""
    from hf_elmo.corpus import read_corpus
    from hf_elmo.training.vocab import VOCAB_FILE, build_vocabulary
    from tests.hf_elmo.training.test_pretraining import tiny_lm

    work = tmp_path / "work"
    valid = write_corpus(tmp_path / "valid.txt", n=5)
    vocab = build_vocabulary(read_corpus(valid))
    model = tiny_lm(len(vocab))
    with torch.no_grad():
        model.softmax.bias[vocab.unk_id] = 1e4  # every target (none is <UNK>) costs about 1e4 nats
    model.save_pretrained(work / gpu_run.RUN_NAME)
    vocab.save(work / gpu_run.RUN_NAME / VOCAB_FILE)
    (work / gpu_run.RUN_NAME / "training.json").write_text(json.dumps({"position": {"tokens_seen": 9, "step": 1}}))
    (work / "data").mkdir()
    shutil.copyfile(valid, work / "data" / "valid.txt")
    gpu_run.main(["evaluate", "--work", str(work), "--device", "cpu", "--out", str(tmp_path / "eval")])
    capsys.readouterr()
    text = (tmp_path / "eval" / "perplexity.json").read_text()
    figures = strict_json_loads(text)["models"][gpu_run.RUN_NAME]["valid"]
    assert figures["forward"] is figures["backward"] is figures["average"] is None
    assert figures["forward_loss"] == pytest.approx(1e4, rel=0.01)
    assert (work / "perplexity.json").read_text() == text


def test_pack_stops_in_one_line_when_tokenising_refuses_its_options(tmp_path, capfd):
    """A --source without shards, which pack passes on (a --train-fraction of nan, once passed on too, is refused by
    pack's own parser now: test_cli_number_options_one_form.py)."""
    out = tmp_path / "gpu-pack"
    said = failure(capfd, ["pack", "--source", str(tmp_path), "--out", str(out)])
    assert said.endswith("\ngpu_run.py: error: prepare_pretrain_en.py stopped (exit 1); nothing was packed\n")
    assert f"prepare_pretrain_en.py: error: no *.txt.gz shards in {tmp_path}" in said
    assert not (out / "manifest.json").exists()


@pytest.mark.parametrize("out", ["a folder of the user's", "the tokenised input's folder", "the current folder"])
def test_pack_overwrite_replaces_only_an_earlier_pack(out, tmp_path, monkeypatch, capsys):
    """Was: `pack --out FOLDER --overwrite` removed any non-empty FOLDER (shutil.rmtree): a home
    folder, the working tree it was run in, or the --tokenised input lying in it."""
    folder = tmp_path / "work"
    (folder / "tokenised").mkdir(parents=True)
    (folder / "tokenised" / "train.txt").write_text("a b c\n")
    (folder / "notes.txt").write_text("mine")
    monkeypatch.chdir(folder if out == "the current folder" else tmp_path)
    tokenised = folder / "tokenised" if out == "the tokenised input's folder" else tmp_path / "elsewhere"
    if out == "the tokenised input's folder":
        (folder / "notes.txt").unlink()
        (folder / "manifest.json").write_text("{}")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    said = failure(capsys, ["pack", "--tokenised", str(tokenised), "--out", str(folder), "--overwrite"])
    assert said.startswith(f"gpu_run.py: error: {folder} ") and said.count("\n") == 1
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before


def test_pack_overwrite_replaces_an_earlier_pack(tmp_path):
    tokenised, out = tmp_path / "tokenised", tmp_path / "gpu-pack"
    tokenised.mkdir()
    for name in ("train.txt", "valid.txt"):
        (tokenised / name).write_text("the cat sat .\nthe dog ran .\n")
    out.mkdir()
    for name in ("manifest.json", "part-000", "part-001", "eval.tar.xz"):
        (out / name).write_text("earlier")
    gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(out), "--overwrite", "--min-count", "1"])
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "part-000"]
