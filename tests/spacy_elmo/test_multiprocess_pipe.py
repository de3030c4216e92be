"""``nlp.pipe(texts, n_process=2)`` finishes (torch's thread pool does not survive a fork: a
forked child must run torch on one thread) and gives what one process gives."""

import json
import subprocess
import sys
import textwrap

import spacy

from tests.spacy_elmo.pipeline_helpers import (
    loader_settings,
    ner_config,
    textcat_config,
    training_examples,
)

TIMEOUT_S = 240  # the run itself takes seconds; a hang lasts forever

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import spacy
    import torch

    nlp = spacy.load(sys.argv[1]) if sys.argv[1] != "default" else spacy.blank("en")
    if sys.argv[1] == "default":
        nlp.add_pipe("elmo")  # no loader: the shipped model
        nlp.initialize()
    torch.set_num_threads(2)
    texts = [f"Alice number {i} lives in Paris and loves Berlin ." for i in range(24)]
    nlp(texts[0])  # torch has run in the parent just before the fork (the issue's report)
    two = list(nlp.pipe(texts, batch_size=4, n_process=2))
    one = list(nlp.pipe(texts, batch_size=4))
    print(json.dumps({
        "same_layers": all(np.allclose(a._.elmo.layers, b._.elmo.layers, atol=1e-6) for a, b in zip(one, two)),
        "same_tensor": all(np.allclose(a.tensor, b.tensor, atol=1e-6) for a, b in zip(one, two)),
        "same_ents": [[(e.start, e.end, e.label_) for e in d.ents] for d in one]
        == [[(e.start, e.end, e.label_) for e in d.ents] for d in two],
        "same_cats": all(abs(a.cats[k] - b.cats[k]) < 1e-5 for a, b in zip(one, two) for k in a.cats),
        "n_docs": len(two),
    }))
    """
)


def run_in_subprocess(pipeline_dir) -> dict:
    """The script's report on a saved pipeline (``"default"``: blank English with the ``elmo``
    component and the shipped model); a hang fails the test after ``TIMEOUT_S``."""
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(pipeline_dir)], capture_output=True, text=True, timeout=TIMEOUT_S
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_multi_process_pipe_with_the_default_elmo_component_finishes_and_matches_one_process():
    report = run_in_subprocess("default")
    assert report == {"same_layers": True, "same_tensor": True, "same_ents": True, "same_cats": True, "n_docs": 24}


def test_multi_process_pipe_with_a_trained_ner_textcat_pipeline_finishes_and_matches_one_process(
    tiny_elmo_dir, tmp_path
):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(3):
        nlp.update(examples, sgd=optimizer)
    nlp.to_disk(tmp_path / "trained")
    report = run_in_subprocess(tmp_path / "trained")
    assert report == {"same_layers": True, "same_tensor": True, "same_ents": True, "same_cats": True, "n_docs": 24}


CACHE_DIR_SCRIPT = textwrap.dedent(
    """
    import json, os, stat, sys
    import numpy as np
    import spacy

    pipeline, cache_dir = sys.argv[1:]
    nlp = spacy.load(pipeline, config={"components": {"elmo": {"cache_dir": cache_dir}}})
    list(nlp.pipe(["a b c", "d e f", "g h", "i j k l"] * 2, batch_size=2, n_process=2))
    tops = [name for name in os.listdir(cache_dir) if name.startswith("elmo-cache-")]
    inside = [os.listdir(os.path.join(cache_dir, top)) for top in tops]
    workers_inside = [sum(n.startswith("elmo-cache-") for n in i) for i in inside]
    first = nlp("m n o")._.elmo.layers  # the parent stores in the folder its workers made
    again = nlp("m n o")._.elmo.layers  # and reads it back
    top = os.path.join(cache_dir, tops[0])
    print(json.dumps({
        "tops": len(tops),
        "workers_inside": workers_inside,
        "private": stat.S_IMODE(os.stat(top).st_mode) == 0o700,
        "parents_files": sum(n.endswith(".npy") for n in os.listdir(top)),
        "same_layers": bool(np.array_equal(first, again)),
    }))
    """
)


def test_multi_process_pipe_with_a_cache_dir_then_the_parents_own_run_caches_and_no_folder_outlives_the_parent(
    tiny_elmo_dir, tmp_path
):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize()
    nlp.to_disk(tmp_path / "pipeline")
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    (cache_dir / "mine.txt").write_text("a user's file")
    run = subprocess.run(
        [sys.executable, "-c", CACHE_DIR_SCRIPT, str(tmp_path / "pipeline"), str(cache_dir)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    # while the parent runs: one private folder, the parent's, holding both (terminated) workers' folders,
    # then the parent's own entry, read back
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {
        "tops": 1,
        "workers_inside": [2],
        "private": True,
        "parents_files": 1,
        "same_layers": True,
    }
    assert sorted(p.name for p in cache_dir.iterdir()) == ["mine.txt"]
