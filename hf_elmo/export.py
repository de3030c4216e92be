"""Export the biLM for serving (ONNX or a ``torch.export`` program), and run what was exported.

``export_model(model, out_dir, "onnx" | "torch-export")`` writes a folder:

    model.onnx | model.pt2   the graph of ``ElmoInferenceGraph``: char_ids (B, T, W) int64 in,
                             layers (B, L+1, T, 2P) and mask (B, T) bool out; B and T dynamic
    tokenizer_config.json    the model's ``ElmoTokenizer`` settings: how raw text is split, the char ids
    configuration_elmo.py,   the tokenizer's remote code (``AutoTokenizer.from_pretrained(folder,
    messages.py,             trust_remote_code=True)`` without hf_elmo installed)
    tokenization_elmo.py,
    tokenizer_settings.py,
    char_ids.py,
    word_splitting.py
    elmo_export.json         what the wrappers need: format, file, dtype, W, L, 2P; and the
                             graph's max abs difference from the model on a test batch

``OnnxElmo(folder)`` (ONNX Runtime, numpy out) and ``TorchExportElmo(folder)`` (torch out) take
raw text or tokenised sentences (through the folder's own tokenizer, which splits raw text as the
model's training text was and refuses an empty word or one holding whitespace) or char ids, check
the ids (rank, width, integer dtype, id range, padding only after a row's tokens) with a one-line
``ValueError`` before the graph runs, and return ``(layers, mask)``. ``open_exported(folder)``
picks the wrapper the folder was written for. Opening a folder checks it: the manifest
(``read_manifest``), the graph and tokenizer files, and the graph's signature against the manifest;
a damaged folder is one line (``damaged_export``: an ``InvalidModelError``) naming the file; an
ONNX graph that loads, but not on the providers or session options given, is another
(``provider_failure``: a ``RuntimeError`` naming them).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch

from .char_ids import N_CHAR_IDS, TOO_LONG_REMEDY, batch_to_ids, words_of
from .devices import resolve_dtype
from .elmo_weights import InvalidModelError
from .export_formats import DTYPES as DTYPES
from .export_formats import FORMATS as FORMATS
from .fileio import PathLike, check_file_size_limit, strict_json, write_text_atomic
from .logs import quiet_logger
from .messages import described, first_line
from .modeling_elmo import ElmoModel, check_reads_char_ids
from .output_folders import EXPORT_MANIFEST, build_aside, check_output_folder, output_kind
from .tokenization_elmo import ElmoTokenizer, check_split_words
from .tokenizer_settings import RESTORE_SETTINGS, TOKENIZER_CONFIG

#: What ``file_kind`` says of a file by its first bytes.
EMPTY, TEXT = "empty", "a text file"
ZIP = "a zip archive (as a torch-export model.pt2 is)"
BINARY = "binary data other than a zip archive (as an ONNX model is)"
#: Export format -> its graph file in words, and its ``file_kind``: a wrapper whose runtime cannot read
#: the file says which kind of file it is instead where it is another (a text file, the other format's).
GRAPH_FILES = {"onnx": ("an ONNX model", BINARY), "torch-export": ("a torch.export program", ZIP)}
MANIFEST = EXPORT_MANIFEST  # output_folders recognises an earlier export by it (what --overwrite may replace)
#: Export format -> the packages it needs beyond torch (the ``export`` extra): the ONNX exporter
#: (``torch.onnx.export(dynamo=True)``) writes with onnx and onnxscript, and ``elmo export`` runs the
#: written graph with onnxruntime (``OnnxElmo``) to check it.
PACKAGES = {"onnx": ("onnx", "onnxscript", "onnxruntime"), "torch-export": ()}
INPUT_NAME = "char_ids"
OUTPUT_NAMES = ("layers", "mask")
#: The manifest's record of ``export_model``'s check (``_check_graph``): the graph's max abs difference
#: from the eager model on ``PROBE_SENTENCES`` (null where the model's own layers are not finite
#: there), which ``elmo export`` prints.
PARITY_KEY = "max_abs_difference"
#: ONNX Runtime's name of an output's type -> the manifest's dtype.
ONNX_DTYPES = {"tensor(float)": "float32", "tensor(float16)": "float16", "tensor(bfloat16)": "bfloat16"}
GraphT = TypeVar("GraphT")


#: What the wrappers take (``ExportedElmo.__call__``), as their refusals of anything else say.
TAKES = "raw text (a str or a list of str) or tokenised sentences (a list of word lists such as [['Hello', 'world']])"


#: Suffixes of a file's name, refused on an export's output folder (``check_export_folder_name``).
FILE_SUFFIXES = (".onnx", ".pt2", ".pt", ".pth", ".zip", ".tar", ".gz", ".xz", ".safetensors", ".bin", ".json")


def check_export_folder_name(out_dir: PathLike) -> None:
    """A ``ValueError`` where ``out_dir`` is named as a file (``model.onnx``, ``elmo.zip``): an export is a folder,
    and one of that name would hold the graph file under the same name, where a file was meant (was: written so)."""
    path = Path(out_dir)
    if path.suffix.lower() not in FILE_SUFFIXES:
        return
    folder = path
    while folder.suffix.lower() in FILE_SUFFIXES:
        folder = folder.with_suffix("")
    raise ValueError(
        f"the output folder {out_dir} is named as a {path.suffix} file, but an export is a folder (its graph, "
        f"{' or '.join(FORMATS.values())}, beside the tokenizer's files and {EXPORT_MANIFEST}): name the folder, e.g. "
        f"{folder}"
    )


def export_model(
    model: ElmoModel,
    out_dir: PathLike,
    format: str = "onnx",
    dtype: str | torch.dtype = "float32",
    tokenizer: ElmoTokenizer | None = None,
    overwrite: bool = False,
    model_path: PathLike | None = None,
) -> Path:
    """Write ``model``'s inference graph in ``format`` with its tokenizer config to ``out_dir``.

    ``dtype``: a name in ``DTYPES[format]`` or the ``torch.dtype`` it names (``devices.resolve_dtype``).
    ``tokenizer``: whose settings (pre-tokenizer, ``max_token_chars``) the folder keeps; by
    default the one saved with the model (``hf_elmo.loading.model_tokenizer``), so that raw text
    is split as the model's training corpus was. The folder is written beside ``out_dir`` and
    moved into place when complete; an existing non-empty ``out_dir`` is an error unless
    ``overwrite`` (and it is an earlier export, never a model: ``output_folders.check_output_folder``). ``model_path``:
    the folder or archive the model was loaded from (default ``model.name_or_path``), which
    ``out_dir`` may not be, hold or lie in, even with ``overwrite``. Returns ``out_dir``.
    """
    from .export_graph import ElmoInferenceGraph
    from .loading import model_tokenizer

    if not isinstance(model, ElmoModel):
        remedy = "load one: ElmoModel.from_pretrained(NAME)"
        if isinstance(getattr(model, "elmo", None), ElmoModel):  # a task head's or the LM's biLM
            remedy = "pass its biLM, model.elmo: the graph has no head"
        raise TypeError(f"export_model takes an ElmoModel (the biLM), not {described(model)}; {remedy}")
    if tokenizer is not None and not isinstance(tokenizer, ElmoTokenizer):
        raise TypeError(
            f"tokenizer takes an ElmoTokenizer, not {described(tokenizer)}: ElmoTokenizer.from_pretrained(NAME), "
            "or leave it out for the model's own"
        )
    check_reads_char_ids(model, "export_model")
    dtype = export_dtype(format, dtype)
    require_export_packages(format)
    source = model_path or model.name_or_path
    inputs = [Path(source).expanduser()] if source and Path(source).expanduser().exists() else []
    out_dir = check_output_folder(out_dir, overwrite=overwrite, inputs=inputs, kind="export")  # before the slow export
    check_export_folder_name(out_dir)
    config = model.config
    tokenizer = model_tokenizer(model) if tokenizer is None else tokenizer
    if tokenizer.max_characters_per_token != config.max_characters_per_token:
        raise ValueError(
            f"the tokenizer makes {tokenizer.max_characters_per_token} char ids a token but the model reads "
            f"{config.max_characters_per_token}; pass the model's own tokenizer"
        )
    graph = ElmoInferenceGraph(model).to(device="cpu", dtype=getattr(torch, dtype)).eval()  # copies the weights
    example = batch_to_ids([["Export", "me"], ["ok"]], config.max_characters_per_token)
    dynamic = ({0: torch.export.Dim("batch", min=1), 1: torch.export.Dim("tokens", min=1)},)

    expected_bytes = sum(t.numel() * t.element_size() for t in graph.state_dict().values())  # the graph's weights
    # a write refused past ulimit -f aborts torch.export.save's writer (terminate called ...): refused first
    check_file_size_limit(expected_bytes, f"the {format} graph {FORMATS[format]} of {out_dir}")
    with build_aside(
        out_dir, overwrite=overwrite, inputs=inputs, expected_bytes=expected_bytes, kind="export"
    ) as staging:
        with torch.no_grad(), _quiet_exporter():
            if format == "onnx":
                torch.onnx.export(
                    graph,
                    (example,),
                    str(staging / FORMATS[format]),
                    dynamo=True,
                    dynamic_shapes=dynamic,
                    input_names=[INPUT_NAME],
                    output_names=list(OUTPUT_NAMES),
                    external_data=False,
                    verbose=False,
                )
            else:
                program = torch.export.export(graph, (example,), dynamic_shapes=dynamic)
                torch.export.save(program, staging / FORMATS[format])
        tokenizer.save_pretrained(staging)
        manifest = {
            "format": format,
            "file": FORMATS[format],
            "dtype": dtype,
            "input": INPUT_NAME,
            "outputs": list(OUTPUT_NAMES),
            "max_characters_per_token": config.max_characters_per_token,
            "num_layers": config.n_layers + 1,
            "output_dim": 2 * config.projection_dim,
        }
        write_text_atomic(staging / MANIFEST, strict_json(manifest, indent=2) + "\n")
        error = _check_graph(model, _open_for_check(staging, format), format, dtype)  # before it replaces out_dir
        manifest[PARITY_KEY] = error  # null where not finite (strict_json)
        write_text_atomic(staging / MANIFEST, strict_json(manifest, indent=2) + "\n")
    return out_dir


def export_dtype(format: str, dtype: str | torch.dtype) -> str:
    """The name of ``dtype`` (``devices.resolve_dtype``), as ``elmo_export.json`` records it, after a
    one-line ``ValueError`` where ``format`` is not one of ``FORMATS`` or cannot use ``dtype``
    (``DTYPES``): ``elmo export`` checks its options here before it loads the model."""
    if format not in FORMATS:
        raise ValueError(f"unknown export format {format!r}; use one of {', '.join(FORMATS)}")
    name = str(resolve_dtype(dtype)).removeprefix("torch.")
    if name not in DTYPES[format]:
        raise ValueError(f"format {format} cannot use dtype {name}; use one of {', '.join(DTYPES[format])}")
    return name


def _open_for_check(folder: Path, format: str) -> ExportedElmo:
    """The wrapper that ``export_model``'s check runs the written graph with: an ONNX Runtime session on
    torch's CPU thread count (what ``elmo export --threads`` sets), not ONNX Runtime's default of every core."""
    if format != "onnx":
        return open_exported(folder)
    options = onnx_runtime().SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    return OnnxElmo(folder, session_options=options)


def _check_graph(model: ElmoModel, exported: ExportedElmo, format: str, dtype: str) -> float:
    """The one run of the written graph ``exported`` on ``PROBE_SENTENCES`` that ``export_model`` makes:
    its max abs difference from ``model``'s eager layers, after refusing it when it
    gives infinite or NaN layers where ``model``'s are finite (its ``dtype`` cannot hold the model's values)."""
    actual, expected = _probe_layers(model, exported, PROBE_SENTENCES)
    if bool(actual.isfinite().all()) or not bool(expected.isfinite().all()):
        return float((actual - expected).abs().max())
    others = [d for d in DTYPES[format] if d != dtype and torch.finfo(getattr(torch, d)).max > expected.abs().max()]
    raise ValueError(
        f"the {dtype} graph gives infinite or NaN layers on a test batch where the model's are finite (up to "
        f"{float(expected.abs().max()):.3g}): {dtype} overflows beyond {torch.finfo(getattr(torch, dtype)).max:.6g}; "
        f"export in {' or '.join(others)}"
    )


def require_export_packages(format: str) -> None:
    """Raise a one-line ``ImportError`` naming the extra to install when a package that exporting to
    ``format`` needs (``PACKAGES``) cannot be imported: before the model is exported, and before
    anything is written."""
    for name in PACKAGES[format]:
        try:
            importlib.import_module(name)
        except ImportError:
            raise ImportError(
                f"the ONNX export needs {', '.join(PACKAGES[format][:-1])} and {PACKAGES[format][-1]}, and {name} "
                'cannot be imported: pip install "hf-elmo[export]", or export with --format torch-export'
            ) from None


@contextlib.contextmanager
def _quiet_exporter() -> Iterator[None]:
    """Silence the exporters' notes that concern no ELMo graph (torchvision's absent operators, a
    pytree deprecation) while exporting."""
    with quiet_logger("torch.onnx._internal.exporter._registration"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
        yield


def check_char_ids(char_ids: Any, width: int) -> np.ndarray:
    """``char_ids`` as an int64 array (B, T, width), or a one-line ``ValueError`` naming the problem.

    Checks: an array, tensor or nested list (a ``TypeError`` for anything else) of one shape, 3
    dimensions with ``width`` ids per token, at least one row and one token, an integer dtype, ids
    in [0, N_CHAR_IDS), and in each row the padding tokens (all zero) only after its real tokens.
    """
    if isinstance(char_ids, torch.Tensor):
        ids = char_ids.detach().cpu().numpy()
    elif isinstance(char_ids, (np.ndarray, list, tuple)):
        try:
            ids = np.asarray(char_ids)
        except ValueError:  # numpy's "inhomogeneous shape"
            raise ValueError(
                f"char_ids must have shape (batch, tokens, {width}), but its rows or tokens differ in length; "
                "make them with the tokenizer, which pads them"
            ) from None
    else:
        raise TypeError(
            f"char_ids must be an integer array or tensor (batch, tokens, {width}), not {described(char_ids)}; "
            "make them with the tokenizer"
        )
    if ids.ndim != 3 or ids.shape[-1] != width:
        raise ValueError(f"char_ids must have shape (batch, tokens, {width}), got {tuple(ids.shape)}")
    if ids.shape[0] == 0 or ids.shape[1] == 0:
        raise ValueError(f"char_ids of shape {tuple(ids.shape)} is empty: it needs at least one row and one token")
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"char_ids must be integers (int64), got {ids.dtype}; make them with the tokenizer")
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= N_CHAR_IDS:
        bad = low if low < 0 else high
        raise ValueError(f"char_ids must lie in [0, {N_CHAR_IDS - 1}], found {bad}; make them with the tokenizer")
    real = np.any(ids > 0, axis=-1)  # (B, T)
    gaps = real[:, 1:] & ~real[:, :-1]  # a real token right after a padding one
    if gaps.any():
        row, col = (int(i[0]) for i in np.nonzero(gaps))
        raise ValueError(
            f"char_ids row {row}: token {col + 1} follows a padding token (all zeros); put each row's tokens "
            "first, then padding"
        )
    return ids.astype(np.int64, copy=False)


class ExportedElmo:
    """What both wrappers share: the folder's settings, its tokenizer and the input checks."""

    format = ""

    def __init__(self, folder: PathLike) -> None:
        self.manifest: dict[str, Any] = read_manifest(folder)
        self.folder = Path(folder).expanduser()
        if self.manifest["format"] != self.format:
            wrapper = WRAPPERS[self.manifest["format"]].__name__
            raise ValueError(
                f"{self.folder} holds {GRAPH_FILES[self.manifest['format']][0]} ({self.manifest['file']}), which "
                f"{type(self).__name__} does not run; open it with {wrapper} or open_exported()"
            )
        self.width: int = self.manifest["max_characters_per_token"]
        for name in (self.manifest["file"], TOKENIZER_CONFIG):
            path = self.folder / name
            if path.is_dir():
                raise damaged_export(self.folder, f"{path} is a folder, not a file")
            if not path.is_file():
                raise damaged_export(self.folder, f"{path} not found")
        #: The model's tokenizer, saved in the folder: how raw text is split, and the words' char ids.
        try:
            self.tokenizer = ElmoTokenizer.from_pretrained(self.folder)
        except ValueError as error:  # its settings damaged or edited: the export's remedy, not save_pretrained's
            said, settings = str(error).removesuffix(RESTORE_SETTINGS), self.folder / TOKENIZER_CONFIG
            raise damaged_export(self.folder, said if str(settings) in said else f"{settings}: {said}") from None
        if self.tokenizer.max_characters_per_token != self.width:  # its char ids would not fit the graph
            raise damaged_export(
                self.folder,
                f"{self.folder / TOKENIZER_CONFIG} does not fit {self.folder / MANIFEST}: max_characters_per_token is "
                f"{self.tokenizer.max_characters_per_token} there, {self.width} in the manifest",
            )
        self.max_token_chars = self.tokenizer.max_token_chars

    def _load_graph(self, load: Callable[[str], GraphT]) -> GraphT:
        """``load(path)`` of the folder's graph file, whose failure is an ``InvalidModelError`` naming it."""
        path = self.folder / self.manifest["file"]
        try:
            return load(str(path))
        except Exception as error:  # the runtimes' own errors for a file they cannot parse differ by kind and version
            expected = GRAPH_FILES[self.format]
            kind = file_kind(path)
            if kind != expected[1]:  # another kind of file: say which, not the runtime's parse error
                raise damaged_export(self.folder, f"{path} is {kind}, not {expected[0]}") from None
            raise damaged_export(self.folder, f"{path} cannot be read as {expected[0]} ({first_line(error)})") from None

    def _check_graph_fits(self, graph: dict[str, Any]) -> None:
        """Refuse a graph whose signature (``graph``: its input name, char ids per token, dtype and
        layers; ``None`` where the format does not say) is not the one the manifest records: another
        model's graph, or an edited manifest."""
        wrong = [
            f"{key} is {value} there, {self.manifest[key]} in the manifest"
            for key, value in graph.items()
            if value is not None and value != self.manifest[key]
        ]
        if wrong:
            path = self.folder / self.manifest["file"]
            raise damaged_export(self.folder, f"{path} does not fit {self.folder / MANIFEST}: {'; '.join(wrong)}")

    def char_ids(self, sentences: Sequence[Sequence[str]]) -> torch.Tensor:
        """Char ids (B, T, W) of tokenised sentences (a list of word lists), made by the folder's
        tokenizer: each word one non-empty string without whitespace, each sentence one word or more."""
        batch = self._batch(sentences)
        if any(isinstance(sentence, str) for sentence in batch):  # raw text (one str is a batch of it)
            raise TypeError(
                "char_ids takes tokenised sentences, a list of word lists such as [['Hello', 'world']]; "
                "call the wrapper itself on raw text: elmo(['Hello world.'])"
            )
        words = [words_of(sentence, f"sentence {row} of the batch") for row, sentence in enumerate(batch)]
        for row, sentence_words in enumerate(words):
            check_split_words(sentence_words, f"sentence {row}")
        return self._encode(words, is_split_into_words=True)

    def __call__(self, sentences: str | Sequence[str] | Sequence[Sequence[str]]) -> tuple[Any, Any]:
        """Layers (B, L+1, T, 2P) and mask (B, T) of raw text (a str or a list of str, split into
        words by the folder's tokenizer, as the model's training text was) or of tokenised
        sentences (lists of words)."""
        batch = self._batch(sentences)
        texts = {isinstance(sentence, str) for sentence in batch}
        if texts == {True, False}:
            raise TypeError("pass a batch of raw texts (str) or of tokenised sentences (lists of words), not both")
        if texts == {True}:
            return self.run(self._encode(batch, is_split_into_words=False))
        return self.run(self.char_ids(batch))

    def _batch(self, sentences: Any) -> list[Any]:
        """The sentences of ``sentences`` (one str, or any iterable of sentences) as a list, after a
        one-line ``TypeError`` where it is char ids (which ``run`` takes) or no batch of sentences."""
        if isinstance(sentences, str):
            return [sentences]
        if isinstance(sentences, torch.Tensor) or (isinstance(sentences, np.ndarray) and sentences.dtype.kind != "U"):
            raise TypeError(
                f"the wrapper takes {TAKES}, not an array ({type(sentences).__name__} of {sentences.dtype}); pass char ids "
                f"(batch, tokens, {self.width}) to its run()"
            )
        if isinstance(sentences, (bytes, bytearray)) or not isinstance(sentences, Iterable):
            raise TypeError(f"the wrapper takes {TAKES}, not {described(sentences)}")
        return list(sentences)

    def _encode(self, text: str | Sequence[str] | Sequence[Sequence[str]], is_split_into_words: bool) -> torch.Tensor:
        """Char ids (B, T, W) of ``text`` by the folder's tokenizer; an empty batch or sentence is an error."""
        if not isinstance(text, str) and len(text) == 0:
            raise ValueError("empty batch: pass at least one sentence")
        try:
            encoding = self.tokenizer(
                text, is_split_into_words=is_split_into_words, padding=True, return_tensors="pt", return_length=True
            )
        except ValueError as error:  # a token too long: the folder's limit, which no argument of the wrapper lifts
            if not str(error).endswith(TOO_LONG_REMEDY):
                raise
            remedy = (
                "Split it, or export the model again with --max-token-chars none to truncate it as the original does"
            )
            raise ValueError(str(error).removesuffix(TOO_LONG_REMEDY) + remedy) from None
        for row, length in enumerate(encoding["length"].tolist()):
            if length == 0:
                raise ValueError(f"sentence {row} of the batch is empty: it has no words to embed")
        return encoding["input_ids"]

    def run(self, char_ids: Any) -> tuple[Any, Any]:
        """Layers (B, L+1, T, 2P) and mask (B, T) of char ids (B, T, W), checked first."""
        return self._run(check_char_ids(char_ids, self.width))

    def _run(self, char_ids: np.ndarray) -> tuple[Any, Any]:
        raise NotImplementedError


class OnnxElmo(ExportedElmo):
    """An ONNX export run with ONNX Runtime; returns numpy arrays (layers in the export's dtype)."""

    format = "onnx"

    def __init__(
        self, folder: PathLike, providers: Sequence[Any] = ("CPUExecutionProvider",), session_options: Any = None
    ) -> None:
        """``providers``: ONNX Runtime's execution providers, in order of preference, each a name or a
        (name, options dict) pair; ``session_options``: an ``onnxruntime.SessionOptions`` or None. Both
        are checked before the folder is read (``session_arguments``)."""
        providers = session_arguments(providers, session_options)
        super().__init__(folder)
        self.session = self._start_session(onnx_runtime(), providers, session_options)
        (char_ids,), (layers, *_) = self.session.get_inputs(), self.session.get_outputs()
        dims = [dim if isinstance(dim, int) else None for dim in layers.shape]  # batch and tokens: names
        self._check_graph_fits(
            {
                "input": char_ids.name,
                "max_characters_per_token": char_ids.shape[-1],
                "dtype": ONNX_DTYPES.get(layers.type, layers.type),
                "num_layers": dims[1],
                "output_dim": dims[-1],
            }
        )

    def _start_session(self, runtime: Any, providers: list[Any], session_options: Any) -> Any:
        """ONNX Runtime's session of the folder's graph on ``providers`` with ``session_options``. Where it
        fails, the graph is loaded again on the CPU provider with default options: a file that fails that
        too is damaged (``_load_graph`` says how), else the failure is of the providers or the options, a
        one-line ``RuntimeError`` naming them (``provider_failure``); so is a session that runs on none
        of ``providers`` (ONNX Runtime falls back to the CPU where a provider fails to start, saying so on
        stdout only)."""
        path = self.folder / self.manifest["file"]
        said = io.StringIO()  # ONNX Runtime prints its fallback ("EP Error ...") there
        try:
            with contextlib.redirect_stdout(said):
                session = runtime.InferenceSession(str(path), sess_options=session_options, providers=providers)
        except Exception as error:
            self._load_graph(lambda graph: runtime.InferenceSession(graph, providers=["CPUExecutionProvider"]))
            raise provider_failure(path, providers, session_options, first_line(error)) from None
        names = provider_names(providers)
        if not set(names) & set(session.get_providers()):
            fallback = [line for line in said.getvalue().splitlines() if line.startswith("EP Error")]
            reason = fallback[0] if fallback else f"it runs on {', '.join(session.get_providers())} instead"
            raise provider_failure(path, providers, session_options, reason)
        return session

    def _run(self, char_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        layers, mask = self.session.run(list(OUTPUT_NAMES), {INPUT_NAME: char_ids})
        return layers, mask


def provider_names(providers: Sequence[Any]) -> list[str]:
    """The names of ``providers`` as ``session_arguments`` takes them (names or (name, options) pairs)."""
    return [entry[0] if isinstance(entry, tuple) else entry for entry in providers]


def provider_failure(path: Path, providers: Sequence[Any], session_options: Any, reason: str) -> RuntimeError:
    """The one-line error for an ONNX graph ``path`` that loads on ONNX Runtime's CPU provider with its
    default options but not on ``providers`` with ``session_options``: ``reason`` (ONNX Runtime's), and
    what to check (not the file: ``damaged_export`` is for a file that does not load)."""
    given, check = f"the providers {', '.join(provider_names(providers))}", ""
    if session_options is not None:
        given, check = f"{given} with the session_options given", "the session_options, and "
    return RuntimeError(
        f"ONNX Runtime cannot run {path} on {given} ({reason}); the file is sound (it loads on "
        f"CPUExecutionProvider with default options): check {check}that these providers work in this install (for "
        "CUDAExecutionProvider: onnxruntime-gpu with its CUDA and cuDNN, and a GPU) and their options, or leave "
        "both out to run on the CPU"
    )


def onnx_runtime() -> Any:
    """The ``onnxruntime`` module, its telemetry off (``disable_telemetry_events``: ONNX Runtime sends usage
    events to Microsoft where a session starts, on Windows builds), or a one-line ``ImportError`` naming
    what to install where it cannot be imported. Every session of ours (``elmo export``'s check,
    ``OnnxElmo``) starts with the module it gives."""
    try:
        runtime = importlib.import_module("onnxruntime")
    except ImportError:
        raise ImportError(
            'an ONNX export runs with onnxruntime, which cannot be imported: pip install "hf-elmo[export]" (or '
            "onnxruntime-gpu for CUDA)"
        ) from None
    runtime.disable_telemetry_events()
    return runtime


def session_arguments(providers: Any, session_options: Any) -> list[Any]:
    """``providers`` as the list ``onnxruntime.InferenceSession`` takes, after a one-line ``ValueError``
    (``TypeError`` for a wrong type) where it is not a non-empty list of provider names or (name,
    options dict) pairs, names one that ONNX Runtime does not know, or none that this install has
    (ONNX Runtime would run on the CPU instead, saying so on stdout), or ``session_options`` is not an
    ``onnxruntime.SessionOptions`` or None."""
    onnxruntime = onnx_runtime()
    available = onnxruntime.get_available_providers()
    example = "such as ['CPUExecutionProvider']"
    if isinstance(providers, str):
        raise TypeError(f"providers takes a list of ONNX Runtime execution providers, not one name: [{providers!r}]")
    if not isinstance(providers, (list, tuple)):
        raise TypeError(
            f"providers takes a list of ONNX Runtime execution providers {example}, not {described(providers)}"
        )
    if not providers:
        raise ValueError(f"providers is empty; name at least one ONNX Runtime execution provider, {example}")
    names = []
    for entry in providers:
        pair = isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], dict)
        name = entry[0] if pair else entry
        if not isinstance(name, str):
            raise TypeError(
                f"providers holds {entry!r}; each is an ONNX Runtime execution provider's name, such as "
                "'CPUExecutionProvider', or a (name, options dict) pair"
            )
        if name not in onnxruntime.get_all_providers():
            raise ValueError(
                f"{name!r} is not an ONNX Runtime execution provider; this install has {', '.join(available)}"
            )
        names.append(name)
    if not set(names) & set(available):
        raise ValueError(
            f"this ONNX Runtime install has none of the providers {', '.join(names)} (it has {', '.join(available)}); "
            "install the onnxruntime package built for them (onnxruntime-gpu for CUDA), or add 'CPUExecutionProvider'"
        )
    if session_options is not None and not isinstance(session_options, onnxruntime.SessionOptions):
        raise TypeError(
            f"session_options takes an onnxruntime.SessionOptions (or leave it out), not {described(session_options)}"
        )
    return list(providers)


class TorchExportElmo(ExportedElmo):
    """A ``torch.export`` program (``.pt2``, exported on the CPU) run in torch; returns CPU tensors."""

    format = "torch-export"

    def __init__(self, folder: PathLike) -> None:
        super().__init__(folder)
        with quiet_logger("torch.export"):  # which logs a traceback before raising on a file it cannot read
            self.program = self._load_graph(torch.export.load)
        (char_ids,) = [node for node in self.program.graph.nodes if node.op == "placeholder"][-1:]
        layers = next(node for node in self.program.graph.nodes if node.op == "output").args[0][0].meta["val"]
        self._check_graph_fits(
            {
                "input": self.program.graph_signature.user_inputs[0],
                "max_characters_per_token": char_ids.meta["val"].shape[-1],
                "dtype": str(layers.dtype).removeprefix("torch."),
                "num_layers": layers.shape[1],
                "output_dim": layers.shape[-1],
            }
        )
        self.module = self.program.module()

    def _run(self, char_ids: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        with torch.no_grad():
            return self.module(torch.from_numpy(char_ids))


#: Export format -> the wrapper that runs it (``open_exported``).
WRAPPERS: dict[str, type[ExportedElmo]] = {"onnx": OnnxElmo, "torch-export": TorchExportElmo}

#: Sentences that ``export_model``'s check runs (``_check_graph``): a padded batch of 1 to 12
#: tokens, tokens of 1 to 60 characters (past the 48 bytes ELMo reads), non-ASCII text.
PROBE_SENTENCES = [
    ["The", "exported", "graph", "must", "match", "the", "model", "."],
    ["ELMo"],
    ["Größe", "naïve", "日本語", "🙂", "x" * 60, "a"] * 2,
]


def _probe_layers(
    model: ElmoModel, exported: ExportedElmo, sentences: Sequence[Sequence[str]]
) -> tuple[torch.Tensor, torch.Tensor]:
    """The layers of ``exported`` and of ``model`` (``export_reference``) on ``sentences``, both float32
    on the CPU; their words cut to the ``max_token_chars`` of ``exported``'s tokenizer, which refuses
    longer ones."""
    limit = exported.max_token_chars
    if limit is not None:
        sentences = [[word[:limit] for word in sentence] for sentence in sentences]
    ids = exported.char_ids(sentences)
    layers, _ = exported.run(ids)
    actual = torch.from_numpy(layers) if isinstance(layers, np.ndarray) else layers
    return actual.float().cpu(), export_reference(model, ids)


def export_reference(model: ElmoModel, char_ids: torch.Tensor) -> torch.Tensor:
    """What the exported graph computes, from eager ``ElmoModel``: layers (B, L+1, T, 2P) float32, CPU;
    in eval mode (no dropout, as the graph has none), ``model``'s mode restored after."""
    param = next(model.parameters())
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            output = model(input_ids=char_ids.to(param.device), stateful=False)
    finally:
        model.train(training)
    return torch.stack(output.hidden_states, dim=1).float().cpu()


def read_manifest(folder: PathLike) -> dict[str, Any]:
    """The ``elmo_export.json`` of an ``elmo export`` folder, checked: ``FileNotFoundError`` where it
    has none (naming what ``folder`` is instead: missing, a file such as the folder's graph, or a model
    to export first); ``InvalidModelError`` (``damaged_export``) where it is not JSON, or a field the
    wrappers read is missing or is not what ``export_model`` writes (``manifest_problems``); a
    ``TypeError`` where ``folder`` is no path."""
    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"pass the folder that elmo export wrote (a str or Path), not {described(folder)}")
    folder = Path(folder).expanduser()  # "~/out" quoted, as models are read
    path = folder / MANIFEST
    if not path.is_file():
        where = Path(folder)
        if where.is_file() and (where.parent / MANIFEST).is_file():
            problem = f"{folder} is a file of the export in {where.parent}; pass that folder"
        elif where.is_file():
            problem = f"{folder} is a file, not a folder written by `elmo export`"
        elif output_kind(where) == "model":
            problem = (
                f"{folder} is an ELMo model, not an export of one; export it first: elmo export {folder} OUTPUT_DIR"
            )
        elif not where.exists():
            problem = f"{folder} not found: pass a folder written by `elmo export`"
        else:
            problem = f"{path} not found: {folder} is not a folder written by `elmo export`"
        raise FileNotFoundError(problem)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise damaged_export(folder, f"{path} is not JSON ({error})") from None
    if not isinstance(manifest, dict):
        raise damaged_export(folder, f"{path} holds {described(manifest)}, not a JSON object")
    problems = manifest_problems(manifest)
    if problems:
        raise damaged_export(folder, f"{path}: {'; '.join(problems)}")
    return manifest


def manifest_problems(manifest: dict[str, Any]) -> list[str]:
    """What is wrong with the fields of ``manifest`` that the wrappers read, one phrase each (none
    for what ``export_model`` writes): format, file, dtype, input and outputs as it writes them for
    the format, and the sizes positive integers."""
    format = manifest.get("format")
    if not isinstance(format, str) or format not in FORMATS:
        return [f"format is {described(format)}, not one of {', '.join(map(repr, FORMATS))}"]
    expected = {"file": FORMATS[format], "input": INPUT_NAME, "outputs": list(OUTPUT_NAMES)}
    problems = [
        f"{key} is missing" if key not in manifest else f"{key} is {described(manifest[key])}, not {value!r}"
        for key, value in expected.items()
        if manifest.get(key) != value
    ]
    if manifest.get("dtype") not in DTYPES[format]:
        problems.append(
            f"dtype is {described(manifest.get('dtype'))}, not one of {', '.join(map(repr, DTYPES[format]))}"
        )
    for key in ("max_characters_per_token", "num_layers", "output_dim"):
        value = manifest.get(key)
        if key not in manifest:
            problems.append(f"{key} is missing")
        elif type(value) is not int or value < 1:
            problems.append(f"{key} is {described(value)}, not a positive integer")
    return problems


def file_kind(path: PathLike) -> str:
    """What ``path`` holds by its first bytes: ``EMPTY``, ``ZIP``, ``TEXT`` (printable ASCII or
    whitespace only) or ``BINARY`` (anything else, such as an ONNX model's protobuf)."""
    with open(path, "rb") as file:
        head = file.read(512)
    if not head:
        return EMPTY
    if head.startswith(b"PK\x03\x04"):
        return ZIP
    return TEXT if all(32 <= byte < 127 or byte in b"\t\n\r" for byte in head) else BINARY


def damaged_export(folder: PathLike, problem: str) -> InvalidModelError:
    """The one-line error for an ``elmo export`` folder that cannot be served as written: ``problem``
    (a file missing, unreadable, edited or from another export) and the remedy."""
    return InvalidModelError(f"{problem}; export the model again: elmo export MODEL {folder} --overwrite")


def open_exported(folder: PathLike) -> ExportedElmo:
    """The wrapper (``OnnxElmo`` or ``TorchExportElmo``) for an ``elmo export`` folder (its manifest,
    tokenizer and graph checked: ``read_manifest``, ``ExportedElmo``)."""
    return WRAPPERS[read_manifest(folder)["format"]](folder)
