"""An options file that is no options JSON (a vocabulary file, a list) is refused saying what to give instead, not
only what is wrong with its JSON (was: 'vocab.txt is not valid JSON: Expecting value: line 1 column 1 (char 0)')."""

from __future__ import annotations

from hf_elmo_cli import main


def test_elmo_convert_of_an_options_file_that_is_no_json_says_what_to_give(allennlp_fixture, tmp_path, capsys):
    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("<S>\n</S>\n<UNK>\nthe\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["convert", str(vocabulary), str(allennlp_fixture / "lm_weights.hdf5"), str(out)]) == 2
    assert capsys.readouterr().err == (
        f"elmo convert: error: {vocabulary} is not valid JSON (Expecting value: line 1 column 1 (char 0)): give the "
        "model's options.json\n"
    )
    assert not out.exists()
