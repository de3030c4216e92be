"""The biLM as a Thinc model: a batch of docs in, all L+1 layers of every token out.

Data flow: docs -> segments (sentences, or whole docs; whitespace tokens left out) -> batches
under a token budget -> ``ElmoModel`` (stateless: every segment starts from the initial state)
-> per batch (L+1, rows, longest, 2P) -> scattered back to one (L+1, n_tokens, 2P) array per doc.
"""

from functools import partial
from typing import Callable, List, Optional, Sequence, Tuple

import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, torch2xp, xp2torch
from thinc.types import Floats3d

from hf_elmo import ElmoModel, batch_to_ids

from .architectures import replace_listener_cfg
from .batching import Segment, doc_segments, token_budget_batches
from .shim import ElmoShim

Loader = Callable[[], ElmoModel]


@registry.architectures("spacy-elmo.ElmoBiLm.v1")
def elmo_bilm_v1(
    frozen: bool = True, token_budget: int = 4096, loader: Optional[Loader] = None
) -> Model[List[Doc], List[Floats3d]]:
    """The ELMo biLM over docs, (L+1, n_tokens, 2P) per doc.

    Args:
        frozen: no gradients reach the biLM and it is never updated (the paper's setting);
            ``False`` fine-tunes it with the downstream losses (dropout as in its config).
        token_budget: most padded tokens (rows x longest segment) per biLM call.
        loader: loads the weights when the model is initialised, if they are not there yet
            (for the standalone ``spacy-elmo.ElmoMix.v1``; the ``elmo`` component gets its
            loader from ``[initialize.components.elmo]``).
    """
    return Model(
        "elmo-bilm",
        bilm_forward,
        init=partial(_init, loader=loader),
        shims=[ElmoShim()],
        dims={"nO": None, "nL": None},
        attrs={"frozen": frozen, "token_budget": token_budget, "replace_listener_cfg": replace_listener_cfg},
    )


def get_elmo(model: Model) -> Optional[ElmoModel]:
    """The ``ElmoModel`` inside an ``elmo-bilm`` Thinc model (``None`` before loading)."""
    return model.shims[0].elmo


def load_weights(model: Model, elmo: ElmoModel) -> None:
    """Put ``elmo`` into the Thinc model and set its widths: ``nO`` = 2P, ``nL`` = L+1."""
    if not isinstance(elmo, ElmoModel):
        raise TypeError(f"an ELMo loader must return an hf_elmo.ElmoModel, got {type(elmo).__name__}")
    model.shims[0].load(elmo)
    model.set_dim("nO", elmo.config.output_dim, force=True)
    model.set_dim("nL", elmo.config.n_layers + 1, force=True)


def _init(model: Model, X: Optional[List[Doc]] = None, Y: None = None, *, loader: Optional[Loader]) -> None:
    if get_elmo(model) is None and loader is not None:
        load_weights(model, loader())
    if get_elmo(model) is None:
        raise ValueError(
            "the ELMo biLM has no weights: give the elmo component a loader in "
            "[initialize.components.elmo.loader] (e.g. @misc = \"spacy-elmo.ElmoLoader.v1\", "
            "name_or_path = ${paths.elmo}), or give spacy-elmo.ElmoBiLm.v1 a loader"
        )


def bilm_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats3d], Callable]:
    elmo = get_elmo(model)
    if elmo is None:
        raise ValueError("the ELMo biLM has no weights yet: initialise the pipeline (nlp.initialize) first")
    fine_tune = is_train and not model.attrs["frozen"]
    n_layers, width = model.get_dim("nL"), model.get_dim("nO")
    outputs = [model.ops.alloc3f(n_layers, len(doc), width) for doc in docs]
    segments = doc_segments(docs)
    graph: List[Tuple[torch.Tensor, List[Segment]]] = []
    for batch in token_budget_batches([len(s.words) for s in segments], model.attrs["token_budget"]):
        rows = [segments[i] for i in batch]
        layers = _run(elmo, rows, fine_tune)
        values = torch2xp(layers.detach())
        for row, segment in enumerate(rows):
            outputs[segment.doc][:, list(segment.token_indices)] = values[:, row, : len(segment.words)]
        if fine_tune:
            graph.append((layers, rows))

    def backprop(d_outputs: List[Floats3d]) -> List[Doc]:
        for layers, rows in graph:
            grad = model.ops.alloc4f(*layers.shape)
            for row, segment in enumerate(rows):
                grad[:, row, : len(segment.words)] = d_outputs[segment.doc][:, list(segment.token_indices)]
            torch.autograd.backward(layers, xp2torch(grad, device=layers.device))
        return []

    return outputs, backprop


def _run(elmo: ElmoModel, rows: Sequence[Segment], fine_tune: bool) -> torch.Tensor:
    """The L+1 layers (L+1, B, T, 2P) of one batch; with gradients only when fine-tuning."""
    device = next(elmo.parameters()).device
    ids = batch_to_ids(
        [list(s.words) for s in rows], elmo.config.max_characters_per_token, max_token_chars=None
    ).to(device)
    elmo.train(fine_tune)
    with torch.set_grad_enabled(fine_tune):
        hidden = elmo(input_ids=ids, stateful=False, return_dict=True).hidden_states
    return torch.stack(hidden)
