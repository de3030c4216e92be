"""The ELMo character-CNN biLM as a ``transformers`` model.

Data flow (B sentences, T tokens, 50 char ids per token; P projection, C cell, L layers):

    input_ids (B, T, 50) --add <S>/</S>--> (B, T+2, 50)
      -> ElmoCharCNN: char embedding -> convolutions, max-pool, activation -> highway -> projection
      -> token layer (B, T+2, P)
      -> ElmoBiLm: L forward and L backward LSTM-with-projection layers (TF gate order i, j, f, o,
         forget bias +1, cell and projection clipping, residual from layer 1 on)
      -> hidden_states: L+1 tensors (B, T, 2P), boundaries removed, padding zeroed.

This file imports only torch, transformers and its sibling configuration, so that a saved model
folder can carry it for ``trust_remote_code=True``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import torch
from torch import nn
from transformers import PreTrainedModel
from transformers.utils import ModelOutput

from .configuration_elmo import ElmoConfig

#: Rows of the char embedding: padding id 0, then the 261 shifted byte/marker ids.
N_CHAR_IDS = 262
_BOS_CHAR, _EOS_CHAR, _BOW_CHAR, _EOW_CHAR, _PAD_CHAR = 257, 258, 259, 260, 261  # shifted ids
FORGET_BIAS = 1.0


def _sentence_marker(char: int, width: int, device: torch.device) -> torch.Tensor:
    ids = torch.full((width,), _PAD_CHAR, dtype=torch.long, device=device)
    ids[:3] = torch.tensor([_BOW_CHAR, char, _EOW_CHAR], device=device)
    return ids


@dataclass
class ElmoModelOutput(ModelOutput):
    """Output of ``ElmoModel``.

    Args:
        last_hidden_state: (B, T, 2P) the top biLM layer.
        hidden_states: L+1 tensors (B, T, 2P): layer 0 is the token representation doubled,
            layers 1..L concatenate the forward and backward LSTM outputs.
        attention_mask: (B, T) 1 for real tokens; padding positions of every layer are zero.
    """

    last_hidden_state: Optional[torch.Tensor] = None
    hidden_states: Optional[Tuple[torch.Tensor, ...]] = None
    attention_mask: Optional[torch.Tensor] = None


class ElmoHighway(nn.Module):
    """One highway layer: ``y = t * relu(W_T x) + (1 - t) * x`` with gate ``t = sigmoid(W_G x)``."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.transform = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.gate(x))
        return gate * torch.relu(self.transform(x)) + (1.0 - gate) * x


class ElmoCharCNN(nn.Module):
    """Token representation from character ids: (N, 50) ids -> (N, P)."""

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__()
        self.char_embedding = nn.Embedding(N_CHAR_IDS, config.char_embedding_dim, padding_idx=0)
        self.convolutions = nn.ModuleList(
            nn.Conv1d(config.char_embedding_dim, channels, kernel_size=width)
            for width, channels in config.filters
        )
        self.activation = torch.tanh if config.activation == "tanh" else torch.relu
        self.highways = nn.ModuleList(ElmoHighway(config.n_filters) for _ in range(config.n_highway))
        self.projection = nn.Linear(config.n_filters, config.projection_dim)

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        chars = self.char_embedding(char_ids).transpose(1, 2)  # (N, D, 50)
        pooled = [conv(chars).max(dim=-1).values for conv in self.convolutions]
        x = self.activation(torch.cat(pooled, dim=-1))  # (N, F)
        for highway in self.highways:
            x = highway(x)
        return self.projection(x)


class ElmoLstmProjectionLayer(nn.Module):
    """One direction of one biLM layer: an LSTM cell with a projection, TF semantics.

    Weights map to the original ``W_0`` (rows [input; h]) as ``input_linear`` and
    ``state_linear`` (gate blocks i, j, f, o; ``B`` is ``input_linear``'s bias) and ``W_P_0``
    as ``projection``.
    """

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__()
        p, c = config.projection_dim, config.lstm_dim
        self.input_linear = nn.Linear(p, 4 * c)
        self.state_linear = nn.Linear(p, 4 * c, bias=False)
        self.projection = nn.Linear(c, p, bias=False)
        self.cell_clip = config.cell_clip
        self.proj_clip = config.proj_clip

    def forward(
        self, inputs: torch.Tensor, lengths: torch.Tensor, state: Tuple[torch.Tensor, torch.Tensor]
    ) -> Tuple[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]:
        """Run over left-aligned ``inputs`` (B, S, P) with ``lengths`` (B,) from ``state``.

        Returns the outputs (B, S, P), zero beyond each row's length, and the state (h (B, P),
        c (B, C)) at each row's last real step.
        """
        h, c = state
        gates_x = self.input_linear(inputs)  # (B, S, 4C): one GEMM for all steps
        outputs = []
        for t in range(inputs.shape[1]):
            i, j, f, o = (gates_x[:, t] + self.state_linear(h)).chunk(4, dim=-1)
            c_new = torch.sigmoid(f + FORGET_BIAS) * c + torch.sigmoid(i) * torch.tanh(j)
            if self.cell_clip is not None:
                c_new = c_new.clamp(-self.cell_clip, self.cell_clip)
            h_new = self.projection(torch.sigmoid(o) * torch.tanh(c_new))
            if self.proj_clip is not None:
                h_new = h_new.clamp(-self.proj_clip, self.proj_clip)
            active = (lengths > t).unsqueeze(-1)
            h = torch.where(active, h_new, h)
            c = torch.where(active, c_new, c)
            outputs.append(h_new * active)
        return torch.stack(outputs, dim=1), (h, c)


def _reverse_within_lengths(lengths: torch.Tensor, steps: int) -> torch.Tensor:
    """Index (B, S) that reverses each row's first ``lengths[b]`` steps and keeps the rest."""
    positions = torch.arange(steps, device=lengths.device).unsqueeze(0)
    reversed_positions = lengths.unsqueeze(1) - 1 - positions
    return torch.where(positions < lengths.unsqueeze(1), reversed_positions, positions)


class ElmoBiLm(nn.Module):
    """L forward and L backward LSTM-with-projection layers over the token layer."""

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__()
        self.forward_layers = nn.ModuleList(ElmoLstmProjectionLayer(config) for _ in range(config.n_layers))
        self.backward_layers = nn.ModuleList(ElmoLstmProjectionLayer(config) for _ in range(config.n_layers))
        self.use_skip_connections = config.use_skip_connections
        self.dropout = nn.Dropout(config.dropout)

    def forward(
        self, tokens: torch.Tensor, lengths: torch.Tensor, initial_state: "ElmoState"
    ) -> Tuple[List[torch.Tensor], "ElmoState"]:
        """tokens (B, S, P) with sentence markers; returns L tensors (B, S, 2P) and final states."""
        order = _reverse_within_lengths(lengths, tokens.shape[1]).unsqueeze(-1)
        directions = []
        final_h, final_c = [], []
        for d, layers in enumerate((self.forward_layers, self.backward_layers)):
            x = tokens if d == 0 else tokens.gather(1, order.expand_as(tokens))
            outputs, hs, cs = [], [], []
            for layer_index, layer in enumerate(layers):
                state = (initial_state.h[d, layer_index], initial_state.c[d, layer_index])
                out, (h, c) = layer(self.dropout(x), lengths, state)
                if layer_index > 0 and self.use_skip_connections:
                    out = out + x
                outputs.append(out if d == 0 else out.gather(1, order.expand_as(out)))
                hs.append(h)
                cs.append(c)
                x = out
            directions.append(outputs)
            final_h.append(torch.stack(hs))
            final_c.append(torch.stack(cs))
        layers_out = [torch.cat([f, b], dim=-1) for f, b in zip(*directions)]
        return layers_out, ElmoState(torch.stack(final_h), torch.stack(final_c))


@dataclass
class ElmoState:
    """LSTM state of the biLM: ``h`` (2, L, B, P) and ``c`` (2, L, B, C); axis 0 is the direction."""

    h: torch.Tensor
    c: torch.Tensor


class ElmoPreTrainedModel(PreTrainedModel):
    """Weight initialisation and loading conventions shared by the ELMo models."""

    config_class = ElmoConfig
    base_model_prefix = "elmo"
    main_input_name = "input_ids"
    _no_split_modules = ["ElmoLstmProjectionLayer"]

    def _init_weights(self, module: nn.Module) -> None:
        std = 0.05
        if isinstance(module, (nn.Linear, nn.Conv1d)):
            nn.init.uniform_(module.weight, -std, std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.uniform_(module.weight, -1.0, 1.0)
            with torch.no_grad():
                module.weight[module.padding_idx].zero_()
        elif isinstance(module, ElmoModel):
            nn.init.zeros_(module.warm_h)
            nn.init.zeros_(module.warm_c)

    @classmethod
    def from_allennlp(cls, options_path: Union[str, os.PathLike], weights_path: Union[str, os.PathLike]):
        """Convert the original ``options.json`` + ``weights.hdf5`` (needs ``h5py``)."""
        from .convert import load_allennlp

        return load_allennlp(options_path, weights_path, model_class=cls)

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: Union[str, os.PathLike], *args: Any, **kwargs: Any):
        """``PreTrainedModel.from_pretrained``, safetensors only, that also converts on load.

        A local folder or Hub repo holding the original ``options.json`` + ``*.hdf5`` (and no
        ``config.json``) is converted with ``from_allennlp``.
        """
        original = _original_format_folder(pretrained_model_name_or_path, kwargs)
        if original is not None:
            from .convert import find_original_files

            return cls.from_allennlp(*find_original_files(original))
        kwargs.setdefault("use_safetensors", True)
        return super().from_pretrained(pretrained_model_name_or_path, *args, **kwargs)


_HUB_KWARGS = ("cache_dir", "revision", "token", "local_files_only", "force_download")


def _original_format_folder(name: Union[str, os.PathLike], kwargs: Dict[str, Any]) -> Optional[Path]:
    """The local folder of an original-format model (options.json + hdf5), or None."""
    path = Path(name)
    if path.is_dir():
        has_original = (path / "options.json").is_file() and any(path.glob("*.hdf5"))
        return path if has_original and not (path / "config.json").is_file() else None
    from huggingface_hub import hf_hub_download, snapshot_download
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

    hub = {k: kwargs[k] for k in _HUB_KWARGS if k in kwargs}
    try:
        hf_hub_download(str(name), "config.json", **hub)
        return None
    except EntryNotFoundError:  # absent remotely, or not in the offline cache
        pass
    except (HfHubHTTPError, OSError, ValueError):
        return None  # let from_pretrained report the problem
    try:
        folder = Path(snapshot_download(str(name), allow_patterns=["options.json", "*.hdf5"], **hub))
    except (HfHubHTTPError, OSError, ValueError):
        return None
    return folder if (folder / "options.json").is_file() else None


class ElmoModel(ElmoPreTrainedModel):
    """The ELMo biLM: character ids in, L+1 layers of 2P-dimensional token vectors out.

    By default every call starts from the model's initial state (zeros, or the warm state set by
    ``warm_up``), so the same sentence gets the same vectors in any batch. With
    ``stateful=True`` (argument or config) the LSTM state of batch row r carries over to row r of
    the next call, exactly as bilm-tf and AllenNLP do; ``reset_states()`` forgets it.
    """

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__(config)
        self.char_cnn = ElmoCharCNN(config)
        self.bilm = ElmoBiLm(config)
        n, p, c = config.n_layers, config.projection_dim, config.lstm_dim
        # The initial state of every row in stateless calls; zeros until ``warm_up``.
        self.register_buffer("warm_h", torch.zeros(2, n, p))
        self.register_buffer("warm_c", torch.zeros(2, n, c))
        self._carried_state: Optional[ElmoState] = None
        self.post_init()

    # -- state -----------------------------------------------------------------------------
    def reset_states(self) -> None:
        """Forget the state carried by stateful calls; the next one starts from the initial state."""
        self._carried_state = None

    def _initial_state(self, batch_size: int, stateful: bool) -> ElmoState:
        n = self.config.n_layers
        warm = ElmoState(
            self.warm_h.unsqueeze(2).expand(2, n, batch_size, -1),
            self.warm_c.unsqueeze(2).expand(2, n, batch_size, -1),
        )
        carried = self._carried_state if stateful else None
        if carried is None:
            return warm
        kept = min(batch_size, carried.h.shape[2])
        h = torch.cat([carried.h[:, :, :kept], warm.h[:, :, kept:]], dim=2)
        c = torch.cat([carried.c[:, :, :kept], warm.c[:, :, kept:]], dim=2)
        return ElmoState(h, c)

    def _carry(self, final: ElmoState) -> None:
        """Store final states; rows beyond this batch keep what they had (AllenNLP semantics)."""
        old = self._carried_state
        final = ElmoState(final.h.detach(), final.c.detach())
        if old is not None and old.h.shape[2] > final.h.shape[2]:
            n = final.h.shape[2]
            final = ElmoState(torch.cat([final.h, old.h[:, :, n:]], 2), torch.cat([final.c, old.c[:, :, n:]], 2))
        self._carried_state = final

    @torch.no_grad()
    def warm_up(self, sentences: Sequence[Sequence[str]], batch_size: int = 32) -> None:
        """Set a fixed, deterministic initial state from a warm-up text.

        Runs ``sentences`` (token lists, in order) statefully in batches of ``batch_size`` from
        the current initial state, then stores the mean over rows of the final LSTM state as the
        initial state of every later call. The state is saved with the model. Prefer it to zero
        state when vectors should resemble those of a model that has been reading text for a
        while (how ELMo was trained) yet must not depend on the batch or call order.
        """
        from .tokenization_elmo import batch_to_ids

        if len(sentences) == 0:
            raise ValueError("warm_up needs at least one sentence")
        self.reset_states()
        device = self.warm_h.device
        for start in range(0, len(sentences), batch_size):
            ids = batch_to_ids(sentences[start : start + batch_size], self.config.max_characters_per_token)
            self(input_ids=ids.to(device), stateful=True)
        state = self._carried_state
        self.warm_h.copy_(state.h.mean(dim=2))
        self.warm_c.copy_(state.c.mean(dim=2))
        self.reset_states()

    # -- forward ---------------------------------------------------------------------------
    def _with_sentence_markers(
        self, input_ids: torch.Tensor, lengths: torch.Tensor
    ) -> torch.Tensor:
        """(B, T, W) ids -> (B, T+2, W) with ``<S>`` first and ``</S>`` after each row's tokens."""
        batch, steps, width = input_ids.shape
        out = input_ids.new_zeros(batch, steps + 2, width)
        out[:, 1 : steps + 1] = input_ids
        out[:, 0] = _sentence_marker(_BOS_CHAR, width, input_ids.device)
        out[torch.arange(batch, device=input_ids.device), lengths + 1] = _sentence_marker(
            _EOS_CHAR, width, input_ids.device
        )
        return out

    def token_embeddings(self, char_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The char-CNN token layer (B, S, P) for ``char_ids`` (B, S, W), computed for masked-in slots only."""
        out = char_ids.new_zeros(*mask.shape, self.config.projection_dim, dtype=self.dtype)
        out[mask] = self.char_cnn(char_ids[mask])
        return out

    def encode(
        self, char_ids: torch.Tensor, lengths: torch.Tensor, initial_state: Optional[ElmoState] = None
    ) -> Tuple[List[torch.Tensor], ElmoState]:
        """The biLM over char ids that already hold any sentence markers.

        Args:
            char_ids: (B, S, W) left-aligned char ids, ``lengths`` (B,) real steps per row.
            initial_state: state to start from (default: the initial state, zeros or warm).

        Returns:
            L+1 layers (B, S, 2P), zero beyond each row's length, and the final ``ElmoState``
            (forward: after each row's last step; backward: after its first).
        """
        if initial_state is None:
            initial_state = self._initial_state(char_ids.shape[0], stateful=False)
        steps = char_ids.shape[1]
        mask = torch.arange(steps, device=lengths.device) < lengths.unsqueeze(1)
        tokens = self.token_embeddings(char_ids, mask)  # (B, S, P)
        lstm_layers, final = self.bilm(tokens, lengths, initial_state)
        return [torch.cat([tokens, tokens], dim=-1)] + lstm_layers, final

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        stateful: Optional[bool] = None,
        return_dict: Optional[bool] = None,
        **kwargs,
    ) -> ElmoModelOutput:
        """Embed a batch of tokenised sentences.

        Args:
            input_ids: (B, T, max_characters_per_token) char ids of the tokens only (no
                sentence markers), left-aligned, padding tokens all zero.
            attention_mask: (B, T) 1 for real tokens; derived from ``input_ids`` when absent.
            stateful: carry LSTM state per batch row across calls (default ``config.stateful``).
        """
        if input_ids.dim() != 3 or input_ids.shape[-1] != self.config.max_characters_per_token:
            raise ValueError(
                "input_ids must have shape (batch, tokens, "
                f"{self.config.max_characters_per_token}), got {tuple(input_ids.shape)}"
            )
        if input_ids.shape[0] == 0:
            raise ValueError("empty batch: input_ids has no rows")
        if attention_mask is None:
            attention_mask = (input_ids > 0).any(dim=-1)
        mask = attention_mask.bool()
        lengths = mask.sum(dim=1)
        steps = input_ids.shape[1]
        if not torch.equal(mask, torch.arange(steps, device=mask.device) < lengths.unsqueeze(1)):
            raise ValueError("attention_mask must be left-aligned: real tokens first, then padding")
        stateful = self.config.stateful if stateful is None else stateful

        char_ids = self._with_sentence_markers(input_ids.long(), lengths)
        initial = self._initial_state(input_ids.shape[0], stateful)
        layers, final = self.encode(char_ids, lengths + 2, initial)
        if stateful:
            self._carry(final)

        keep = mask.unsqueeze(-1).to(layers[0].dtype)
        hidden_states = tuple(layer[:, 1 : steps + 1] * keep for layer in layers)
        output = ElmoModelOutput(
            last_hidden_state=hidden_states[-1], hidden_states=hidden_states, attention_mask=attention_mask
        )
        return_dict = self.config.return_dict if return_dict is None else return_dict
        return output if return_dict else output.to_tuple()
