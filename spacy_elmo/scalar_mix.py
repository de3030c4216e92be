"""The task's scalar mix as a Thinc layer: ``ELMo_k = gamma * sum_j softmax(s)_j * h_{k,j}``.

Input: one (L+1, n_tokens, 2P) array of biLM layers per doc; output: one (n_tokens, 2P) array
per doc. Parameters ``s`` (L+1, zeros: an average) and ``gamma`` (1, one) belong to the
component that owns the layer. Optional layer normalisation of every layer before mixing
(``"batch"``: over all tokens and dimensions of the batch's docs, whitespace tokens (zero
vectors) included and sentence markers not, whereas AllenNLP's ``do_layer_norm`` counts each
sentence's ``<S>``/``</S>`` and no whitespace, so the two differ; ``"token"``: each
token vector), dropout on the mixed vector, and the paper's L2 penalty ``l2 * sum(s ** 2)``
added to the gradient of ``s``. The arithmetic equals ``hf_elmo.ScalarMix`` (values of no variance
normalise to zeros with a zero gradient in both: ``_layer_norm``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from thinc.api import Model, Ops
from thinc.types import Floats1d, Floats2d, Floats3d

from hf_elmo.messages import described, is_number, one_of
from hf_elmo.scalar_mix import EPS, LAYER_NORMS

from .config_errors import check_setting


def scalar_mix(
    layer_norm: str | None = None, dropout: float = 0.0, l2: float = 0.0
) -> Model[list[Floats3d], list[Floats2d]]:
    """A learned scalar mix of biLM layers (see the module docstring).

    ``dropout`` is the layer's own rate (``attrs["mix_dropout"]``): spaCy's training dropout
    does not override it.
    """
    mix = "the ELMo scalar mix"
    check_setting(
        one_of(layer_norm, LAYER_NORMS), mix, "layer_norm", f"must be one of {LAYER_NORMS}, got {described(layer_norm)}"
    )
    check_setting(
        is_number(dropout) and 0.0 <= dropout < 1.0, mix, "dropout", f"must be in [0, 1), got {described(dropout)}"
    )
    check_setting(is_number(l2) and l2 >= 0.0, mix, "l2", f"must be a finite number >= 0, got {described(l2)}")
    return Model(
        "elmo-scalar-mix",
        mix_forward,
        init=mix_init,
        params={"s": None, "gamma": None},
        dims={"nL": None, "nO": None},
        attrs={"layer_norm": layer_norm, "mix_dropout": dropout, "l2": l2},
    )


def mix_init(model: Model, X: list[Floats3d] | None = None, Y: None = None) -> None:
    if X:
        model.set_dim("nL", X[0].shape[0])
        model.set_dim("nO", X[0].shape[2])
    if not model.has_dim("nL"):
        raise ValueError("scalar mix: the number of biLM layers is unknown (initialise with sample layers)")
    model.set_param("s", model.ops.alloc1f(model.get_dim("nL")))
    model.set_param("gamma", model.ops.asarray1f([1.0]))


def mix_forward(model: Model, Xs: list[Floats3d], is_train: bool) -> tuple[list[Floats2d], Callable]:
    ops, xp = model.ops, model.ops.xp
    s, gamma = model.get_param("s"), model.get_param("gamma")
    lengths = [X.shape[1] for X in Xs]
    if not Xs:
        return [], lambda dYs: []
    H = xp.concatenate(Xs, axis=1)  # (L+1, N, D): all tokens of the batch
    normed, backprop_norm = _layer_norm(ops, H, model.attrs["layer_norm"])
    weights = layer_weights(model)  # (L+1,)
    mixed = xp.tensordot(weights, normed, axes=1)  # (N, D)
    rate = model.attrs["mix_dropout"] if is_train else 0.0
    mask = ops.get_dropout_mask(mixed.shape, rate) if rate > 0 else None
    Y = gamma[0] * mixed if mask is None else gamma[0] * mixed * mask

    def backprop(dYs: list[Floats2d]) -> list[Floats3d]:
        dY = xp.concatenate(dYs, axis=0)
        if mask is not None:
            dY = dY * mask
        model.inc_grad("gamma", (dY * mixed).sum().reshape((1,)).astype("float32"))
        d_mixed = gamma[0] * dY
        d_weights = xp.tensordot(normed, d_mixed, axes=([1, 2], [0, 1]))  # (L+1,)
        d_s = weights * (d_weights - (weights * d_weights).sum()) + 2.0 * model.attrs["l2"] * s
        model.inc_grad("s", d_s.astype("float32"))
        d_normed = ops.reshape3f(weights, -1, 1, 1) * d_mixed[None]
        dH = backprop_norm(d_normed)
        return _split(ops, dH, lengths, axis=1)

    return _split(ops, Y, lengths, axis=0), backprop


def _layer_norm(ops: Ops, H: Floats3d, how: str | None) -> tuple[Floats3d, Callable[[Floats3d], Floats3d]]:
    """Normalise each layer of H (L+1, N, D) over (N, D) ("batch") or D ("token").

    Values of no variance (a whitespace token's zeros; for "batch", a batch of whitespace only)
    normalise to zeros with a zero gradient: they are no output of the biLM, and ``EPS`` alone
    would scale their gradient by 1/sqrt(EPS), about 3e6, into a fine-tuned biLM's loss.
    """
    if how is None or H.shape[1] == 0:
        return H, lambda d: d
    axes = (1, 2) if how == "batch" else (2,)
    mean = ops.xp.mean(H, axis=axes, keepdims=True)
    centred = H - mean
    variance = (centred**2).mean(axis=axes, keepdims=True)
    inv_std = ops.xp.where(variance > 0, 1.0 / ops.xp.sqrt(variance + EPS), 0.0).astype(H.dtype)
    normed = centred * inv_std

    def backprop(d_normed: Floats3d) -> Floats3d:
        mean_d = ops.xp.mean(d_normed, axis=axes, keepdims=True)
        mean_dn = (d_normed * normed).mean(axis=axes, keepdims=True)
        return inv_std * (d_normed - mean_d - normed * mean_dn)

    return normed, backprop


def _split(ops: Ops, array, lengths: list[int], axis: int) -> list:
    starts = ops.xp.cumsum(ops.xp.asarray([0] + lengths))
    index = [slice(None)] * array.ndim
    parts = []
    for start, length in zip(starts.tolist(), lengths):
        index[axis] = slice(start, start + length)
        parts.append(ops.xp.ascontiguousarray(array[tuple(index)]))
    return parts


def layer_weights(model: Model) -> Floats1d:
    """softmax(s) of a scalar-mix layer."""
    return model.ops.softmax(cast(Floats1d, model.get_param("s")))
