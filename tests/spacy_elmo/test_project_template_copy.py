"""The project tests' copy of ``project/`` holds the template alone: outputs of an earlier run in the
repository's ``project/`` (git-ignored) are left out (was: copied, so ``package-ner``'s test failed with
FileExistsError on ``training/ner-elmo/model-best`` after ``weasel run ner`` there)."""

import subprocess

from tests.spacy_elmo.test_project_template import OUTPUTS, PROJECT, project  # noqa: F401  (project: a fixture)


def test_the_copy_holds_the_template_files_and_no_earlier_outputs(project):  # noqa: F811
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "."],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    )
    copied = {str(path.relative_to(project)) for path in project.rglob("*") if path.is_file()}
    assert copied == set(tracked.stdout.split())
    assert OUTPUTS == {"corpus", "training", "metrics", "plots", "packages", "project.lock"}
