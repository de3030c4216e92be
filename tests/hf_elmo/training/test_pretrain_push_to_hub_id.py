"""elmo pretrain --push-to-hub: an invalid repository id is said once, quoted and cut after 40 characters
(was: said twice and whole, the Hub client's text quoting it again after the command's)."""

from __future__ import annotations

import pytest

from hf_elmo_cli.commands.pretrain import check_hub_repository


@pytest.mark.parametrize(
    ("repo_id", "reason"),
    [
        ("my model", "Repo id must use alphanumeric chars"),
        ("a" * 5_000, "Repo id must use alphanumeric chars"),
        ("x/y/z", "Repo id must be in the form 'repo_name' or 'namespace/repo_name'. Use"),
        ("me/a--b", "Cannot have -- or .. in repo_id."),
    ],
)
def test_an_invalid_repository_id_is_said_once_and_cut(repo_id, reason):
    with pytest.raises(ValueError) as error:
        check_hub_repository(repo_id)
    said = str(error.value)
    cut = repr(repo_id) if len(repo_id) < 39 else repr(repo_id)[:40] + "..."
    assert said.startswith(f"--push-to-hub {cut}: {reason}")
    assert said.count(repo_id[:20]) == 1 and len(said) < 250 and "\n" not in said
