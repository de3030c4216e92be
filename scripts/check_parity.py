#!/usr/bin/env python
"""Print the max abs difference between ElmoModel and bilm-tf's reference outputs.

Replays the 10 reference batches of each fixture model statefully (as the references were made)
and the first batch statelessly. Usage: python scripts/check_parity.py [--shared ../shared]

With ``--allennlp-python PY`` (the python of AllenNLP's reference venv, built by
``../shared/reference/allennlp/setup.sh``), also runs AllenNLP's own ``Elmo`` module and
``hf_elmo.Elmo`` with the same settings on the fixture model (``ALLENNLP_CASES``: two
representations, layer norm, sentence boundaries, fixed mix weights, a cached vocabulary, dropout
in training mode from the same seed; each case statefully over 3 batches of 3, 2 and 3 sentences)
and prints the max abs difference of every case's representations, and whether the masks agree;
and, for ``GRADIENT_CASES`` (``requires_grad=True``, dropout 0, without and with layer norm), the
gradients of one loss (the sum of squares of every representation of the 3 batches) w.r.t. every
parameter, ours mapped onto AllenNLP's parameters by ``hf_elmo.allennlp_state``'s
``allennlp_parameter_table``: the max abs difference per parameter group and overall; and, for
``STATE_CASES``, AllenNLP's ``Elmo`` trained for a few steps saves its ``state_dict``, which
``hf_elmo.Elmo`` loads: the outputs' max abs difference after the load (and before, for scale).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import torch

from hf_elmo import Elmo, ElmoModel, batch_to_ids
from hf_elmo.allennlp_state import allennlp_parameter_table
from hf_elmo.convert import allennlp_datasets
from hf_elmo_cli.commands._args import SuggestingParser, run_script

from shared_data import shared_dir

FIXTURES = {"elmo-allennlp": "sentences.json", "elmo-bilm-tf/model": "lm_embeddings_sentences.json"}


def max_abs_diff(root: Path, sentences_file: str, stateful: bool, n_batches: int) -> float:
    model = ElmoModel.from_allennlp(root / "options.json", root / "lm_weights.hdf5")
    sentences = json.loads((root / sentences_file).read_text())
    worst = 0.0
    with torch.inference_mode():
        for i in range(n_batches):
            batch = [s[i].split() for s in sentences]
            top = model(input_ids=batch_to_ids(batch), stateful=stateful).last_hidden_state
            for k, tokens in enumerate(batch):
                with h5py.File(root / f"lm_embeddings_{k}.hdf5", "r") as handle:
                    expected = np.concatenate(handle[str(i)][...], axis=-1)
                worst = max(worst, float(np.abs(top[k, : len(tokens)].numpy() - expected).max()))
    return worst


#: Two mixes' non-default weights (s, gamma), set on both sides so that each mix's own s and gamma count.
MIXES = [[[0.3, -0.2, 0.5], 1.7], [[-1.0, 0.4, 0.1], 0.6]]
#: name: (Elmo's keyword arguments, mix weights to set, training mode); all dropout 0 unless training.
ALLENNLP_CASES: dict[str, tuple[dict[str, Any], list | None, bool]] = {
    "two representations": ({"num_output_representations": 2, "dropout": 0.0}, MIXES, False),
    "do_layer_norm": ({"num_output_representations": 2, "dropout": 0.0, "do_layer_norm": True}, MIXES, False),
    "keep_sentence_boundaries": (
        {"num_output_representations": 1, "dropout": 0.0, "keep_sentence_boundaries": True},
        MIXES[:1],
        False,
    ),
    "boundaries + layer norm": (
        {"num_output_representations": 1, "dropout": 0.0, "keep_sentence_boundaries": True, "do_layer_norm": True},
        MIXES[:1],
        False,
    ),
    "scalar_mix_parameters": (
        {"num_output_representations": 2, "dropout": 0.0, "scalar_mix_parameters": [-9e10, 1.0, -9e10]},
        None,
        False,
    ),
    "vocab_to_cache + word_inputs": ({"num_output_representations": 1, "dropout": 0.0}, MIXES[:1], False),
    "dropout 0.5, training, seed 0": ({"num_output_representations": 2, "dropout": 0.5}, MIXES, True),
}
#: Cases whose gradients are compared too (and their outputs, as ``ALLENNLP_CASES``'): same layout.
GRADIENT_CASES: dict[str, tuple[dict[str, Any], list | None, bool]] = {
    f"gradients, do_layer_norm={norm}": (
        {"num_output_representations": 2, "dropout": 0.0, "requires_grad": True, "do_layer_norm": norm},
        MIXES,
        False,
    )
    for norm in (False, True)
}


def gradient_differences(elmo: Elmo, theirs: Mapping[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """Per group of ``allennlp_parameter_table``, and "overall": the max abs difference between the
    gradients of ``elmo``'s parameters (mapped by the table) and AllenNLP's (``theirs``, by
    AllenNLP's parameter names), and the largest abs gradient of AllenNLP's there, for scale."""
    ours = {name: p.grad.numpy() for name, p in elmo.named_parameters() if p.grad is not None}
    bilm = {name.removeprefix("model."): grad for name, grad in ours.items() if name.startswith("model.")}
    config = elmo.model.config
    sources = {**allennlp_datasets(bilm, config), **ours}
    table = allennlp_parameter_table(config, len(elmo.scalar_mixes))
    unmapped = set(theirs) ^ {row.name for row in table}
    if unmapped:
        raise ValueError(f"AllenNLP's gradients and the parameter table differ on {sorted(unmapped)}")
    result: dict[str, tuple[float, float]] = {}
    for row in table:
        mapped = row.build(*(sources[name] for name in row.sources))
        if mapped.shape != theirs[row.name].shape:
            raise ValueError(
                f"{row.name}: the table builds shape {mapped.shape}, AllenNLP's is {theirs[row.name].shape}"
            )
        difference = float(np.abs(mapped - theirs[row.name]).max())
        largest = float(np.abs(theirs[row.name]).max())
        for group in (row.group, "overall"):
            worst, scale = result.get(group, (0.0, 0.0))
            result[group] = (max(worst, difference), max(scale, largest))
    result["overall"] = result.pop("overall")  # reported last
    return result


#: Cases whose AllenNLP ``Elmo`` first trains for ``TRAINING_STEPS`` passes over the batches (Adam,
#: lr 0.01, the gradient cases' loss, on char ids and on cached word ids in turn, dropout in
#: training mode) and saves its ``state_dict``, which ``hf_elmo.Elmo``, built from the files,
#: loads under a prefix; then both run in eval mode (batch 1 on char ids, the others on word ids).
STATE_CASES: dict[str, tuple[dict[str, Any], list | None, bool]] = {
    "state_dict after training": (
        {"num_output_representations": 2, "dropout": 0.5, "requires_grad": True},
        MIXES,
        False,
    ),
}
TRAINING_STEPS = 3


def _representation_differences(
    elmo: Elmo, case: dict[str, Any], expected: Mapping[str, np.ndarray]
) -> tuple[float, bool, torch.Tensor]:
    """Run ``case``'s batches through ``elmo`` (statefully, from a reset state): the max abs
    difference of every representation from AllenNLP's (``expected``), whether every mask is
    AllenNLP's, and the gradient cases' loss."""
    elmo.reset_states()
    elmo.train(case["train"])
    torch.manual_seed(case["seed"])
    worst, masks_equal = 0.0, True
    loss = torch.zeros(())
    with torch.set_grad_enabled(case["grad"]):
        for b, batch in enumerate(case["batches"]):
            words = case["word_ids"][b] if case["word_ids"] else None
            out = elmo(batch_to_ids(batch), None if words is None else torch.tensor(words))
            for k, representation in enumerate(out["elmo_representations"]):
                theirs = expected[f"{case['name']}/{b}/{k}"]
                worst = max(worst, float(np.abs(representation.detach().numpy() - theirs).max()))
                loss = loss + representation.pow(2).sum()
            masks_equal &= bool(np.array_equal(out["mask"].numpy(), expected[f"{case['name']}/{b}/mask"]))
    return worst, masks_equal, loss


def allennlp_elmo_differences(
    root: Path, reference_python: str
) -> dict[str, tuple[float, bool, dict[str, tuple[float, float]] | None, float | None]]:
    """Per case of ``ALLENNLP_CASES``, ``GRADIENT_CASES`` and ``STATE_CASES``: the max abs
    difference between the representations of AllenNLP's ``Elmo`` (run by
    ``reference/allennlp_elmo_ref.py`` with ``reference_python``) and ``hf_elmo.Elmo``, whether
    every mask is equal, for a gradient case ``gradient_differences`` (else None), and for a
    state case the max abs difference before loading AllenNLP's ``state_dict`` (else None)."""
    sentences = json.loads((root / "sentences.json").read_text())
    batches = [[sentences[k][i].split() for k in range(rows)] for i, rows in enumerate([3, 2, 3])]
    vocabulary = ["@@PADDING@@", "@@UNKNOWN@@", *sorted({word for batch in batches for s in batch for word in s})]
    word_ids = [[[vocabulary.index(w) for w in s] + [0] * (max(map(len, b)) - len(s)) for s in b] for b in batches]
    cases: list[dict[str, Any]] = []
    for name, (kwargs, mixes, train) in {**ALLENNLP_CASES, **GRADIENT_CASES, **STATE_CASES}.items():
        cached = name.startswith("vocab_to_cache") or name in STATE_CASES
        kwargs = {**kwargs, "vocab_to_cache": vocabulary} if cached else kwargs
        cases.append({"name": name, "kwargs": kwargs, "mixes": mixes, "train": train, "seed": 0})
        cases[-1].update(batches=batches, word_ids=word_ids if cached else None, grad=name in GRADIENT_CASES)
        if name in STATE_CASES:
            evaluated = [word_ids[0], None, *word_ids[2:]]  # batch 1 on char ids: the trained char CNN
            cases[-1].update(training_steps=TRAINING_STEPS, training_word_ids=word_ids, word_ids=evaluated)
    options, weights = root / "options.json", root / "lm_weights.hdf5"
    runner = Path(__file__).resolve().parent / "reference" / "allennlp_elmo_ref.py"
    with tempfile.TemporaryDirectory(prefix="elmo-allennlp-") as folder:
        spec: dict[str, Any] = {"harness": str(root.parents[1] / "reference" / "allennlp"), "options": str(options)}
        spec.update(weights=str(weights), cases=cases)
        (Path(folder) / "spec.json").write_text(json.dumps(spec))
        subprocess.run([reference_python, str(runner), f"{folder}/spec.json", f"{folder}/out.npz"], check=True)
        with np.load(f"{folder}/out.npz") as handle:
            expected = dict(handle)
    results = {}
    for case in cases:
        elmo = Elmo(options, weights, **case["kwargs"])
        with torch.no_grad():
            for k, (s, gamma) in enumerate(case["mixes"] or []):
                elmo.scalar_mixes[k].scalar_parameters.copy_(torch.tensor(s))
                elmo.scalar_mixes[k].gamma.fill_(gamma)
        before = None
        if case.get("training_steps"):
            before = _representation_differences(elmo, case, expected)[0]
            prefix = f"{case['name']}/state/"
            state = {
                f"embedder.{k[len(prefix) :]}": torch.from_numpy(v) for k, v in expected.items() if k.startswith(prefix)
            }
            torch.nn.ModuleDict({"embedder": elmo}).load_state_dict(state)  # strict, under a prefix
        worst, masks_equal, loss = _representation_differences(elmo, case, expected)
        gradients = None
        if case["grad"]:
            loss.backward()
            prefix = f"{case['name']}/grad/"
            theirs = {key[len(prefix) :]: value for key, value in expected.items() if key.startswith(prefix)}
            gradients = gradient_differences(elmo, theirs)
        results[case["name"]] = (worst, masks_equal, gradients, before)
    return results


def main() -> None:
    parser = SuggestingParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="the shared folder (default: $ELMO_SHARED, else ../shared)")
    parser.add_argument("--allennlp-python", help="the python of AllenNLP's reference venv: also compare Elmo")
    args = parser.parse_args()
    args.shared = args.shared or shared_dir()
    for folder, sentences_file in FIXTURES.items():
        root = Path(args.shared) / "fixtures" / folder
        stateful = max_abs_diff(root, sentences_file, stateful=True, n_batches=10)
        stateless = max_abs_diff(root, sentences_file, stateful=False, n_batches=1)
        print(f"{folder:20s} stateful 10 batches: {stateful:.2e}   stateless batch 0: {stateless:.2e}")
    if args.allennlp_python:
        root = Path(args.shared) / "fixtures" / "elmo-allennlp"
        results = allennlp_elmo_differences(root, args.allennlp_python)
        for name, (worst, masks_equal, gradients, before) in results.items():
            print(f"Elmo vs AllenNLP {name:32s} max abs diff {worst:.2e}   masks equal: {masks_equal}")
            if before is not None:
                print(f"    before loading AllenNLP's state_dict:  max abs diff {before:.2e}")
            if gradients is not None:
                for group, (worst, largest) in gradients.items():
                    print(f"    gradients {group:29s} max abs diff {worst:.2e}   max |grad| {largest:.2e}")


if __name__ == "__main__":
    run_script(main)
