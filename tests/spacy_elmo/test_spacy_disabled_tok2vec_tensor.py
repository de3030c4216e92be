"""A component listening to a spaCy ``tok2vec`` that does not run (disabled or excluded) beside an
``elmo`` component that sets ``doc.tensor``: spaCy's ``Tok2VecListener`` reads ``doc.tensor`` where its
``tok2vec`` did not run, so it read ELMo's token vectors in place of its features, silently where the
widths agree (else a bare blis shape error). Each way of leaving the ``tok2vec`` out is refused in one
line naming it; the pipeline whole, or without the listening component too, runs as before."""

import subprocess
import sys
import textwrap

import pytest
import spacy

from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, tok2vec_config, training_examples

TEXTS = ["Alice lives in Paris .", "Bob hates London ."]

REFUSED = (
    "the component 'ner' listens to the tok2vec component 'tok2vec', which does not run here (disabled or "
    "excluded), so its listener would read the ELMo token vectors the elmo component 'elmo' puts in doc.tensor in "
    "place of the features 'ner' was trained on: run the tok2vec component 'tok2vec' too (leave it out of disable= "
    "and exclude=), or leave 'ner' out as well"
)


def save_pipeline(folder, tiny_elmo_dir, tok2vec_first=False, width=16):
    """elmo, a tok2vec listening to it, and ner listening to the tok2vec (the tiny biLM's 2P is 16);
    ``tok2vec_first``: a spaCy tok2vec of its own before elmo instead."""
    nlp = spacy.blank("en")
    if tok2vec_first:
        embed = {"@architectures": "spacy.HashEmbedCNN.v2", "width": width, "depth": 1, "embed_size": 300}
        embed |= {"window_size": 1, "maxout_pieces": 2, "subword_features": True, "pretrained_vectors": None}
        nlp.add_pipe("tok2vec", config={"model": embed})
        nlp.add_pipe("elmo")
    else:
        nlp.add_pipe("elmo")
        nlp.add_pipe("tok2vec", config={"model": tok2vec_config(width)})
    config = ner_config()
    config["model"]["tok2vec"] = {"@architectures": "spacy.Tok2VecListener.v1", "width": width, "upstream": "tok2vec"}
    nlp.add_pipe("ner", config=config)
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    nlp.to_disk(folder)
    return folder


@pytest.fixture(scope="module")
def shared(tiny_elmo_dir, tmp_path_factory):
    return save_pipeline(tmp_path_factory.mktemp("shared") / "pipeline", tiny_elmo_dir)


@pytest.mark.parametrize("how", ["disable", "exclude"])
def test_loading_without_the_tok2vec_is_refused_naming_it(shared, how):
    nlp = spacy.load(shared, **{how: ["tok2vec"]})
    with pytest.raises(ValueError) as info:
        nlp(TEXTS[0])
    assert str(info.value) == REFUSED
    with pytest.raises(ValueError, match="^the component 'ner' listens to the tok2vec component 'tok2vec'"):
        list(nlp.pipe(TEXTS))


def test_select_pipes_and_a_call_disabling_the_tok2vec_are_refused(shared):
    nlp = spacy.load(shared)
    with pytest.raises(ValueError, match="^the component 'ner' listens to the tok2vec component 'tok2vec'"):
        nlp(TEXTS[0], disable=["tok2vec"])
    with nlp.select_pipes(disable=["tok2vec"]):
        with pytest.raises(ValueError, match="^the component 'ner' listens to the tok2vec component 'tok2vec'"):
            list(nlp.pipe(TEXTS))
    assert [len(doc) for doc in nlp.pipe(TEXTS)] == [5, 4]  # whole again


def test_without_the_listening_component_or_without_doc_tensor_nothing_is_refused(shared):
    nlp = spacy.load(shared, disable=["tok2vec", "ner"])
    assert nlp(TEXTS[0]).tensor.shape == (5, 16)
    quiet = spacy.load(shared, disable=["tok2vec"], config={"components": {"elmo": {"token_vectors": False}}})
    assert quiet(TEXTS[0]).tensor.size == 0  # spaCy's listener reads zeros for an empty tensor, as without elmo


def test_a_tok2vec_before_elmo_left_out_is_refused_not_a_shape_error(tiny_elmo_dir, tmp_path):
    folder = save_pipeline(tmp_path / "pipeline", tiny_elmo_dir, tok2vec_first=True, width=8)
    assert spacy.load(folder)(TEXTS[0]).tensor.shape == (5, 8)  # the tok2vec's tensor, which elmo leaves
    nlp = spacy.load(folder, disable=["tok2vec"])
    with pytest.raises(ValueError) as info:  # was: Shape mismatch for blis.gemm: (5, 16), (8, 16)
        nlp(TEXTS[0])
    assert str(info.value) == REFUSED


def test_the_worker_processes_of_nlp_pipe_refuse_it_too(shared):
    script = textwrap.dedent(
        """
        import sys, spacy
        nlp = spacy.load(sys.argv[1], disable=["tok2vec"])
        try:
            list(nlp.pipe(["Alice lives in Paris ."] * 4, batch_size=2, n_process=2))
        except ValueError as error:
            print(str(error).strip().splitlines()[-1])
        """
    )
    run = subprocess.run([sys.executable, "-c", script, str(shared)], capture_output=True, text=True, timeout=240)
    assert run.stdout.strip() == f"ValueError: {REFUSED}", run.stderr[-2000:]


def test_a_pipeline_run_by_a_component_of_another_is_checked_as_its_own(shared):
    """The call that runs the elmo component is found as the one whose components hold it: here
    ``nlp(text)`` inside ``outer.pipe``, which runs other components (was: ``outer``'s, which hold no
    elmo component, so nothing was checked)."""
    nlp = spacy.load(shared, disable=["tok2vec"])
    outer = spacy.blank("en")
    outer.add_pipe("run_inner_pipeline", config={"name_of_inner": "inner"})
    INNER["inner"] = nlp
    with pytest.raises(ValueError) as info:
        list(outer.pipe(TEXTS))
    assert str(info.value) == REFUSED


INNER: dict = {}


@spacy.Language.factory("run_inner_pipeline")
def run_inner_pipeline(nlp, name, name_of_inner: str):
    def run(doc):
        INNER[name_of_inner](doc.text)
        return doc

    return run


def test_a_tok2vec_after_its_listening_component_is_refused_saying_to_move_it(shared):
    nlp = spacy.load(shared)
    nlp.remove_pipe("tok2vec")
    nlp.add_pipe("tok2vec", source=spacy.load(shared))  # now after ner: spaCy's listener read elmo's tensor
    assert nlp.pipe_names == ["elmo", "ner", "tok2vec"]
    with pytest.raises(ValueError) as info:
        nlp(TEXTS[0])
    assert str(info.value) == (
        "the component 'ner' listens to the tok2vec component 'tok2vec', which runs after it, so its listener would "
        "read the ELMo token vectors the elmo component 'elmo' puts in doc.tensor in place of the features 'ner' was "
        "trained on: move the tok2vec component 'tok2vec' before 'ner' in the pipeline"
    )
