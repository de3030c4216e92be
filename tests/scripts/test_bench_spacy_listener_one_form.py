"""bench_spacy.py --listener refuses a value that is no KEY=VALUE of a listener setting in the one form of a refused
option value: ``argument --listener: must be KEY=VALUE with KEY one of layer_norm, dropout, l2, got 'size=3'``
(was: ``expected KEY=VALUE with KEY one of ...: 'size=3'``)."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script, run_main


@pytest.mark.parametrize("value", ["size=3", "dropout"])
def test_a_listener_setting_that_is_none_is_refused_in_one_form(value, tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_spacy.py")
    code, out, err = run_main(
        module, ["--elmo", str(tmp_path), "--output", str(tmp_path / "out.json"), "--listener", value], capsys
    )
    assert code == 2
    assert err.splitlines()[-1].endswith(
        f"argument --listener: must be KEY=VALUE with KEY one of layer_norm, dropout, l2, got {value!r}"
    )
    assert out == ""
    assert list(tmp_path.iterdir()) == []
