"""Registered layers that turn biLM layers into task features (``spacy_architectures``).

- ``spacy-elmo.ElmoMixListener.v1``: listens to the ``elmo`` component and mixes its layers
  with the owning component's own scalar mix -> (n_tokens, 2P) per doc.
- ``spacy-elmo.ElmoMix.v1``: the same mix over a biLM of its own (single-task pipelines; also
  what ``nlp.replace_listeners`` turns a mix listener into).
- ``spacy-elmo.ElmoTok2Vec.v1``: ``[x_k; ELMo_k]``, the ELMo features concatenated with
  spaCy's usual embeddings, projected to the encoder's width and encoded.
"""

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Maxout, Model, chain, concatenate, with_array
from thinc.types import Floats2d, Floats3d

from .listener import MIX, MIX_LISTENER, ElmoListener
from .scalar_mix import scalar_mix


@registry.architectures(MIX_LISTENER)
def elmo_mix_listener_v1(
    upstream: str = "*", layer_norm: str | None = None, dropout: float = 0.5, l2: float = 0.001
) -> Model[list[Doc], list[Floats2d]]:
    """ELMo features from the upstream ``elmo`` component, mixed by this component's own
    scalar mix (``layer_norm`` None/"batch"/"token", ``dropout`` on the mix, ``l2`` on s; the
    paper's defaults)."""
    return chain(ElmoListener(upstream), scalar_mix(layer_norm, dropout, l2))


@registry.architectures(MIX)
def elmo_mix_v1(
    bilm: Model[list[Doc], list[Floats3d]],
    layer_norm: str | None = None,
    dropout: float = 0.5,
    l2: float = 0.001,
) -> Model[list[Doc], list[Floats2d]]:
    """ELMo features from a biLM the component owns (``spacy-elmo.ElmoBiLm.v3`` with a loader)."""
    return chain(bilm, scalar_mix(layer_norm, dropout, l2))


@registry.architectures("spacy-elmo.ElmoTok2Vec.v1")
def elmo_tok2vec_v1(
    elmo: Model[list[Doc], list[Floats2d]],
    embed: Model[list[Doc], list[Floats2d]],
    encode: Model[list[Floats2d], list[Floats2d]],
) -> Model[list[Doc], list[Floats2d]]:
    """``encode(maxout([elmo(docs); embed(docs)]))``: ELMo features next to the usual embeddings.

    The concatenation is projected by a layer-normalised maxout to ``encode``'s width (its
    ``nO``), e.g. ``spacy.MaxoutWindowEncoder.v2``.
    """
    if not encode.has_dim("nO"):
        raise ValueError("spacy-elmo.ElmoTok2Vec.v1: the encoder must have a known width (nO)")
    width = encode.get_dim("nO")
    project: Model[list[Floats2d], list[Floats2d]] = with_array(Maxout(nO=width, nP=3, normalize=True))
    return chain(concatenate(elmo, embed), project, encode)
