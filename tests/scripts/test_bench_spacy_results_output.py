"""scripts/bench_spacy.py checks where it writes results.json before anything trains, as that file is written
last (was: a traceback after every pipeline had trained, or mkdir's FileExistsError for an --output file)."""

import subprocess
import sys

import pytest

from tests.scripts.test_bench_spacy import SCRIPT


@pytest.mark.parametrize("case", ["an --output that is a file", "a results.json that is a folder"])
def test_an_output_that_would_be_refused_at_the_end_is_refused_in_one_line_before_any_pipeline_trains(case, tmp_path):
    output = tmp_path / "bench"
    if case == "an --output that is a file":
        output.write_text("mine")
        said = f"--output: {output} is a file, not a folder, so {output / 'results.json'} cannot be written under it"
    else:
        (output / "results.json").mkdir(parents=True)
        said = f"--output: the output {output / 'results.json'} is a folder; give the path of the file to write"
    command = [sys.executable, str(SCRIPT), "--elmo", "x", "--output", str(output)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1].startswith(f"bench_spacy.py: error: {said}"), run.stderr
