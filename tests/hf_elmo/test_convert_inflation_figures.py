"""The figures beside ``hf_elmo.convert.MAX_INFLATION``, measured on real files deflated as a
.zip archive stores them (an hdf5 gzip filter is the same deflate): trained float weights (the
shipped model's) compress to about 92%, an options file of a few hundred bytes (the released
ones') 1.6x, a bomb (zeros) about 1000x, deflate's limit."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from hf_elmo.convert import MAX_INFLATION
from hf_elmo.pretrained import DEFAULT_MODEL


def deflated(files: dict[str, bytes]) -> dict[str, float]:
    """Each of ``files``' inflation (its size over the bytes a .zip archive stores it in)."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        for name, data in files.items():
            handle.writestr(name, data)
    with zipfile.ZipFile(archive) as handle:
        return {member.filename: member.file_size / member.compress_size for member in handle.infolist()}


def test_max_inflation_lies_between_what_elmo_files_and_a_bomb_compress_to(shared: Path) -> None:
    options = sorted((shared / "fixtures" / "elmo-options").glob("*.json"))
    files = {
        "weights": (DEFAULT_MODEL / "model.safetensors").read_bytes(),
        **{path.name: path.read_bytes() for path in options},
        "bomb": bytes(10_000_000),
    }
    inflation = deflated(files)
    assert 0.90 < 1 / inflation["weights"] < 0.94  # measured 92.3%
    assert all(
        300 < len(files[path.name]) < 400 and 1.5 < inflation[path.name] < 2.0 for path in options
    )  # measured 1.6x
    assert 1000 < inflation["bomb"] < 1040  # measured 1028x
    assert max(inflation[name] for name in files if name != "bomb") < MAX_INFLATION < inflation["bomb"]
