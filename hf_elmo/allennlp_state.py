"""AllenNLP 2.10's ``Elmo`` parameters <-> ours, through the original weight file's datasets.

``allennlp_parameter_table`` is the one description of AllenNLP's layout: a row per parameter of
its ``allennlp.modules.elmo.Elmo`` and how its loader (``allennlp/modules/elmo.py``,
``elmo_lstm.py``) builds it from the weight file's datasets (``hf_elmo.convert``'s names; ours <->
the file is ``convert.weight_table``) or, for what the file does not hold, from a parameter of our
``Elmo`` (the scalar mixes, the cached vocabulary's rows). Both directions go through it:

- ours -> AllenNLP's: ``convert.allennlp_datasets`` of our biLM's parameters, then each row's
  ``build`` (``scripts/check_parity.py`` maps our gradients onto AllenNLP's so);
- AllenNLP's -> ours: ``allennlp_sources`` inverts the builds, then ``weight_table``'s ``to_ours``
  (``elmo_parameters_from_allennlp``; ``hf_elmo.Elmo`` loads an AllenNLP ``state_dict`` so).

The builds only move, transpose, negate, split and zero-pad elements, so each is inverted by
building from element codes (every source element's index, negated where the build negates it)
and writing AllenNLP's values back where the codes say. What AllenNLP's loader also adds, the
forget-gate bias (``loader_adds``), is subtracted first.

This module imports no model class (``hf_elmo.allennlp_elmo`` imports it).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .configuration_elmo import ElmoConfig
from .convert import ElmoWeightsError, WeightMapping, unchanged, weight_table
from .elmo_kernels import FORGET_BIAS
from .messages import some_of

#: A parameter name of AllenNLP's ``Elmo`` and of no ``hf_elmo.Elmo`` (``scalar_mix_K.gamma`` is both's).
ALLENNLP_NAME = re.compile(r"_elmo_lstm\.|scalar_mix_\d+\.scalar_parameters\.\d+$")


@dataclass(frozen=True)
class AllenNLPParameter:
    """One row of ``allennlp_parameter_table``.

    Attributes:
        name: the parameter's name in AllenNLP's ``Elmo``.
        group: the group its difference is reported in (``scripts/check_parity.py``).
        sources: the arrays it is built from: weight-file datasets (``hf_elmo.convert``'s names),
            or, for what the file does not hold, our ``Elmo``'s parameter (its ``state_dict`` key).
        build: those arrays -> the parameter, as AllenNLP's loader builds it, linear part only
            (elements moved, transposed, negated, split, zero-padded), so that it maps a gradient
            as it maps a weight.
        loader_adds: what AllenNLP's loader adds to the built weight on top (the forget-gate bias
            on ``state_linearity.bias``), or None.
    """

    name: str
    group: str
    sources: tuple[str, ...]
    build: Callable[..., np.ndarray]
    loader_adds: np.ndarray | None = None


def allennlp_gate_order(rows: np.ndarray) -> np.ndarray:
    """Gate blocks on axis 0 in TF's order i, j, f, o (the file's and ours) -> AllenNLP's i, f, j, o
    (blocks 0, 2, 1, 3; its own inverse)."""
    i, j, f, o = np.split(rows, 4)
    return np.concatenate([i, f, j, o])


def allennlp_parameter_table(
    config: ElmoConfig, n_mixes: int, cached_vocabulary: bool = False
) -> list[AllenNLPParameter]:
    """Every parameter of AllenNLP's ``Elmo`` for ``config`` with ``n_mixes`` mixes (and with
    ``cached_vocabulary``, ``vocab_to_cache``'s rows), and how its loader builds it.

    What AllenNLP does: a zero padding row above ``char_embed``; the highway's one ``Linear``
    holds [transform; -carry] (its gate is ``1 - t``, ours and the file's ``t``); each LSTM's
    ``W_0`` splits into ``input_linearity`` and ``state_linearity``, ``B`` is
    ``state_linearity``'s bias plus ``FORGET_BIAS`` on the forget gate (ours adds it in the
    forward), all with gate blocks i, f, j, o (``allennlp_gate_order``); a scalar mix holds one (1,)
    parameter per layer and a (1,) gamma; ``_word_embedding`` is our ``word_embedding``, but for
    its padding row 0 (AllenNLP's holds the char CNN's vector of the padding token, which its
    forward masks; ours is zero).
    """
    p, c, cnn = config.projection_dim, config.lstm_dim, "_elmo_lstm._token_embedder"
    forget = allennlp_gate_order(np.repeat(np.array([0.0, 0.0, FORGET_BIAS, 0.0], np.float32), c))

    def padded(embed: np.ndarray) -> np.ndarray:
        return np.concatenate([np.zeros((1, embed.shape[1]), embed.dtype), embed])

    table = [AllenNLPParameter(f"{cnn}._char_embedding_weights", "char embedding", ("char_embed",), padded)]
    for i in range(len(config.filters)):
        table += [
            AllenNLPParameter(
                f"{cnn}.char_conv_{i}.weight", "char CNN", (f"CNN/W_cnn_{i}",), lambda w: w[0].transpose(2, 1, 0)
            ),
            AllenNLPParameter(f"{cnn}.char_conv_{i}.bias", "char CNN", (f"CNN/b_cnn_{i}",), unchanged),
        ]
    for k in range(config.n_highway):
        table += [
            AllenNLPParameter(
                f"{cnn}._highways._layers.{k}.weight",
                "highways",
                (f"CNN_high_{k}/W_transform", f"CNN_high_{k}/W_carry"),
                lambda transform, carry: np.concatenate([transform.T, -carry.T]),
            ),
            AllenNLPParameter(
                f"{cnn}._highways._layers.{k}.bias",
                "highways",
                (f"CNN_high_{k}/b_transform", f"CNN_high_{k}/b_carry"),
                lambda transform, carry: np.concatenate([transform, -carry]),
            ),
        ]
    table += [
        AllenNLPParameter(f"{cnn}._projection.weight", "char projection", ("CNN_proj/W_proj",), lambda w: w.T),
        AllenNLPParameter(f"{cnn}._projection.bias", "char projection", ("CNN_proj/b_proj",), unchanged),
    ]
    if cached_vocabulary:
        table.append(
            AllenNLPParameter(
                "_elmo_lstm._word_embedding.weight", "word embedding", ("word_embedding.weight",), unchanged
            )
        )
    for layer in range(config.n_layers):
        for direction, side in enumerate(("forward", "backward")):
            ours = f"_elmo_lstm._elmo_lstm.{side}_layer_{layer}"
            cell = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            table += [
                AllenNLPParameter(
                    f"{ours}.input_linearity.weight",
                    "LSTM",
                    (f"{cell}/W_0",),
                    lambda w: allennlp_gate_order(w.T[:, :p]),
                ),
                AllenNLPParameter(
                    f"{ours}.state_linearity.weight",
                    "LSTM",
                    (f"{cell}/W_0",),
                    lambda w: allennlp_gate_order(w.T[:, p:]),
                ),
                AllenNLPParameter(
                    f"{ours}.state_linearity.bias", "LSTM", (f"{cell}/B",), allennlp_gate_order, loader_adds=forget
                ),
                AllenNLPParameter(f"{ours}.state_projection.weight", "LSTM", (f"{cell}/W_P_0",), lambda w: w.T),
            ]
    for k in range(n_mixes):
        mix = f"scalar_mix_{k}"
        table.append(AllenNLPParameter(f"{mix}.gamma", "scalar mixes", (f"{mix}.gamma",), lambda g: g.reshape(1)))
        for j in range(config.n_layers + 1):
            table.append(
                AllenNLPParameter(
                    f"{mix}.scalar_parameters.{j}",
                    "scalar mixes",
                    (f"{mix}.scalar_parameters",),
                    lambda s, j=j: s[j : j + 1],
                )
            )
    return table


Order = Literal["C", "F"]


def _coded_build(row: AllenNLPParameter, shapes: Sequence[tuple[int, ...]], orders: Sequence[Order]) -> np.ndarray:
    """``row.build`` of element codes of sources of ``shapes``: each element of the result is the
    1-based index (over the sources' elements, in order, each source's in its memory order of
    ``orders``) of the element it was built from, negated where the build negates it, 0 where the
    build adds a zero (a padding row)."""
    arrays, start = [], 1
    dtype = np.int32 if sum(math.prod(shape) for shape in shapes) < 2**31 - 1 else np.int64
    for shape, order in zip(shapes, orders):
        size = math.prod(shape)
        arrays.append(np.arange(start, start + size, dtype=dtype).reshape(shape, order=order))
        start += size
    return row.build(*arrays)


def allennlp_sources(
    theirs: Mapping[str, np.ndarray],
    table: Sequence[AllenNLPParameter],
    shapes: Mapping[str, Sequence[tuple[int, ...]]],
    prefix: str = "",
    orders: Mapping[str, Order] | None = None,
) -> dict[str, np.ndarray]:
    """The sources (weight-file datasets, our ``Elmo``'s parameters) that AllenNLP's parameters
    ``theirs`` (float32, by the table's names) were built from: each row's build inverted.

    ``shapes`` gives each source's allowed shapes (``weight_table``'s for a dataset). A source
    comes back only when every row built from it is in ``theirs``. A parameter whose shape no
    allowed one builds raises ``ElmoWeightsError``, one line naming it (``prefix`` + name) and
    the shapes, before anything is returned.

    ``orders`` gives a source's memory order ("C" where not given), in which it is rebuilt and
    returned: the values are the same in either, the time is not (``weights_in_step``: with every
    source in C order, rebuilding the released small and original shapes' took 3.6 to 3.9x and
    3.4 to 3.7x as long as in step, on a 2-core AMD EPYC VM, 2 threads, load 0.6 to 1.4,
    2026-11-29: ``pytest -m slow -s tests/hf_elmo/test_allennlp_state_in_step_speed.py``).
    """
    orders = orders or {}
    order: dict[str, Order] = {source: orders.get(source, "C") for row in table for source in row.sources}
    chosen: dict[str, tuple[int, ...]] = {}
    values: dict[str, np.ndarray] = {}
    misfits: list[str] = []
    for row in table:
        if row.name not in theirs:
            continue
        value = theirs[row.name]
        options = itertools.product(*([chosen[s]] if s in chosen else shapes[s] for s in row.sources))
        fitting, expected = None, None
        for source_shapes in options:
            codes = _coded_build(row, source_shapes, [order[source] for source in row.sources])
            expected = codes.shape if expected is None else expected
            if codes.shape == value.shape:
                fitting = source_shapes
                break
        if fitting is None:
            misfits.append(f"{prefix}{row.name} {tuple(value.shape)} (this Elmo's: {expected})")
            continue
        if row.loader_adds is not None:
            value = value - row.loader_adds
        if codes.min() <= 0:  # rare: a padding row or negated elements (one pass over the rest)
            kept = codes != 0
            if not kept.all():  # the zeros the build adds come from no source
                codes, value = codes[kept], value[kept]
            negative = codes < 0
            if negative.any():
                codes, value = np.abs(codes), np.where(negative, -value, value)
        start = 1
        for source, shape in zip(row.sources, fitting):
            chosen[source] = shape
            size = math.prod(shape)
            index, part = codes if start == 1 else codes - (start - 1), value
            if len(row.sources) > 1:
                mine = (codes >= start) & (codes < start + size)
                index, part = index[mine], value[mine]
            # the source's elements in its order, after an element 0 that the 1-based codes skip
            values.setdefault(source, np.zeros(size + 1, np.float32))[index] = part
            start += size
    if misfits:
        raise ElmoWeightsError(
            f"AllenNLP state_dict: parameters of other shapes than this Elmo's: {some_of(misfits, 1)}: build this "
            "Elmo as the AllenNLP one was built "
            "(the same options file, num_output_representations and vocab_to_cache)"
        )
    partial = {source for row in table if row.name not in theirs for source in row.sources}
    return {
        source: array[1:].reshape(chosen[source], order=order[source])
        for source, array in values.items()
        if source not in partial
    }


def weights_in_step(row: WeightMapping) -> Order:
    """The memory order of ``row``'s dataset in which ``row.to_ours`` reads it in step (the rows of
    its result contiguous): Fortran's for a kernel, which it transposes from TF's (in, out) into
    torch's (out, in), as AllenNLP's builds do; C's otherwise. Probed on zeros, which are not
    written (a view, or a small copy)."""
    shape = row.shapes[0]
    in_step = [row.to_ours(np.zeros(shape, np.float32, order=order)).strides[-1:] for order in ("C", "F")]
    return "F" if in_step[1] == (4,) != in_step[0] else "C"


def elmo_parameters_from_allennlp(
    theirs: Mapping[str, np.ndarray],
    config: ElmoConfig,
    own_shapes: Mapping[str, tuple[int, ...]],
    n_mixes: int,
    prefix: str = "",
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], set[str]]:
    """AllenNLP ``Elmo``'s parameters ``theirs`` (float32, names without a prefix) -> our biLM's
    (``ElmoModel`` keys), our ``Elmo``'s own (its keys outside ``model.``: the mixes, the cached
    vocabulary's rows, whose shapes ``own_shapes`` gives), and the names of ``theirs`` used.

    A name of ``theirs`` is used when every parameter of AllenNLP's built from the same arrays is
    there too (``input_linearity`` and ``state_linearity`` share ``W_0``); the caller reports the
    rest. A name that no parameter of AllenNLP's ``Elmo`` of this shape has (more layers,
    filters, highways or mixes than ours, a cached vocabulary ours lacks, one of our own names)
    raises ``ElmoWeightsError``, one line naming it (``prefix`` + name), as does a wrong shape
    (``allennlp_sources``).
    """
    cached = "word_embedding.weight" in own_shapes
    table = allennlp_parameter_table(config, n_mixes, cached_vocabulary=cached)
    names = {row.name for row in table}
    unknown = [name for name in theirs if name not in names]
    if unknown:
        example = next((name for name in theirs if ALLENNLP_NAME.match(name)), unknown[0])
        raise ElmoWeightsError(
            f"{some_of([prefix + name for name in unknown], 1)} "
            f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'} of AllenNLP's Elmo with this "
            "Elmo's options, "
            f"num_output_representations={n_mixes} and {'a' if cached else 'no'} vocab_to_cache, in a state_dict "
            f"of AllenNLP's layout (e.g. {prefix}{example}): build this Elmo as the AllenNLP one was built (the same "
            "options file, num_output_representations and vocab_to_cache), and pass one layout"
        )
    rows = weight_table(config)
    shapes: dict[str, Sequence[tuple[int, ...]]] = {row.theirs: row.shapes for row in rows}
    shapes.update({name: (shape,) for name, shape in own_shapes.items()})
    sources = allennlp_sources(theirs, table, shapes, prefix, {row.theirs: weights_in_step(row) for row in rows})
    own = {name: array for name, array in sources.items() if name in own_shapes}
    used = {row.name for row in table if all(source in sources for source in row.sources)}
    last_use = {row.theirs: row.ours for row in rows}
    bilm = {}
    for row in rows:
        if row.theirs in sources:
            bilm[row.ours] = np.ascontiguousarray(row.to_ours(sources[row.theirs]))  # a view where it is one
            if last_use[row.theirs] == row.ours:
                del sources[row.theirs]  # a dataset split in two (W_0) is freed once both are copied
    return bilm, own, used
