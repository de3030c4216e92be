"""Configuration of the ELMo character-CNN biLM (Peters et al. 2018)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from transformers import PretrainedConfig

_ACTIVATIONS = ("relu", "tanh")
BILM_IMPLEMENTATIONS = ("fast", "plain", "fused")


class ElmoConfig(PretrainedConfig):
    r"""Shapes and arithmetic options of an ELMo biLM.

    The field names follow the original ``options.json`` (see ``from_allennlp_options``).

    Args:
        char_embedding_dim: width of each character embedding (16 in the released models).
        filters: ``[[width, n_channels], ...]`` of the char CNN; their channels add up to F.
        n_highway: number of highway layers after the char CNN.
        activation: ``"relu"`` or ``"tanh"``, applied after max-pooling each filter.
        n_characters: character vocabulary incl. the padding id 0 (262; 261 in training-time
            files, which lack the padding row and are accepted by the converter).
        max_characters_per_token: character slots per token (50).
        lstm_dim: LSTM cell size C.
        projection_dim: projection size P; every layer outputs 2P (forward ++ backward).
        n_layers: number of LSTM layers L per direction.
        cell_clip: the cell state is clipped to ``[-cell_clip, cell_clip]`` (``None``: no clip).
        proj_clip: the projected hidden state is clipped likewise (``None``: no clip).
        use_skip_connections: residual connection around LSTM layers 1..L-1.
        stateful: default of ``ElmoModel.forward(stateful=...)``: carry LSTM state from one
            call to the next per batch row, as bilm-tf / AllenNLP do. Default ``False``:
            every call starts from the model's initial state (zeros, or the warm state set by
            ``ElmoModel.warm_up``), so a sentence gets the same vectors in any batch.
        dropout: dropout on the input of every LSTM layer in training mode (bilm-tf trains with
            0.1); no effect in eval mode.
        bilm_implementation: ``"fast"`` (default): the char CNN convolves only each token's real
            characters and runs once per distinct token of a batch, and both LSTM directions
            run as one batched recurrence over length-sorted rows that drop out when they end;
            ``"plain"``: the direct step-by-step formulation (every character slot, every
            token slot, one direction at a time), kept as the reference the fast path is
            tested against (equal within 1e-5 in float32); ``"fused"``: each direction's LSTM
            layers run through torch's LSTM kernel (``torch._VF.lstm`` with a projection:
            cuDNN on CUDA, one C++ loop on CPU) over packed sequences, on the same weights
            (gate order and forget bias mapped), for configs without clipping only
            (``cell_clip`` and ``proj_clip`` ``None``: the kernel cannot clip); the char CNN
            is the fast one. Equal to the other paths within 1e-5 in float32. It is what
            makes training fast on a GPU, so ``elmo pretrain`` picks it by itself for
            clip-free models on CUDA (``--bilm-implementation auto``) and saves the model with
            ``"fast"``; it is never chosen silently here, because a config's path must not
            depend on the device it happens to run on. Read at call time.
    """

    model_type = "elmo"

    def __init__(
        self,
        char_embedding_dim: int = 16,
        filters: Optional[Sequence[Sequence[int]]] = None,
        n_highway: int = 1,
        activation: str = "relu",
        n_characters: int = 262,
        max_characters_per_token: int = 50,
        lstm_dim: int = 1024,
        projection_dim: int = 128,
        n_layers: int = 2,
        cell_clip: Optional[float] = 3.0,
        proj_clip: Optional[float] = 3.0,
        use_skip_connections: bool = True,
        stateful: bool = False,
        dropout: float = 0.0,
        bilm_implementation: str = "fast",
        **kwargs: Any,
    ) -> None:
        if filters is None:
            filters = [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]]
        self.char_embedding_dim = int(char_embedding_dim)
        self.filters: List[List[int]] = [[int(w), int(n)] for w, n in filters]
        self.n_highway = int(n_highway)
        self.activation = activation
        self.n_characters = int(n_characters)
        self.max_characters_per_token = int(max_characters_per_token)
        self.lstm_dim = int(lstm_dim)
        self.projection_dim = int(projection_dim)
        self.n_layers = int(n_layers)
        self.cell_clip = None if cell_clip is None else float(cell_clip)
        self.proj_clip = None if proj_clip is None else float(proj_clip)
        self.use_skip_connections = bool(use_skip_connections)
        self.stateful = bool(stateful)
        self.dropout = float(dropout)
        self.bilm_implementation = bilm_implementation
        kwargs.setdefault("hidden_size", 2 * self.projection_dim)
        kwargs.setdefault("num_hidden_layers", self.n_layers)
        super().__init__(**kwargs)
        self._validate()

    @property
    def n_filters(self) -> int:
        """F: the total number of char-CNN channels."""
        return sum(n for _, n in self.filters)

    @property
    def output_dim(self) -> int:
        """2P: the width of every output layer."""
        return 2 * self.projection_dim

    def fused_lstm_unsupported(self) -> Optional[str]:
        """Why ``bilm_implementation="fused"`` cannot run this config (clipping), or ``None``."""
        if self.cell_clip is None and self.proj_clip is None:
            return None
        return (f"ElmoConfig.bilm_implementation='fused' needs cell_clip and proj_clip None (torch's LSTM kernel "
                f"cannot clip), got cell_clip={self.cell_clip}, proj_clip={self.proj_clip}: use 'fast' for a "
                "model that clips")

    def _validate(self) -> None:
        def positive(name: str) -> None:
            value = getattr(self, name)
            if value <= 0:
                raise ValueError(f"ElmoConfig.{name} must be a positive integer, got {value}")

        for name in ("char_embedding_dim", "lstm_dim", "projection_dim", "n_layers",
                     "max_characters_per_token"):
            positive(name)
        if self.n_highway < 0:
            raise ValueError(f"ElmoConfig.n_highway must be >= 0, got {self.n_highway}")
        if self.activation not in _ACTIVATIONS:
            raise ValueError(
                f"ElmoConfig.activation must be one of {_ACTIVATIONS}, got {self.activation!r}"
            )
        if self.n_characters not in (261, 262):
            raise ValueError(
                f"ElmoConfig.n_characters must be 261 or 262 (ELMo's byte ids), got {self.n_characters}"
            )
        if self.max_characters_per_token < 3:
            raise ValueError("ElmoConfig.max_characters_per_token must leave room for the "
                             f"begin/end-of-word ids, got {self.max_characters_per_token}")
        if not self.filters:
            raise ValueError("ElmoConfig.filters must list at least one [width, n_channels] pair")
        for width, channels in self.filters:
            if width <= 0 or channels <= 0:
                raise ValueError(f"ElmoConfig.filters: bad filter [{width}, {channels}]")
            if width > self.max_characters_per_token:
                raise ValueError(
                    f"ElmoConfig.filters: width {width} exceeds max_characters_per_token "
                    f"{self.max_characters_per_token}"
                )
        if self.bilm_implementation not in BILM_IMPLEMENTATIONS:
            raise ValueError(
                f"ElmoConfig.bilm_implementation must be one of {BILM_IMPLEMENTATIONS}, "
                f"got {self.bilm_implementation!r}"
            )
        unsupported = self.fused_lstm_unsupported()
        if self.bilm_implementation == "fused" and unsupported:
            raise ValueError(unsupported)
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"ElmoConfig.dropout must be in [0, 1), got {self.dropout}")
        for name in ("cell_clip", "proj_clip"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"ElmoConfig.{name} must be positive or None, got {value}")

    @classmethod
    def from_allennlp_options(cls, options: Dict[str, Any], **kwargs: Any) -> "ElmoConfig":
        """Build a config from the original ``options.json`` dictionary.

        Extra training-time keys (dropout, n_epochs, ...) are ignored. Missing required keys
        raise a ``ValueError`` that names them.
        """
        try:
            lstm = options["lstm"]
            cnn = options["char_cnn"]
            fields = dict(
                char_embedding_dim=cnn["embedding"]["dim"],
                filters=cnn["filters"],
                n_highway=cnn["n_highway"],
                activation=cnn["activation"],
                n_characters=cnn.get("n_characters", 262),
                max_characters_per_token=cnn["max_characters_per_token"],
                lstm_dim=lstm["dim"],
                projection_dim=lstm["projection_dim"],
                n_layers=lstm["n_layers"],
                cell_clip=lstm.get("cell_clip"),
                proj_clip=lstm.get("proj_clip"),
                use_skip_connections=lstm.get("use_skip_connections", False),
            )
        except (KeyError, TypeError) as err:
            raise ValueError(f"options.json is missing the required key {err}") from None
        fields.update(kwargs)
        return cls(**fields)

    def to_allennlp_options(self) -> Dict[str, Any]:
        """The inverse of ``from_allennlp_options`` (with ``n_characters`` 262)."""
        return {
            "lstm": {
                "dim": self.lstm_dim,
                "projection_dim": self.projection_dim,
                "n_layers": self.n_layers,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "use_skip_connections": self.use_skip_connections,
            },
            "char_cnn": {
                "activation": self.activation,
                "n_highway": self.n_highway,
                "embedding": {"dim": self.char_embedding_dim},
                "filters": [list(f) for f in self.filters],
                "n_characters": 262,
                "max_characters_per_token": self.max_characters_per_token,
            },
        }
