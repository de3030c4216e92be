"""The shipped configs (ELMo and baseline differ only by ELMo) and the corpus readers."""

import subprocess
import sys
from functools import partial

import pytest
import spacy
from spacy.util import load_config

from spacy_elmo.corpora import iob1_spans, read_conll2003, read_sst, read_sst_trees
from tests.conftest import REPO, load_script, run_main

CONFIGS = REPO / "spacy_elmo" / "configs"


def without_elmo(config: dict, task: str) -> dict:
    """The ELMo config with the elmo component, its loader, path and the ELMo half of the
    tok2vec taken out, the way its baseline should read."""
    config = {section: dict(value) if isinstance(value, dict) else value for section, value in config.items()}
    config["paths"] = {k: v for k, v in config["paths"].items() if k != "elmo"}
    config["nlp"] = {**config["nlp"], "pipeline": [task]}
    config["components"] = {task: config["components"][task]}
    tok2vec = dict(config["components"][task]["model"]["tok2vec"])
    tok2vec.pop("elmo")
    tok2vec["@architectures"] = "spacy.Tok2Vec.v2"
    model = {**config["components"][task]["model"], "tok2vec": tok2vec}
    config["components"][task] = {**config["components"][task], "model": model}
    config["initialize"] = {**config["initialize"], "components": {}}
    return config


@pytest.mark.parametrize("task", ["ner", "textcat"])
def test_baseline_config_is_the_elmo_config_without_elmo(task):
    elmo = load_config(CONFIGS / f"{task}.cfg", interpolate=False)
    baseline = load_config(CONFIGS / f"{task}_baseline.cfg", interpolate=False)
    assert without_elmo(elmo, task) == dict(baseline)


@pytest.mark.parametrize("name", ["ner", "textcat", "ner_baseline", "textcat_baseline"])
def test_configs_build_a_pipeline(name):
    config = load_config(CONFIGS / f"{name}.cfg")
    nlp = spacy.util.load_model_from_config(config, auto_fill=False, validate=True)
    assert nlp.pipe_names[-1] == name.split("_")[0]


def test_iob1_spans_start_on_B_or_a_type_change():
    tags = ["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG", "I-MISC", "I-MISC"]
    assert iob1_spans(tags) == [(0, 2, "PER"), (3, 4, "LOC"), (4, 5, "LOC"), (5, 6, "ORG"), (6, 8, "MISC")]
    with pytest.raises(ValueError, match="IOB1"):
        iob1_spans(["X-PER"])


def test_read_conll2003_skips_docstart_and_reads_entities(tmp_path):
    path = tmp_path / "eng.tiny"
    path.write_text(
        "-DOCSTART- -X- O O\n\nEU NNP I-NP I-ORG\nrejects VBZ I-VP O\nGerman JJ I-NP I-MISC\n\n"
        "Peter NNP I-NP I-PER\nBlackburn NNP I-NP I-PER\n",
        encoding="utf-8",
    )
    docs = list(read_conll2003(path, spacy.blank("en").vocab))
    assert [[(e.text, e.label_) for e in doc.ents] for doc in docs] == [
        [("EU", "ORG"), ("German", "MISC")],
        [("Peter Blackburn", "PER")],
    ]


def test_corpus_files_starting_with_a_byte_order_mark_read_as_without_it(tmp_path):
    """A UTF-8 byte-order mark, as some editors write, is dropped (was: a CoNLL file's first line
    ``\ufeff-DOCSTART-`` became a one-word doc, an SST file's first label was no integer, and an
    SST tree file's first line had a word outside the tree)."""
    vocab = spacy.blank("en").vocab
    files = {
        read_conll2003: "-DOCSTART- -X- O O\n\nEU NNP I-NP I-ORG\nrejects VBZ I-VP O\n",
        read_sst: "1 a fine film .\n0 dull .\n",
        partial(read_sst_trees, binary=True): TREES,
    }
    for reader, text in files.items():
        plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
        plain.write_text(text, encoding="utf-8")
        marked.write_text(text, encoding="utf-8-sig")
        expected = [(doc.text, doc.cats, [(e.text, e.label_) for e in doc.ents]) for doc in reader(plain, vocab)]
        got = [(doc.text, doc.cats, [(e.text, e.label_) for e in doc.ents]) for doc in reader(marked, vocab)]
        assert got == expected


def test_read_sst_gives_exclusive_categories(tmp_path):
    path = tmp_path / "sst.tiny"
    path.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    docs = list(read_sst(path, spacy.blank("en").vocab))
    assert [doc.cats for doc in docs] == [{"0": 0.0, "1": 1.0}, {"0": 1.0, "1": 0.0}]
    assert [t.text for t in docs[0]] == ["a", "fine", "film", "."]


def test_a_file_that_is_not_sst_is_refused_naming_the_first_line_without_a_label(tmp_path):
    path = tmp_path / "eng.testa"
    path.write_text("1 a fine film .\nEU NNP I-NP I-ORG\n", encoding="utf-8")  # CoNLL given as SST
    with pytest.raises(ValueError, match=r"sentence 2 starts with 'EU', not an integer label"):
        list(read_sst(path, spacy.blank("en").vocab))


TREES = (
    "(3 (2 (2 The) (2 film)) (3 (3 (2 is) (4 great)) (2 .)))\n"
    "(1 (2 -LRB-) (1 (2 It) (1 (2 is) (1 (2 ``) (0 dull\\/bad) (2 '')))) (2 -RRB-))\n"
    "(2 (2 The) (2 film))\n"
)


def test_read_sst_trees_gives_each_sentence_in_its_casing_with_ptb_escapes_undone(tmp_path):
    path = tmp_path / "trees.txt"
    path.write_text(TREES, encoding="utf-8")
    docs = list(read_sst_trees(path, spacy.blank("en").vocab, binary=False))
    assert [[t.text for t in doc] for doc in docs] == [
        ["The", "film", "is", "great", "."],
        ["(", "It", "is", '"', "dull/bad", '"', ")"],
        ["The", "film"],
    ]
    assert [max(doc.cats, key=doc.cats.get) for doc in docs] == ["3", "1", "2"]
    assert all(sorted(doc.cats) == ["0", "1", "2", "3", "4"] and sum(doc.cats.values()) == 1 for doc in docs)


def test_read_sst_trees_binary_drops_neutral_and_maps_0_1_to_0_and_3_4_to_1(tmp_path):
    path = tmp_path / "trees.txt"
    path.write_text(TREES, encoding="utf-8")
    docs = list(read_sst_trees(path, spacy.blank("en").vocab, binary=True))
    assert [(doc.text.strip(), doc.cats) for doc in docs] == [
        ("The film is great .", {"0": 0.0, "1": 1.0}),
        ('( It is " dull/bad " )', {"0": 1.0, "1": 0.0}),
    ]
    assert len(list(read_sst_trees(path, spacy.blank("en").vocab, 1, binary=True))) == 1


def test_read_sst_trees_phrases_gives_each_distinct_non_neutral_phrase_once(tmp_path):
    path = tmp_path / "trees.txt"
    path.write_text(TREES, encoding="utf-8")
    docs = list(read_sst_trees(path, spacy.blank("en").vocab, binary=True, phrases=True))
    phrases = [(doc.text.strip(), max(doc.cats, key=doc.cats.get)) for doc in docs]
    assert phrases == [
        ("great", "1"),
        ("is great", "1"),
        ("is great .", "1"),
        ("The film is great .", "1"),
        ("dull/bad", "0"),
        ('" dull/bad "', "0"),
        ('is " dull/bad "', "0"),
        ('It is " dull/bad "', "0"),
        ('( It is " dull/bad " )', "0"),
    ]
    capped = list(read_sst_trees(path, spacy.blank("en").vocab, 1, binary=True, phrases=True))
    assert len(capped) == 4  # the phrases of the first tree


@pytest.mark.parametrize(
    "line, message",
    [
        ("1 a fine film .", "word '1' outside the tree"),
        ("(3 (2 The) (5 film))", "node label '5' is not 0-4"),
        ("(3 (2 The) (2 film)", "unbalanced '\\('"),
        (") (2 film)", "unbalanced '\\)'"),
        ("(3 (2 The)) (2 film)", "text after the tree's end"),
        ("(3 (2))", "a node with no words"),
    ],
)
def test_a_file_that_is_not_sst_trees_is_refused_naming_the_line(tmp_path, line, message):
    path = tmp_path / "train.txt"
    path.write_text("(2 (2 Fine))\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"train.txt:2: {message}: expected one"):
        list(read_sst_trees(path, spacy.blank("en").vocab, binary=False))


def convert_corpora(capsys, *argv: str) -> subprocess.CompletedProcess:
    """``scripts/convert_corpora.py`` run in this process (its imports cost seconds in a new one):
    its exit status and what it printed, as ``subprocess.run`` gives them. One test runs it as a
    command (``test_convert_corpora_writes_sst2_from_trees``)."""
    code, out, err = run_main(load_script("scripts/convert_corpora.py"), list(argv), capsys)
    return subprocess.CompletedProcess(["convert_corpora.py", *argv], code, out, err)


@pytest.mark.parametrize("count", ["-1", "many"])
def test_convert_corpora_refuses_a_sentence_count_below_0(count, tmp_path, capsys):
    path = tmp_path / "sst.tiny"
    path.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    run = convert_corpora(capsys, "sst", str(path), str(tmp_path / "o.spacy"), "--max-sentences", count)
    assert run.returncode == 2 and f"must be an integer >= 0, got '{count}'" in run.stderr
    assert not (tmp_path / "o.spacy").exists()


def test_shared_corpora_have_the_documented_sizes(shared):
    vocab = spacy.blank("en").vocab
    conll = shared / "data" / "conll2003-en"
    assert sum(1 for _ in read_conll2003(conll / "eng.testa", vocab)) == 3250
    sst = shared / "data" / "sst" / "sentence-level"
    assert sum(1 for _ in read_sst(sst / "stsa.fine.dev", vocab)) == 1101
    trees = shared / "data" / "sst" / "trees"
    assert sum(1 for _ in read_sst_trees(trees / "dev.txt", vocab, binary=False)) == 1101
    # SST-2: the sentence-level files' sentences, cased (train/dev/test 6920/872/1821)
    assert sum(1 for _ in read_sst_trees(trees / "test.txt", vocab, binary=True)) == 1821


def test_read_conll2003_takes_testb_docstart_line_as_a_boundary(shared):
    # eng.testb's first line is "-DOCSTART- -X- -X- O" (not "-DOCSTART- -X- O O" as in the others)
    docs = list(read_conll2003(shared / "data" / "conll2003-en" / "eng.testb", spacy.blank("en").vocab))
    assert len(docs) == 3453 and not any(doc[0].text == "-DOCSTART-" for doc in docs)
    assert [(e.text, e.label_) for e in docs[0].ents] == [("JAPAN", "LOC"), ("CHINA", "PER")]


def test_every_registered_spacy_elmo_function_has_an_entry_point():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from spacy.util import registry

    import spacy_elmo.component  # noqa: F401  (imports every module that registers a function)

    pyproject = tomllib.loads((CONFIGS.parents[1] / "pyproject.toml").read_text())["project"]["entry-points"]
    for table, section in ((registry.architectures, "spacy_architectures"), (registry.misc, "spacy_misc")):
        registered = {name for name in table.get_all() if name.startswith("spacy-elmo.")}
        assert registered == set(pyproject[section]), section


EAGER_ENTRY_POINTS = """
import importlib, sys, tomllib
entry_points = tomllib.loads(open(sys.argv[1]).read())["project"]["entry-points"]
for section in ("spacy_factories", "srsly_msgpack_encoders", "srsly_msgpack_decoders"):
    for target in entry_points[section].values():
        module, name = target.split(":")
        getattr(importlib.import_module(module), name)
from spacy.language import Language
assert Language.has_factory("elmo")
print(sorted(m for m in ("hf_elmo", "transformers", "spacy_elmo.component") if m in sys.modules))
"""


def test_the_entry_points_spacy_loads_for_every_pipeline_import_neither_hf_elmo_nor_transformers():
    """spaCy imports every factory (and srsly every msgpack codec) whenever it builds a pipeline:
    spacy.blank("en") took 2 s more with hf-elmo installed, and imported the package's model code
    into trust_remote_code sessions whose tokenizer uses spaCy."""
    pytest.importorskip("tomllib")  # Python 3.11+
    command = [sys.executable, "-c", EAGER_ENTRY_POINTS, str(REPO / "pyproject.toml")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "component, settings, message",
    [
        ("elmo", {"model": {"@architectures": "spacy-elmo.ElmoBiLm.v2", "token_budget": 0}}, "token_budget"),
        (
            "elmo",
            {"model": {"@architectures": "spacy-elmo.ElmoBiLm.v2", "grad_scaler_config": {"scale": 2}}},
            "unknown",
        ),
        ("elmo", {"cache_mb": -1}, "cache_mb"),
        (
            "elmo",
            {"model": {"@architectures": "spacy-elmo.ElmoBiLm.v2", "grad_scaler_config": {"init_scale": "x"}}},
            r"grad_scaler_config.init_scale[\s\S]*must be a finite number > 0, got the str 'x'",
        ),
        (
            "elmo",
            {"model": {"@architectures": "spacy-elmo.ElmoBiLm.v2", "grad_scaler_config": {"growth_interval": 1.5}}},
            "grad_scaler_config.growth_interval[\\s\\S]*whole number of steps",
        ),
        (
            "elmo",
            {
                "model": {
                    "@architectures": "spacy.HashEmbedCNN.v2",
                    **dict(width=96, depth=1, embed_size=100, window_size=1, maxout_pieces=3, subword_features=True),
                    "pretrained_vectors": None,
                }
            },
            r"model[\s\S]*must be a spacy-elmo.ElmoBiLm architecture",
        ),
    ],
    ids=["token-budget-0", "unknown-scaler-setting", "negative-cache", "scaler-value", "scaler-steps", "not-a-biLM"],
)
def test_bad_component_settings_are_config_errors_naming_the_setting(component, settings, message):
    from thinc.api import ConfigValidationError

    with pytest.raises(ConfigValidationError, match=message):
        spacy.blank("en").add_pipe(component, config=settings)


@pytest.mark.parametrize("settings", [{"layer_norm": "layer"}, {"dropout": 1.0}, {"l2": -1.0}])
def test_bad_mix_settings_are_config_errors_naming_the_setting(settings):
    from thinc.api import ConfigValidationError

    from spacy_elmo.scalar_mix import scalar_mix

    with pytest.raises(ConfigValidationError, match=next(iter(settings))):
        scalar_mix(**settings)


def test_convert_corpora_never_writes_over_its_input_a_folder_or_a_link(tmp_path, capsys):
    from hf_elmo.fileio import check_output_file

    source = tmp_path / "sst.tiny"
    source.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    before = source.read_bytes()

    def convert(output):
        return convert_corpora(capsys, "sst", str(source), str(output))

    run = convert(source)
    assert run.returncode == 1 and f"the output {source} is the input" in run.stderr
    assert source.read_bytes() == before
    run = convert(tmp_path)
    with pytest.raises(FileExistsError) as refused:  # the refusal of every atomic write's output
        check_output_file(tmp_path)
    assert (run.returncode, run.stderr) == (1, f"convert_corpora.py: error: {refused.value}\n")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "link.spacy").symlink_to(tmp_path / "notes.txt")
    run = convert(tmp_path / "link.spacy")
    assert run.returncode == 1 and run.stderr.startswith(
        f"convert_corpora.py: error: the output {tmp_path / 'link.spacy'} is a symbolic"
    )
    assert (tmp_path / "link.spacy").is_symlink() and (tmp_path / "notes.txt").read_text() == "mine"
    run = convert(tmp_path / "out" / "train.spacy")
    assert run.returncode == 0, run.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["train.spacy"]


@pytest.mark.parametrize("fmt, count", [("sst2-trees", 2), ("sst2-phrases", 9)])
def test_convert_corpora_writes_sst2_from_trees(tmp_path, fmt, count):
    from spacy.tokens import DocBin

    source = tmp_path / "train.txt"
    source.write_text(TREES, encoding="utf-8")
    output = tmp_path / "train.spacy"
    command = [sys.executable, str(REPO / "scripts" / "convert_corpora.py"), fmt, str(source), str(output)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    docs = list(DocBin().from_disk(output).get_docs(spacy.blank("en").vocab))
    assert len(docs) == count and docs[-1].text.startswith("(") and sorted(docs[-1].cats) == ["0", "1"]
