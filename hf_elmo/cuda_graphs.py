"""Stateless ELMo inference with the biLM replayed from CUDA graphs, one per (batch, steps) bucket.

On a GPU, ``ElmoModel``'s biLM is bound by the host: about a hundred sequential steps, each a few
small kernels launched from Python. ``GraphedElmo`` launches the whole biLM as one graph:

    input_ids (B, T, W) --add <S>/</S>--> (B, S = T+2, W)
      -> the model's own ``token_embeddings`` (its char CNN and token cache), eagerly: (B, S, P)
      -> padded with zeros to the bucket (B', S') = (``batch_bucket(B)``, ``step_bucket(S)``);
         the (B', S') mask of real steps is False on the added rows and steps
      -> ``masked_bilm`` (static shapes, no host sync): on CUDA one ``torch.cuda.CUDAGraph``
         per bucket, captured on the bucket's first batch and replayed from then on; elsewhere
         the same function runs eagerly
      -> hidden_states L+1 (B, T, 2P): the bucket's padding cut off, markers removed, zero on padding.

Threads may share one ``GraphedElmo``: each call takes its turn with the graphs (see the class doc).

Padding rows and steps are computed and masked: every row reads its real steps before its
padding in both directions (``masked_bilm``), so the result is what ``ElmoModel.forward`` returns
for a stateless call. A batch whose
steps round up to more than ``MAX_GRAPH_STEPS`` runs through ``ElmoModel.forward`` instead (a
graph holds every step's kernels; a sentence of thousands of tokens would not be worth one).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import torch

from .char_ids import add_sentence_markers
from .elmo_cache import parameter_key
from .elmo_inputs import check_inputs
from .elmo_kernels import stacked_weights
from .masked_bilm import masked_bilm
from .modeling_elmo import ElmoModel, ElmoModelOutput, check_reads_char_ids, check_runs_as_built

if TYPE_CHECKING:
    from torch.cuda.graphs import _POOL_HANDLE

#: Batch buckets are the powers of two up to this, then its multiples.
MAX_BATCH_BUCKET = 256
#: Steps (tokens + 2 markers) are rounded up to a multiple of this.
STEP_MULTIPLE = 16
#: Longer batches (steps after rounding) run through the model itself: a graph unrolls every step.
MAX_GRAPH_STEPS = 512
#: Eager runs on a side stream before a capture (lazy initialisation, e.g. cuBLAS workspaces).
WARMUP_RUNS = 3


def batch_bucket(rows: int) -> int:
    """The padded batch size for ``rows`` sentences: 1, 2, 4, ... ``MAX_BATCH_BUCKET``, then its multiples."""
    if rows < 1:
        raise ValueError(f"a batch needs at least one row, got {rows}")
    if rows > MAX_BATCH_BUCKET:
        return -(-rows // MAX_BATCH_BUCKET) * MAX_BATCH_BUCKET
    return 1 << (rows - 1).bit_length()


def step_bucket(steps: int) -> int:
    """The padded number of biLM steps for ``steps`` (tokens + 2): the next multiple of ``STEP_MULTIPLE``."""
    if steps < 1:
        raise ValueError(f"a batch needs at least one step, got {steps}")
    return -(-steps // STEP_MULTIPLE) * STEP_MULTIPLE


@dataclass
class _CapturedBiLm:
    """One bucket's graph and the static buffers it reads and writes."""

    graph: torch.cuda.CUDAGraph
    tokens: torch.Tensor  # (B', S', P) input
    real: torch.Tensor  # (B', S') input
    layers: torch.Tensor  # (L+1, B', S', 2P) output, overwritten by every replay


class GraphedElmo:
    """``ElmoModel``'s stateless inference with the biLM as one CUDA graph per bucket (see the module doc).

    ``GraphedElmo(model)(input_ids, attention_mask=None)`` takes what ``ElmoModel.forward`` takes
    and returns what it returns for ``stateful=False``: an ``ElmoModelOutput`` with
    ``hidden_states`` L+1 tensors (B, T, 2P) (markers removed, zero on padding),
    ``last_hidden_state`` and ``attention_mask`` (B, T) bool. It runs under ``torch.inference_mode``; the
    outputs are inference tensors.

    The LSTM weights (in ``stacked_weights``' layout) and the initial state are copied from the
    model into buffers that every captured graph reads at fixed addresses, and copied again into
    the same buffers at a call after they changed (an optimizer step, ``load_state_dict``,
    ``warm_up``, an edit in place: ``elmo_cache.parameter_key``), so the graphs follow the model.
    A model moved to another device or dtype since it was wrapped is refused in one line (the
    graphs were captured for the old one): wrap it again. Refused in one line too: a biLM with hooks or replaced layers (see
    ``runs_as_built``: the model's own forward applies them, the weights alone do not), and a call
    while the model is in training mode with dropout (a batch beyond ``MAX_GRAPH_STEPS``, which runs
    through the model, would get it; the graphs never do). Each bucket's graph is captured on its first batch (a few eager
    runs, then the capture) and kept; all graphs share one memory pool, which is safe because
    they run one at a time and each replay's output is copied out before the next.

    Threads may share it: each call takes its turn (``_turn``: a lock, and on CUDA its stream waits
    for the previous turn's kernels, so threads on streams of their own take turns on the GPU too)
    from the bucket's lookup or capture until its outputs are copied out of the bucket's buffer,
    which the next replay overwrites. The char CNN and token cache run before, outside it, so
    threads on streams of their own need the token cache off (``model.token_cache.max_types = 0``:
    its table is ordered by its lock, not across streams; README, Threads); a capture lets the
    other threads' CUDA work go on (``capture_error_mode="thread_local"``).
    """

    def __init__(self, model: ElmoModel) -> None:
        check_reads_char_ids(model, "GraphedElmo")
        reads = "GraphedElmo replays the biLM from its LSTM weights alone"
        check_runs_as_built(model, reads, ["bilm"], "run the model itself")
        self.model = model
        config = model.config
        self.weights, self.warm_h, self.warm_c = self._model_weights()  # (2, L, P), (2, L, C) the latter two
        self._weights_key = self._model_weights_key()
        self.cell_clip: float | None = config.cell_clip
        self.proj_clip: float | None = config.proj_clip
        self.use_skip_connections = config.use_skip_connections
        self._graphs: dict[tuple[int, int], _CapturedBiLm] = {}
        self._pool: _POOL_HANDLE | None = None
        self._lock = threading.Lock()
        # on CUDA, recorded on a turn's stream after its outputs are copied out (see ``_turn``)
        self._turn_done = torch.cuda.Event() if self.warm_h.device.type == "cuda" else None

    @property
    def buckets(self) -> list[tuple[int, int]]:
        """The (batch, steps) buckets captured so far."""
        with self._lock:
            return sorted(self._graphs)

    def __call__(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> ElmoModelOutput:
        model = self.model
        dropout = model.bilm.dropout.p
        if model.training and dropout > 0:
            raise ValueError(
                f"GraphedElmo runs inference, without dropout, but the model is in training mode, where its biLM's "
                f"dropout (p={dropout}) applies: call model.eval() first"
            )
        input_ids, mask = check_inputs(input_ids, attention_mask, model.config.max_characters_per_token)
        device = self.warm_h.device
        if (model.warm_h.device, model.warm_h.dtype) != (device, self.warm_h.dtype):
            raise ValueError(
                f"the model moved to {model.warm_h.device} / {model.warm_h.dtype} since GraphedElmo wrapped it on "
                f"{device} / {self.warm_h.dtype}, for which its graphs were captured: wrap it again, GraphedElmo(model)"
            )
        input_ids, mask = input_ids.to(device), mask.to(device)
        batch, steps = mask.shape
        if step_bucket(steps + 2) > MAX_GRAPH_STEPS:
            given = None if attention_mask is None else attention_mask.to(device)
            with torch.inference_mode():
                return cast(ElmoModelOutput, model(input_ids=input_ids, attention_mask=given, stateful=False))
        with torch.inference_mode():
            lengths = mask.sum(dim=1)
            real = torch.arange(steps + 2, device=device) < (lengths + 2).unsqueeze(1)  # (B, S)
            tokens = model.token_embeddings(add_sentence_markers(input_ids, lengths), real)  # (B, S, P)
            padded = tokens.new_zeros(batch_bucket(batch), step_bucket(steps + 2), tokens.shape[-1])
            padded[:batch, : steps + 2] = tokens
            padded_real = real.new_zeros(padded.shape[:2])
            padded_real[:batch, : steps + 2] = real
            with self._turn():
                self._follow_the_model()
                layers = self._bilm(padded, padded_real)  # (L+1, B', S', 2P), the bucket's buffer on CUDA
                keep = mask.unsqueeze(-1).to(layers.dtype)
                hidden_states = tuple(layer[:batch, 1 : steps + 1] * keep for layer in layers.unbind(0))  # copies
        return ElmoModelOutput(
            last_hidden_state=hidden_states[-1],
            hidden_states=hidden_states,
            attention_mask=mask,
        )

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """One call's use of the buckets' graphs and buffers, from the lookup to the copy of its
        outputs: under the lock, and on CUDA ordered on the GPU after the previous turn's kernels
        (the current stream waits for the event that turn recorded on its own stream)."""
        with self._lock:
            if self._turn_done is None:
                yield
                return
            stream = torch.cuda.current_stream(self.warm_h.device)
            stream.wait_event(self._turn_done)
            try:
                yield
            finally:
                self._turn_done.record(stream)

    def _model_weights(self) -> tuple[list[tuple[torch.Tensor, ...]], torch.Tensor, torch.Tensor]:
        """The model's LSTM weights (in ``stacked_weights``' layout: new tensors, one tuple a layer)
        and copies of its initial state; normal tensors even in inference mode, as
        ``_follow_the_model`` copies into them."""
        model = self.model
        with torch.inference_mode(False), torch.no_grad():
            weights = [
                tuple(w.detach().contiguous() for w in stacked_weights(model.bilm.layer_pair(index)))
                for index in range(model.config.n_layers)
            ]
            return weights, model.warm_h.detach().clone(), model.warm_c.detach().clone()

    def _model_weights_key(self) -> tuple[object, ...] | None:
        """``parameter_key`` of what ``_model_weights`` copies (``None``: the model's tensors keep no
        version counter, inference tensors, so the weights are copied again at every call)."""
        model = self.model
        with torch.no_grad():
            return parameter_key([*model.bilm.parameters(), model.warm_h, model.warm_c])

    def _follow_the_model(self) -> None:
        """Copy the model's weights and initial state into the buffers the graphs read, if they
        changed since they were copied. In a ``_turn``."""
        key = self._model_weights_key()
        if key is not None and key == self._weights_key:
            return
        weights, warm_h, warm_c = self._model_weights()
        with torch.no_grad():
            for kept, new in zip(self.weights, weights):
                for k, n in zip(kept, new):
                    k.copy_(n)
            self.warm_h.copy_(warm_h)
            self.warm_c.copy_(warm_c)
        self._weights_key = key

    def static_forward(self, tokens: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        """The token layer (B, S, P) (zero on padding) and the mask of real steps (B, S) -> all
        layers (L+1, B, S, 2P), zero where ``real`` is False; its shapes and kernels do not depend
        on the values (what a graph captures)."""
        lstm_layers = masked_bilm(
            self.weights,
            tokens,
            real,
            self.warm_h,
            self.warm_c,
            self.cell_clip,
            self.proj_clip,
            self.use_skip_connections,
        )
        return torch.stack([torch.cat([tokens, tokens], dim=-1), *lstm_layers])

    def _bilm(self, tokens: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        """``static_forward`` of a bucket-shaped batch: replayed from the bucket's graph on CUDA (its
        output buffer, which the next replay overwrites). In a ``_turn``."""
        if tokens.device.type != "cuda":
            return self.static_forward(tokens, real)
        key = (tokens.shape[0], tokens.shape[1])
        captured = self._graphs.get(key)
        if captured is None:
            captured = self._graphs[key] = self._capture(tokens, real)
        else:
            captured.tokens.copy_(tokens)
            captured.real.copy_(real)
        captured.graph.replay()
        return captured.layers

    def _capture(self, tokens: torch.Tensor, real: torch.Tensor) -> _CapturedBiLm:
        """Capture ``static_forward`` on buffers holding ``tokens`` and ``real`` (warm-up runs on a
        side stream first, as ``torch.cuda.graphs`` asks). Other threads' CUDA work may run meanwhile
        (``thread_local``: the capture restricts this thread's CUDA calls alone, and
        ``static_forward`` makes none that a capture refuses: no host sync)."""
        static_tokens, static_real = tokens.clone(), real.clone()
        side = torch.cuda.Stream(device=tokens.device)
        side.wait_stream(torch.cuda.current_stream(tokens.device))
        with torch.cuda.stream(side):
            for _ in range(WARMUP_RUNS):
                self.static_forward(static_tokens, static_real)
        torch.cuda.current_stream(tokens.device).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self._pool, capture_error_mode="thread_local"):
            layers = self.static_forward(static_tokens, static_real)
        if self._pool is None:
            self._pool = graph.pool()
        return _CapturedBiLm(graph, static_tokens, static_real, layers)
