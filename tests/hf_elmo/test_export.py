"""Export for serving: the ONNX and torch.export graphs against eager ElmoModel, their wrappers'
input checks, and the ``elmo export`` command."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

import hf_elmo.export
import hf_elmo.export_formats
import hf_elmo.fileio
import hf_elmo.loading
from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer, batch_to_ids
from hf_elmo.cli import main as elmo_main
from hf_elmo.export import (
    MANIFEST,
    PARITY_KEY,
    OnnxElmo,
    TorchExportElmo,
    check_char_ids,
    export_model,
    export_reference,
    open_exported,
)
from hf_elmo.fileio import FREE_SPACE_RESERVE
from hf_elmo.modeling_elmo import InvalidModelError
from hf_elmo.output_folders import others_files
from tests.conftest import strict_json_loads
from tests.hf_elmo.random_inputs import clipped_random_model, random_sentences
from tests.hf_elmo.test_convert_safety import DiskUsage
from tests.hf_elmo.test_fileio import CANNOT_WRITE, refuse_writes_in

TOLERANCE = 1e-5  # fp32, max abs difference from eager ElmoModel
FORMATS = ["onnx", "torch-export"]
#: The shipped model's exports are checked on batches of these sentence lengths (README's figures are theirs).
SHIPPED_SWEEP = [[1], [200], [2, 3, 5], [1, 50, 200, 17, 8], list(range(1, 65)), [120] * 3]


@pytest.fixture(scope="module")
def tiny_model():
    return clipped_random_model()


@pytest.fixture(scope="module", params=FORMATS)
def exported(request, tiny_model, tmp_path_factory):
    folder = export_model(tiny_model, tmp_path_factory.mktemp("export") / "out", request.param)
    return open_exported(folder)


def as_numpy(array) -> np.ndarray:
    return array.numpy() if isinstance(array, torch.Tensor) else array


def test_exported_graph_matches_the_eager_model_on_padded_batches_of_1_to_200_tokens(tiny_model, exported, one_thread):
    sentences = random_sentences([13, 1, 200, 2])
    ids = batch_to_ids(sentences)
    layers, mask = exported.run(ids)
    expected = export_reference(tiny_model, ids)
    assert layers.shape == expected.shape == (4, 3, 200, 16)
    assert np.abs(as_numpy(layers) - expected.numpy()).max() < TOLERANCE
    assert (as_numpy(mask) == (ids > 0).any(-1).numpy()).all()
    # The same sentence alone (another batch size and length) gets the same vectors.
    alone, _ = exported([sentences[1]])
    assert alone.shape == (1, 3, 1, 16)
    assert np.abs(as_numpy(alone)[0] - expected[1, :, :1].numpy()).max() < TOLERANCE
    # Short tokens only: the convolutions run over fewer than the 50 char slots.
    short = batch_to_ids([["a", "ü", "to"], ["I"]])
    layers, _ = exported.run(short)
    assert np.abs(as_numpy(layers) - export_reference(tiny_model, short).numpy()).max() < TOLERANCE


def test_an_export_folder_holds_only_files_that_overwrite_may_replace(exported):
    assert others_files(exported.folder, "export") == []


def test_wrapper_returns_the_export_formats_own_array_type(exported):
    layers, mask = exported([["a", "b"]])
    kind = np.ndarray if isinstance(exported, OnnxElmo) else torch.Tensor
    assert isinstance(layers, kind) and isinstance(mask, kind)
    assert mask.dtype in (np.bool_, torch.bool)


def test_onnx_recurrence_is_one_scan_per_layer_not_unrolled(tiny_model, exported):
    if not isinstance(exported, OnnxElmo):
        pytest.skip("ONNX only")
    import onnx

    graph = onnx.load(str(exported.folder / "model.onnx")).graph
    ops = [node.op_type for node in graph.node]
    assert ops.count("Scan") == tiny_model.config.n_layers
    # The cell's tanh runs only inside the Scan bodies (the char CNN's activation is relu), once per step.
    assert "Tanh" not in ops
    for scan in (node for node in graph.node if node.op_type == "Scan"):
        body = next(attribute.g for attribute in scan.attribute if attribute.name == "body")
        assert [node.op_type for node in body.node].count("Tanh") == 2


def test_onnx_graph_has_no_unused_initializers_so_onnx_runtime_loads_it_without_warnings(exported, capfd):
    """ONNX Runtime warns on stderr ("Removing initializer ... It is not used by any node and should be
    removed from the model") for each weight that no node reads, in the graph or a Scan body."""
    if not isinstance(exported, OnnxElmo):
        pytest.skip("ONNX only")
    import onnx

    def inputs(graph: onnx.GraphProto) -> set[str]:
        names = set()
        for node in graph.node:
            names.update(node.input)
            for attribute in node.attribute:
                for body in [attribute.g, *attribute.graphs]:
                    names |= inputs(body)
        return names

    graph = onnx.load(str(exported.folder / "model.onnx")).graph
    assert [weight.name for weight in graph.initializer if weight.name not in inputs(graph)] == []
    capfd.readouterr()
    OnnxElmo(exported.folder)
    assert "Removing initializer" not in capfd.readouterr().err


def test_torch_export_program_scans_over_a_dynamic_batch_and_length(exported):
    if not isinstance(exported, TorchExportElmo):
        pytest.skip("torch.export only")
    assert isinstance(exported.program, torch.export.ExportedProgram)
    scans = [node for node in exported.program.graph.nodes if node.target is torch.ops.higher_order.scan]
    assert len(scans) == 2  # one per biLM layer
    shape = (
        next(node for node in exported.program.graph.nodes if node.op == "placeholder" and node.name == "char_ids")
        .meta["val"]
        .shape
    )
    assert not isinstance(shape[0], int) and not isinstance(shape[1], int)  # symbolic: any batch and length


@pytest.mark.parametrize(
    "sentence, col",
    [
        ("The cat  sat".split(" "), 2),  # a double space: an empty word
        (["The cat sat"], 0),  # a sentence passed as one word
        (["a", "tab\there"], 1),
    ],
)
def test_wrapper_refuses_an_empty_word_or_one_holding_whitespace_as_the_tokenizer_does(exported, sentence, col):
    with pytest.raises(ValueError, match=re.escape(f"sentence 1, word {col} ({sentence[col]!r}) is empty or holds")):
        exported([["first"], sentence])
    with pytest.raises(ValueError) as tokenizer_error:
        exported.tokenizer([["first"], sentence], is_split_into_words=True)
    with pytest.raises(ValueError) as error:
        exported.char_ids([["first"], sentence])
    said = str(tokenizer_error.value).removeprefix("is_split_into_words=True: ")  # no argument of the wrapper's
    assert str(error.value) == said and "\n" not in said


NO_BATCH = {
    "None": (None, "not None$"),
    "bytes": (b"Hello world", "not the bytes b'Hello world'$"),
    "an int": (3, "not the int 3$"),
    "char ids": (
        batch_to_ids([["Hello"]]),
        r"not an array \(Tensor of torch.int64\); pass char ids \(batch, tokens, 50\) to its run",
    ),
    "numpy char ids": (
        batch_to_ids([["Hello"]]).numpy(),
        r"not an array \(ndarray of int64\); pass char ids .* to its run",
    ),
}


@pytest.mark.parametrize("case", sorted(NO_BATCH))
@pytest.mark.parametrize("method", ["__call__", "char_ids"])
def test_wrapper_refuses_what_is_no_batch_of_sentences_in_one_line_naming_what_it_takes(exported, case, method):
    """Was: "'NoneType' object is not iterable", bytes read as sentences of ints, and char ids as
    "is_split_into_words=True: sentence 0, word 0 is a Tensor (tensor([259, ..."."""
    batch, message = NO_BATCH[case]
    with pytest.raises(TypeError, match=message) as error:
        getattr(exported, method)(batch)
    said = str(error.value)
    assert (
        said.startswith("the wrapper takes raw text (a str or a list of str) or tokenised sentences")
        and "\n" not in said
    )


@pytest.mark.parametrize(
    "batch, message",
    [
        ([1, 2], "^sentence 0 of the batch is the int 1, not a list of words$"),
        ([b"Hello"], "^sentence 0 of the batch is the bytes b'Hello', not a list of words$"),
        ([["a", None]], r"^sentence 0, word 1 is None, not a str; pass each word as a string$"),
        ([["a"], [["b"]]], r"^sentence 1, word 0 is the list \['b'\], not a str"),
    ],
)
def test_wrapper_refuses_a_sentence_or_word_of_the_wrong_type_in_one_line_without_the_tokenizers_arguments(
    exported, batch, message
):
    """Was: "is_split_into_words=True: sentence 0 ...", an argument the wrapper does not have."""
    with pytest.raises(TypeError, match=message):
        exported(batch)


def test_wrapper_takes_any_iterable_of_sentences(exported):
    expected, _ = exported([["Hello", "world"], ["Hi"]])
    layers, _ = exported(sentence for sentence in [("Hello", "world"), ("Hi",)])
    assert (as_numpy(layers) == as_numpy(expected)).all()


@pytest.mark.parametrize(
    "batch, error, message",
    [
        ([], ValueError, "^empty batch: pass at least one sentence$"),
        ([["a"], []], ValueError, "^sentence 1 of the batch is empty: it has no words to embed$"),
        (["a b", "   "], ValueError, "^sentence 1 of the batch is empty: it has no words to embed$"),
        (["a b", ["c"]], TypeError, "raw texts .* or of tokenised sentences .* not both"),
    ],
)
def test_wrapper_refuses_an_empty_batch_or_sentence_or_a_mixed_batch_in_one_line(exported, batch, error, message):
    with pytest.raises(error, match=message):
        exported(batch)


def test_char_ids_takes_tokenised_sentences_and_points_raw_text_to_the_wrapper(exported):
    with pytest.raises(TypeError, match=r"list of word lists .* on raw text: elmo\(\['Hello world.'\]\)"):
        exported.char_ids(["Hello", "world"])


BAD_IDS = {
    "rank": (np.zeros((2, 50), np.int64), r"must have shape \(batch, tokens, 50\), got \(2, 50\)"),
    "width": (np.zeros((1, 2, 49), np.int64), r"got \(1, 2, 49\)"),
    "empty": (np.zeros((0, 3, 50), np.int64), "empty"),
    "float": (np.ones((1, 2, 50), np.float32), "must be integers .* got float32"),
    "too large": (np.full((1, 2, 50), 262), r"\[0, 261\], found 262"),
    "negative": (np.full((1, 2, 50), -1), r"\[0, 261\], found -1"),
    "gap": (
        np.array([[[5] * 50, [5] * 50], [[5] * 50, [0] * 50], [[0] * 50, [5] * 50]]),
        "row 2: token 1 follows a padding token",
    ),
    "ragged": (
        [[[5] * 50], [[5] * 50, [5] * 50]],
        r"must have shape \(batch, tokens, 50\), but its rows or tokens differ",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_IDS))
def test_wrapper_rejects_bad_char_ids_with_a_one_line_error(exported, case):
    ids, message = BAD_IDS[case]
    with pytest.raises(ValueError, match=message) as error:
        exported.run(ids)
    assert "\n" not in str(error.value)


BAD_SESSION_ARGUMENTS = {
    "providers None": (
        {"providers": None},
        TypeError,
        r"providers takes a list of ONNX Runtime execution providers such as \['CPUExecutionProvider'\], not None$",
    ),
    "one name": (
        {"providers": "CPUExecutionProvider"},
        TypeError,
        r"not one name: \['CPUExecutionProvider'\]$",
    ),
    "a set": ({"providers": {"CPUExecutionProvider"}}, TypeError, r"not the set \{'CPUExecutionProvider'\}$"),
    "empty": ({"providers": []}, ValueError, "providers is empty; name at least one"),
    "not a name": ({"providers": [1]}, TypeError, "providers holds 1; each is an ONNX Runtime execution provider's"),
    "a typo": ({"providers": ["CPUExecutionProvidr"]}, ValueError, "'CPUExecutionProvidr' is not an ONNX Runtime"),
    "none available": (
        {"providers": ["DmlExecutionProvider"]},
        ValueError,
        "this ONNX Runtime install has none of the providers DmlExecutionProvider",
    ),
    "options a dict": (
        {"session_options": {"intra_op_num_threads": 1}},
        TypeError,
        r"session_options takes an onnxruntime.SessionOptions \(or leave it out\), not the dict \{'intra_op_num_threads': 1\}$",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SESSION_ARGUMENTS))
def test_onnx_wrapper_refuses_bad_providers_or_session_options_in_one_line_before_reading_the_folder(tmp_path, case):
    """Was: a str split into one provider per letter, an unknown or absent provider a fallback to
    the CPU (printed on stdout), and None or a wrong type "model.onnx cannot be read as an onnx
    graph ('NoneType' object is not iterable)", blaming the file."""
    arguments, error, message = BAD_SESSION_ARGUMENTS[case]
    with pytest.raises(error, match=message) as raised:
        OnnxElmo(tmp_path / "not-read", **arguments)
    assert "\n" not in str(raised.value)


def test_opening_an_onnx_export_without_onnxruntime_is_one_line_naming_what_to_install(exported, monkeypatch):
    """Was: ModuleNotFoundError: No module named 'onnxruntime'."""
    if exported.format != "onnx":
        pytest.skip("ONNX Runtime's import")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # importing it now raises ImportError
    with pytest.raises(ImportError) as error:
        open_exported(exported.folder)
    assert str(error.value) == (
        'an ONNX export runs with onnxruntime, which cannot be imported: pip install "hf-elmo[export]" (or '
        "onnxruntime-gpu for CUDA)"
    )


def test_onnx_wrapper_takes_providers_with_options_and_session_options(exported):
    if exported.format != "onnx":
        pytest.skip("ONNX Runtime's arguments")
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    served = OnnxElmo(exported.folder, providers=[("CPUExecutionProvider", {})], session_options=options)
    assert served.session.get_providers() == ["CPUExecutionProvider"]


@pytest.mark.parametrize("char_ids", [None, "ids", 5])
def test_wrapper_refuses_char_ids_that_are_no_array_in_one_line(exported, char_ids):
    """Was: "char_ids must have shape (batch, tokens, 50), got ()"."""
    with pytest.raises(TypeError, match=r"^char_ids must be an integer array or tensor \(batch, tokens, 50\), not "):
        exported.run(char_ids)


def test_integer_ids_of_any_width_are_accepted_as_int64():
    ids = batch_to_ids([["a", "bc"], ["d"]])
    checked = check_char_ids(ids.to(torch.int32), 50)
    assert checked.dtype == np.int64 and (checked == ids.numpy()).all()


def edit_manifest(**changes):
    def edit(folder):
        manifest = json.loads((folder / MANIFEST).read_text())
        manifest.update(changes)
        for key in [key for key, value in changes.items() if value is None]:
            del manifest[key]
        (folder / MANIFEST).write_text(json.dumps(manifest))

    return edit


def another_models_graph(folder):
    """The graph of a biLM of another shape (2 layers of 2 x 6, not 3 of 2 x 8) in ``folder``'s format."""
    torch.manual_seed(1)
    config = ElmoConfig(filters=[[1, 4]], n_highway=1, char_embedding_dim=4, lstm_dim=8, projection_dim=6, n_layers=1)
    manifest = json.loads((folder / MANIFEST).read_text())
    other = export_model(ElmoModel(config).eval(), folder.parent / "other", manifest["format"])
    shutil.copy(other / manifest["file"], folder / manifest["file"])


DAMAGED_EXPORTS = {
    "graph removed": (lambda folder: graph_file(folder).unlink(), r"{graph} not found"),
    "graph a folder": (
        lambda folder: graph_file(folder).unlink() or graph_file(folder).mkdir(),
        r"{graph} is a folder, not a file; export",
    ),
    "tokenizer a folder": (
        lambda folder: (folder / "tokenizer_config.json").unlink() or (folder / "tokenizer_config.json").mkdir(),
        r"{folder}/tokenizer_config.json is a folder, not a file; export",
    ),
    "tokenizer removed": (
        lambda folder: (folder / "tokenizer_config.json").unlink(),
        r"{folder}/tokenizer_config.json not found",
    ),
    "manifest not JSON": (lambda folder: (folder / MANIFEST).write_text("{"), r"{manifest} is not JSON \(Expecting"),
    "manifest a list": (
        lambda folder: (folder / MANIFEST).write_text("[]"),
        r"{manifest} holds the list \[\], not a JSON object",
    ),
    "width removed": (edit_manifest(max_characters_per_token=None), r"{manifest}: max_characters_per_token is missing"),
    "width a string": (
        edit_manifest(max_characters_per_token="50"),
        r"{manifest}: max_characters_per_token is the str '50', not a positive integer",
    ),
    "file outside": (edit_manifest(file="../model.onnx"), r"{manifest}: file is the str '../model.onnx', not 'model"),
    "input renamed": (edit_manifest(input="ids"), r"{manifest}: input is the str 'ids', not 'char_ids'"),
    "graph truncated": (
        lambda folder: graph_file(folder).write_bytes(graph_file(folder).read_bytes()[:1000]),
        r"{graph} cannot be read as (an ONNX model|a torch.export program) \(",
    ),
    "graph a text file": (
        lambda folder: graph_file(folder).write_text("version https://git-lfs.github.com/spec/v1\n"),
        r"{graph} is a text file, not (an ONNX model|a torch.export program); export",
    ),
    "graph empty": (lambda folder: graph_file(folder).write_bytes(b""), r"{graph} is empty, not (an ONNX|a torch)"),
    "graph of the other format": (
        lambda folder: graph_file(folder).write_bytes(
            b"PK\x03\x04 zipped" if graph_file(folder).suffix == ".onnx" else b"\x08\x08\x12\x07pytorch"
        ),
        r"{graph} is (a zip archive \(as a torch-export model.pt2 is\), not an ONNX model|binary data other than a zip "
        r"archive \(as an ONNX model is\), not a torch.export program); export",
    ),
    "tokenizer not JSON": (
        lambda folder: (folder / "tokenizer_config.json").write_text("{"),
        r"{folder}/tokenizer_config.json is not a JSON object of settings \(Expecting .*\); export the model again",
    ),
    "tokenizer edited": (
        lambda folder: (folder / "tokenizer_config.json").write_text('{"pre_tokenizer": "nope"}'),
        r"{folder}/tokenizer_config.json: pre_tokenizer must be 'whitespace' or 'spacy:LANG' .*, got 'nope'; export",
    ),
    "tokenizer of another width": (
        lambda folder: ElmoTokenizer(max_characters_per_token=20).save_pretrained(folder),
        r"{folder}/tokenizer_config.json does not fit {manifest}: max_characters_per_token is 20 there, 50 in the "
        r"manifest; export",
    ),
    "layers edited": (
        edit_manifest(num_layers=5),
        r"{graph} does not fit {manifest}: num_layers is 3 there, 5 in the manifest",
    ),
    "dtype edited": (
        edit_manifest(dtype="float16"),
        r"{graph} does not fit {manifest}: dtype is float32 there, float16 in the manifest",
    ),
    "another model's graph": (
        another_models_graph,
        r"{graph} does not fit {manifest}: num_layers is 2 there, 3 in the manifest; output_dim is 12 there, 16 in",
    ),
}


def graph_file(folder):
    return folder / json.loads((folder / MANIFEST).read_text())["file"]


@pytest.mark.parametrize("case", list(DAMAGED_EXPORTS))
def test_open_exported_refuses_a_damaged_export_in_one_line_naming_the_file_and_the_remedy(exported, tmp_path, case):
    """Was: raw JSONDecodeError, AttributeError, KeyError or runtime errors (a torch traceback logged), an error
    pointing back to open_exported for a missing tokenizer file, a graph or tokenizer file that is a folder "not
    found", and another model's graph served as this one's."""
    damage, message = DAMAGED_EXPORTS[case]
    folder = tmp_path / "served"
    shutil.copytree(exported.folder, folder)
    graph, manifest = graph_file(folder), folder / MANIFEST
    damage(folder)
    with pytest.raises(InvalidModelError) as error:
        open_exported(folder)
    said = str(error.value)
    assert re.match(
        message.format(graph=re.escape(str(graph)), folder=re.escape(str(folder)), manifest=re.escape(str(manifest))),
        said,
    ), said
    assert said.endswith(f"; export the model again: elmo export MODEL {folder} --overwrite") and "\n" not in said


@pytest.mark.parametrize("given", ["the graph file", "another file", "a model", "nothing", "an empty folder"])
def test_opening_what_is_no_export_folder_says_what_it_is_in_one_line(exported, tiny_model, tmp_path, given):
    """Was: ".../model.onnx/elmo_export.json not found: .../model.onnx is not a folder written by `elmo export`"."""
    path = {"the graph file": graph_file(exported.folder), "a model": tmp_path / "model"}.get(given, tmp_path / "x")
    expected = {
        "the graph file": f"{path} is a file of the export in {exported.folder}; pass that folder",
        "another file": f"{path} is a file, not a folder written by `elmo export`",
        "a model": f"{path} is an ELMo model, not an export of one; export it first: elmo export {path} OUTPUT_DIR",
        "nothing": f"{path} not found: pass a folder written by `elmo export`",
        "an empty folder": f"{path / MANIFEST} not found: {path} is not a folder written by `elmo export`",
    }[given]
    if given == "another file":
        path.write_text("mine")
    elif given == "a model":
        tiny_model.save_pretrained(path)
    elif given == "an empty folder":
        path.mkdir()
    for opener in (open_exported, type(exported)):
        with pytest.raises(FileNotFoundError) as error:
            opener(path)
        assert str(error.value) == expected


@pytest.mark.parametrize("folder", [None, 3])
def test_opening_what_is_no_path_is_one_line_asking_for_the_folder(exported, folder):
    """Was: "argument should be a str or an os.PathLike object where __fspath__ returns a str, not 'NoneType'"."""
    for opener in (open_exported, type(exported)):
        with pytest.raises(
            TypeError,
            match=r"^pass the folder that elmo export wrote \(a str or Path\), not (None|the int 3)$",
        ):
            opener(folder)


def test_a_wrapper_of_the_other_format_names_the_one_that_runs_the_folder(exported):
    """Was: "holds a onnx export, not torch-export; use open_exported()"."""
    other = TorchExportElmo if isinstance(exported, OnnxElmo) else OnnxElmo
    graph = {"onnx": "an ONNX model (model.onnx)", "torch-export": "a torch.export program (model.pt2)"}
    with pytest.raises(ValueError) as error:
        other(exported.folder)
    assert str(error.value) == (
        f"{exported.folder} holds {graph[exported.format]}, which {other.__name__} does not run; open it with "
        f"{type(exported).__name__} or open_exported()"
    )


def test_export_refuses_bfloat16_for_onnx_and_an_occupied_folder(tiny_model, tmp_path):
    with pytest.raises(ValueError, match="format onnx cannot use dtype bfloat16"):
        export_model(tiny_model, tmp_path / "a", "onnx", "bfloat16")
    with pytest.raises(ValueError, match="unknown export format"):
        export_model(tiny_model, tmp_path / "a", "tflite")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="holds no earlier output of elmo"):
        export_model(tiny_model, occupied, "torch-export")
    assert [p.name for p in tmp_path.iterdir()] == ["occupied"] and (occupied / "keep.txt").read_text() == "mine"


def test_export_model_takes_a_torch_dtype_as_well_as_its_name(tiny_model, tmp_path):
    """As from_pretrained(dtype=...) and embed_sentences do (was: 'format torch-export cannot use dtype
    torch.float16; use one of float32, float16, bfloat16')."""
    out = export_model(tiny_model, tmp_path / "out", "torch-export", torch.float16)
    assert json.loads((out / MANIFEST).read_text())["dtype"] == "float16"
    with pytest.raises(ValueError, match="format onnx cannot use dtype bfloat16; use one of float32, float16"):
        export_model(tiny_model, tmp_path / "a", "onnx", torch.bfloat16)
    with pytest.raises(ValueError, match="dtype 'int8' is no floating-point torch dtype"):
        export_model(tiny_model, tmp_path / "a", "onnx", "int8")


def test_elmo_export_refuses_a_dtype_its_format_cannot_use_in_one_line_before_loading_the_model(
    tmp_path, capsys, monkeypatch
):
    """Was: the model loaded (minutes for a large one), then refused."""
    monkeypatch.setattr(hf_elmo.loading, "load_bilm", lambda *args, **kwargs: pytest.fail("the model was loaded"))
    assert elmo_main(["export", "no-such-model", str(tmp_path / "out"), "--dtype", "bfloat16"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "elmo export: error: format onnx cannot use dtype bfloat16; use one of float32, float16"
    ]
    assert not any(tmp_path.iterdir())


def test_elmo_export_offers_the_formats_and_dtypes_of_the_export_module(capsys, monkeypatch):
    dtypes = {"onnx": ("float32",), "torch-export": ("float32", "float64")}
    monkeypatch.setattr(hf_elmo.export_formats, "DTYPES", dtypes)  # their one home, which hf_elmo.export imports
    with pytest.raises(SystemExit):
        elmo_main(["export", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "--format {onnx,torch-export}" in said and "--dtype {float32,float64}" in said
    assert "(default float32; float64 only for torch-export)" in said


def test_export_of_a_model_in_training_mode_checks_the_graph_against_its_inference_without_dropout(
    tiny_model, tmp_path
):
    """Was: the check compared the graph with the model's dropout-applied layers and recorded 0.81 as
    the graph's difference from the model."""
    model = ElmoModel(tiny_model.config.__class__(**{**tiny_model.config.to_dict(), "dropout": 0.5}))
    model.load_state_dict(tiny_model.state_dict())
    model.train()
    out = export_model(model, tmp_path / "out", "torch-export")
    assert json.loads((out / MANIFEST).read_text())[PARITY_KEY] < TOLERANCE
    assert model.training


def test_export_of_what_is_no_biLM_or_a_tokenizer_of_another_type_is_one_line_and_writes_nothing(tiny_model, tmp_path):
    """Was: AttributeError ('ElmoForTokenClassification' object has no attribute 'char_cnn'; 'str' object
    has no attribute 'config' or 'max_characters_per_token')."""
    from hf_elmo.modeling_heads import ElmoForTokenClassification

    with pytest.raises(
        TypeError, match=r"^export_model takes an ElmoModel \(the biLM\), not the str 'hf-elmo:elmo-2x1024-en'; load"
    ):
        export_model("hf-elmo:elmo-2x1024-en", tmp_path / "out")
    with pytest.raises(TypeError, match=r"not a value of type ElmoForTokenClassification; pass its biLM, model.elmo"):
        export_model(ElmoForTokenClassification(tiny_model.config), tmp_path / "out")
    with pytest.raises(TypeError, match=r"^tokenizer takes an ElmoTokenizer, not the str 'spacy:en': "):
        export_model(tiny_model, tmp_path / "out", "torch-export", tokenizer="spacy:en")
    assert not any(tmp_path.iterdir())


def test_export_to_what_is_no_path_is_one_line_naming_it(tiny_model):
    """Was: "expected str, bytes or os.PathLike object, not NoneType"."""
    with pytest.raises(TypeError, match=r"^the output folder must be a path \(a str or Path\), not None$"):
        export_model(tiny_model, None, "torch-export")


def test_export_of_a_word_embedding_biLM_is_one_line_and_writes_nothing(tiny_model, tmp_path):
    """Was: AttributeError ('ElmoModel' object has no attribute 'char_cnn') from the graph builder."""
    config = tiny_model.config.__class__(**{**tiny_model.config.to_dict(), "token_embedding": "word", "vocab_size": 7})
    with pytest.raises(
        ValueError, match=r"^the model: this biLM embeds word ids .*; export_model needs a char-CNN biLM$"
    ):
        export_model(ElmoModel(config), tmp_path / "out", "torch-export")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("part", ["char_cnn", "bilm"])
def test_export_of_a_model_with_hooks_or_replaced_layers_is_refused_as_the_graph_would_skip_them(
    tiny_model, tmp_path, part
):
    """The graph copies the weights alone: a hook or a replaced layer (LoRA, say), which the model's
    own forward applies, was dropped silently (vectors 0.67 away from the model's)."""
    model = ElmoModel(tiny_model.config)
    model.load_state_dict(tiny_model.state_dict())
    layer = model.char_cnn.projection if part == "char_cnn" else model.bilm.forward_layers[0].projection
    layer.register_forward_hook(lambda module, args, out: 1.5 * out)
    shown = {"char_cnn": "char CNN", "bilm": "biLM"}[part]
    expected = (
        rf"^the exported graph holds a copy of the char CNN's and the biLM's weights alone, but this model's {shown} "
        r"has hooks or replaced layers \(LoRA, quantised or pruned layers, say\), which only the model's own forward "
        r"applies: merge them into the weights first \(PEFT's merge_and_unload\(\), say\), or export the model "
        r"without them$"
    )
    with pytest.raises(ValueError, match=expected):
        export_model(model, tmp_path / "out", "torch-export")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("format", FORMATS)
def test_export_without_room_for_the_graphs_weights_is_refused_before_writing(
    tiny_model, tmp_path, monkeypatch, format
):
    weights = sum(t.numel() * t.element_size() for t in tiny_model.state_dict().values())
    free = FREE_SPACE_RESERVE + weights // 2  # room for the reserve, not for the weights
    monkeypatch.setattr(hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, free))
    with pytest.raises(OSError, match=f"no space left on the disk of {tmp_path} for the folder out"):
        export_model(tiny_model, tmp_path / "out", format)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("code", CANNOT_WRITE)
@pytest.mark.parametrize("under", ["", "new/"])
def test_an_export_on_a_read_only_file_system_or_unwritable_folder_is_one_line_naming_it_before_loading(
    code, under, tmp_path, capsys, monkeypatch
):
    """Was: '[Errno 30] Read-only file system: '.../.out.building-XXXXXXXX'' (the staging folder) after the
    model loaded, or '[Errno 1] Operation not permitted: '.../new'' for a new folder under it."""
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / under / "out"

    def not_loaded(*args, **kwargs):
        raise AssertionError("the model was loaded before the output was checked")

    monkeypatch.setattr(hf_elmo.loading, "load_bilm", not_loaded)
    refuse_writes_in(monkeypatch, folder, code)
    assert elmo_main(["export", "hf-elmo:elmo-2x1024-en", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo export: error: cannot write {out}: {folder} is not writable ({os.strerror(code)})"
    ]
    assert list(folder.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("format, dtype, tolerance", [("onnx", "float16", 2e-2), ("torch-export", "bfloat16", 1e-1)])
def test_half_precision_exports_run_close_to_float32(tiny_model, tmp_path, one_thread, format, dtype, tolerance):
    exported = open_exported(export_model(tiny_model, tmp_path / dtype, format, dtype))
    ids = batch_to_ids(random_sentences([7, 3]))
    layers, _ = exported.run(ids)
    layers = torch.as_tensor(layers)
    assert layers.dtype == getattr(torch, dtype)
    assert (layers.float() - export_reference(tiny_model, ids)).abs().max() < tolerance


@pytest.mark.parametrize("format", [pytest.param("onnx", marks=pytest.mark.slow), "torch-export"])  # onnx: ~15 s
def test_a_half_precision_export_whose_layers_overflow_is_refused_and_leaves_the_earlier_export(
    tiny_model, tmp_path, one_thread, capsys, format
):
    """Was: 'wrote OUT (onnx, float16); max abs difference from the eager model on a test batch: nan',
    exit status 0, a graph that serves infinite or NaN layers."""
    large = copy.deepcopy(tiny_model)
    with torch.no_grad():
        large.char_cnn.projection.bias.fill_(1e5)  # the token layer: finite in float32, beyond float16's 65504
    (tmp_path / "model").mkdir()
    large.save_pretrained(tmp_path / "model")
    out = export_model(tiny_model, tmp_path / "out", format)  # an earlier export, which the refused one keeps
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    said = (
        f"the float16 graph gives infinite or NaN layers on a test batch where the model's are finite (up to 1e+05): "
        f"float16 overflows beyond 65504; export in float32{' or bfloat16' if format == 'torch-export' else ''}"
    )
    with pytest.raises(ValueError) as refused:
        export_model(large, out, format, "float16", overwrite=True)
    assert str(refused.value) == said
    assert (
        elmo_main(
            ["export", str(tmp_path / "model"), str(out), "--format", format, "--dtype", "float16", "--overwrite"]
        )
        == 2
    )
    assert capsys.readouterr().err.splitlines() == [f"elmo export: error: {said}"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "out"]


def elmo_export(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hf_elmo.cli", "export", *args], capture_output=True, text=True, timeout=600
    )


def test_elmo_export_command_writes_a_folder_that_serves_the_saved_model(tiny_model, tmp_path):
    tiny_model.save_pretrained(tmp_path / "model")
    ElmoTokenizer(pre_tokenizer="spacy:en", max_token_chars=60).save_pretrained(tmp_path / "model")
    result = elmo_export(str(tmp_path / "model"), str(tmp_path / "out"), "--format", "torch-export")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "max abs difference from the eager model" in result.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "char_ids.py",
        "configuration_elmo.py",
        "elmo_export.json",
        "messages.py",
        "model.pt2",
        "tokenization_elmo.py",
        "tokenizer_config.json",
        "tokenizer_settings.py",
        "word_splitting.py",
    ]
    # the model's own tokenizer goes along: raw text is split as its corpus was
    tokenizer = ElmoTokenizer.from_pretrained(tmp_path / "out")
    assert (tokenizer.pre_tokenizer, tokenizer.max_token_chars) == ("spacy:en", 60)
    assert tokenizer.tokenize("It didn't.") == ["It", "did", "n't", "."]
    served = open_exported(tmp_path / "out")
    assert isinstance(served, TorchExportElmo)
    assert served.max_token_chars == 60
    sentences = random_sentences([4, 11], seed=3)
    layers, _ = served(sentences)
    assert (layers - export_reference(tiny_model, batch_to_ids(sentences))).abs().max() < TOLERANCE
    # raw text is split by the folder's tokenizer (spaCy's rules here), one str or a batch
    words = [["It", "did", "n't", "sit", "."], ["Fine", "."]]
    expected = export_reference(tiny_model, batch_to_ids(words))
    layers, mask = served(["It didn't sit.", "Fine."])
    assert (layers - expected).abs().max() < TOLERANCE and mask.tolist() == (batch_to_ids(words) > 0).any(-1).tolist()
    layers, _ = served("It didn't sit.")
    assert layers.shape == (1, *expected.shape[1:]) and (layers - expected[:1]).abs().max() < TOLERANCE


def test_elmo_export_with_a_max_token_chars_below_the_checks_longest_word_checks_within_it(
    tiny_model, tmp_path, capsys
):
    """Was: the folder written, then 'error: sentence 2, token 4: token of 60 characters ('xxxx...) is
    longer than max_token_chars=10', a word of the check run after writing, not of the user's input."""
    tiny_model.save_pretrained(tmp_path / "model")
    out = tmp_path / "out"
    assert (
        elmo_main(["export", str(tmp_path / "model"), str(out), "--format", "torch-export", "--max-token-chars", "10"])
        == 0
    )
    assert "max abs difference from the eager model" in capsys.readouterr().out
    assert open_exported(out).max_token_chars == 10


def test_elmo_export_runs_and_loads_the_written_graph_once_to_check_it(tiny_model, tmp_path, monkeypatch, capsys):
    """Was: twice, export_model's check that the graph's layers are finite and the command's
    parity_error each loading the graph and running it and the eager model on PROBE_SENTENCES."""
    tiny_model.save_pretrained(tmp_path / "model")
    probes, opened = [], []
    probe, wrapper = hf_elmo.export._probe_layers, hf_elmo.export.open_exported
    monkeypatch.setattr(hf_elmo.export, "_probe_layers", lambda *args: probes.append(args) or probe(*args))
    monkeypatch.setattr(hf_elmo.export, "open_exported", lambda folder: opened.append(folder) or wrapper(folder))
    out = tmp_path / "out"
    assert elmo_main(["export", str(tmp_path / "model"), str(out), "--format", "torch-export"]) == 0
    assert (len(probes), len(opened)) == (1, 1)
    recorded = json.loads((out / MANIFEST).read_text())[PARITY_KEY]  # that check's figure, kept with the graph
    assert 0 <= recorded < TOLERANCE
    said = capsys.readouterr().out
    assert f"max abs difference from the eager model on a test batch: {recorded:.2g}\n" in said


def test_export_checks_the_onnx_graph_on_torchs_thread_count_not_every_core(
    tiny_model, tmp_path, monkeypatch, one_thread
):
    """Was: the check's ONNX Runtime session on every core, whatever elmo export --threads said."""
    import onnxruntime

    threads, session = [], onnxruntime.InferenceSession

    def recording(path, sess_options=None, **kwargs):
        threads.append(sess_options.intra_op_num_threads)
        return session(path, sess_options=sess_options, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", recording)
    export_model(tiny_model, tmp_path / "out", "onnx")
    assert threads == [1]


def test_elmo_export_to_a_quoted_tilde_path_writes_in_the_home_folder_not_a_folder_named_tilde(
    tiny_model, tmp_path, monkeypatch, capsys
):
    """Was: a folder named "~" made in the current folder."""
    tiny_model.save_pretrained(tmp_path / "model")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert elmo_main(["export", str(tmp_path / "model"), "~/out", "--format", "torch-export"]) == 0
    assert (tmp_path / "home" / "out" / MANIFEST).is_file() and not (tmp_path / "cwd" / "~").exists()
    assert f"wrote {tmp_path / 'home' / 'out'} " in capsys.readouterr().out


def test_export_refuses_an_output_inside_a_model_path_given_as_a_tilde_path(tiny_model, tmp_path, monkeypatch):
    """Was: "~/model" not found as written, so an export into the model's folder went ahead."""
    tiny_model.save_pretrained(tmp_path / "home" / "model")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(ValueError, match=r"lies inside the input .*model; write to another folder$"):
        export_model(tiny_model, tmp_path / "home" / "model" / "out", "torch-export", model_path="~/model")


def test_open_exported_reads_a_folder_given_as_a_tilde_path(exported, tmp_path, monkeypatch):
    """Was: "~/served not found", the "~" not expanded as it is for a model."""
    shutil.copytree(exported.folder, tmp_path / "served")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert open_exported("~/served").folder == tmp_path / "served"


def test_export_keeps_the_tokenizer_it_is_given_and_refuses_one_of_another_width(tiny_model, tmp_path):
    folder = export_model(tiny_model, tmp_path / "out", "torch-export", tokenizer=ElmoTokenizer(max_token_chars=None))
    assert ElmoTokenizer.from_pretrained(folder).max_token_chars is None
    assert open_exported(folder).max_token_chars is None
    with pytest.raises(ValueError, match="the tokenizer makes 20 char ids a token but the model reads 50"):
        export_model(tiny_model, tmp_path / "other", "onnx", tokenizer=ElmoTokenizer(max_characters_per_token=20))
    assert not (tmp_path / "other").exists()


def test_elmo_export_command_leaves_an_existing_output_alone(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "model.onnx").write_text("someone's file")
    result = elmo_export("no-such-model", str(tmp_path / "out"), "--format", "onnx")
    assert result.returncode == 2
    error = result.stderr.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("elmo export: error:") and "--overwrite" in error[0]
    assert (tmp_path / "out" / "model.onnx").read_text() == "someone's file"


@pytest.mark.parametrize("holds", ["files of the user's", "a model", "an export and a file of the user's"])
def test_elmo_export_to_a_folder_that_overwrite_would_not_replace_says_so_on_the_first_attempt(
    holds, tiny_model, tmp_path, capsys
):
    """Was: "exists and is not empty (pass --overwrite to replace it)", and then, with --overwrite, that
    --overwrite does not replace it."""
    tiny_model.save_pretrained(tmp_path / "model")
    out = tmp_path / "out"
    if holds == "a model":
        tiny_model.save_pretrained(out)
    else:
        if holds != "files of the user's":
            export_model(tiny_model, out, "torch-export")
        out.mkdir(exist_ok=True)
        (out / "notes.txt").write_text("mine")
    before = sorted(p.name for p in out.iterdir())
    errors = []
    for extra in ([], ["--overwrite"]):
        assert elmo_main(["export", str(tmp_path / "model"), str(out), *extra]) == 2
        errors.append(capsys.readouterr().err.strip().splitlines())
    assert errors[0] == errors[1] and len(errors[0]) == 1, errors
    assert "--overwrite does not replace it" in errors[0][0] or "which --overwrite would delete" in errors[0][0]
    assert "pass --overwrite" not in errors[0][0]
    assert sorted(p.name for p in out.iterdir()) == before


def test_elmo_export_to_an_earlier_export_says_to_pass_overwrite(tiny_model, tmp_path, capsys):
    tiny_model.save_pretrained(tmp_path / "model")
    out = export_model(tiny_model, tmp_path / "out", "torch-export")
    assert elmo_main(["export", str(tmp_path / "model"), str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo export: error: {out} exists and is not empty (pass --overwrite to replace it)"
    ]


@pytest.mark.parametrize("missing", ["onnx", "onnxscript", "onnxruntime"])
def test_elmo_export_to_onnx_without_the_export_extra_is_one_line_naming_it_and_writes_nothing(
    missing, tiny_model, tmp_path, capsys, monkeypatch
):
    """Was: a ModuleNotFoundError traceback from inside torch.onnx, or, without onnxruntime, from the check
    run after the folder was written."""
    model, out = tmp_path / "model", tmp_path / "out"
    tiny_model.save_pretrained(model)
    monkeypatch.setitem(sys.modules, missing, None)  # importing it now raises ImportError
    assert elmo_main(["export", str(model), str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo export: error: the ONNX export needs onnx, onnxscript and onnxruntime, and {missing} "
        'cannot be imported: pip install "hf-elmo[export]", or export with --format torch-export'
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    with pytest.raises(ImportError, match=re.escape(f'{missing} cannot be imported: pip install "hf-elmo[export]"')):
        export_model(tiny_model, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


@pytest.mark.parametrize("where", ["the model", "its parent", "inside it"])
def test_elmo_export_never_writes_over_around_or_into_the_model_even_with_overwrite(
    where, tiny_model, tmp_path, capsys
):
    model = tmp_path / "proj" / "models" / "my-elmo"
    tiny_model.save_pretrained(model)
    (tmp_path / "proj" / "config.json").write_text('{"model_type": "elmo"}')  # --overwrite would replace it
    before = sorted(p.name for p in model.iterdir())
    out = {"the model": model, "its parent": tmp_path / "proj", "inside it": model / "onnx"}[where]
    assert elmo_main(["export", str(model), str(out), "--overwrite"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    said = f"the output folder {model} is the input;" if where == "the model" else f"the input {model}"
    assert len(error) == 1 and said in error[0] and "write to another folder" in error[0]
    assert sorted(p.name for p in model.iterdir()) == before
    assert (tmp_path / "proj" / "config.json").is_file()


def test_elmo_export_overwrite_never_replaces_another_model_folder(tiny_model, tmp_path, capsys):
    """A typo such as `elmo export my-elmo-v2/ my-elmo-v1/ --overwrite` keeps my-elmo-v1."""
    tiny_model.save_pretrained(tmp_path / "my-elmo-v2")
    tiny_model.save_pretrained(tmp_path / "my-elmo-v1")
    before = {p.name: p.read_bytes() for p in (tmp_path / "my-elmo-v1").iterdir()}
    out = tmp_path / "my-elmo-v1"
    assert elmo_main(["export", str(tmp_path / "my-elmo-v2"), str(out), "--overwrite"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error == [
        f"elmo export: error: {out} holds an ELMo model (config.json), not an earlier ELMo export "
        "(elmo_export.json), so --overwrite does not replace it; write the export to another folder (delete "
        "that model first if you mean to replace it)"
    ]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(FileExistsError, match="holds an ELMo model"):
        export_model(tiny_model, out, "torch-export", overwrite=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my-elmo-v1", "my-elmo-v2"]


def test_export_overwrite_replaces_an_earlier_export(tiny_model, exported, tmp_path):
    out = tmp_path / "served"
    export_model(tiny_model, out, "torch-export")
    export_model(tiny_model, out, exported.format, overwrite=True)
    assert open_exported(out).format == exported.format
    assert [p.name for p in tmp_path.iterdir()] == ["served"]


def test_export_model_protects_the_folder_the_model_was_loaded_from(tiny_model, tmp_path):
    tiny_model.save_pretrained(tmp_path / "model")
    loaded = ElmoModel.from_pretrained(tmp_path / "model")
    with pytest.raises(ValueError, match="is the input"):
        export_model(loaded, tmp_path / "model", "torch-export", overwrite=True)
    assert (tmp_path / "model" / "model.safetensors").is_file()


def test_elmo_export_to_a_path_under_a_file_names_the_file(tmp_path, capsys):
    (tmp_path / "afile2").write_text("mine")
    assert elmo_main(["export", "no-such-model", str(tmp_path / "afile2" / "out")]) == 2
    assert f"{tmp_path / 'afile2'} is a file, not a folder" in capsys.readouterr().err
    assert (tmp_path / "afile2").read_text() == "mine"


@pytest.mark.slow
@pytest.mark.parametrize("format", FORMATS)
def test_shipped_model_exports_within_1e5_on_a_sweep_of_lengths_and_batches(format, tmp_path):
    from hf_elmo.loading import load_bilm
    from hf_elmo.pretrained import DEFAULT_MODEL

    model, _ = load_bilm(str(DEFAULT_MODEL))
    exported = open_exported(export_model(model, tmp_path / "out", format))
    for seed, lengths in enumerate(SHIPPED_SWEEP):
        ids = batch_to_ids(random_sentences(lengths, seed=seed))
        layers, mask = exported.run(ids)
        # |exported - eager| <= 1e-5 + 1e-5 |eager|: float32 sums in ONNX Runtime's order differ from torch's by
        # a few ulps of the value (the shipped model's token layer reaches about 13: 8.3e-6 seen; 1.5e-5 for the
        # retired elmo-2x256-en, whose token layer reached about 24)
        reference = export_reference(model, ids).numpy()
        np.testing.assert_allclose(as_numpy(layers), reference, rtol=TOLERANCE, atol=TOLERANCE, err_msg=str(lengths))
        assert (as_numpy(mask) == (ids > 0).any(-1).numpy()).all()


def test_an_export_of_a_model_whose_own_layers_are_not_finite_records_null_as_strict_json(tiny_model, tmp_path):
    """elmo_export.json is written by fileio.strict_json: the NaN difference of infinite layers is null."""
    broken = copy.deepcopy(tiny_model)
    with torch.no_grad():
        broken.char_cnn.projection.bias.fill_(float("inf"))
    out = export_model(broken, tmp_path / "out", "torch-export")
    assert strict_json_loads((out / MANIFEST).read_text())[PARITY_KEY] is None
