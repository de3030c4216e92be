"""README's figure for how long a Hub look-up waits is huggingface_hub's default, which it names."""

from __future__ import annotations

import re

from huggingface_hub import constants

from tests.conftest import REPO

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())  # sentences on one line


def test_the_readmes_hub_timeout_is_huggingface_hubs_default():
    said = re.findall(r"huggingface_hub's `HF_HUB_DOWNLOAD_TIMEOUT` \((\d+) s\)", README)
    assert said == [str(constants.DEFAULT_DOWNLOAD_TIMEOUT)]
