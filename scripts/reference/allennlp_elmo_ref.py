#!/usr/bin/env python3
"""REFERENCE runner for AllenNLP 2.10.1's own ``allennlp.modules.elmo.Elmo`` (runs in AllenNLP's venv).

    $ALLENNLP_REF_VENV/bin/python allennlp_elmo_ref.py SPEC.json OUT.npz

SPEC (written by scripts/check_parity.py --allennlp-python): {"harness": the folder of
allennlp_ref_import.py, "options": ..., "weights": ..., "cases": [{"name", "kwargs" (Elmo's
keyword arguments), "mixes" ([[s...], gamma] per mix, or null), "train", "seed", "batches"
(token lists per batch), "word_ids" (per batch, or null; a batch's null: char ids), "grad" (whether
to backpropagate), optionally "training_steps" and "training_word_ids"}]}.
OUT holds, per case, batch b and mix k, "NAME/b/k" (the representation) and "NAME/b/mask",
float32 / bool as AllenNLP returns them; for a "grad" case also "NAME/grad/PARAMETER", the
gradient of the sum of squares of every representation of every batch w.r.t. each of ``Elmo``'s
parameters that has one. A case with "training_steps" first trains that many passes over the
batches (Adam, lr 0.01, that loss per batch, on char ids and then on "training_word_ids", in
training mode), saves "NAME/state/KEY" (its ``state_dict``, as ``torch.save(elmo.state_dict())``
would hold it) and resets the LSTM state before the batches are run as above.
"""

import json
import sys

import numpy as np

spec = json.load(open(sys.argv[1]))
sys.path.insert(0, spec["harness"])
import allennlp_ref_import  # noqa: E402,F401  (stubs torchvision before allennlp is imported)
import torch  # noqa: E402
from allennlp.modules.elmo import Elmo, batch_to_ids  # noqa: E402

torch.set_num_threads(2)
out = {}
for case in spec["cases"]:
    elmo = Elmo(spec["options"], spec["weights"], **case["kwargs"])
    for k, mix in enumerate(case["mixes"] or []):
        scalar_mix = getattr(elmo, f"scalar_mix_{k}")
        with torch.no_grad():
            for parameter, value in zip(scalar_mix.scalar_parameters, mix[0]):
                parameter.fill_(value)
            scalar_mix.gamma.fill_(mix[1])
    if case.get("training_steps"):
        elmo.train(True)
        optimizer = torch.optim.Adam([p for p in elmo.parameters() if p.requires_grad], lr=0.01)
        for _ in range(case["training_steps"]):
            for b, batch in enumerate(case["batches"]):
                for words in (None, case["training_word_ids"][b]):
                    optimizer.zero_grad()
                    result = elmo(batch_to_ids(batch), None if words is None else torch.tensor(words))
                    sum(r.pow(2).sum() for r in result["elmo_representations"]).backward()
                    optimizer.step()
        for key, value in elmo.state_dict().items():
            out[f"{case['name']}/state/{key}"] = value.detach().numpy()
        elmo._elmo_lstm._elmo_lstm.reset_states()
    elmo.train(case["train"])
    torch.manual_seed(case["seed"])
    loss = torch.zeros(())
    with torch.set_grad_enabled(case["grad"]):
        for b, batch in enumerate(case["batches"]):
            words = case["word_ids"][b] if case["word_ids"] else None
            result = elmo(batch_to_ids(batch), None if words is None else torch.tensor(words))
            for k, representation in enumerate(result["elmo_representations"]):
                out[f"{case['name']}/{b}/{k}"] = representation.detach().numpy()
                loss = loss + representation.pow(2).sum()
            out[f"{case['name']}/{b}/mask"] = result["mask"].numpy()
    if case["grad"]:
        loss.backward()
        for name, parameter in elmo.named_parameters():
            if parameter.grad is not None:
                out[f"{case['name']}/grad/{name}"] = parameter.grad.numpy()
np.savez(sys.argv[2], **out)
print("ok", len(out))
