"""The learned layer weights softmax(s) and scale gamma of every scalar mix in a pipeline.

    python -m spacy_elmo.layer_weights PIPELINE_DIR OUTPUT.png

draws one panel per scalar mix (one per listening component) with a bar per biLM layer, labelled
with its value: the paper's visualisation of the learned weights. OUTPUT may be a new file or an
earlier figure (a PNG), never a file of the pipeline or any other file (``check_figure_output``).
Needs matplotlib (imported only here). A pipeline without a scalar mix, or a folder that is not a pipeline, ends in one
error line and exit code 1.
"""

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from spacy.language import Language

from hf_elmo.fileio import (
    atomic_file,
    check_locked_output,
    check_names_a_file,
    folder_for_the_run,
    is_or_holds,
    sole_writer,
)
from hf_elmo.messages import error_text, first_line
from hf_elmo.output_folders import output_kind

from .scalar_mix import layer_weights

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MIX_NAME = "elmo-scalar-mix"
#: The first bytes of every PNG file: what an earlier figure, the one file an output may replace, starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The error for an ELMo model folder given as the pipeline: a biLM has no scalar mix, a listening component learns it.
NOT_A_PIPELINE = (
    "this is an ELMo model folder, not a spaCy pipeline: the command takes a trained spaCy pipeline folder "
    "(e.g. output/model-best), whose components learned the layer weights"
)


@dataclass
class MixWeights:
    """One scalar mix: the component owning it, softmax(s) per layer (0 = token layer), gamma."""

    component: str
    weights: np.ndarray
    gamma: float


def mix_weights(nlp: Language) -> list[MixWeights]:
    """The weights of every initialised scalar mix in ``nlp``, in pipeline order."""
    found = []
    for name, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is None or not hasattr(model, "walk"):
            continue
        for node in model.walk():
            if node.name == MIX_NAME and node.has_param("s"):
                weights = node.ops.to_numpy(layer_weights(node))
                found.append(MixWeights(name, weights, float(node.ops.to_numpy(node.get_param("gamma"))[0])))
    return found


def plot_layer_weights(nlp: Language, output: str | Path) -> list[MixWeights]:
    """Save a PNG with a bar chart of softmax(s) (and gamma in the title) of every scalar mix.

    Raises ``ValueError`` if ``nlp`` has no initialised scalar mix, ``ImportError`` (saying how
    to install it) without matplotlib.
    """
    mixes = read_layer_weights(nlp)
    save_layer_weights(mixes, output)
    return mixes


def read_layer_weights(nlp: Language) -> list[MixWeights]:
    """``mix_weights(nlp)``; a ``ValueError`` if there are none."""
    mixes = mix_weights(nlp)
    if not mixes:
        raise ValueError(
            "the pipeline has no initialised ELMo scalar mix (no spacy-elmo.ElmoMixListener.v1 or "
            "spacy-elmo.ElmoMix.v1 in any component): nothing to plot"
        )
    return mixes


def check_figure_output(output: str | Path, pipeline: str | Path | None = None) -> None:
    """Raise ``FileExistsError`` when writing the PNG ``output`` would replace what is not an earlier
    figure: one of the files of ``pipeline`` (the folder plotted), a file that is no PNG image, or a
    folder, link or device, or where its lock would be is something of the user's, or a file lies where a folder
    on its way should be, or its folder cannot be written (``check_locked_output``); a new file, or an earlier
    PNG, is fine. A name that does not end in ``.png`` is a ``ValueError``: the figure is a PNG, whatever the
    name says (was: PNG bytes in ``w.pdf``)."""
    output = check_locked_output(output)
    if output.exists():
        if pipeline is not None and is_or_holds(pipeline, output):
            raise FileExistsError(
                f"{output} is a file of the pipeline {pipeline}, which the figure would replace; name a new PNG file"
            )
        with open(output, "rb") as handle:
            if handle.read(len(PNG_SIGNATURE)) != PNG_SIGNATURE:
                raise FileExistsError(
                    f"{output} exists and is no PNG image, so the figure does not replace it; name a new PNG file "
                    "(or delete that one first)"
                )
    if output.suffix.lower() != ".png":
        raise ValueError(f"{output} does not end in .png: the figure is written as a PNG image; name a .png file")


def save_layer_weights(mixes: Sequence[MixWeights], output: str | Path) -> None:
    """Write ``layer_weights_figure(mixes)`` to the PNG ``output``, its folder made if missing (and removed
    again, empty, when the write fails: ``folder_for_the_run``), through a temporary file renamed into place (and
    free the figure), holding its lock (``sole_writer``, which removes the temporary files that killed writers
    left); an ``output`` that ``check_figure_output`` refuses is refused first; ``~`` is the home folder."""
    output = Path(output).expanduser()
    check_figure_output(output)
    figure = layer_weights_figure(mixes)
    try:
        with folder_for_the_run(output.parent), sole_writer(output), atomic_file(output) as tmp:
            figure.savefig(tmp, dpi=120, format="png")
    finally:
        _pyplot().close(figure)


def layer_weights_figure(mixes: Sequence[MixWeights]) -> "Figure":
    """A matplotlib figure with one panel per mix, a bar per layer labelled with its weight."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(mixes), figsize=(3.2 * len(mixes), 3.0), squeeze=False)
    for axis, mix in zip(axes[0], mixes):
        layers = np.arange(len(mix.weights))
        bars = axis.bar(layers, mix.weights, color="tab:blue")
        axis.bar_label(bars, labels=[f"{w:.3f}" for w in mix.weights], fontsize=8)
        axis.axhline(1.0 / len(mix.weights), color="grey", linestyle="--", linewidth=0.8)
        axis.set_xticks(layers, ["token"] + [f"LSTM {j}" for j in layers[1:]])
        axis.set_ylim(0, 1)
        axis.set_ylabel("softmax(s)")
        axis.set_title(f"{mix.component}: gamma = {mix.gamma:.3f}")
    figure.tight_layout()
    return figure


def _pyplot():
    """matplotlib's pyplot with the file-only Agg backend; a clear error if it is missing."""
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError('plotting the layer weights needs matplotlib: pip install "hf-elmo[plot]"') from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: The command's name, as its usage and every error line it prints give it (argparse's ``PROG: error: ...``).
PROG = "python -m spacy_elmo.layer_weights"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit code (1 with one error line on stderr, ``PROG: error: ...``, as argparse
    prints a usage error)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Plot the learned ELMo layer weights of a trained pipeline.",
    )
    parser.add_argument(
        "pipeline", metavar="PIPELINE_DIR", type=Path, help="a saved spaCy pipeline (e.g. output/model-best)"
    )
    parser.add_argument("output", metavar="OUTPUT", type=_png_file, help="the PNG file to write")
    args = parser.parse_args(argv)
    import spacy

    try:
        check_figure_output(args.output, args.pipeline)  # before the pipeline loads
    except (OSError, ValueError) as error:
        return _error(args.output, error)
    if output_kind(args.pipeline) == "model":  # spaCy's error: "[E053] Could not read meta.json"
        return _error(args.pipeline, ValueError(NOT_A_PIPELINE))
    try:
        nlp = spacy.load(args.pipeline)
        mixes = read_layer_weights(nlp)
    except (OSError, ValueError, ImportError) as error:
        return _error(args.pipeline, error)
    try:
        save_layer_weights(mixes, args.output)
    except (OSError, ValueError, ImportError) as error:
        return _error(args.output, error)
    for mix in mixes:
        print(f"{mix.component}: softmax(s) = {[round(float(w), 4) for w in mix.weights]}, gamma = {mix.gamma:.4f}")
    print(f"wrote {args.output}")
    return 0


def _png_file(text: str) -> Path:
    """The ``OUTPUT`` argument's type: a path, refused as a usage error when it ends with a slash, naming a folder
    (``check_names_a_file``; the scripts' ``_args.file_path``, which this library module does not import)."""
    try:
        check_names_a_file(text, "PNG file", "layers.png")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return Path(text)


def _error(path: Path, error: Exception) -> int:
    """Print one error line, ``PROG: error: ...``, naming ``path`` once: the message alone where it names ``path``
    already (spaCy's and ``check_writable``'s do), else ``path: message``; the exit code 1. The system's
    ``OSError`` is worded as the scripts' (``error_text``: no ``[Errno N]``), another error by its first line."""
    text = error_text(error)
    message = first_line(error) if text == str(error) else text
    print(f"{PROG}: error: {message if str(path) in message else f'{path}: {message}'}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
