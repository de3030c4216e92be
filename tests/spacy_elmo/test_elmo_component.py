"""The ``elmo`` component: layers on ``doc._.elmo``, batching, odd inputs, serialisation."""

import errno
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import spacy
import torch
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from thinc.api import ConfigValidationError

from hf_elmo import ElmoModel, batch_to_ids
from spacy_elmo.batching import token_budget_batches
from tests.hf_elmo.test_fileio import unwritable
from tests.spacy_elmo.pipeline_helpers import (
    loader_settings,
    ner_config,
    tiny_elmo,
    tok2vec_config,
    training_examples,
)

ATOL = 1e-6
TEXTS = ["The cat sat on the mat .", "Hi", "A much longer sentence with quite a few more words in it ."]


def reference_layers(words):
    """All L+1 layers of one sentence computed by ``ElmoModel`` directly: (L+1, n, 2P)."""
    with torch.no_grad():
        out = tiny_elmo()(input_ids=batch_to_ids([words]))
    return torch.stack(out.hidden_states)[:, 0].numpy()


def test_add_pipe_on_blank_english_sets_all_layers_of_every_token(make_nlp):
    nlp = make_nlp()
    doc = nlp("The cat sat on the mat.")
    assert doc._.elmo.layers.shape == (3, len(doc), 16)
    np.testing.assert_allclose(doc._.elmo.layers, reference_layers([t.text for t in doc]), atol=ATOL)


def test_batched_docs_get_their_own_layers_whatever_the_batch(make_nlp):
    nlp = make_nlp(model={"@architectures": "spacy-elmo.ElmoBiLm.v1", "token_budget": 24})
    docs = list(nlp.pipe(TEXTS * 2, batch_size=4))
    for doc in docs:
        np.testing.assert_allclose(doc._.elmo.layers, reference_layers([t.text for t in doc]), atol=ATOL)


@pytest.mark.parametrize(
    "architecture, setting",
    [("v3", "tokens_per_batch"), ("v2", "token_budget"), ("v1", "token_budget")],
    ids=["v3-tokens_per_batch", "v2-token_budget", "v1-token_budget"],
)
def test_tokens_per_batch_bounds_every_biLM_call_and_v2_and_v1_spell_it_token_budget(
    architecture, setting, tiny_elmo_dir, monkeypatch
):
    """v3's tokens_per_batch is elmo embed's --tokens-per-batch; configs naming v2 or v1 (written before v3)
    keep token_budget, which loads and trains as before. Was: token_budget alone (no v3)."""
    import spacy_elmo.bilm

    calls = []
    run = spacy_elmo.bilm._run

    def counted(elmo, rows, fine_tune):
        calls.append(len(rows) * max(len(row.words) for row in rows))
        return run(elmo, rows, fine_tune)

    monkeypatch.setattr(spacy_elmo.bilm, "_run", counted)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"@architectures": f"spacy-elmo.ElmoBiLm.{architecture}", setting: 24}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    docs = list(nlp.pipe(TEXTS * 2, batch_size=6))
    for doc in docs:
        np.testing.assert_allclose(doc._.elmo.layers, reference_layers([t.text for t in doc]), atol=ATOL)
    assert len(calls) > 1 and max(calls) <= 24
    losses = nlp.update(examples, sgd=optimizer)
    assert losses["ner"] > 0


def test_the_default_elmo_model_names_tokens_per_batch():
    """What a new pipeline's config.cfg holds (spacy init fill-config, nlp.to_disk)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    settings = nlp.config["components"]["elmo"]["model"]
    assert settings["@architectures"] == "spacy-elmo.ElmoBiLm.v3"
    assert settings["tokens_per_batch"] == 4096 and "token_budget" not in settings


def test_sentences_are_read_separately_when_the_doc_has_boundaries(make_nlp):
    nlp = make_nlp(sentencizer=True)
    doc = nlp("The cat sat. It was happy!")
    for sent in doc.sents:
        np.testing.assert_allclose(
            doc._.elmo.layers[:, sent.start : sent.end], reference_layers([t.text for t in sent]), atol=ATOL
        )


def test_empty_doc_gets_zero_tokens_of_layers(make_nlp):
    nlp = make_nlp()
    docs = list(nlp.pipe(["", "Hello there", ""]))
    assert docs[0]._.elmo.layers.shape == (3, 0, 16)
    assert docs[2]._.elmo.layers.shape == (3, 0, 16)


def test_whitespace_tokens_get_zeros_and_do_not_change_their_neighbours(make_nlp):
    nlp = make_nlp()
    doc = nlp(Doc(nlp.vocab, words=["Hello", "  ", "world", "\n\n", "!"]))
    np.testing.assert_array_equal(doc._.elmo.layers[:, [1, 3]], 0.0)
    np.testing.assert_allclose(doc._.elmo.layers[:, [0, 2, 4]], reference_layers(["Hello", "world", "!"]), atol=ATOL)
    only_space = nlp(Doc(nlp.vocab, words=[" ", "\t", "\n"], spaces=[False] * 3))
    np.testing.assert_array_equal(only_space._.elmo.layers, np.zeros((3, 3, 16), dtype="float32"))


def test_a_5000_token_doc_longer_than_the_token_budget_equals_an_unbounded_run_and_warns_it_is_slow(make_nlp):
    words = [f"w{i % 97}" for i in range(5000)]
    small = make_nlp(model={"@architectures": "spacy-elmo.ElmoBiLm.v1", "token_budget": 64})
    with pytest.warns(UserWarning, match="a doc of 5,000 tokens has no sentence boundaries, .* add a sentencizer"):
        doc = small(Doc(small.vocab, words=words))
    assert doc._.elmo.layers.shape == (3, 5000, 16)
    np.testing.assert_allclose(doc._.elmo.layers, reference_layers(words), atol=1e-5)


def test_long_docs_without_sentence_boundaries_are_warned_about_once_per_component(make_nlp):
    """``nlp.pipe`` over a corpus of long documents without a sentencizer says so once (was: once per
    distinct doc length, as each message named it: thousands of lines for a corpus)."""
    nlp = make_nlp()
    texts = [" ".join(["word"] * (1000 + i)) for i in range(3)]
    with pytest.warns(UserWarning, match="no sentence boundaries") as caught:
        list(nlp.pipe(texts, batch_size=1))
        list(nlp.pipe([" ".join(["other"] * 1500)]))
    assert len([w for w in caught if "no sentence boundaries" in str(w.message)]) == 1


def test_a_long_doc_read_sentence_by_sentence_gives_no_slowness_warning(make_nlp):
    import warnings

    nlp = make_nlp()
    doc = Doc(nlp.vocab, words=["w"] * 1200, sent_starts=[i % 20 == 0 for i in range(1200)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(doc)


def test_token_budget_batches_cover_every_segment_within_the_budget():
    lengths = [5, 1, 9, 3, 3, 12, 2, 7]
    batches = token_budget_batches(lengths, token_budget=12)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) * max(lengths[i] for i in batch) <= 12
    assert token_budget_batches([30], token_budget=12) == [[0]]
    with pytest.raises(ValueError, match="token_budget"):
        token_budget_batches([1], token_budget=0)


def test_very_long_tokens_are_truncated_like_the_original_and_bad_text_is_named(make_nlp):
    nlp = make_nlp()
    long_token = "x" * 300
    doc = nlp(Doc(nlp.vocab, words=["see", long_token]))
    np.testing.assert_allclose(doc._.elmo.layers, reference_layers(["see", "x" * 48]), atol=ATOL)
    with pytest.raises(ValueError, match="surrogate"):
        nlp(Doc(nlp.vocab, words=["bad", "\udc80"]))


def test_loader_accepts_an_original_format_folder(shared, tmp_path):
    fixture = shared / "fixtures" / "elmo-allennlp"
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(fixture)
    nlp.initialize()
    doc = nlp("The cat sat .")
    model = ElmoModel.from_allennlp(fixture / "options.json", fixture / "lm_weights.hdf5")
    with torch.no_grad():
        expected = torch.stack(model(input_ids=batch_to_ids([["The", "cat", "sat", "."]])).hidden_states)[:, 0]
    np.testing.assert_allclose(doc._.elmo.layers, expected.numpy(), atol=ATOL)


def test_to_disk_and_load_give_identical_layers_without_the_original_folder(tmp_path):
    source = tmp_path / "source-elmo"
    tiny_elmo().save_pretrained(source)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(source)
    nlp.initialize()
    nlp.to_disk(tmp_path / "pipeline")
    shutil.rmtree(source)
    saved = {p.relative_to(tmp_path / "pipeline" / "elmo") for p in (tmp_path / "pipeline" / "elmo").rglob("*.*")}
    assert {Path("bilm/model.safetensors"), Path("bilm/config.json")} <= saved
    assert {p.suffix for p in saved} <= {".json", ".safetensors", ".py"}  # weights: no pickle
    loaded = spacy.load(tmp_path / "pipeline")
    for text in TEXTS:
        np.testing.assert_array_equal(loaded(text)._.elmo.layers, nlp(text)._.elmo.layers)


def test_saving_over_a_biLM_folder_that_cannot_be_written_is_one_os_error_naming_it_before_writing_it(
    make_nlp, tmp_path
):
    """A folder whose files can be rewritten but where no file can be made (mode 0555, or the immutable
    flag for root): spaCy rewrites its own files there, but the biLM's weights go through a temporary
    file. Was: config.json and the code files rewritten, then safetensors' SafetensorError (not an
    OSError) naming that temporary file ('Error while serializing: I/O error: Permission denied ...
    at path ".../elmo/bilm/.tmpXXXX"')."""
    nlp = make_nlp()
    pipeline = tmp_path / "pipeline"
    nlp.to_disk(pipeline)
    bilm = pipeline / "elmo" / "bilm"
    before = {p.name: p.stat().st_mtime_ns for p in bilm.iterdir()}
    with unwritable(bilm):
        with pytest.raises(OSError) as info:
            nlp.to_disk(pipeline)
    written, folder = (re.escape(str(p)) for p in (pipeline / "elmo", bilm))
    assert re.fullmatch(rf"cannot write {written}: {folder} is not writable \(.+\)", str(info.value))
    assert {p.name: p.stat().st_mtime_ns for p in bilm.iterdir()} == before


def test_saving_to_a_disk_without_room_for_the_biLM_weights_is_one_enospc_error_naming_the_folder(
    make_nlp, tmp_path, monkeypatch
):
    """Was: the weights' write failed part-way with safetensors' SafetensorError ('Error while serializing:
    I/O error: No space left on device (os error 28)'), no OSError and no path; now the disk's room is
    checked first, as every command of the project checks it."""
    import hf_elmo.fileio
    from hf_elmo.fileio import FREE_SPACE_RESERVE
    from tests.hf_elmo.test_convert_safety import DiskUsage

    nlp = make_nlp()
    pipeline = tmp_path / "pipeline"
    monkeypatch.setattr(
        hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, FREE_SPACE_RESERVE + 1000)
    )
    with pytest.raises(OSError) as info:
        nlp.get_pipe("elmo").to_disk(pipeline / "elmo")
    assert info.value.errno == errno.ENOSPC
    assert str(info.value).startswith(
        f"no space left on the disk of {tmp_path} for the biLM weights of the elmo "
        f"component 'elmo' in {pipeline / 'elmo' / 'bilm'} (needs "
    )
    assert str(info.value).endswith("; free some space and save the pipeline again")
    assert not pipeline.exists()  # nothing written


def test_a_pipeline_packaged_before_v3_with_token_budget_loads_and_runs_with_its_budget(tiny_elmo_dir, tmp_path):
    """Its config.cfg names spacy-elmo.ElmoBiLm.v2 with token_budget, and the model bytes of a component
    with a biLM of its own (after replace_listeners) hold the attribute token_budget, as they were written
    then; loaded, both biLMs batch by it (the attribute is tokens_per_batch since v3)."""
    from spacy_elmo.bilm import is_elmo_bilm

    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"@architectures": "spacy-elmo.ElmoBiLm.v2", "token_budget": 24}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])
    expected = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(TEXTS)]
    bilms = [node for name in ("elmo", "ner") for node in nlp.get_pipe(name).model.walk() if is_elmo_bilm(node)]
    assert len(bilms) == 2
    for bilm in bilms:
        bilm.attrs["token_budget"] = bilm.attrs.pop("tokens_per_batch")  # the attribute's name before v3
    nlp.to_disk(tmp_path / "pipeline")
    assert "token_budget = 24" in (tmp_path / "pipeline" / "config.cfg").read_text()
    loaded = spacy.load(tmp_path / "pipeline")
    for name in ("elmo", "ner"):
        for node in loaded.get_pipe(name).model.walk():
            if is_elmo_bilm(node):
                assert node.attrs["tokens_per_batch"] == 24
    assert [[(e.start, e.end, e.label_) for e in doc.ents] for doc in loaded.pipe(TEXTS)] == expected
    for text in TEXTS:
        np.testing.assert_allclose(loaded(text)._.elmo.layers, reference_layers(text.split()), atol=ATOL)


def test_a_pipeline_saved_before_initialize_is_whole_and_initialises_when_loaded(tiny_elmo_dir, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": tok2vec_config()}})
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.to_disk(tmp_path / "pipeline")  # as spaCy saves its own components before nlp.initialize()
    assert {p.name for p in (tmp_path / "pipeline").iterdir()} >= {"config.cfg", "elmo", "tagger", "vocab"}
    assert [p.name for p in (tmp_path / "pipeline" / "elmo").iterdir()] == ["no-bilm.txt"]
    loaded = spacy.load(tmp_path / "pipeline")
    with pytest.raises(ValueError, match=r"^the elmo component 'elmo' has no biLM weights yet: .* nlp.initialize\(\)"):
        loaded("The cat sat .")
    words, tags = ["The", "cat", "sat", "."], ["DT", "NN", "VBD", "."]
    loaded.initialize(lambda: [Example.from_dict(loaded.make_doc(" ".join(words)), {"words": words, "tags": tags})])
    doc = loaded("The cat sat .")
    np.testing.assert_allclose(doc._.elmo.layers, reference_layers(words), atol=ATOL)
    assert {token.tag_ for token in doc} <= set(tags)
    loaded.to_disk(tmp_path / "pipeline")  # initialised, over the save without weights
    assert sorted(p.name for p in (tmp_path / "pipeline" / "elmo").iterdir()) == ["bilm"]
    np.testing.assert_array_equal(spacy.load(tmp_path / "pipeline")("The cat sat .")._.elmo.layers, doc._.elmo.layers)


def test_saving_over_a_biLM_folder_that_is_a_link_replaces_the_link_and_leaves_its_target_untouched(
    tiny_elmo_dir, tmp_path
):
    """A pipeline folder whose ``elmo/bilm`` (or a file in it) links to a user's model folder: the save
    replaces the link with a folder of its own, as it writes one where there is none. Was: the save
    wrote through the link, over the files of the user's model folder."""
    original = tmp_path / "original"
    shutil.copytree(tiny_elmo_dir, original)
    (original / "notes.txt").write_text("mine")
    before = {p.name: p.read_bytes() for p in original.iterdir()}
    tiny_elmo(seed=1).save_pretrained(tmp_path / "other")  # weights unlike the linked folder's
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tmp_path / "other")
    nlp.initialize()
    for linked in ("folder", "file"):
        pipeline = tmp_path / f"pipeline-{linked}"
        bilm = pipeline / "elmo" / "bilm"
        bilm.parent.mkdir(parents=True)
        if linked == "folder":
            bilm.symlink_to(original, target_is_directory=True)
        else:
            bilm.mkdir()
            (bilm / "model.safetensors").symlink_to(original / "model.safetensors")
        nlp.to_disk(pipeline)
        assert {p.name: p.read_bytes() for p in original.iterdir()} == before
        assert bilm.is_dir() and not bilm.is_symlink() and not any(p.is_symlink() for p in bilm.iterdir())
        np.testing.assert_array_equal(spacy.load(pipeline)(TEXTS[0])._.elmo.layers, nlp(TEXTS[0])._.elmo.layers)


def test_saving_before_initialize_over_an_initialised_save_leaves_no_stale_biLM(make_nlp, tmp_path):
    """Was: the earlier save's ``elmo/bilm`` stayed beside ``no-bilm.txt``, and loading the pipeline as a
    model named that stale biLM as its elmo component's."""
    from hf_elmo.loading import InvalidModelError, resolve_model

    pipeline = tmp_path / "pipeline"
    make_nlp().to_disk(pipeline)
    blank = spacy.blank("en")
    blank.add_pipe("elmo")
    blank.to_disk(pipeline)
    assert [p.name for p in (pipeline / "elmo").iterdir()] == ["no-bilm.txt"]
    with pytest.raises(InvalidModelError, match="saved before nlp.initialize"):
        resolve_model(pipeline)
    with pytest.raises(ValueError, match="has no biLM weights yet"):
        spacy.load(pipeline)(TEXTS[0])


def test_saving_over_a_biLM_folder_holding_files_elmo_did_not_write_is_refused_in_one_line_and_keeps_them(
    make_nlp, tmp_path
):
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    bilm = pipeline / "elmo" / "bilm"
    (bilm / "thesis.tex").write_text("mine")
    before = {p.name: p.read_bytes() for p in bilm.iterdir()}
    blank = spacy.blank("en")
    blank.add_pipe("elmo")
    for saved in (nlp, blank):
        with pytest.raises(FileExistsError) as refused:
            saved.get_pipe("elmo").to_disk(pipeline / "elmo")
        assert str(refused.value) == (
            f"{bilm} holds files that elmo did not write (thesis.tex), which saving the elmo component 'elmo' "
            "would delete with its earlier biLM; move them out of it, or save the pipeline elsewhere"
        )
        assert {p.name: p.read_bytes() for p in bilm.iterdir()} == before


def test_from_bytes_of_a_component_without_weights_keeps_the_weights_it_has(make_nlp):
    """As from_disk of a component saved before nlp.initialize (was: the biLM was dropped)."""
    nlp = make_nlp()
    before = nlp(TEXTS[0])._.elmo.layers
    blank = spacy.blank("en")
    blank.add_pipe("elmo")
    nlp.get_pipe("elmo").from_bytes(blank.get_pipe("elmo").to_bytes())
    np.testing.assert_array_equal(nlp(TEXTS[0])._.elmo.layers, before)


def test_to_bytes_and_from_bytes_round_trip(make_nlp):
    nlp = make_nlp()
    fresh = spacy.blank("en")
    fresh.add_pipe("elmo")
    fresh.from_bytes(nlp.to_bytes())
    original, restored = (n.get_pipe("elmo").model.shims[0].elmo.state_dict() for n in (nlp, fresh))
    assert original.keys() == restored.keys()
    assert all(torch.equal(original[k], restored[k]) for k in original)
    np.testing.assert_allclose(fresh(TEXTS[0])._.elmo.layers, nlp(TEXTS[0])._.elmo.layers, atol=ATOL)


def test_docbin_keeps_the_layers(make_nlp):
    nlp = make_nlp()
    docs = list(nlp.pipe(TEXTS))
    restored = list(
        DocBin(docs=docs, store_user_data=True)
        .from_bytes(DocBin(docs=docs, store_user_data=True).to_bytes())
        .get_docs(nlp.vocab)
    )
    for doc, back in zip(docs, restored):
        np.testing.assert_array_equal(back._.elmo.layers, doc._.elmo.layers)


def test_docs_read_back_where_no_elmo_component_was_made_have_doc_elmo(make_nlp):
    """A process that reads what ``spacy apply`` or ``DocBin(store_user_data=True)`` wrote, with
    ``spacy.blank`` and no elmo component, finds ``doc._.elmo``: decoding the layers registers it
    (was: spaCy's E046 'Can't retrieve unregistered extension attribute', which only making an
    elmo component avoided)."""
    from spacy_elmo.doc_layers import EXTENSION, register_extension

    nlp = make_nlp()
    saved = DocBin(docs=[nlp(TEXTS[0])], store_user_data=True).to_bytes()
    layers = nlp(TEXTS[0])._.elmo.layers
    Doc.remove_extension(EXTENSION)  # as in a new process
    try:
        (doc,) = DocBin().from_bytes(saved).get_docs(spacy.blank("en").vocab)
        np.testing.assert_array_equal(doc._.elmo.layers, layers)
        assert doc._.elmo.component == "elmo"
    finally:
        register_extension()


def test_doc_to_json_of_doc_elmo_is_refused_in_one_line(make_nlp):
    """``doc.to_json(underscore=["elmo"])``: spaCy refuses a value that is not JSON with its repr,
    which is now one line naming the layers' shape (was: the arrays printed whole, dozens of lines
    of numbers). ``doc.to_json()`` without it works."""
    doc = make_nlp()(TEXTS[2])
    assert doc.to_json()["text"] == TEXTS[2]
    with pytest.raises(ValueError) as error:
        doc.to_json(underscore=["elmo"])
    assert str(error.value) == (
        "[E107] Value of custom attribute `elmo` is not JSON-serializable: "
        f"ElmoLayers(layers of shape (3, {len(doc)}, 16), component 'elmo')"
    )


def test_biLM_dropout_is_off_at_inference_and_for_a_frozen_biLM_in_training():
    elmo = tiny_elmo()
    elmo.bilm.dropout.p = 0.5  # as a biLM trained with dropout would have it
    nlp = spacy.blank("en")
    component = nlp.add_pipe("elmo", config={"cache_mb": 0})
    component.initialize(lambda: [], nlp=nlp, loader=lambda: elmo)
    docs = [nlp.make_doc(t) for t in TEXTS]
    predicted = component.predict(docs)
    trained, _ = component.model(docs, is_train=True)
    for again, in_training, expected in zip(component.predict(docs), trained, predicted):
        np.testing.assert_array_equal(again, expected)
        np.testing.assert_array_equal(in_training, expected)
    component.model.attrs["frozen"] = False  # fine-tuning trains with the biLM's dropout
    fine_tuned, _ = component.model(docs, is_train=True)
    assert not np.array_equal(fine_tuned[0], predicted[0])


def test_a_word_baseline_given_by_from_disk_is_refused_naming_its_folder(word_baseline_folder, tmp_path):
    """``from_disk`` of a hand-made folder can give the component a word-embedding baseline (it reads word
    ids, not char ids). Was: taken, and failing only at the first doc. (A loader of one's own:
    test_spacy_custom_loader_errors.py.)"""
    saved = tmp_path / "elmo"
    shutil.copytree(word_baseline_folder, saved / "bilm")
    component = spacy.blank("en").add_pipe("elmo")
    with pytest.raises(ValueError) as refused:
        component.from_disk(saved)
    assert str(refused.value) == (
        f"{saved / 'bilm'}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; the elmo component 'elmo' needs a char-CNN biLM"
    )
    assert component.model.shims[0].elmo is None


def test_from_bytes_of_a_word_baseline_is_refused_naming_it_and_keeps_the_weights_it_has(
    make_nlp, word_baseline_folder
):
    """Bytes of a component that holds a word-embedding baseline (it reads word ids, not char ids). Was: loaded,
    failing only at the first doc."""
    from spacy_elmo.bilm import load_weights

    holding = spacy.blank("en").add_pipe("elmo")
    load_weights(holding.model, ElmoModel.from_pretrained(word_baseline_folder))  # as no loader now gives it
    nlp = make_nlp()
    before = nlp(TEXTS[0])._.elmo.layers
    with pytest.raises(ValueError) as refused:
        nlp.get_pipe("elmo").from_bytes(holding.to_bytes())
    assert str(refused.value) == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; the elmo component 'elmo' needs a char-CNN biLM"
    )
    np.testing.assert_array_equal(nlp(TEXTS[0])._.elmo.layers, before)


def test_a_word_baseline_given_to_a_biLM_a_component_owns_is_refused_as_it_initialises_naming_its_folder(
    word_baseline_folder,
):
    """spacy-elmo.ElmoBiLm with a custom loader, inside a component's own model (spacy-elmo.ElmoMix.v1). Was:
    taken, and failing only at the first doc."""
    from spacy_elmo.bilm import elmo_bilm_v3

    bilm = elmo_bilm_v3(loader=lambda: ElmoModel.from_pretrained(word_baseline_folder))
    with pytest.raises(ConfigValidationError) as refused:
        bilm.initialize()
    assert refused.value.errors[0]["msg"] == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; spacy-elmo.ElmoBiLm needs a char-CNN biLM"
    )
    assert bilm.shims[0].elmo is None


def test_elmo_added_to_a_trained_pipeline_says_how_to_load_it_alone_and_that_call_keeps_the_trained_weights(
    tiny_elmo_dir, tmp_path
):
    spacy.util.fix_random_seed(0)
    trained = spacy.blank("en")
    trained.add_pipe("tagger")
    words, tags = ["The", "cat", "sat", "."], ["DT", "NN", "VBD", "."]
    examples = [Example.from_dict(trained.make_doc(" ".join(words)), {"words": words, "tags": tags})]
    optimizer = trained.initialize(lambda: examples)
    for _ in range(3):
        trained.update(examples, sgd=optimizer)
    trained.to_disk(tmp_path / "trained")
    nlp = spacy.load(tmp_path / "trained")
    tagger_before = nlp.get_pipe("tagger").model.to_bytes()
    tags_before = [token.tag_ for token in nlp("The cat sat .")]
    nlp.add_pipe("elmo", config={"model": {"loader": loader_settings(tiny_elmo_dir)["loader"]}})
    with pytest.raises(ValueError) as info:
        nlp("The cat sat .")
    assert str(info.value) == (
        "the elmo component 'elmo' has no biLM weights yet: in a new pipeline, call nlp.initialize() first (before "
        "anything runs the pipeline, such as an entity_ruler's phrase patterns); in a pipeline whose other components "
        'are trained, load them alone with nlp.get_pipe("elmo").initialize(lambda: [], nlp=nlp) (nlp.initialize() '
        "re-initialises every component, trained weights included)"
    )
    nlp.get_pipe("elmo").initialize(lambda: [], nlp=nlp)  # the call the message gives
    doc = nlp("The cat sat .")
    assert doc._.elmo.layers.shape == (3, 4, 16)
    assert nlp.get_pipe("tagger").model.to_bytes() == tagger_before
    assert [token.tag_ for token in doc] == tags_before
