"""An independent NumPy ELMo written from ../shared/docs/elmo-format.md.

It reads the original hdf5 layout directly (not through hf_elmo's converter) and computes the
forward pass step by step, one sentence at a time, so it shares no code with ``hf_elmo``.
"""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np


def char_ids(token: str, width: int = 50) -> list[int]:
    if token in ("<S>", "</S>"):  # the literal words are the sentence markers, as in bilm-tf
        return marker(256 if token == "<S>" else 257, width)
    raw = [258] + list(token.encode("utf-8")[: width - 2]) + [259]
    return [i + 1 for i in raw + [260] * (width - len(raw))]


def marker(char: int, width: int = 50) -> list[int]:
    return [i + 1 for i in [258, char, 259] + [260] * (width - 3)]


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


class NumpyElmo:
    def __init__(self, options_path: Path, weights_path: Path) -> None:
        self.options = json.loads(Path(options_path).read_text())
        with h5py.File(weights_path, "r") as f:
            self.w: dict[str, np.ndarray] = {}
            f.visititems(
                lambda n, o: self.w.__setitem__(n, o[...].astype(np.float64)) if isinstance(o, h5py.Dataset) else None
            )

    def token_layer(self, ids: list[int]) -> np.ndarray:
        cnn = self.options["char_cnn"]
        table = np.concatenate([np.zeros((1, self.w["char_embed"].shape[1])), self.w["char_embed"]])
        x = table[np.array(ids)]  # (50, D)
        pooled = []
        for i, (width, _) in enumerate(cnn["filters"]):
            kernel = self.w[f"CNN/W_cnn_{i}"][0]  # (w, D, n)
            windows = np.stack([x[p : p + width] for p in range(len(ids) - width + 1)])  # (P, w, D)
            conv = np.einsum("pwd,wdn->pn", windows, kernel) + self.w[f"CNN/b_cnn_{i}"]
            pooled.append(conv.max(axis=0))
        h = np.concatenate(pooled)
        h = np.maximum(h, 0) if cnn["activation"] == "relu" else np.tanh(h)
        for k in range(cnn["n_highway"]):
            g = sigmoid(h @ self.w[f"CNN_high_{k}/W_carry"] + self.w[f"CNN_high_{k}/b_carry"])
            t = np.maximum(h @ self.w[f"CNN_high_{k}/W_transform"] + self.w[f"CNN_high_{k}/b_transform"], 0)
            h = g * t + (1 - g) * h
        return h @ self.w["CNN_proj/W_proj"] + self.w["CNN_proj/b_proj"]

    def _direction(self, d: int, xs: np.ndarray) -> list[np.ndarray]:
        lstm = self.options["lstm"]
        outputs = []
        layer_in = xs
        for layer in range(lstm["n_layers"]):
            name = f"RNN_{d}/RNN/MultiRNNCell/Cell{layer}/LSTMCell/"
            w0, b, wp = self.w[name + "W_0"], self.w[name + "B"], self.w[name + "W_P_0"]
            c = np.zeros(wp.shape[0])
            h = np.zeros(wp.shape[1])
            out = []
            for x in layer_in:
                z = np.concatenate([x, h]) @ w0 + b
                i, j, f, o = np.split(z, 4)
                c = sigmoid(f + 1.0) * c + sigmoid(i) * np.tanh(j)
                if lstm["cell_clip"] is not None:
                    c = np.clip(c, -lstm["cell_clip"], lstm["cell_clip"])
                h = (sigmoid(o) * np.tanh(c)) @ wp
                if lstm["proj_clip"] is not None:
                    h = np.clip(h, -lstm["proj_clip"], lstm["proj_clip"])
                out.append(h + x if layer >= 1 and lstm.get("use_skip_connections") else h)
            layer_in = np.array(out)
            outputs.append(layer_in)
        return outputs

    def __call__(self, tokens: list[str]) -> np.ndarray:
        """(L+1, n_tokens, 2P) for one sentence, from zero state."""
        return self.with_markers(tokens)[:, 1:-1]

    def with_markers(self, tokens: list[str]) -> np.ndarray:
        """(L+1, n_tokens + 2, 2P) for one sentence, from zero state, ``<S>`` and ``</S>`` included."""
        width = self.options["char_cnn"]["max_characters_per_token"]
        ids = [marker(256, width)] + [char_ids(t, width) for t in tokens] + [marker(257, width)]
        xs = np.stack([self.token_layer(i) for i in ids])
        forward = self._direction(0, xs)
        backward = [out[::-1] for out in self._direction(1, xs[::-1])]
        layers = [np.concatenate([xs, xs], -1)] + [np.concatenate(fb, -1) for fb in zip(forward, backward)]
        return np.stack(layers)


def write_random_original(folder: Path, options: dict, seed: int) -> None:
    """options.json + weights.hdf5 with random weights, shapes as in the format doc."""
    rng = np.random.default_rng(seed)
    cnn, lstm = options["char_cnn"], options["lstm"]
    d, p, c = cnn["embedding"]["dim"], lstm["projection_dim"], lstm["dim"]
    f_total = sum(n for _, n in cnn["filters"])
    arrays = {"char_embed": rng.uniform(-1, 1, (261, d))}
    for i, (width, n) in enumerate(cnn["filters"]):
        arrays[f"CNN/W_cnn_{i}"] = rng.normal(0, 0.3, (1, width, d, n))
        arrays[f"CNN/b_cnn_{i}"] = rng.normal(0, 0.1, (n,))
    for k in range(cnn["n_highway"]):
        for part in ("transform", "carry"):
            arrays[f"CNN_high_{k}/W_{part}"] = rng.normal(0, 1 / np.sqrt(f_total), (f_total, f_total))
            arrays[f"CNN_high_{k}/b_{part}"] = rng.normal(0, 0.1, (f_total,))
    arrays["CNN_proj/W_proj"] = rng.normal(0, 1 / np.sqrt(f_total), (f_total, p))
    arrays["CNN_proj/b_proj"] = rng.normal(0, 0.1, (p,))
    for direction in (0, 1):
        for layer in range(lstm["n_layers"]):
            name = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell/"
            arrays[name + "W_0"] = rng.normal(0, 0.5 / np.sqrt(p), (2 * p, 4 * c))
            arrays[name + "B"] = rng.normal(0, 0.1, (4 * c,))
            arrays[name + "W_P_0"] = rng.normal(0, 1.0 / np.sqrt(c), (c, p))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "options.json").write_text(json.dumps(options))
    with h5py.File(folder / "weights.hdf5", "w") as handle:
        for key, value in arrays.items():
            handle.create_dataset(key, data=value.astype(np.float32))


def small_options(
    filters=((1, 4), (2, 8), (3, 16)),
    n_highway=1,
    dim=32,
    proj=8,
    n_layers=2,
    skip=True,
    activation="relu",
    n_characters=262,
    clip=3.0,
    char_dim=4,
    max_characters_per_token=50,
    proj_clip="clip",
) -> dict:
    """options.json of a small biLM; ``clip`` is the cell clip, and the projection clip unless
    ``proj_clip`` says otherwise (a number, or None for none)."""
    return {
        "lstm": {
            "dim": dim,
            "projection_dim": proj,
            "n_layers": n_layers,
            "cell_clip": clip,
            "proj_clip": clip if proj_clip == "clip" else proj_clip,
            "use_skip_connections": skip,
        },
        "char_cnn": {
            "activation": activation,
            "n_highway": n_highway,
            "embedding": {"dim": char_dim},
            "filters": [list(f) for f in filters],
            "n_characters": n_characters,
            "max_characters_per_token": max_characters_per_token,
        },
    }


def read_datasets(weights_path: Path) -> dict[str, np.ndarray]:
    """Every dataset of an hdf5 weight file, by its path, as float32."""
    arrays: dict[str, np.ndarray] = {}
    with h5py.File(weights_path, "r") as f:
        f.visititems(
            lambda n, o: arrays.__setitem__(n, o[...].astype(np.float32)) if isinstance(o, h5py.Dataset) else None
        )
    return arrays


def allennlp_bilm_parameters(
    w: dict[str, np.ndarray], options: dict, forget_bias: float = 1.0
) -> dict[str, np.ndarray]:
    """The biLM's parameters of AllenNLP 2.10's ``Elmo`` (its ``state_dict`` names) as its loader
    builds them from the weight file's datasets ``w``, step by step as its code does
    (``_ElmoCharacterEncoder._load_*`` in allennlp/modules/elmo.py, ``ElmoLstm.load_weights`` in
    elmo_lstm.py). ``forget_bias`` is what the loader adds to the forget gate's bias (1; 0 maps
    gradients, which the constant does not shift)."""
    cnn, lstm = options["char_cnn"], options["lstm"]
    encoder, out = "_elmo_lstm._token_embedder", {}
    embedding = np.zeros((w["char_embed"].shape[0] + 1, w["char_embed"].shape[1]), dtype="float32")
    embedding[1:, :] = w["char_embed"]
    out[f"{encoder}._char_embedding_weights"] = embedding
    for i in range(len(cnn["filters"])):
        out[f"{encoder}.char_conv_{i}.weight"] = np.transpose(w[f"CNN/W_cnn_{i}"].squeeze(axis=0), axes=(2, 1, 0))
        out[f"{encoder}.char_conv_{i}.bias"] = w[f"CNN/b_cnn_{i}"]
    for k in range(cnn["n_highway"]):
        high = f"CNN_high_{k}/"
        # -1.0 since AllenNLP is g * x + (1 - g) * f(x) but tf is (1 - g) * x + g * f(x)
        weight = np.concatenate([np.transpose(w[high + "W_transform"]), -1.0 * np.transpose(w[high + "W_carry"])])
        out[f"{encoder}._highways._layers.{k}.weight"] = weight
        out[f"{encoder}._highways._layers.{k}.bias"] = np.concatenate(
            [w[high + "b_transform"], -1.0 * w[high + "b_carry"]]
        )
    out[f"{encoder}._projection.weight"] = np.transpose(w["CNN_proj/W_proj"])
    out[f"{encoder}._projection.bias"] = w["CNN_proj/b_proj"]
    cell_size, input_size = lstm["dim"], lstm["projection_dim"]
    for i_layer in range(lstm["n_layers"]):
        for j_direction, side in enumerate(("forward", "backward")):
            cell = f"RNN_{j_direction}/RNN/MultiRNNCell/Cell{i_layer}/LSTMCell/"
            name = f"_elmo_lstm._elmo_lstm.{side}_layer_{i_layer}."
            tf_weights = np.transpose(w[cell + "W_0"])
            torch_weights = tf_weights.copy()
            torch_weights[cell_size : 2 * cell_size] = tf_weights[
                2 * cell_size : 3 * cell_size
            ]  # i, j, f, o -> i, f, j, o
            torch_weights[2 * cell_size : 3 * cell_size] = tf_weights[cell_size : 2 * cell_size]
            out[name + "input_linearity.weight"] = torch_weights[:, :input_size]
            out[name + "state_linearity.weight"] = torch_weights[:, input_size:]
            tf_bias = w[cell + "B"].copy()
            tf_bias[2 * cell_size : 3 * cell_size] += forget_bias
            torch_bias = tf_bias.copy()
            torch_bias[cell_size : 2 * cell_size] = tf_bias[2 * cell_size : 3 * cell_size]
            torch_bias[2 * cell_size : 3 * cell_size] = tf_bias[cell_size : 2 * cell_size]
            out[name + "state_linearity.bias"] = torch_bias
            out[name + "state_projection.weight"] = np.transpose(w[cell + "W_P_0"])
    return {key: np.ascontiguousarray(value, dtype=np.float32) for key, value in out.items()}


def allennlp_scalar_mix(k: int, s: list[float], gamma: float) -> dict[str, np.ndarray]:
    """AllenNLP's ``scalar_mix_K`` parameters: one (1,) per layer and a (1,) gamma."""
    mix = {f"scalar_mix_{k}.scalar_parameters.{j}": np.array([value], np.float32) for j, value in enumerate(s)}
    return {**mix, f"scalar_mix_{k}.gamma": np.array([gamma], np.float32)}
