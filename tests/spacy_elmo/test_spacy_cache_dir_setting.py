"""A ``cache_dir`` that names no folder is refused, not taken as the current folder."""

import pytest
import spacy
from thinc.api import ConfigValidationError


@pytest.mark.parametrize("cache_dir", ["", "  "])
def test_a_blank_cache_dir_is_one_config_error_naming_null_for_memory(cache_dir):
    """Was: the cache's files written in the current folder (``Path("")``), or in a folder named by spaces."""
    with pytest.raises(ConfigValidationError) as info:
        spacy.blank("en").add_pipe("elmo", config={"cache_dir": cache_dir})
    (error,) = info.value.errors
    assert error["loc"] == ["components", "elmo", "cache_dir"]
    assert error["msg"] == f"{cache_dir!r} names no folder: give one, or null for memory"
