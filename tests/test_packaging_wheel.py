"""The wheel of hf-elmo, built offline from the repository's files (tracked or not ignored, as a clean
checkout has them): its three import packages are typed (``py.typed``, so mypy reads their annotations in a
user's code instead of refusing them as untyped), the shipped model's folder travels whole and alone, and the
metadata is pyproject's (version, licence, Python, dependencies, the ``elmo`` command)."""

import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import hf_elmo
from hf_elmo.model_card import card_license_and_attribution
from hf_elmo.pretrained import SHIPPED
from tests.conftest import REPO

PACKAGES = ("hf_elmo", "hf_elmo_cli", "spacy_elmo")
SHIPPED_FOLDER = "hf_elmo/pretrained/elmo-2x1024-en"


def _repository_files(*paths: str) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *paths],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return [name for name in listed.stdout.splitlines() if (REPO / name).is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel pip builds (no network, no build isolation) from a copy of the files a checkout has."""
    source = tmp_path_factory.mktemp("source")
    for name in _repository_files("pyproject.toml", "README.md", "LICENSE", "NOTICE", *PACKAGES):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((REPO / name).read_bytes())
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w", out]
    built = subprocess.run([*map(str, command), str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (path,) = out.glob("hf_elmo-*.whl")
    return zipfile.ZipFile(path)


def _metadata(wheel: zipfile.ZipFile, name: str) -> str:
    return wheel.read(f"hf_elmo-{hf_elmo.__version__}.dist-info/{name}").decode()


def test_each_import_package_is_marked_typed(wheel):
    assert {f"{package}/py.typed" for package in PACKAGES} <= set(wheel.namelist())


def test_the_shipped_model_folder_travels_whole_and_alone(wheel):
    shipped = {name for name in wheel.namelist() if name.startswith(f"{SHIPPED_FOLDER}/")}
    assert shipped == set(_repository_files(SHIPPED_FOLDER))
    assert {"config.json", "model.safetensors", "tokenizer_config.json", "vocab.txt", "README.md"} <= {
        Path(name).name for name in shipped
    }


def test_only_the_three_import_packages_are_installed(wheel):
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert tops == {*PACKAGES, f"hf_elmo-{hf_elmo.__version__}.dist-info"}
    assert not [name for name in wheel.namelist() if "__pycache__" in name or "/." in name]
    assert _metadata(wheel, "top_level.txt").split() == sorted(PACKAGES)


def test_the_metadata_is_pyprojects(wheel):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    metadata = Parser().parsestr(_metadata(wheel, "METADATA"))
    assert metadata["Name"] == project["name"]
    assert metadata["Version"] == project["version"] == hf_elmo.__version__
    assert metadata["License-Expression"] == project["license"]
    assert metadata["Requires-Python"] == project["requires-python"]
    plain = {Requirement(line) for line in metadata.get_all("Requires-Dist") if "extra ==" not in line}
    assert plain == {Requirement(line) for line in project["dependencies"]}
    assert "elmo = hf_elmo_cli:main" in _metadata(wheel, "entry_points.txt").splitlines()


def test_the_licence_names_the_shipped_weights_licence_beside_the_codes(wheel):
    """Was 'Apache-2.0' alone, the code's: a licence scanner took the CC BY-SA 3.0 weights for Apache's."""
    licenses = Parser().parsestr(_metadata(wheel, "METADATA"))["License-Expression"].lower().split(" and ")
    assert licenses[0] == "apache-2.0"
    for folder in SHIPPED.values():
        license, attribution = card_license_and_attribution(folder)
        assert license in licenses and attribution, folder.name
