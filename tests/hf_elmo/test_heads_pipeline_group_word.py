"""ElmoTokenClassificationPipeline: a grouped entity's ``word`` is the text it spans, as users of BERT
pipelines see it, not its words joined by spaces ("Paris ." for "Paris.")."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoTokenizer
from tests.hf_elmo.test_heads import TOKEN_LABELS, elmo_tagger, token_model


def one_label_model():
    """A tagger that labels every word "Name": the words of a text are one group."""
    model = token_model().eval()
    with torch.no_grad():
        model.classifier.bias.copy_(torch.tensor([0.0, 100.0, 0.0]))
    assert TOKEN_LABELS[1] == "Name"
    return model


@pytest.mark.parametrize("strategy", ["simple", "first", "average", "max"])
def test_a_group_of_words_of_a_text_is_the_text_it_spans(strategy):
    """Was "Jean - Pierre met Bob in Paris ." (the words joined by spaces; start and end were right)."""
    tagger = elmo_tagger(one_label_model(), ElmoTokenizer(pre_tokenizer="spacy:en"), aggregation_strategy=strategy)
    texts = ["Jean-Pierre met  Bob in Paris.", "Zoe (7) ran."]
    assert tagger(texts[0]) == tagger(texts)[0]
    for text, entities in zip(texts, tagger(texts)):
        assert [(e["entity_group"], e["word"], e["start"], e["end"]) for e in entities] == [
            ("Name", text, 0, len(text))
        ]


def test_the_words_of_a_text_keep_their_own_text():
    tagger = elmo_tagger(one_label_model(), ElmoTokenizer(pre_tokenizer="spacy:en"))
    assert [(e["word"], e["start"], e["end"]) for e in tagger("Jean-Pierre  ran.")] == [
        ("Jean", 0, 4),
        ("-", 4, 5),
        ("Pierre", 5, 11),
        ("ran", 13, 16),
        (".", 16, 17),
    ]


@pytest.mark.parametrize("delimiter", [None, ""])
def test_a_group_of_pre_split_words_is_its_words_joined_by_spaces(delimiter):
    tagger = elmo_tagger(one_label_model(), ElmoTokenizer(), aggregation_strategy="simple")
    entities = tagger(["Paris", "."], is_split_into_words=True, delimiter=delimiter)[0]
    end = 7 if delimiter is None else 6
    assert [(e["word"], e["start"], e["end"]) for e in entities] == [("Paris .", 0, end)]
