"""``hf_elmo.devices.resolve_device``: the default device, and one-line errors for a bad name."""

from __future__ import annotations

import pytest
import torch

from hf_elmo.devices import resolve_device


def test_the_default_is_cuda_when_available_else_cpu():
    assert resolve_device(None).type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == torch.device("cpu")


def test_an_unknown_device_names_what_to_pass():
    with pytest.raises(ValueError, match="unknown device 'gpu0'; use cpu, cuda or cuda:N"):
        resolve_device("gpu0")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_a_cuda_device_says_to_use_cpu():
    with pytest.raises(ValueError, match="no CUDA device is available here .*; use --device cpu"):
        resolve_device("cuda")


def _usable(name: str) -> bool:
    try:
        torch.empty(0, device=name)
    except Exception:
        return False
    return True


@pytest.mark.parametrize("name", ["mps", "xla", "hpu", "xpu"])
def test_a_device_this_torch_build_cannot_use_is_refused_in_one_line(name):
    """Was a traceback from deep in model.to(device) (RuntimeError, ModuleNotFoundError, ...)."""
    if _usable(name):
        pytest.skip(f"this machine can use {name}")
    with pytest.raises(ValueError) as caught:
        resolve_device(name)
    assert str(caught.value) == f"device {name!r} is not available to this torch build or machine; use cpu or cuda"


def test_the_meta_device_is_refused_as_it_holds_no_data():
    """Was a NotImplementedError traceback ("Cannot copy out of meta tensor") in elmo embed."""
    with pytest.raises(ValueError, match="^device 'meta' holds shapes without data and cannot run a model; use cpu"):
        resolve_device("meta")


def test_a_cuda_index_beyond_the_machines_devices_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(ValueError, match=r"^device 'cuda:2': this machine has 2 CUDA device\(s\), cuda:0\.\.cuda:1$"):
        resolve_device("cuda:2")
    assert resolve_device("cuda:1") == torch.device("cuda", 1)


def test_elmo_embed_with_a_device_it_cannot_use_says_so_in_one_line(tmp_path, capsys):
    from hf_elmo.cli import main

    (tmp_path / "in.txt").write_text("The cat sat .\n")
    assert main(["embed", str(tmp_path / "in.txt"), str(tmp_path / "out.hdf5"), "--device", "meta"]) == 2
    assert capsys.readouterr().err.startswith("elmo embed: error: device 'meta' holds shapes without data")
    assert not (tmp_path / "out.hdf5").exists()


@pytest.mark.parametrize("local_rank", ["2", "3"])
def test_a_torchrun_local_rank_beyond_the_machines_devices_is_refused_naming_how_many_processes_fit(
    local_rank, monkeypatch
):
    """Was: cuda:LOCAL_RANK, a device the machine does not have, and a traceback when the run first used it."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setenv("LOCAL_RANK", local_rank)
    with pytest.raises(ValueError) as refused:
        resolve_device("cuda")
    assert str(refused.value) == (
        f"LOCAL_RANK={local_rank} (torchrun's) but this machine has 2 CUDA devices, cuda:0..cuda:1, and under "
        "torchrun --device cuda is cuda:LOCAL_RANK: start torchrun with --nproc_per_node at most 2"
    )
    assert resolve_device("cuda:1") == torch.device("cuda", 1)  # a device given by its index is that device
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert resolve_device("cuda") == torch.device("cuda", 1)


@pytest.mark.parametrize("local_rank", ["-1", "x", ""])
def test_a_torchrun_local_rank_that_is_no_whole_number_is_refused_naming_it(local_rank, monkeypatch):
    """Was: a traceback (int()'s ValueError, or torch's RuntimeError for cuda:-1)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setenv("LOCAL_RANK", local_rank)
    with pytest.raises(
        ValueError, match=f"^the environment's LOCAL_RANK={local_rank!r} is no whole number, as torchrun"
    ):
        resolve_device("cuda")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
@pytest.mark.parametrize(
    "device_map, where, device",
    [("cuda", "device_map", "cuda"), (7, "device_map", "cuda:7"), ({"": "cuda:3"}, "device_map['']", "cuda:3")],
)
def test_from_pretrained_onto_a_device_the_machine_lacks_is_one_line_naming_it(device_map, where, device):
    """Was transformers' "AssertionError: Torch not compiled with CUDA enabled" (or "Cannot access
    accelerator device when none is available") traceback."""
    from hf_elmo import ElmoModel
    from hf_elmo.pretrained import DEFAULT

    with pytest.raises(ValueError) as refused:
        ElmoModel.from_pretrained(f"hf-elmo:{DEFAULT}", device_map=device_map)
    assert str(refused.value) == (
        f"{where}: device {device!r}: no CUDA device is available here (torch.cuda.is_available() is False); use "
        "device_map='cpu'"
    )


def test_a_device_map_beyond_the_machines_gpus_is_refused_and_its_strategies_pass(monkeypatch):
    from hf_elmo.devices import check_device_map

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    with pytest.raises(ValueError, match=r"^device_map\['bilm'\]: device 'cuda:7': this machine has 2 CUDA device"):
        check_device_map({"char_cnn": "cuda:1", "bilm": "cuda:7"})
    for fine in ("auto", "balanced", "sequential", "cpu", "meta", "cuda:1", {"": "disk"}, None):
        check_device_map(fine)
