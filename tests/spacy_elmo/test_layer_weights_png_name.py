"""``python -m spacy_elmo.layer_weights``'s OUTPUT must name a PNG file: the figure is written as PNG."""

import numpy as np
import pytest
import spacy

from spacy_elmo.layer_weights import MixWeights, main, save_layer_weights


@pytest.mark.parametrize("name", ["w.pdf", "w.svg", "weights"])
def test_an_output_not_ending_in_png_is_one_line_before_loading_and_nothing_is_written(
    name, tmp_path, capsys, monkeypatch
):
    """Was: PNG bytes written to w.pdf (or w.svg), which a PDF viewer then could not open."""

    def not_loaded(*args, **kwargs):
        raise AssertionError("the pipeline was loaded before the output was checked")

    monkeypatch.setattr(spacy, "load", not_loaded)
    out = tmp_path / name
    assert main([str(tmp_path / "pipeline"), str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"python -m spacy_elmo.layer_weights: error: {out} does not end in .png: the figure is written as a PNG "
        "image; name a .png file"
    ]
    assert not out.exists()


def test_save_layer_weights_refuses_it_too_and_takes_any_case_of_png(tmp_path):
    mixes = [MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)]
    with pytest.raises(ValueError, match="does not end in .png"):
        save_layer_weights(mixes, tmp_path / "w.pdf")
    save_layer_weights(mixes, tmp_path / "W.PNG")
    assert (tmp_path / "W.PNG").read_bytes()[:4] == b"\x89PNG"
