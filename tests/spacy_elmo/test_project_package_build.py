"""The project template's ``package-ner`` builds its package with ``build`` (the ``project`` extra, which the test
extra holds): no warning that packaging without it is deprecated, no fallback to ``setup.py sdist``."""

import spacy

from tests.spacy_elmo.test_project_template import project, weasel  # noqa: F401  (project: a fixture)


def test_package_ner_builds_the_package_with_build_and_warns_nothing(project):  # noqa: F811
    """Was: "Generating packages without the 'build' package is deprecated", then "Creating sdist with 'python -m
    build' failed. Falling back to deprecated use of 'python setup.py sdist'"."""
    model = project / "training" / "ner-elmo" / "model-best"  # the step's dependency
    model.mkdir(parents=True)
    spacy.blank("en").to_disk(model)
    run = weasel(project, "package-ner")
    said = run.stdout + run.stderr
    assert run.returncode == 0, said[-3000:]
    assert "without the 'build' package" not in said and "Falling back" not in said, said[-3000:]
    assert (project / "packages" / "en_ner_elmo-0.0.1" / "dist" / "en_ner_elmo-0.0.1.tar.gz").is_file()
