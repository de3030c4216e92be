#!/usr/bin/env python3
r"""Self-contained REFERENCE runner for AllenNLP 2.10.1's own ELMo biLM (`_ElmoBiLm`) on GPU or CPU.

Needs only: torch, numpy, h5py, requests, tqdm, regex, pyyaml, filelock, packaging, safetensors,
jinja2, rich (all on the GPU machine) plus the wheels that fetch_gpu_wheels.sh (beside this file)
downloads into DIR, installed with
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/ref DIR/*.whl
    PYTHONPATH=/tmp/ref python3 allennlp_gpu_ref.py ...
(allennlp 2.10.1, transformers 4.57.6, huggingface_hub 0.36.2, tokenizers 0.22.2,
cached_path 1.8.10, fairscale 0.4.13, dill, base58, more-itertools; /tmp/ref must come first on
sys.path so that transformers 4.x / huggingface_hub 0.x win over the machine's 5.x / 1.x).

Import shim (no AllenNLP file is modified; every stub is a module that AllenNLP or cached_path
imports at top level but that is never used by `_ElmoBiLm`, `batch_to_ids` or
`remove_sentence_boundaries`; a stubbed name that gets *called/instantiated* raises RuntimeError,
so an accidental real use fails loudly instead of changing numbers):
  * torchvision (+ .ops, .ops.boxes): the real one is used if it imports; otherwise a stub on which
    any attribute access raises (same logic as reference/allennlp/allennlp_ref_import.py).
    AllenNLP uses it only in image loading / Faster R-CNN code.
  * spacy (+ submodules): always stubbed (compiled, heavy, not installed on the GPU machine).
    AllenNLP uses it for spaCy tokenizers/indexers/models; on the ELMo path it only appears in
    `isinstance(x, (Token, SpacyToken))` checks, which stay True for AllenNLP's own Token.
  * lmdb: always stubbed (compiled); used only by allennlp.common.file_utils.TensorCache.
  * boto3, botocore, google.cloud/.api_core/.auth: always stubbed; cached_path imports them for
    s3:// r2:// gs:// URLs only. Local option/weight files go through the real cached_path.
  * fairscale: the real wheel is used; only if it fails to import against this torch is it
    replaced by a stub (AllenNLP uses it only for FSDP / activation checkpointing).
The JSON line reports what was stubbed ("stubs").

Modes:
  default (timing): embeds the whole file --repeat times after one untimed warm-up batch, exactly
    like ref_embed.py's run_time: per batch of --batch-size consecutive lines, batch_to_ids (CPU),
    .to(device), _ElmoBiLm.forward, remove_sentence_boundaries, stack, per-sentence copy to a
    float32 numpy array (host copy; --no-host-copy keeps results on the device instead).
    reset_states() before every repeat (and before every batch with --fresh). On CUDA,
    torch.cuda.synchronize() before each clock read; peak memory is reset after the warm-up.
    Prints one line:  JSON {...}
  --out X.npz: embeds the file once (stateful unless --fresh, no warm-up), saves s00000... float32
    [3, n_tokens, 2P] (BOS/EOS stripped) + meta, same layout as ref_embed.py; prints JSON {...}.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
import types
import warnings
from collections.abc import Iterator
from typing import Any

# ----------------------------------------------------------------------------- import shim
STUBS: list[str] = []  # names of stubbed top-level modules, reported in the JSON


def _stub_error(qualname):
    return RuntimeError(f"'{qualname}' is stubbed in this ELMo reference runner (not used by ELMo)")


def _stub_attribute(owner, qualname, name):
    """A placeholder class for ``owner.name`` (made once, then kept on ``owner``); dunders stay absent."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    stub = _make_stub_class(f"{qualname}.{name}")
    setattr(owner, name, stub)
    return stub


class _StubMeta(type):
    """Attributes of a placeholder class are placeholder classes too (e.g. `storage.Client`)."""

    def __getattr__(cls, name):
        return _stub_attribute(cls, f"{cls.__module__}.{cls.__qualname__}", name)


def _make_stub_class(qualname):
    def __init__(self, *a, **k):  # instantiating / calling a stubbed name fails loudly
        raise _stub_error(qualname)

    # An Exception subclass so that it also works in `except X:` clauses, tuples of error types
    # and as a base class, all of which cached_path / AllenNLP do at import time.
    mod, _, name = qualname.rpartition(".")
    return _StubMeta(name, (Exception,), {"__init__": __init__, "__module__": mod, "__qualname__": name})


class _AutoStubModule(types.ModuleType):
    """Any non-dunder attribute is a placeholder class that raises when called."""

    def __getattr__(self, name):
        return _stub_attribute(self, self.__name__, name)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves _AutoStubModule packages for the given module names and all their submodules."""

    def __init__(self, roots):
        self.roots = tuple(roots)

    def _claims(self, fullname):
        return any(fullname == r or fullname.startswith(r + ".") for r in self.roots)

    def find_spec(self, fullname, path=None, target=None):
        if self._claims(fullname):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _AutoStubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


class _TorchvisionStub(types.ModuleType):
    def __getattr__(self, name):  # only hit for attributes not set below
        if name.startswith("__"):
            raise AttributeError(name)
        raise RuntimeError(
            f"torchvision is stubbed in this ELMo reference harness; "
            f"'{self.__name__}.{name}' is not available"
        )


def _drop(prefix):
    for k in [k for k in sys.modules if k == prefix or k.startswith(prefix + ".")]:
        del sys.modules[k]


def _install_torchvision_stub():
    try:
        import torchvision  # noqa: F401  (a working install wins)
        return False
    except Exception:
        _drop("torchvision")
    for name in ("torchvision", "torchvision.ops", "torchvision.ops.boxes"):
        m = _TorchvisionStub(name)
        m.__path__ = []  # behave as a package
        m.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        sys.modules[name] = m
    sys.modules["torchvision"].ops = sys.modules["torchvision.ops"]  # type: ignore[attr-defined]
    sys.modules["torchvision.ops"].boxes = sys.modules["torchvision.ops.boxes"]  # type: ignore[attr-defined]
    return True


def _install_shim():
    # transformers records at import time which optional packages exist; import it first so
    # that it sees the truth (the stubs below are not real packages).
    import transformers  # noqa: F401
    import transformers.utils.import_utils  # noqa: F401

    always = ["spacy", "lmdb", "boto3", "botocore", "google.cloud", "google.api_core", "google.auth"]
    try:
        has_google = importlib.util.find_spec("google") is not None
    except Exception:
        has_google = False
    if not has_google:  # no real `google` namespace package: stub the namespace itself
        always = [r for r in always if not r.startswith("google.")] + ["google"]
    for r in always:
        _drop(r)
    sys.meta_path.insert(0, _StubFinder(always))
    STUBS.extend(always)

    if _install_torchvision_stub():
        STUBS.append("torchvision")

    try:  # real fairscale (carried as a wheel) wins; stub only if it cannot import here
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import fairscale.nn  # noqa: F401
            import fairscale.nn.wrap  # noqa: F401
            import fairscale.nn.misc  # noqa: F401
            import fairscale.nn.checkpoint  # noqa: F401
            import fairscale.optim.grad_scaler  # noqa: F401
    except Exception as e:  # pragma: no cover - depends on the torch build
        print(f"[allennlp_gpu_ref] fairscale import failed ({type(e).__name__}: {e}); stubbing it",
              file=sys.stderr)
        _drop("fairscale")
        sys.meta_path.insert(0, _StubFinder(["fairscale"]))
        STUBS.append("fairscale")


_install_shim()

import numpy as np  # noqa: E402
import torch  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import allennlp  # noqa: E402
    from allennlp.modules.elmo import _ElmoBiLm, batch_to_ids  # noqa: E402
    from allennlp.nn.util import remove_sentence_boundaries  # noqa: E402


# ----------------------------------------------------------------------------- runner
def read_sentences(path: str) -> list[list[str]]:
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f if line.strip()]


def batches(sents: list[list[str]], bs: int) -> Iterator[tuple[int, list[list[str]]]]:
    for i in range(0, len(sents), bs):
        yield i, sents[i:i + bs]


def build(options: str, weights: str, device: torch.device) -> _ElmoBiLm:
    bilm = _ElmoBiLm(options, weights, requires_grad=False)
    bilm.eval()  # no dropout anywhere in _ElmoBiLm, but be explicit
    return bilm.to(device)


def embed_batch(
    bilm: _ElmoBiLm, batch: list[list[str]], fresh: bool, device: torch.device, host_copy: bool = True
) -> list[Any]:
    """Same steps as ref_embed.embed_batch, plus .to(device) (and one device->host copy)."""
    if fresh:
        bilm._elmo_lstm.reset_states()
    ids = batch_to_ids(batch)  # CPU, as in AllenNLP
    out = bilm(ids.to(device))
    layers = []
    mask = out["mask"]
    for act in out["activations"]:
        stripped, new_mask = remove_sentence_boundaries(act, mask)
        layers.append(stripped)
    stacked = torch.stack(layers, dim=1)  # (B, 3, T, 2P)
    if not host_copy:
        return [stacked[b, :, :len(sent), :] for b, sent in enumerate(batch)]
    stacked = stacked.cpu()
    return [stacked[b, :, :len(sent), :].numpy().astype(np.float32, copy=True)
            for b, sent in enumerate(batch)]


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def versions(device: torch.device) -> dict[str, Any]:
    v = {"python": platform.python_version(), "allennlp": allennlp.__version__,
         "torch": torch.__version__, "numpy": np.__version__}
    for mod in ("transformers", "huggingface_hub", "tokenizers", "h5py", "cached_path", "fairscale"):
        try:
            m = sys.modules.get(mod) or importlib.import_module(mod)
            v[mod] = getattr(m, "__version__", None) or getattr(getattr(m, "version", None), "VERSION", None)
        except Exception:
            v[mod] = None
    try:
        from importlib.metadata import version as _dist_version
        v["cached_path"] = v["cached_path"] or _dist_version("cached_path")
    except Exception:
        pass
    v["torch_cuda"] = torch.version.cuda
    if device.type == "cuda":
        v["gpu"] = torch.cuda.get_device_name(device)
        v["cudnn"] = torch.backends.cudnn.version()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            v["float32_matmul_precision"] = torch.get_float32_matmul_precision()
            v["cudnn_allow_tf32"] = bool(torch.backends.cudnn.allow_tf32)
        except Exception:
            pass
    return v


def common_info(a: argparse.Namespace, sents: list[list[str]], device: torch.device) -> dict[str, Any]:
    return dict(
        reference="allennlp._ElmoBiLm", device=str(device), batch_size=a.batch_size,
        mode="fresh" if a.fresh else "stateful", threads=a.threads, n_sentences=len(sents),
        n_tokens=sum(map(len, sents)), options=str(a.options), weights=str(a.weights),
        sentences=str(a.sentences), stubs=list(STUBS), versions=versions(device),
    )


def run_embed(a: argparse.Namespace, device: torch.device) -> None:
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    sents = read_sentences(a.sentences)
    bilm = build(a.options, a.weights, device)
    arrays = {}
    with torch.no_grad():
        for start, batch in batches(sents, a.batch_size):
            for k, arr in enumerate(embed_batch(bilm, batch, a.fresh, device)):
                arrays[f"s{start + k:05d}"] = arr
    meta = common_info(a, sents, device)
    meta.update(layout="s%05d: float32 [3, n_tokens, 2*projection_dim]; layer0=[cnn,cnn]; BOS/EOS stripped",
                torchvision_stubbed="torchvision" in STUBS)
    arrays["meta"] = np.array(json.dumps(meta))
    tmp = a.out + ".tmp.npz"
    np.savez(tmp, **arrays)
    os.replace(tmp, a.out)
    meta.update(kind="embed", out=str(a.out))
    print("JSON " + json.dumps(meta, sort_keys=True), flush=True)


def run_time(a: argparse.Namespace, device: torch.device) -> None:
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    sents = read_sentences(a.sentences)
    n_tok = sum(map(len, sents))
    t_load = time.perf_counter()
    bilm = build(a.options, a.weights, device)
    _sync(device)
    t_load = time.perf_counter() - t_load
    host_copy = not a.no_host_copy
    times = []
    with torch.no_grad():
        embed_batch(bilm, sents[:a.batch_size], a.fresh, device, host_copy)  # warm-up (untimed)
        _sync(device)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        for _ in range(a.repeat):
            bilm._elmo_lstm.reset_states()  # every repeat starts like a new module
            _sync(device)
            t0 = time.perf_counter()
            for _, batch in batches(sents, a.batch_size):
                embed_batch(bilm, batch, a.fresh, device, host_copy)
            _sync(device)
            times.append(time.perf_counter() - t0)
    best, med = min(times), statistics.median(times)
    info = common_info(a, sents, device)
    info.update(
        kind="time", repeats=a.repeat, host_copy=host_copy, seconds=times, best_s=best, median_s=med,
        tokens_per_s_best=n_tok / best, tokens_per_s_median=n_tok / med,
        sentences_per_s_best=len(sents) / best, sentences_per_s_median=len(sents) / med,
        load_s=t_load,
        peak_gpu_mem_bytes=torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None,
    )
    print("JSON " + json.dumps(info, sort_keys=True), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--options", required=True)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--sentences", required=True, help="one whitespace-tokenized sentence per line")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--device", default="cuda", help="cuda | cuda:N | cpu")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats")
    ap.add_argument("--fresh", action="store_true", help="reset LSTM states before every batch")
    ap.add_argument("--time", action="store_true", help="timing mode (the default without --out)")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--out", help="write layers per sentence to this .npz instead of timing")
    ap.add_argument("--no-host-copy", action="store_true",
                    help="timing: keep per-sentence results on the device (skip the .cpu() copy)")
    a = ap.parse_args()
    device = torch.device(a.device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            ap.error("--device cuda requested but torch.cuda.is_available() is False")
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        torch.cuda.set_device(device)
    if a.out:
        run_embed(a, device)
    else:
        run_time(a, device)


if __name__ == "__main__":
    main()
