"""`elmo pretrain` under torchrun: 2 real gloo processes on CPU against one process on the same data."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

from hf_elmo.corpus import read_corpus
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.training import distributed
from hf_elmo.training.checkpoints import CHECKPOINT_FILE, DATA_ORDER_KEY
from hf_elmo.training.data import DATA_ORDER, SentenceBatcher
from hf_elmo.training.model import build_model, make_optimizer
from hf_elmo.training.settings import PretrainSettings
from hf_elmo.training.trainer import train_step
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.training.test_pretraining import TINY_SHAPE_ARGS

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()


#: A linear schedule with warm-up under --max-minutes: every rank must step with rank 0's rate.
LINEAR = ["--lr-schedule", "linear", "--warmup-steps", "2", "--max-minutes", "1000"]


@pytest.mark.parametrize(
    "schedule", [pytest.param([], id="constant"), pytest.param(LINEAR, id="linear", marks=pytest.mark.slow)]
)
def test_ddp_ranks_agree_and_match_one_process_on_the_same_data(tmp_path, schedule):
    # 64 sentences of 5 tokens: with 56 padded tokens a batch, every rank's batch holds 8 sentences,
    # so the mean over ranks of their mean losses is the mean over the union (what one process sees).
    lines = [" ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 6)) for i in range(64)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n")
    out = tmp_path / "ddp"
    common = [
        "--epochs",
        "0.5",
        *TINY_SHAPE_ARGS,
        "--n-highway",
        "1",
        "--vocab-size",
        "50",
        "--min-count",
        "1",
        "--softmax",
        "full",
        "--dropout",
        "0",
        "--optimizer",
        "adam",
        "--lr",
        "0.01",
        "--tokens-per-batch",
        "56",
        "--threads",
        "1",
        "--no-progress",
        *schedule,
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
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
            "pretrain",
            str(corpus),
            str(out),
            *common,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    training = json.loads((out / "training.json").read_text())
    assert training["metrics"]["world_size"] == 2
    assert training["metrics"]["max_weight_difference_between_ranks"] == 0.0
    log = (tmp_path / "ddp.checkpoint" / "losses.tsv").read_text().splitlines()[1:]
    ddp_losses = [float(line.split("\t")[3]) for line in log]
    assert len(ddp_losses) == 2  # half an epoch: 64 sentences / 2 ranks / 8 a batch / 2

    # one process, same init, each step on the union of both ranks' batches
    settings = PretrainSettings(**training["settings"])
    vocab = Vocabulary.from_file(out / "vocab.txt")
    torch.manual_seed(settings.seed)
    model = build_model(settings, vocab)
    optimizer = make_optimizer("adam", model.parameters(), 0.01)
    sentences = read_corpus(corpus)
    shards = [SentenceBatcher(sentences, vocab, 56, settings.seed, rank, 2).epoch_batches(0) for rank in (0, 1)]
    single = SentenceBatcher(sentences, vocab, 56, settings.seed)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for step, expected in enumerate(ddp_losses):
            if schedule:  # warm-up over 2 steps, decay over the 160 tokens of half an epoch (80 a step)
                optimizer.param_groups[0]["lr"] = 0.01 * min(1.0, (step + 1) / 2) * (1.0 - 80 * step / 160)
            union = list(shards[0][step]) + list(shards[1][step])
            loss = train_step(model, optimizer, single.collate(union), torch.device("cpu"), 10.0, False)
            assert abs(float(loss) - expected) < 1e-5, (step, float(loss), expected)
    finally:
        torch.set_num_threads(threads)
    trained = ElmoForBidirectionalLM.from_pretrained(out).state_dict()
    for name, value in model.state_dict().items():
        torch.testing.assert_close(trained[name], value, rtol=1e-4, atol=1e-5, msg=name)


def _torchrun(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m", "hf_elmo.cli"]
        + list(argv),
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=300,
    )


def _errors(result: subprocess.CompletedProcess) -> list[str]:
    """The error lines of ``elmo pretrain`` in a torchrun's output (torchrun's own report aside)."""
    return [line for line in result.stderr.splitlines() if line.startswith("elmo pretrain: error: ")]


def test_a_corpus_of_fewer_batches_than_processes_stops_every_rank_in_one_line_before_anything_is_written(tmp_path):
    """Said by rank 0 alone (was: once a rank)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("alpha beta gamma\n")
    result = _torchrun(
        "pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", "--min-count", "1", *TINY_SHAPE_ARGS
    )
    expected = (
        f"elmo pretrain: error: {corpus}: its sentences make 1 batch(es) of up to 2048 tokens (--tokens-per-batch), "
        "fewer than the 2 processes: each needs one or more; train on more text, or with fewer processes"
    )
    assert result.returncode != 0 and _errors(result) == [expected], result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


@pytest.mark.slow  # ~13 s each: two torchrun processes
@pytest.mark.parametrize(
    "argv, expected",
    [
        pytest.param(["--filters", "[[1,32]"], "argument --filters: must be JSON", id="usage-error"),
        pytest.param(["--device", "meta"], "device 'meta' holds shapes without data", id="before-the-process-group"),
        pytest.param(["--lr=-1"], "--lr must be a finite number > 0, got -1.0", id="setting"),
    ],
)
def test_an_argument_or_setting_refused_under_torchrun_is_said_once(tmp_path, argv, expected):
    """Every rank refuses the same command line: rank 0 alone says so (was: the same line once a rank)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("alpha beta gamma\n")
    result = _torchrun("pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", *argv)
    assert result.returncode != 0
    errors = _errors(result)
    assert len(errors) == 1 and expected in errors[0], result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


@pytest.mark.slow  # ~13 s: two torchrun processes
def test_a_refusal_of_rank_0_alone_is_said_once_and_stops_every_rank(tmp_path):
    """An OUTPUT_DIR.lock that is no lock is refused by rank 0, which locks the run's folders (was: that
    line, and rank 1's 'rank 0 could not lock the run's folders; see its error')."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("alpha beta gamma\n" * 64)
    lock = tmp_path / "out.lock"
    lock.write_text("someone's")
    result = _torchrun("pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", *TINY_SHAPE_ARGS)
    expected = (
        f"elmo pretrain: error: {lock} exists and is no lock of elmo (it is not empty); move it, or write elsewhere"
    )
    assert result.returncode != 0 and _errors(result) == [expected], result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt", "out.lock"]


@pytest.mark.slow  # ~25 s: two runs of two DDP processes
def test_a_refusal_of_rank_1_alone_is_said_once_by_rank_0_and_stops_every_rank(tmp_path):
    """Rank 1's RNG state of the checkpoint is damaged: rank 1 refuses to resume, rank 0 says its
    refusal, and every rank stops before anything is written."""
    lines = [" ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 6)) for i in range(64)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n")
    argv = ["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", *TINY_SHAPE_ARGS, "--min-count", "1"]
    argv += ["--tokens-per-batch", "56", "--threads", "1", "--no-progress"]
    first = _torchrun(*argv, "--max-steps", "1")
    assert first.returncode == 0, first.stderr[-3000:]
    damaged = tmp_path / "out.checkpoint" / "rng-rank1-step1.pt"
    damaged.write_bytes(b"not a torch file")
    before = {p.name: p.read_bytes() for p in (tmp_path / "out.checkpoint").iterdir()}
    resumed = _torchrun(*argv)
    errors = _errors(resumed)
    assert resumed.returncode != 0 and len(errors) == 1, resumed.stderr[-3000:]
    assert errors[0].startswith(f"elmo pretrain: error: {damaged} is damaged ("), errors
    assert {p.name: p.read_bytes() for p in (tmp_path / "out.checkpoint").iterdir()} == before
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # ~22 s: two DDP processes
def test_a_ddp_checkpoint_of_the_old_data_order_is_refused_in_one_line_and_left_as_it_is(tmp_path):
    """A DDP checkpoint written before the batches were dealt from the whole corpus (no data_order:
    each rank batched its own sentences) stands for other batches now: resuming it is one line, and
    changes nothing (was: it resumed silently, training again on some sentences and skipping others)."""
    lines = [" ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 6)) for i in range(64)]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n")
    argv = ["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", *TINY_SHAPE_ARGS, "--min-count", "1"]
    argv += ["--tokens-per-batch", "56", "--threads", "1", "--no-progress"]
    first = _torchrun(*argv, "--max-steps", "1")
    assert first.returncode == 0, first.stderr[-3000:]
    path = tmp_path / "out.checkpoint" / CHECKPOINT_FILE
    state = torch.load(path, weights_only=True)
    assert state.pop(DATA_ORDER_KEY) == DATA_ORDER and state["world_size"] == 2
    torch.save(state, path)  # as elmo pretrain wrote it before it recorded the data order
    before = {p.name: p.read_bytes() for p in (tmp_path / "out.checkpoint").iterdir()}
    resumed = _torchrun(*argv)
    expected = (
        f"elmo pretrain: error: {path} was written by an elmo pretrain of 2 processes that dealt the batches to them "
        f"otherwise (data order 1; this one's is {DATA_ORDER}), so its position (epoch 0, batch 1) stands for other "
        f"batches now; finish the run with the hf-elmo that wrote it, or delete {tmp_path / 'out.checkpoint'} to "
        "start the run again from the beginning"
    )
    assert resumed.returncode != 0 and _errors(resumed) == [expected], resumed.stderr[-3000:]
    assert {p.name: p.read_bytes() for p in (tmp_path / "out.checkpoint").iterdir()} == before
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("device, current", [("cuda:1", ["cuda:1"]), ("cpu", [])])
def test_a_torchrun_rank_on_a_gpu_makes_it_its_current_device_before_nccl_starts(monkeypatch, device, current):
    """NCCL's collectives run on the current cuda device (``_collective_device``): without
    ``torch.cuda.set_device`` every rank of a multi-GPU torchrun would gather on GPU 0."""
    calls: list[str] = []
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setattr(torch.cuda, "set_device", lambda d: calls.append(str(torch.device(d))))
    monkeypatch.setattr(distributed.dist, "init_process_group", lambda backend: calls.append(backend))
    monkeypatch.setattr(distributed.dist, "is_initialized", lambda: False)
    distributed.distributed_context(torch.device(device))
    assert calls == [*current, "nccl" if current else "gloo"]


@pytest.mark.parametrize("rank", ["2", "5"])
def test_a_torchrun_rank_outside_its_world_is_refused_before_the_process_group_starts(rank, monkeypatch):
    """Was: the process group's rendezvous, waiting for ranks that never come."""
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", rank)
    monkeypatch.setattr(distributed.dist, "init_process_group", lambda *args, **kwargs: pytest.fail("started"))
    monkeypatch.setattr(distributed.dist, "is_initialized", lambda: False)
    with pytest.raises(ValueError) as refused:
        distributed.distributed_context(torch.device("cpu"))
    assert str(refused.value) == (
        f"the environment's RANK={rank} and WORLD_SIZE=2 (as torchrun sets them) are no rank of the run: "
        "need 0 <= RANK < WORLD_SIZE; unset them, or start the command with torchrun"
    )


@pytest.mark.parametrize("gpus", [1, 2])
def test_a_torchrun_of_more_processes_than_gpus_on_cuda_is_refused_before_nccl_starts(gpus, monkeypatch):
    """NCCL needs one GPU a process. Was (one GPU): every rank took cuda:0 and NCCL failed with "Duplicate
    GPU detected" in a traceback; every rank of the machine now refuses alike, so rank 0 says it."""
    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "3")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    monkeypatch.setattr(torch.cuda, "set_device", lambda d: pytest.fail("set"))
    monkeypatch.setattr(distributed.dist, "init_process_group", lambda *args, **kwargs: pytest.fail("started"))
    monkeypatch.setattr(distributed.dist, "is_initialized", lambda: False)
    with pytest.raises(ValueError) as refused:
        distributed.distributed_context(torch.device("cuda:0"))
    assert str(refused.value) == (
        f"torchrun started 3 processes on this machine (LOCAL_WORLD_SIZE) but it has {gpus} CUDA device(s), and "
        f"NCCL needs one a process: start torchrun with --nproc_per_node at most {gpus}, or train on --device cpu"
    )


def test_a_torchrun_of_as_many_processes_as_gpus_on_cuda_starts_nccl(monkeypatch):
    calls: list[str] = []
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", lambda d: calls.append(str(torch.device(d))))
    monkeypatch.setattr(distributed.dist, "init_process_group", lambda backend: calls.append(backend))
    monkeypatch.setattr(distributed.dist, "is_initialized", lambda: False)
    distributed.distributed_context(torch.device("cuda:1"))
    assert calls == ["cuda:1", "nccl"]


def _checkpoint_of_step_2(rank: int, folder, store, said) -> None:
    """Rank ``rank`` of a 2-process gloo group saves a checkpoint of step 2 into ``folder``; puts
    (rank, what it refused or None) on ``said``."""
    from torch import distributed as dist

    from hf_elmo.training.checkpoints import save_checkpoint

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    try:
        model = torch.nn.Linear(2, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        position = {"epoch": 0, "batch": 2, "step": 2, "tokens_seen": 20, "elapsed": 1.0}
        try:
            save_checkpoint(folder, model, optimizer, position, rank, 2)
            said.put((rank, None))
        except OSError as err:
            said.put((rank, str(err)))
    finally:
        dist.destroy_process_group()


def test_a_rank_that_cannot_delete_its_earlier_rng_state_stops_every_rank_with_rank_0_saying_why(tmp_path):
    """Was: rank 1 stopped alone (exit 2, no line: only rank 0 speaks), and rank 0 went on, said that the
    run stopped at --max-steps, exit 0. The checkpoint of the step is whole (written before the deletes)."""
    import multiprocessing

    folder = tmp_path / "run.checkpoint"
    folder.mkdir()
    torch.save({"rng": torch.get_rng_state()}, folder / "rng-rank0-step1.pt")
    undeletable = folder / "rng-rank1-step1.pt"  # a folder: unlink fails (as on a file rank 1 may not delete)
    (undeletable / "inside").mkdir(parents=True)
    context = multiprocessing.get_context("fork")
    said = context.Queue()
    ranks = [
        context.Process(target=_checkpoint_of_step_2, args=(rank, folder, tmp_path / "store", said)) for rank in (0, 1)
    ]
    for process in ranks:
        process.start()
    for process in ranks:
        process.join(timeout=60)
    assert [process.exitcode for process in ranks] == [0, 0]
    expected = (
        f"could not delete {undeletable}, an RNG state of an earlier checkpoint (Is a directory); the checkpoint "
        f"of step 2 is whole: remove {undeletable}, then run the same command again: it resumes from that checkpoint"
    )
    assert dict(said.get(timeout=5) for _ in ranks) == {0: expected, 1: expected}
    assert sorted(p.name for p in folder.iterdir()) == [
        CHECKPOINT_FILE,
        "rng-rank0-step2.pt",
        "rng-rank1-step1.pt",
        "rng-rank1-step2.pt",
    ]
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == 2
