"""A remote-code copy of the model classes that is asked to convert original ELMo files asks for the
hf-elmo package the README's way (``pip install -e .`` in a clone; it is not on PyPI)."""

from __future__ import annotations

import pytest

import hf_elmo
from hf_elmo.modeling_elmo import require_package_loader


def test_conversion_without_the_package_asks_for_it_as_the_readme_installs_it(monkeypatch):
    monkeypatch.setattr(hf_elmo.ElmoPreTrainedModel, "package_loader", None)
    with pytest.raises(ImportError) as raised:
        require_package_loader(hf_elmo.ElmoModel)
    assert str(raised.value) == (
        "converting original ELMo files needs the hf-elmo package (pip install -e . in its clone), then import hf_elmo"
    )
