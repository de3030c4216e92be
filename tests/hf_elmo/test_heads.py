"""The task heads: ElmoForTokenClassification and ElmoForSequenceClassification."""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import (
    AutoModelForTokenClassification,
    AutoTokenizer,
    DataCollatorForTokenClassification,
    Trainer,
    TrainingArguments,
    pipeline,
)

from hf_elmo import ElmoConfig, ElmoForSequenceClassification, ElmoForTokenClassification, ElmoModel, ElmoTokenizer
from hf_elmo.pipelines import ElmoTokenClassificationPipeline
from hf_elmo.pretrained import DEFAULT_MODEL
from tests.hf_elmo.autograd_probe import training_step

TOKEN_LABELS = ["word", "Name", "number"]
WORDS = ["cat", "sat", "on", "mat", "the", "dog", "ran", "far"]
NAMES = ["Alice", "Bob", "Paris", "Zoe"]


def tiny_config(**fields) -> ElmoConfig:
    """A random biLM of a few thousand weights: heads train on it in seconds on one CPU thread."""
    defaults = dict(
        char_embedding_dim=4,
        filters=[[1, 8], [2, 8], [3, 8]],
        n_highway=1,
        lstm_dim=16,
        projection_dim=8,
        n_layers=2,
        head_hidden_size=16,
        head_dropout=0.0,
    )
    return ElmoConfig(**{**defaults, **fields})


def token_examples(n: int, seed: int = 0):
    """Sentences of lower-case words, capitalised names and numbers, labelled by kind."""
    rng = random.Random(seed)
    sentences = []
    for _ in range(n):
        words = [
            rng.choice([rng.choice(WORDS), rng.choice(NAMES), str(rng.randint(0, 999))])
            for _ in range(rng.randint(2, 7))
        ]
        labels = [2 if w.isdigit() else 1 if w[0].isupper() else 0 for w in words]
        sentences.append((words, labels))
    return sentences


def with_signal(model):
    """A random biLM with weights of a trained one's scale: with the default init (+-0.05) its layers
    are about 1e-3 and 1e-5 in size, too small to learn from in a few steps."""
    with torch.no_grad():
        for parameter in model.elmo.parameters():
            parameter.normal_(std=0.5)
    return model


def elmo_tagger(model, tokenizer, **kwargs):
    """``pipeline("token-classification")`` of an ELMo tagger through ``ElmoTokenClassificationPipeline``."""
    return pipeline(
        "token-classification",
        model=model,
        tokenizer=tokenizer,
        pipeline_class=ElmoTokenClassificationPipeline,
        **kwargs,
    )


def test_the_token_classification_pipeline_without_a_tokenizer_says_so():
    tagger = ElmoTokenClassificationPipeline(model=token_model().eval(), tokenizer=None)
    with pytest.raises(
        ValueError, match="^ElmoTokenClassificationPipeline needs the model's tokenizer: pass tokenizer="
    ):
        tagger("Bob ran")


@pytest.mark.parametrize("where", ["call", "pipeline"])
def test_the_token_classification_pipeline_refuses_a_stride_saying_sentences_are_read_whole(where):
    """The stock pipeline's error there asked for a fast tokenizer, which ELMo has none of."""
    message = "^ElmoTokenClassificationPipeline takes no stride: the biLM reads a sentence of any length whole"
    with pytest.raises(ValueError, match=message):
        if where == "call":
            elmo_tagger(token_model().eval(), ElmoTokenizer())("Bob ran", stride=1)
        else:
            elmo_tagger(token_model().eval(), ElmoTokenizer(), stride=1)


@pytest.mark.parametrize("where", ["call", "pipeline"])
def test_the_token_classification_pipeline_refuses_an_unknown_aggregation_strategy_naming_the_strategies(where):
    """Was transformers' bare KeyError 'WORDS' (AggregationStrategy[name.upper()])."""
    message = (
        r"^aggregation_strategy 'words' is not one of none, simple, first, average, max \(an ELMo position "
        r"is a whole word: first, average and max give what simple gives\)$"
    )
    with pytest.raises(ValueError, match=message):
        if where == "call":
            elmo_tagger(token_model().eval(), ElmoTokenizer())("Bob ran", aggregation_strategy="words")
        else:
            elmo_tagger(token_model().eval(), ElmoTokenizer(), aggregation_strategy="words")


def test_the_stock_token_classification_pipeline_on_a_model_in_memory_says_which_pipeline_to_pass():
    stock = pipeline("token-classification", model=token_model().eval(), tokenizer=ElmoTokenizer())
    with pytest.raises(ValueError, match="pass pipeline_class=ElmoTokenClassificationPipeline") as raised:
        stock("Bob ran far")
    assert "\n" not in str(raised.value)
    assert [e["word"] for e in elmo_tagger(token_model().eval(), ElmoTokenizer())("Bob ran far")] == [
        "Bob",
        "ran",
        "far",
    ]


def token_model() -> ElmoForTokenClassification:
    torch.manual_seed(0)
    return with_signal(
        ElmoForTokenClassification(
            tiny_config(
                num_labels=3,
                id2label=dict(enumerate(TOKEN_LABELS)),
                label2id={n: i for i, n in enumerate(TOKEN_LABELS)},
            )
        )
    )


def test_trainer_finds_the_models_pad_token_id_equal_to_the_tokenizers(caplog):
    """Trainer aligns the config's pad_token_id with the tokenizer's and warned that it had to (None -> 0)."""
    from transformers.trainer_utils import align_special_tokens

    model, tokenizer = token_model(), ElmoTokenizer()
    with caplog.at_level("WARNING"):
        align_special_tokens(model, tokenizer)
    assert model.config.pad_token_id == tokenizer.pad_token_id == 0
    assert not [r for r in caplog.records if "PAD/BOS/EOS" in r.getMessage()]


def train(model, dataset, tmp_path, collator=None, tokenizer=None, steps: int = 60):
    """``Trainer`` for ``steps`` steps of 8 sentences; returns the loss of every step."""
    args = training_args(tmp_path / "trainer", max_steps=steps, learning_rate=3e-2, lr_scheduler_type="constant")
    trainer = Trainer(model=model, args=args, train_dataset=dataset, data_collator=collator, processing_class=tokenizer)
    trainer.train()
    return [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]


def training_args(output_dir, **settings) -> TrainingArguments:
    """CPU, seed 0, batches of 8, the loss logged every step, nothing saved or reported; ``settings``
    add to or replace these."""
    defaults = dict(
        per_device_train_batch_size=8,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
        seed=0,
    )
    return TrainingArguments(output_dir=str(output_dir), **{**defaults, **settings})


def test_trainer_lowers_the_token_heads_loss_and_leaves_the_frozen_bilm_unchanged(tmp_path, one_thread):
    tokenizer = ElmoTokenizer()
    model = token_model()
    bilm_before = {k: v.clone() for k, v in model.elmo.state_dict().items()}
    head_before = model.classifier.weight.detach().clone()
    dataset = [dict(tokenizer(words, is_split_into_words=True), labels=labels) for words, labels in token_examples(160)]
    losses = train(model, dataset, tmp_path, collator=DataCollatorForTokenClassification(tokenizer))
    assert len(losses) == 60
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5]), losses
    assert all(torch.equal(bilm_before[k], v) for k, v in model.elmo.state_dict().items())
    assert not torch.equal(head_before, model.classifier.weight)


def test_trainer_lowers_the_sequence_heads_loss_with_the_default_collator(tmp_path, one_thread):
    tokenizer = ElmoTokenizer()
    torch.manual_seed(0)
    model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=2)))
    # label 1: the sentence holds a number
    dataset = [
        dict(tokenizer(words, is_split_into_words=True), label=int(2 in labels))
        for words, labels in token_examples(160, seed=1)
    ]
    losses = train(model, dataset, tmp_path, tokenizer=tokenizer)  # Trainer pads with tokenizer.pad
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5]), losses


def test_token_loss_is_the_mean_cross_entropy_over_labels_not_minus_100():
    model = token_model().eval()
    batch = ElmoTokenizer()([["Bob", "ran", "7"], ["far"]], is_split_into_words=True, padding=True, return_tensors="pt")
    labels = torch.tensor([[1, -100, 2], [0, -100, -100]])
    out = model(**batch, labels=labels)
    keep = labels != -100
    log_probs = out.logits.log_softmax(-1)[keep]
    expected = -log_probs.gather(1, labels[keep].unsqueeze(1)).mean()
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=1e-6)
    assert out.logits.shape == (2, 3, 3)


@pytest.mark.parametrize(
    "num_labels, labels, problem_type",
    [
        (1, torch.tensor([0.5, -1.0]), "regression"),
        (3, torch.tensor([2, 0]), "single_label_classification"),
        (3, torch.tensor([[1.0, 0, 1], [0, 0, 1]]), "multi_label_classification"),
    ],
)
def test_sequence_loss_follows_the_problem_type_as_transformers_does(num_labels, labels, problem_type):
    torch.manual_seed(0)
    model = ElmoForSequenceClassification(tiny_config(num_labels=num_labels)).eval()
    out = model(**ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt"), labels=labels)
    assert model.config.problem_type == problem_type and out.logits.shape == (2, num_labels)
    loss = {
        "regression": lambda: torch.nn.functional.mse_loss(out.logits.squeeze(-1), labels),
        "single_label_classification": lambda: torch.nn.functional.cross_entropy(out.logits, labels),
        "multi_label_classification": lambda: torch.nn.functional.binary_cross_entropy_with_logits(out.logits, labels),
    }[problem_type]()
    torch.testing.assert_close(out.loss, loss, rtol=0, atol=1e-6)


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_output_hidden_states_returns_the_biLMs_layers_as_transformers_heads_return_their_base_models(head):
    """The heads took no output_hidden_states (a TypeError for Trainer's and users' generic code);
    now, as BertForSequenceClassification, the base model's hidden_states come back when asked
    (argument or config), in the tuple too, and not otherwise; output_attentions as the base takes it."""
    torch.manual_seed(0)
    model = head(tiny_config(num_labels=3)).eval()
    batch = ElmoTokenizer()(["Bob ran 7 far", "a b"], padding=True, return_tensors="pt")
    with torch.no_grad():
        layers = model.elmo(**batch).hidden_states
        plain = model(**batch)
        asked = model(**batch, output_hidden_states=True, output_attentions=False)
        as_tuple = model(**batch, output_hidden_states=True, return_dict=False)
        model.config.output_hidden_states = True
        by_config = model(**batch)
        with pytest.raises(ValueError, match="^ELMo has no attention"):
            model(**batch, output_attentions=True)
    assert plain.hidden_states is None and len(plain.to_tuple()) == 1
    assert len(asked.hidden_states) == len(by_config.hidden_states) == model.config.n_layers + 1
    for got in (asked.hidden_states, as_tuple[1], by_config.hidden_states):
        for layer, expected in zip(got, layers, strict=True):
            torch.testing.assert_close(layer, expected, rtol=0, atol=0)
    torch.testing.assert_close(asked.logits, plain.logits, rtol=0, atol=0)
    torch.testing.assert_close(as_tuple[0], plain.logits, rtol=0, atol=0)


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_a_head_refuses_output_attentions_set_in_its_config(head):
    """config.output_attentions=True (what from_pretrained(name, output_attentions=True) sets) was
    ignored, silently: no attentions came back, where the argument True is refused."""
    model = head(tiny_config(num_labels=3, output_attentions=True)).eval()
    batch = ElmoTokenizer()(["Bob ran 7 far"], return_tensors="pt")
    with torch.no_grad(), pytest.raises(ValueError, match="^ELMo has no attention.*its config sets output_attentions"):
        model(**batch)


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
@pytest.mark.parametrize("num_labels", [None, 0, -1])
def test_a_head_refuses_a_config_without_labels_naming_the_fields(head, num_labels):
    """num_labels 0 or -1 (transformers' empty id2label) built a classifier of no outputs, silently."""
    config = tiny_config()
    if num_labels is None:
        config.id2label = None  # what num_labels is read from
    else:
        config.num_labels = num_labels
    message = f"^{head.__name__} needs labels: set num_labels \\(1 or more\\) or id2label in its config$"
    with pytest.raises(ValueError, match=message):
        head(config)


def test_padding_does_not_change_a_sentences_prediction():
    torch.manual_seed(0)
    model = ElmoForSequenceClassification(tiny_config(num_labels=2)).eval()
    tokenizer = ElmoTokenizer()
    with torch.no_grad():
        alone = model(**tokenizer(["b c"], return_tensors="pt")).logits
        padded = model(**tokenizer(["b c", "a b c d e"], padding=True, return_tensors="pt")).logits[:1]
    torch.testing.assert_close(padded, alone, rtol=0, atol=1e-6)


def test_a_text_without_words_is_classified_from_zero_vectors_and_leaves_the_others_unchanged():
    """The heads' BiLSTM refused a row without words ("Cannot pack empty tensors")."""
    tokenizer = ElmoTokenizer()
    tagger = token_model().eval()
    torch.manual_seed(0)
    classifier = ElmoForSequenceClassification(tiny_config(num_labels=2)).eval()
    for model in (tagger, classifier):
        with torch.no_grad():
            alone = model(**tokenizer(["Bob ran 7 far"], return_tensors="pt")).logits
            mixed = model(**tokenizer(["Bob ran 7 far", ""], padding=True, return_tensors="pt")).logits
            empty = model(**tokenizer(["", ""], return_tensors="pt")).logits
        torch.testing.assert_close(mixed[:1], alone, rtol=0, atol=1e-6)
        assert empty.shape == ((2, 0, 3) if model is tagger else (2, 2))
    assert model is classifier  # a text without words is its bias: the BiLSTM's vectors of it are zero
    torch.testing.assert_close(mixed[1], classifier.classifier.bias, rtol=0, atol=0)
    tagger.train()
    batch = tokenizer(["Bob ran", ""], padding=True, return_tensors="pt")
    tagger(**batch, labels=torch.tensor([[1, 0], [-100, -100]])).loss.backward()
    tags = elmo_tagger(tagger.eval(), tokenizer)
    assert tags(["Bob ran", ""])[1] == [] and tags("") == []


def test_heads_load_the_shipped_biLM_frozen_without_its_softmax():
    model, info = ElmoForTokenClassification.from_pretrained(
        DEFAULT_MODEL, num_labels=2, dtype=torch.float32, output_loading_info=True
    )
    assert not info["unexpected_keys"]  # the LM folder's softmax is left out by design
    assert {k.split(".")[0] for k in info["missing_keys"]} == {"scalar_mix", "lstm", "classifier"}
    bilm = ElmoModel.from_pretrained(DEFAULT_MODEL, dtype=torch.float32)
    assert all(torch.equal(a, b) for a, b in zip(bilm.state_dict().values(), model.elmo.state_dict().values()))
    trainable = {name.split(".")[0] for name, p in model.named_parameters() if p.requires_grad}
    assert trainable == {"scalar_mix", "lstm", "classifier"}
    model.train()
    assert not model.elmo.training and model.lstm.training  # the frozen biLM runs without dropout
    model.freeze_bilm(False)
    assert all(p.requires_grad for p in model.elmo.parameters()) and model.elmo.training
    assert model.config.freeze_bilm is False


def test_save_and_auto_load_give_the_same_predictions_and_labels(tmp_path):
    model = token_model().eval()
    model.save_pretrained(tmp_path)
    ElmoTokenizer().save_pretrained(tmp_path)
    loaded = AutoModelForTokenClassification.from_pretrained(tmp_path).eval()
    assert isinstance(loaded, ElmoForTokenClassification)
    assert loaded.config.id2label == {0: "word", 1: "Name", 2: "number"} and loaded.config.freeze_bilm
    batch = AutoTokenizer.from_pretrained(tmp_path)(["Bob ran 7 far", "cat"], padding=True, return_tensors="pt")
    assert all(torch.equal(v, loaded.state_dict()[k]) for k, v in model.state_dict().items())
    with torch.no_grad():
        torch.testing.assert_close(loaded(**batch).logits, model(**batch).logits, rtol=0, atol=1e-6)
    auto_map = json.loads((tmp_path / "config.json").read_text())["auto_map"]
    assert auto_map["AutoModelForTokenClassification"] == "modeling_heads.ElmoForTokenClassification"
    assert (tmp_path / "modeling_heads.py").is_file() and (tmp_path / "scalar_mix.py").is_file()


def test_token_classification_pipeline_labels_each_word_with_its_span():
    model = token_model().eval()
    tokenizer = ElmoTokenizer()
    tagger = elmo_tagger(model, tokenizer, ignore_labels=[])
    text = "Bob  ran 7 far"
    entities = tagger(text)
    with torch.no_grad():
        probs = model(**tokenizer(text, return_tensors="pt")).logits[0].softmax(-1)
    assert [(e["word"], e["start"], e["end"], e["index"]) for e in entities] == [
        ("Bob", 0, 3, 0),
        ("ran", 5, 8, 1),
        ("7", 9, 10, 2),
        ("far", 11, 14, 3),
    ]
    for entity, p in zip(entities, probs):
        assert entity["entity"] == TOKEN_LABELS[int(p.argmax())]
        assert abs(float(entity["score"]) - float(p.max())) < 1e-6
    grouped = elmo_tagger(model, tokenizer, ignore_labels=[], aggregation_strategy="simple")(text)
    assert " ".join(group["word"] for group in grouped) == text  # runs of one label, in order, as the text has them
    for words in ("first", "average", "max"):  # merge a word's sub-words: an ELMo position is a whole word
        assert elmo_tagger(model, tokenizer, ignore_labels=[], aggregation_strategy=words)(text) == grouped
    assert [g["entity_group"] for g in grouped] == [k for k, _ in itertools.groupby(e["entity"] for e in entities)]
    assert grouped[0]["start"] == 0 and grouped[-1]["end"] == len(text)


def test_token_classification_pipeline_labels_pre_split_words_at_their_spans_in_the_joined_text():
    """is_split_into_words=True failed ("only supported with fast tokenizers"); the words are now read as
    they are (not re-split), one entity each, spans in the words joined by ``delimiter``, as the stock
    pipeline does with a fast tokenizer."""
    model = token_model().eval()
    tokenizer = ElmoTokenizer(pre_tokenizer="spacy:en")  # would split "can't" into "ca" "n't"
    tagger = elmo_tagger(model, tokenizer, ignore_labels=[])
    batch = [["Bob", "ran", "7", "far"], ["can't", "x.y"], []]
    for delimiter in (None, " | "):
        joiner = " " if delimiter is None else delimiter
        results = tagger(batch, is_split_into_words=True, delimiter=delimiter)
        assert len(results) == len(batch)
        for words, entities in zip(batch, results):
            with torch.no_grad():
                logits = model(**tokenizer([words], is_split_into_words=True, return_tensors="pt")).logits[0]
            probs = logits.softmax(-1)
            sentence = joiner.join(words)
            starts = [sum(len(w) + len(joiner) for w in words[:i]) for i in range(len(words))]
            assert [(e["word"], e["start"], e["end"], e["index"]) for e in entities] == [
                (w, s, s + len(w), i) for i, (w, s) in enumerate(zip(words, starts))
            ]
            assert all(sentence[e["start"] : e["end"]] == e["word"] for e in entities)
            for entity, p in zip(entities, probs):
                assert entity["entity"] == TOKEN_LABELS[int(p.argmax())]
                assert abs(float(entity["score"]) - float(p.max())) < 1e-6
    assert tagger(batch[0], is_split_into_words=True) == [tagger(batch[:1], is_split_into_words=True)[0]]
    grouped = elmo_tagger(model, tokenizer, ignore_labels=[], aggregation_strategy="simple")(
        ["Bob", "ran", "7", "far"], is_split_into_words=True
    )[0]
    assert " ".join(group["word"] for group in grouped) == "Bob ran 7 far"
    assert grouped[0]["start"] == 0 and grouped[-1]["end"] == len("Bob ran 7 far")
    with pytest.raises(ValueError, match=r"word 1 \('a b'\) is empty or holds whitespace"):
        tagger(["x", "a b"], is_split_into_words=True)


def test_token_classification_pipeline_truncated_on_the_left_labels_the_words_the_model_read():
    """With truncation_side="left" the raw-text path labelled the first words with the last words' scores."""
    model = token_model().eval()
    tokenizer = ElmoTokenizer(model_max_length=2, truncation_side="left")
    tagger = elmo_tagger(model, tokenizer, ignore_labels=[])
    with torch.no_grad():
        probs = model(**tokenizer(["7", "far"], is_split_into_words=True, return_tensors="pt")).logits[0].softmax(-1)
    for entities in (tagger("Bob ran 7 far"), tagger(["Bob", "ran", "7", "far"], is_split_into_words=True)[0]):
        assert [(e["word"], e["start"], e["end"]) for e in entities] == [("7", 8, 9), ("far", 10, 13)]
        assert all(abs(float(e["score"]) - float(p.max())) < 1e-6 for e, p in zip(entities, probs))


def test_text_classification_pipeline_returns_the_labelled_prediction():
    torch.manual_seed(0)
    model = ElmoForSequenceClassification(
        tiny_config(num_labels=2, id2label={0: "neg", 1: "pos"}, label2id={"neg": 0, "pos": 1})
    ).eval()
    tokenizer = ElmoTokenizer()
    classify = pipeline("text-classification", model=model, tokenizer=tokenizer)
    texts = ["the cat sat", "Bob ran 7 far away"]
    results = classify(texts)
    with torch.no_grad():
        probs = model(**tokenizer(texts, padding=True, return_tensors="pt")).logits.softmax(-1)
    for result, p in zip(results, probs):
        assert result["label"] == ["neg", "pos"][int(p.argmax())]
        assert abs(result["score"] - float(p.max())) < 1e-6


def _run_python(script: str, *, hf_home: Path) -> subprocess.CompletedProcess[str]:
    """Run the dedented ``script`` in a fresh interpreter with its own Hugging Face cache ``hf_home``."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HOME": str(hf_home)},
        timeout=300,
    )


def test_trust_remote_code_loads_a_saved_head_without_the_package(tmp_path):
    torch.manual_seed(0)
    model = ElmoForSequenceClassification(tiny_config(num_labels=2)).eval()
    model.save_pretrained(tmp_path / "head")
    ElmoTokenizer().save_pretrained(tmp_path / "head")
    batch = ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt")
    with torch.no_grad():
        np.save(tmp_path / "expected.npy", model(**batch).logits.numpy())
    script = f"""
        import sys; sys.modules['hf_elmo'] = None  # importing hf_elmo now raises
        import numpy as np, torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        folder = {str(tmp_path / "head")!r}
        model = AutoModelForSequenceClassification.from_pretrained(folder, trust_remote_code=True).eval()
        tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=True)
        assert type(model).__module__.startswith("transformers_modules"), type(model).__module__
        with torch.no_grad():
            got = model(**tokenizer(["a b c", "d"], padding=True, return_tensors="pt")).logits.numpy()
        np.testing.assert_array_equal(got, np.load({str(tmp_path / "expected.npy")!r}))
        print("remote head ok")
    """
    result = _run_python(script, hf_home=tmp_path / "hf-home")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "remote head ok" in result.stdout


def test_trainer_with_gradient_accumulation_logs_the_loss_of_the_same_batch_unaccumulated(tmp_path, one_thread):
    """Trainer passes ``num_items_in_batch`` to (and skips its own division for) a model whose
    forward takes ``**kwargs``; the heads take no such arguments, so the Trainer scales the loss
    itself: 2 accumulated batches of 4 log the loss of one batch of the same 8 sentences."""
    tokenizer = ElmoTokenizer()
    dataset = [
        dict(tokenizer(words, is_split_into_words=True), label=int(2 in labels))
        for words, labels in token_examples(8, seed=1)
    ]

    def first_loss(batch_size: int, accumulate: int) -> float:
        torch.manual_seed(0)
        model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=2)))
        args = training_args(
            tmp_path / f"trainer-{accumulate}",
            max_steps=1,
            per_device_train_batch_size=batch_size,
            gradient_accumulation_steps=accumulate,
        )
        trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
        trainer.train()
        return next(entry["loss"] for entry in trainer.state.log_history if "loss" in entry)

    assert first_loss(4, accumulate=2) == pytest.approx(first_loss(8, accumulate=1), rel=1e-4)


@pytest.mark.parametrize("frozen", [True, False], ids=["frozen-biLM", "fine-tuned-biLM"])
@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_gradient_checkpointing_gives_a_head_the_same_loss_and_gradients(head, frozen):
    """The heads had no gradient checkpointing ('does not support'); now their BiLSTM, and the biLM's
    parts when it is fine-tuned, are checkpointed, with the head's dropout drawing the same masks."""
    torch.manual_seed(0)
    model = with_signal(head(tiny_config(num_labels=3, head_dropout=0.3, dropout=0.2, freeze_bilm=frozen))).train()
    batch = ElmoTokenizer()([["Bob", "ran", "7", "far"], ["a", "cat"]], is_split_into_words=True, padding=True)
    batch = {key: torch.tensor(value) for key, value in batch.items()}
    labels = (
        torch.tensor([[1, 0, 2, 0], [0, 0, -100, -100]]) if head is ElmoForTokenClassification else torch.tensor([2, 0])
    )

    def step():
        return training_step(model, lambda: model(**batch, labels=labels).loss)

    loss, gradients, kept = step()
    model.gradient_checkpointing_enable()
    assert model.is_activation_checkpointing
    checkpointed_loss, checkpointed_gradients, checkpointed_kept = step()
    assert (not frozen) == any(name.startswith("elmo.") for name in gradients)
    torch.testing.assert_close(checkpointed_loss, loss, rtol=0, atol=1e-6)
    assert checkpointed_gradients.keys() == gradients.keys()
    for name, gradient in gradients.items():
        torch.testing.assert_close(checkpointed_gradients[name], gradient, rtol=0, atol=1e-6, msg=name)
    assert checkpointed_kept < kept / 5, (checkpointed_kept, kept)


def test_checkpointing_kwargs_without_use_reentrant_leave_a_fine_tuned_biLM_its_gradients():
    """With checkpoint kwargs that leave use_reentrant out, torch's checkpoint went reentrant: the
    char CNN's input (char ids) needs no gradient, so no part of the fine-tuned biLM got one, silently
    (the head's own layers did, and training went on)."""
    torch.manual_seed(0)
    model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=2, freeze_bilm=False))).train()
    model.activation_checkpointing_enable({"preserve_rng_state": True})
    batch = ElmoTokenizer()(["Bob ran far", "a cat"], padding=True, return_tensors="pt")
    _, gradients, _ = training_step(model, lambda: model(**batch, labels=torch.tensor([1, 0])).loss)
    bilm = [name for name, _ in model.elmo.named_parameters(prefix="elmo")]
    assert [name for name in bilm if name not in gradients or not gradients[name].any()] == []


def test_trainer_with_gradient_checkpointing_trains_a_head_and_its_biLM(tmp_path, one_thread):
    """Trainer's gradient_checkpointing=True stopped with 'ElmoForSequenceClassification does not
    support activation checkpointing'; now a step runs and changes the fine-tuned biLM."""
    tokenizer = ElmoTokenizer()
    torch.manual_seed(0)
    model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=2, freeze_bilm=False)))
    bilm_before = {k: v.clone() for k, v in model.elmo.state_dict().items() if not k.startswith("warm_")}
    dataset = [
        dict(tokenizer(words, is_split_into_words=True), label=int(2 in labels))
        for words, labels in token_examples(8, seed=1)
    ]
    args = training_args(tmp_path / "trainer", max_steps=1, gradient_checkpointing=True)
    trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    assert model.is_activation_checkpointing
    assert np.isfinite(next(entry["loss"] for entry in trainer.state.log_history if "loss" in entry))
    assert all(not torch.equal(before, model.elmo.state_dict()[k]) for k, before in bilm_before.items())


def neftune_first_loss(tmp_path, frozen: bool, alpha: float | None) -> float:
    """The loss of one Trainer step on a sequence head with ``neftune_noise_alpha=alpha``."""
    tokenizer = ElmoTokenizer()
    dataset = [
        dict(tokenizer(words, is_split_into_words=True), label=int(2 in labels))
        for words, labels in token_examples(8, seed=1)
    ]
    torch.manual_seed(0)
    model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=2, freeze_bilm=frozen)))
    args = training_args(tmp_path / f"trainer-{frozen}-{alpha}", max_steps=1, neftune_noise_alpha=alpha)
    trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    return next(entry["loss"] for entry in trainer.state.log_history if "loss" in entry)


def test_trainer_neftune_adds_noise_to_a_fine_tuned_biLMs_char_embedding_without_a_warning(tmp_path, one_thread):
    from transformers.testing_utils import CaptureLogger

    from hf_elmo import modeling_heads

    type(modeling_heads._logger).warning_once.cache_clear()
    with CaptureLogger(modeling_heads._logger) as log:
        noisy = neftune_first_loss(tmp_path, frozen=False, alpha=50.0)
    assert noisy != pytest.approx(neftune_first_loss(tmp_path, frozen=False, alpha=None), abs=1e-3)
    assert "NEFTune" not in log.out


def test_neftune_noise_on_the_char_embedding_is_at_most_alpha_over_the_root_of_chars_times_width():
    """What the README states of NEFTune's noise on an ELMo model: uniform, up to alpha / sqrt(W * D)."""
    from transformers.integrations.neftune import activate_neftune

    torch.manual_seed(0)
    model = ElmoForSequenceClassification(tiny_config(num_labels=2, freeze_bilm=False)).train()
    activate_neftune(model, 5.0)
    ids = ElmoTokenizer()(["Bob ran far", "a cat"], padding=True, return_tensors="pt")["input_ids"]
    embedding = model.get_input_embeddings()
    noise = embedding(ids.flatten(0, 1)) - embedding.weight[ids.flatten(0, 1)]
    bound = 5.0 / (model.config.max_characters_per_token * model.config.char_embedding_dim) ** 0.5
    assert noise.abs().max() <= bound
    assert noise.abs().max() > 0.99 * bound  # one of its 1,200 values comes near the bound


def test_trainer_neftune_with_a_frozen_biLM_warns_that_it_adds_no_noise(tmp_path, one_thread):
    """The frozen biLM stays in eval mode, where NEFTune's hook on its char embedding adds nothing:
    the option had no effect, silently."""
    from transformers.testing_utils import CaptureLogger

    from hf_elmo import modeling_heads

    type(modeling_heads._logger).warning_once.cache_clear()
    with CaptureLogger(modeling_heads._logger) as log:
        loss = neftune_first_loss(tmp_path, frozen=True, alpha=50.0)
    assert loss == neftune_first_loss(tmp_path, frozen=True, alpha=None)
    assert log.out.count("\n") == 1
    assert "neftune_noise_alpha (NEFTune) adds no noise: the biLM is frozen" in log.out
    assert "freeze_bilm=False" in log.out


def test_a_saved_token_model_serves_the_token_classification_and_ner_pipelines_by_name(tmp_path):
    """The stock token-classification pipeline failed inside transformers on an ELMo tagger's folder
    (it reads each position as one integer id); the folder now maps the task to
    ElmoTokenClassificationPipeline, whose code it carries, as transformers' custom pipelines do."""
    model = token_model().eval()
    model.save_pretrained(tmp_path / "tagger")
    ElmoTokenizer().save_pretrained(tmp_path / "tagger")
    assert (tmp_path / "tagger" / "pipelines.py").is_file()
    expected = elmo_tagger(model, ElmoTokenizer(), ignore_labels=[])("Bob  ran 7 far")
    for task in ("token-classification", "ner"):
        tagger = pipeline(task, model=str(tmp_path / "tagger"), trust_remote_code=True, ignore_labels=[])
        got = tagger("Bob  ran 7 far")
        assert [(e["word"], e["start"], e["entity"]) for e in got] == [
            (e["word"], e["start"], e["entity"]) for e in expected
        ]
        np.testing.assert_allclose([e["score"] for e in got], [e["score"] for e in expected], rtol=0, atol=1e-6)
        with pytest.raises(ValueError, match="trust_remote_code=True"):
            pipeline(task, model=str(tmp_path / "tagger"))
    model.elmo.save_pretrained(tmp_path / "bilm")  # the biLM alone, and a sentence model, map no pipeline
    ElmoForSequenceClassification(tiny_config(num_labels=2)).save_pretrained(tmp_path / "classifier")
    for folder in ("bilm", "classifier"):
        assert "custom_pipelines" not in json.loads((tmp_path / folder / "config.json").read_text())


def test_saving_keeps_the_users_own_custom_pipelines(tmp_path):
    """Was: every save replaced config.custom_pipelines with the class's own or deleted it, so a pipeline
    registered and saved the transformers way (PIPELINE_REGISTRY, pipe.save_pretrained) was lost."""
    theirs = {"impl": "my_pipeline.PairPipeline", "pt": ["AutoModelForSequenceClassification"], "type": "text"}
    for model, ours in (
        (token_model(), {"token-classification", "ner"}),
        (ElmoForSequenceClassification(tiny_config()), set()),
    ):
        model.config.custom_pipelines = {"pair-classification": theirs}
        model.save_pretrained(tmp_path / type(model).__name__)
        saved = json.loads((tmp_path / type(model).__name__ / "config.json").read_text())["custom_pipelines"]
        assert saved == {"pair-classification": theirs, **{task: saved[task] for task in ours}}
        assert set(saved) == {"pair-classification"} | ours


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_a_task_head_refuses_a_word_baseline_as_it_loads_naming_its_folder(word_baseline_folder, head):
    """Was: loaded without complaint, then its first forward failed in a line naming no folder."""
    with pytest.raises(ValueError) as refused:
        head.from_pretrained(word_baseline_folder, num_labels=3)
    assert str(refused.value) == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        f"char ids; {head.__name__} needs a char-CNN biLM"
    )


@pytest.mark.parametrize("loaded", ["config", "model"])
def test_a_task_head_loaded_with_a_word_baseline_config_names_the_config_not_the_weights_folder(
    word_baseline_folder, tmp_path, loaded
):
    """Was: '<the char-CNN weights' folder>: this biLM embeds word ids ...', blaming the folder of the weights.
    A loaded model's config names its folder."""
    ElmoModel(tiny_config()).save_pretrained(tmp_path / "char")
    if loaded == "config":
        word_config, where = ElmoConfig.from_pretrained(word_baseline_folder), ""
    else:
        word_config, where = ElmoModel.from_pretrained(word_baseline_folder).config, f" ({word_baseline_folder})"
    with pytest.raises(ValueError) as refused:
        ElmoForTokenClassification.from_pretrained(tmp_path / "char", config=word_config)
    assert str(refused.value) == (
        f"the config given to from_pretrained{where}: this biLM embeds word ids "
        "(token_embedding='word', the pretraining baseline), not char ids; ElmoForTokenClassification needs a "
        "char-CNN biLM"
    )


def test_a_task_head_built_from_a_word_baseline_config_is_refused():
    with pytest.raises(
        ValueError, match=r"^the model: .*word ids.*; ElmoForTokenClassification needs a char-CNN biLM$"
    ):
        ElmoForTokenClassification(tiny_config(num_labels=2, token_embedding="word", vocab_size=10))


def test_a_remote_code_task_head_refuses_a_word_baseline_as_it_loads_naming_its_folder(word_baseline_folder, tmp_path):
    """The heads' code copies (trust_remote_code, without the package) check as the package's do."""
    script = f"""
        import sys; sys.modules['hf_elmo'] = None  # importing hf_elmo now raises
        from transformers.dynamic_module_utils import get_class_from_dynamic_module
        head = get_class_from_dynamic_module("modeling_heads.ElmoForTokenClassification", {str(DEFAULT_MODEL)!r})
        assert head.__module__.startswith("transformers_modules"), head.__module__
        try:
            head.from_pretrained({str(word_baseline_folder)!r}, num_labels=3)
        except ValueError as err:
            print(err)
    """
    result = _run_python(script, hf_home=tmp_path / "hf-home")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().startswith(f"{word_baseline_folder}: this biLM embeds word ids"), result.stdout
    assert result.stdout.strip().endswith("ElmoForTokenClassification needs a char-CNN biLM"), result.stdout


@pytest.mark.parametrize(
    "head, labels, message",
    [
        (
            ElmoForTokenClassification,
            (2, 5),
            r"^labels must have shape \(batch, tokens\) = \(2, 3\) to match input_ids ",
        ),
        (ElmoForSequenceClassification, (5,), r"^labels must have shape \(batch,\) = \(2,\) to match input_ids "),
    ],
)
def test_labels_of_another_shape_than_the_batch_are_one_line_naming_both(head, labels, message):
    """Was torch's "Expected input batch_size (6) to match target batch_size (10)", of flattened sizes."""
    model = head(tiny_config(num_labels=3)).eval()
    batch = ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt")
    with pytest.raises(ValueError, match=message + r"\(2, 3, \d+\), got " + re.escape(str(labels))):
        model(**batch, labels=torch.zeros(labels, dtype=torch.long))
