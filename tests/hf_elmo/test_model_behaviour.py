"""ElmoModel's contract: shapes, determinism, stateful carry-over, warm start, input checks."""

from __future__ import annotations

import copy
import re

import pytest
import torch
from transformers import AutoModel

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer, batch_to_ids
from hf_elmo.modeling_elmo import check_inputs, mean_pool, runs_as_built
from tests.hf_elmo.autograd_probe import training_step
from tests.numpy_elmo import small_options, write_random_original

SENTENCE = ["Let's", "stick", "to", "improvisation", "in", "this", "skit"]
OTHERS = [
    ["he", "hit", "it", "with", "a", "stick"],
    ["a"],
    ["Ein", "längerer", "Satz", "mit", "vielen", "Wörtern", "und", "so", "weiter", "."],
]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> ElmoModel:
    """A small model with random weights of realistic scale (outputs of order 1)."""
    folder = tmp_path_factory.mktemp("random-elmo")
    write_random_original(folder, small_options(filters=((1, 8), (2, 8), (3, 16))), seed=0)
    return ElmoModel.from_allennlp(folder / "options.json", folder / "weights.hdf5")


def _embed(model, sentences, **kwargs):
    with torch.inference_mode():
        return model(input_ids=batch_to_ids(sentences), **kwargs)


def test_outputs_have_l_plus_one_layers_of_2p_and_layer_0_is_the_doubled_token_layer(model):
    out = _embed(model, [SENTENCE, ["a"]])
    assert len(out.hidden_states) == 3
    assert all(h.shape == (2, 7, 16) for h in out.hidden_states)
    assert torch.equal(out.last_hidden_state, out.hidden_states[-1])
    assert torch.equal(out.hidden_states[0][..., :8], out.hidden_states[0][..., 8:])
    assert out.attention_mask.tolist()[1] == [1, 0, 0, 0, 0, 0, 0]


def test_a_sentence_gets_the_same_vectors_alone_and_in_any_padded_batch(model):
    alone = _embed(model, [SENTENCE]).hidden_states
    for batch in ([OTHERS[0], SENTENCE], [SENTENCE] + OTHERS, OTHERS + [SENTENCE]):
        row = batch.index(SENTENCE)
        inside = _embed(model, batch).hidden_states
        for a, b in zip(alone, inside):
            torch.testing.assert_close(b[row, : len(SENTENCE)], a[0], atol=1e-5, rtol=0)


def test_a_text_without_words_gets_zero_vectors_and_leaves_the_others_unchanged(model):
    tokenizer = ElmoTokenizer()
    alone = _embed(model, [SENTENCE]).hidden_states
    with torch.inference_mode():
        out = model(**tokenizer([" ".join(SENTENCE), ""], padding=True, return_tensors="pt"))
        empty = model(**tokenizer(["", ""], return_tensors="pt"))
    assert not out.attention_mask[1].any()
    for a, b in zip(alone, out.hidden_states):
        torch.testing.assert_close(b[0], a[0], atol=1e-5, rtol=0)
        assert not b[1].any()
    assert not mean_pool(out.last_hidden_state, out.attention_mask)[1].any()
    assert [tuple(h.shape) for h in empty.hidden_states] == [(2, 0, 16)] * 3


def test_repeated_stateless_calls_give_identical_vectors(model):
    first = _embed(model, [SENTENCE]).last_hidden_state
    _embed(model, OTHERS)
    assert torch.equal(_embed(model, [SENTENCE]).last_hidden_state, first)


def test_stateful_calls_carry_state_per_row_and_reset_forgets_it(model):
    fresh = _embed(model, [SENTENCE]).last_hidden_state
    model.reset_states()
    first = _embed(model, [SENTENCE], stateful=True).last_hidden_state
    second = _embed(model, [SENTENCE], stateful=True).last_hidden_state
    model.reset_states()
    after_reset = _embed(model, [SENTENCE], stateful=True).last_hidden_state
    model.reset_states()
    assert torch.equal(first, fresh) and torch.equal(after_reset, fresh)
    assert (second - first).abs().max() > 1e-4


def test_stateful_rows_beyond_a_smaller_batch_keep_their_state(model):
    """AllenNLP semantics: a smaller batch updates the first rows only; a larger one starts new rows fresh."""
    model.reset_states()
    _embed(model, [SENTENCE, OTHERS[0]], stateful=True)
    carried_row1 = model._carried_state.h[:, :, 1].clone()
    _embed(model, [OTHERS[1]], stateful=True)
    assert torch.equal(model._carried_state.h[:, :, 1], carried_row1)
    out = _embed(model, [SENTENCE, OTHERS[0], SENTENCE], stateful=True).last_hidden_state
    model.reset_states()
    fresh = _embed(model, [SENTENCE]).last_hidden_state
    torch.testing.assert_close(out[2], fresh[0], atol=1e-5, rtol=0)
    assert (out[0] - fresh[0]).abs().max() > 1e-4


@pytest.mark.parametrize("dtype, atol", [(torch.float16, 0.01), (torch.bfloat16, 0.05)])
def test_the_carried_state_follows_the_model_to_another_dtype(model, dtype, atol):
    """model.to(dtype) (.half(), .bfloat16(), and alike .to(device)) between stateful calls: the next one
    continues from the carried state in the model's dtype. Was: "Input dtypes must be the same, got:
    input c10::BFloat16, batch1: float, batch2: c10::BFloat16", from inside the LSTM."""
    moved, kept = copy.deepcopy(model), copy.deepcopy(model)
    for each in (moved, kept):
        each.reset_states()
        _embed(each, [SENTENCE, OTHERS[0]], stateful=True)
    moved.to(dtype)
    got = _embed(moved, [SENTENCE], stateful=True).last_hidden_state  # row 1 keeps its carried state
    want = _embed(kept, [SENTENCE], stateful=True).last_hidden_state
    assert got.dtype == dtype and moved._carried_state.h.dtype == dtype
    torch.testing.assert_close(got.float(), want, atol=atol, rtol=0)
    fresh = _embed(kept, [SENTENCE]).last_hidden_state
    assert (want - fresh).abs().max() > 4 * 0.05  # what was carried matters at either tolerance


def test_config_stateful_sets_the_default(model):
    model.config.stateful = True
    try:
        model.reset_states()
        _embed(model, [SENTENCE])
        assert model._carried_state is not None
    finally:
        model.config.stateful = False
        model.reset_states()


def test_warm_up_sets_a_fixed_initial_state_that_is_saved_with_the_model(model, tmp_path):
    torch.manual_seed(1)
    warm = ElmoModel(model.config).eval()
    warm.load_state_dict(model.state_dict())
    cold = _embed(warm, [SENTENCE]).last_hidden_state
    warm.warm_up([SENTENCE] + OTHERS * 3, batch_size=2)
    assert warm.warm_h.abs().sum() > 0
    warmed = _embed(warm, [SENTENCE]).last_hidden_state
    assert (warmed - cold).abs().max() > 1e-4
    in_batch = _embed(warm, OTHERS + [SENTENCE]).last_hidden_state[-1, : len(SENTENCE)]
    torch.testing.assert_close(in_batch, warmed[0], atol=1e-5, rtol=0)
    warm.save_pretrained(tmp_path)
    reloaded = ElmoModel.from_pretrained(tmp_path).eval()
    assert torch.equal(_embed(reloaded, [SENTENCE]).last_hidden_state, warmed)


def test_warm_up_in_training_mode_with_dropout_sets_the_eval_state_and_keeps_the_mode(model):
    in_eval = ElmoModel(model.config).eval()
    in_eval.load_state_dict(model.state_dict())
    in_eval.warm_up([SENTENCE] + OTHERS, batch_size=2)
    dropped = ElmoModel(ElmoConfig(**{**model.config.to_dict(), "dropout": 0.5}))
    dropped.load_state_dict(model.state_dict())
    dropped.train()
    torch.manual_seed(0)
    dropped.warm_up([SENTENCE] + OTHERS, batch_size=2)
    assert dropped.training and dropped.warm_h.grad_fn is None
    torch.testing.assert_close(dropped.warm_h, in_eval.warm_h, atol=1e-6, rtol=0)
    torch.testing.assert_close(dropped.warm_c, in_eval.warm_c, atol=1e-6, rtol=0)


def test_warm_up_of_a_word_baseline_says_it_needs_a_char_cnn_biLM_naming_its_folder(word_baseline_folder):
    """Was: "this biLM embeds word ids ...: call encode(word_ids, lengths) ...", advice that warms nothing up."""
    with pytest.raises(ValueError) as refused:
        ElmoModel.from_pretrained(word_baseline_folder).warm_up([SENTENCE])
    assert str(refused.value) == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; warm_up needs a char-CNN biLM"
    )


def test_dropout_applies_in_training_mode_only(model):
    dropped = ElmoModel(ElmoConfig(**{**model.config.to_dict(), "dropout": 0.5}))
    dropped.load_state_dict(model.state_dict())
    ids = batch_to_ids([SENTENCE])
    dropped.eval()
    torch.testing.assert_close(dropped(input_ids=ids).last_hidden_state, _embed(model, [SENTENCE]).last_hidden_state)
    dropped.train()
    torch.manual_seed(0)
    assert (dropped(input_ids=ids).last_hidden_state - _embed(model, [SENTENCE]).last_hidden_state).abs().max() > 1e-4


def test_gradients_flow_to_every_parameter(model):
    trainable = ElmoModel(model.config)
    out = trainable(input_ids=batch_to_ids([SENTENCE, ["a"]]))
    sum(h.sum() for h in out.hidden_states).backward()
    without_grad = [n for n, p in trainable.named_parameters() if p.grad is None or not p.grad.any()]
    assert without_grad == []


def _trainable(implementation: str) -> ElmoModel:
    """A biLM in training mode with dropout, weights of a trained one's scale (the clipping acts)
    and, for the fused path, no clipping."""
    clip = {"cell_clip": None, "proj_clip": None} if implementation == "fused" else {}
    config = ElmoConfig(
        char_embedding_dim=4,
        filters=[[1, 8], [2, 8], [3, 16]],
        lstm_dim=32,
        projection_dim=8,
        n_layers=2,
        dropout=0.3,
        bilm_implementation=implementation,
        **clip,
    )
    torch.manual_seed(0)
    model = ElmoModel(config)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(std=0.5)
    return model.train()


def _training_step(model: ElmoModel, ids: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor], int]:
    """``training_step`` of a loss over every layer; every parameter gets a gradient."""
    loss, gradients, kept = training_step(
        model, lambda: sum((layer * layer).mean() for layer in model(input_ids=ids).hidden_states)
    )
    assert gradients.keys() == {name for name, _ in model.named_parameters()}
    return loss, gradients, kept


@pytest.mark.parametrize("implementation", ["fast", "plain", "fused"])
def test_activation_checkpointing_keeps_a_tenth_of_the_values_for_the_same_loss_and_gradients(implementation):
    """ElmoModel had no activation checkpointing ('does not support' from gradient_checkpointing_enable);
    now the char CNN and each biLM layer are checkpointed on every path, dropout included."""
    model = _trainable(implementation)
    ids = batch_to_ids([SENTENCE, ["a", "stick"], OTHERS[2]])
    loss, gradients, kept = _training_step(model, ids)
    model.activation_checkpointing_enable()
    assert model.is_activation_checkpointing
    checkpointed_loss, checkpointed_gradients, checkpointed_kept = _training_step(model, ids)
    torch.testing.assert_close(checkpointed_loss, loss, rtol=0, atol=1e-6)
    assert gradients.keys() == checkpointed_gradients.keys()
    for name, gradient in gradients.items():
        assert gradient.abs().max() > 0, name
        torch.testing.assert_close(checkpointed_gradients[name], gradient, rtol=0, atol=1e-6, msg=name)
    assert checkpointed_kept < kept / 10, (checkpointed_kept, kept)
    model.activation_checkpointing_disable()
    assert _training_step(model, ids)[2] == kept


def test_activation_checkpointing_leaves_inference_on_the_fast_path_with_its_token_cache():
    """transformers' activation_checkpointing_enable hooks the input embedding (enable_input_require_grads),
    which would send the char CNN to its plain path and bypass the token cache for good, even after
    activation_checkpointing_disable (6x slower inference of the shipped model); ELMo needs no such hook."""
    model = _trainable("fast").eval()
    ids = batch_to_ids([SENTENCE, ["a", "stick"]])
    with torch.inference_mode():
        before = model(input_ids=ids).hidden_states
    model.clear_caches()
    model.activation_checkpointing_enable()
    assert runs_as_built(model.char_cnn) and runs_as_built(model.bilm)
    with torch.inference_mode():
        after = model(input_ids=ids).hidden_states
    words = {word for sentence in [SENTENCE, ["a", "stick"]] for word in sentence}
    assert len(model.token_cache) == len(words) + 2  # and the sentence markers
    for got, expected in zip(after, before, strict=True):
        torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_checkpointing_kwargs_that_leave_use_reentrant_out_stay_non_reentrant():
    """transformers fills in use_reentrant=False only when no kwargs are given: with others alone
    (Trainer's gradient_checkpointing_kwargs={"preserve_rng_state": True}) torch's checkpoint went
    reentrant and the backward pass failed ('element 0 of tensors does not require grad')."""
    model = _trainable("fast")
    ids = batch_to_ids([SENTENCE, ["a", "stick"]])
    loss, gradients, _ = _training_step(model, ids)
    model.activation_checkpointing_enable({"preserve_rng_state": True})
    checkpointed_loss, checkpointed_gradients, _ = _training_step(model, ids)
    torch.testing.assert_close(checkpointed_loss, loss, rtol=0, atol=1e-6)
    for name, gradient in gradients.items():
        torch.testing.assert_close(checkpointed_gradients[name], gradient, rtol=0, atol=1e-6, msg=name)


@pytest.mark.parametrize(
    "settings, message",
    [
        (
            dict(activation_checkpointing_kwargs={"use_reentrant": True}),
            "^ELMo's activation checkpointing is non-reentrant: its char CNN reads char ids",
        ),
        (dict(every_n_layers=2), "^every_n_layers=2: ELMo checkpoints its char CNN and every biLM layer alike"),
    ],
)
def test_checkpointing_that_would_lose_gradients_or_skip_layers_is_refused_in_one_line(settings, message):
    """A reentrant checkpoint of the char CNN, whose input is integer ids, gave its weights no
    gradient (a warning of torch's, no error); every_n_layers, which transformers applies to its
    own layer class only, was ignored."""
    model = _trainable("fast")
    with pytest.raises(ValueError, match=message):
        model.activation_checkpointing_enable(**settings)
    assert not model.is_activation_checkpointing


@pytest.mark.parametrize(
    "input_ids, mask, message",
    [
        (torch.zeros(0, 3, 50, dtype=torch.long), None, "empty batch"),
        (torch.zeros(2, 3, 49, dtype=torch.long), None, r"shape \(batch, tokens, 50\)"),
        (batch_to_ids([["a", "b"]]), torch.tensor([[0, 1]]), "left-aligned"),
    ],
)
def test_malformed_input_is_refused_with_a_clear_error(model, input_ids, mask, message):
    with pytest.raises(ValueError, match=message):
        model(input_ids=input_ids, attention_mask=mask)


def test_a_left_padded_batch_is_refused_naming_the_argument_and_where_its_padding_comes_before_a_token(model):
    """Left-padded ids without a mask were refused as 'attention_mask must be left-aligned', an
    argument not passed, without saying where or what to do."""
    right = batch_to_ids([SENTENCE, ["a", "b"]])
    left = right.clone()
    left[1] = torch.cat([right[1, 2:], right[1, :2]])  # padding_side="left": 5 padding tokens, then a, b
    expected = (
        r"^input_ids must be padded on the right: sentence 1 has a padding token \(all-zero char ids\) at "
        r"token 0, before a real token; put each sentence's tokens first, then its padding, as ElmoTokenizer does$"
    )
    with pytest.raises(ValueError, match=expected):
        model(input_ids=left)
    expected = (
        r"^attention_mask must be left-aligned \(real tokens first, then padding\): it is 0 at \[1, 0\] "
        r"\(sentence, token\), before a 1; pad on the right, as ElmoTokenizer does$"
    )
    with pytest.raises(ValueError, match=expected):
        model(input_ids=left, attention_mask=(left > 0).any(-1).long())


def test_char_ids_of_another_width_name_the_call_that_makes_them_at_the_models(tmp_path):
    """A model whose max_characters_per_token is not 50 (allennlp 2128) given batch_to_ids' default
    width. Was "input_ids must have shape (batch, tokens, 20), got (1, 1, 50)" alone."""
    options = small_options()
    options["char_cnn"]["max_characters_per_token"] = 20
    write_random_original(tmp_path, options, seed=0)
    model = ElmoModel.from_allennlp(tmp_path / "options.json", tmp_path / "weights.hdf5")
    with pytest.raises(ValueError, match=r"got \(1, 1, 50\): .*batch_to_ids\(sentences, max_characters_per_token=20\)"):
        model(input_ids=batch_to_ids([["hello"]]))
    assert model(input_ids=batch_to_ids([["hello"]], max_characters_per_token=20)).last_hidden_state.shape == (1, 1, 16)


@pytest.mark.parametrize("dtype", [torch.int16, torch.int32, torch.uint16, torch.int64])
def test_integer_ids_of_any_dtype_that_holds_0_to_261_give_the_same_vectors(model, dtype):
    ids = batch_to_ids([SENTENCE, ["ÿ"]])  # ids up to 261 (the padding char) and 256 (a byte 0xff)
    with torch.inference_mode():
        expected = model(input_ids=ids).last_hidden_state
        assert torch.equal(model(input_ids=ids.to(dtype)).last_hidden_state, expected)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int8, torch.uint8, torch.float32, torch.float64])
def test_ids_of_a_dtype_that_cannot_hold_0_to_261_are_refused(model, dtype):
    expected = (
        r"^input_ids must be an integer tensor that holds char ids 0\.\.261 exactly "
        rf"\(int16, int32 or int64\), got {dtype}$"
    )
    with pytest.raises(TypeError, match=expected):
        model(input_ids=batch_to_ids([SENTENCE]).to(dtype))


@pytest.mark.parametrize("value, where", [(300, (0, 1, 5)), (-1, (1, 0, 0)), (262, (1, 0, 49))])
def test_a_char_id_out_of_range_is_named_with_its_position(model, value, where):
    ids = batch_to_ids([SENTENCE, ["a"]])
    ids[where] = value
    expected = rf"^char id {value} out of range 0\.\.261 at input_ids\[{', '.join(map(str, where))}\]"
    with pytest.raises(ValueError, match=expected):
        model(input_ids=ids)


@pytest.mark.parametrize("mask_shape", [(2, 8), (2,), (1, 7), (2, 7, 1)])
def test_an_attention_mask_of_the_wrong_shape_is_reported_as_such(model, mask_shape):
    ids = batch_to_ids([SENTENCE, ["a"]])
    expected = rf"^attention_mask must have shape \(batch, tokens\) = \(2, 7\) .* got {re.escape(str(mask_shape))}$"
    with pytest.raises(ValueError, match=expected):
        model(input_ids=ids, attention_mask=torch.ones(mask_shape, dtype=torch.long))


def test_an_attention_mask_that_marks_padding_as_tokens_is_refused(model):
    """An all-ones mask on a padded batch gave the short row other vectors and padding non-zero ones."""
    ids = batch_to_ids([SENTENCE, ["a", "b"]])
    expected = (
        r"^attention_mask marks padding as tokens: it is 1 at \[1, 2\] \(sentence, token\), whose char ids are "
        r"all zero \(padding\); pass the tokenizer's attention_mask, or none \(it is derived from input_ids\)$"
    )
    with pytest.raises(ValueError, match=expected):
        model(input_ids=ids, attention_mask=torch.ones(ids.shape[:2], dtype=torch.long))
    shorter = torch.ones(ids.shape[:2], dtype=torch.long)
    shorter[1, 1:] = 0  # a mask may still leave real tokens out (the row is cut after "a")
    with torch.inference_mode():
        cut = model(input_ids=ids, attention_mask=shorter).last_hidden_state[1, :1]
    torch.testing.assert_close(cut, _embed(model, [["a"]]).last_hidden_state[0])


@pytest.mark.parametrize("argument", ["attention_masks", "token_type_ids"])
def test_an_argument_forward_does_not_take_is_a_type_error_not_ignored(model, argument):
    ids = batch_to_ids([SENTENCE])
    with pytest.raises(
        TypeError, match=rf"^ElmoModel\.forward\(\) takes no {argument}: it takes input_ids, attention_mask,"
    ):
        model(input_ids=ids, **{argument: torch.ones(ids.shape[:2], dtype=torch.long)})


def test_output_hidden_states_is_taken_as_other_models_take_it_and_every_layer_comes_back(model):
    ids = batch_to_ids([SENTENCE])
    with torch.inference_mode():
        plain = model(input_ids=ids).hidden_states
        asked = model(input_ids=ids, output_hidden_states=True).hidden_states
    assert len(asked) == model.config.n_layers + 1
    for got, expected in zip(asked, plain, strict=True):
        torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_output_attentions_false_is_taken_and_true_says_there_is_no_attention(model):
    ids = batch_to_ids([SENTENCE])
    with torch.inference_mode():
        torch.testing.assert_close(
            model(input_ids=ids, output_attentions=False).last_hidden_state, model(input_ids=ids).last_hidden_state
        )
        with pytest.raises(ValueError, match="^ELMo has no attention"):
            model(input_ids=ids, output_attentions=True)


def test_output_attentions_set_in_the_config_is_refused_as_the_argument_is(model, tmp_path):
    """from_pretrained(folder, output_attentions=True) sets config.output_attentions, which
    transformers models read when the call leaves the argument unset: ELMo ignored it, silently
    returning no attentions where the argument True is refused."""
    model.save_pretrained(tmp_path)
    asking = ElmoModel.from_pretrained(tmp_path, output_attentions=True)
    expected = r"^ELMo has no attention \(a biLSTM\): its config sets output_attentions=True; set it to False$"
    with torch.inference_mode(), pytest.raises(ValueError, match=expected):
        asking(input_ids=batch_to_ids([SENTENCE]))
    with torch.inference_mode():
        torch.testing.assert_close(
            asking(input_ids=batch_to_ids([SENTENCE]), output_attentions=False).last_hidden_state,
            _embed(model, [SENTENCE]).last_hidden_state,
        )


@pytest.mark.parametrize(
    "implementation", ["sdpa", "flash_attention_2", "flex_attention", "kernels-community/flash-attn2"]
)
def test_an_attention_implementation_is_refused_in_one_line_saying_elmo_has_none(model, implementation, tmp_path):
    """Was: transformers' "ElmoModel does not support ... yet. Please request the support for this architecture"
    (for flash_attention_2 with a discussion link made of the folder's path), as if ELMo's attention were missing
    an implementation. "eager", the one transformers gives a model of no attention, is taken and changes nothing."""
    model.save_pretrained(tmp_path)
    expected = (
        f"ELMo has no attention (a biLSTM), so attn_implementation={implementation!r} does not apply: leave "
        "attn_implementation unset"
    )
    for build in (
        lambda: ElmoModel.from_pretrained(tmp_path, attn_implementation=implementation),
        lambda: AutoModel.from_pretrained(tmp_path, attn_implementation=implementation),
        lambda: ElmoModel(ElmoConfig.from_pretrained(tmp_path, attn_implementation=implementation)),
        lambda: ElmoModel.from_pretrained(tmp_path).set_attn_implementation(implementation),
    ):
        with pytest.raises(ValueError) as refused:
            build()
        assert str(refused.value) == expected
    ids = batch_to_ids([SENTENCE])
    eager = ElmoModel.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert eager.config._attn_implementation == "eager"
    with torch.inference_mode():
        torch.testing.assert_close(eager(input_ids=ids).last_hidden_state, model(input_ids=ids).last_hidden_state)


@pytest.mark.parametrize("convert", [lambda ids: ids.numpy(), lambda ids: ids.tolist()])
def test_numpy_or_list_ids_get_a_type_error_that_says_how_to_make_a_tensor(model, convert):
    expected = r"^input_ids must be a torch\.Tensor of char ids \(batch, tokens, 50\), got .*torch\.as_tensor"
    with pytest.raises(TypeError, match=expected):
        model(input_ids=convert(batch_to_ids([SENTENCE])))


def test_the_tokenizers_tensors_pass_the_checks_with_their_mask(model):
    batch = ElmoTokenizer()([SENTENCE, ["a"]], is_split_into_words=True, padding=True, return_tensors="pt")
    with torch.inference_mode():
        out = model(**batch)
    torch.testing.assert_close(
        out.last_hidden_state, _embed(model, [SENTENCE, ["a"]]).last_hidden_state, atol=0, rtol=0
    )


def test_input_checks_are_skipped_while_exporting_so_forward_stays_exportable():
    class Checked(torch.nn.Module):
        def forward(self, ids, mask):
            ids, mask = check_inputs(ids, mask, 50)
            return ids.sum(-1) * mask

    ids = batch_to_ids([SENTENCE, ["a"]])
    mask = (ids > 0).any(-1).long()
    exported = torch.export.export(Checked(), (ids, mask))  # a value check here would fail to trace
    assert torch.equal(exported.module()(ids, mask), Checked()(ids, mask))
    with pytest.raises(TypeError, match="integer tensor"):  # dtype checks hold while tracing
        torch.export.export(Checked(), (ids.to(torch.uint8), mask))


def test_dummy_inputs_are_char_ids_the_model_runs_on(model):
    inputs = model.dummy_inputs
    assert inputs["input_ids"].shape == (2, 3, 50)
    out = model(**inputs)
    assert out.attention_mask.tolist() == [[True, True, True], [True, True, False]]


def test_an_all_padding_row_gives_zero_vectors(model):
    ids = torch.cat([batch_to_ids([SENTENCE]), torch.zeros(1, 7, 50, dtype=torch.long)])
    with torch.inference_mode():
        out = model(input_ids=ids)
    assert not out.last_hidden_state[1].any()
    torch.testing.assert_close(out.last_hidden_state[0], _embed(model, [SENTENCE]).last_hidden_state[0])


def test_the_input_embeddings_are_the_char_embedding_and_resizing_them_is_refused(model, tmp_path):
    from hf_elmo import ElmoForTokenClassification

    assert model.get_input_embeddings() is model.char_cnn.char_embedding
    assert model.get_input_embeddings().num_embeddings == 262
    model.save_pretrained(tmp_path)
    head = ElmoForTokenClassification.from_pretrained(tmp_path, num_labels=3)
    assert head.get_input_embeddings() is head.elmo.char_cnn.char_embedding
    for resized in (model, head):
        with pytest.raises(ValueError, match="^ELMo has no word vocabulary to resize: its input ids are the 262"):
            resized.resize_token_embeddings(30_000)


def test_set_input_embeddings_replaces_the_char_embedding_and_refuses_another_shape(model, tmp_path):
    model.save_pretrained(tmp_path)
    model = type(model).from_pretrained(tmp_path).eval()  # the fixture's model stays as it is
    before = _embed(model, [SENTENCE]).last_hidden_state
    doubled = torch.nn.Embedding(262, model.config.char_embedding_dim, padding_idx=0)
    doubled.weight.data.copy_(2 * model.get_input_embeddings().weight)
    model.set_input_embeddings(doubled)
    assert model.char_cnn.char_embedding is doubled
    assert not torch.allclose(_embed(model, [SENTENCE]).last_hidden_state, before)  # no cached layout survives
    with pytest.raises(ValueError, match=r"must be an nn.Embedding of shape \(262, \d+\) .*got \(300, "):
        model.set_input_embeddings(torch.nn.Embedding(300, model.config.char_embedding_dim))


def test_running_in_float16_on_the_cpu_warns_that_float32_is_far_faster(tmp_path):
    from transformers.testing_utils import CaptureLogger

    from hf_elmo import modeling_elmo

    folder = tmp_path / "model"
    write_random_original(folder, small_options(), seed=1)
    model = ElmoModel.from_allennlp(folder / "options.json", folder / "weights.hdf5")
    ids = batch_to_ids([SENTENCE])
    type(modeling_elmo._logger).warning_once.cache_clear()  # an earlier test's float16 run may have warned once
    with CaptureLogger(modeling_elmo._logger) as log:
        model(input_ids=ids)
    assert "float16" not in log.out
    with CaptureLogger(modeling_elmo._logger) as log:
        model.half()(input_ids=ids)
    assert "ElmoModel runs in float16 on the CPU, which is 8-52x slower than float32" in log.out


@pytest.mark.parametrize("built", ["init_empty_weights", "device_map_meta"])
def test_a_model_whose_weights_were_never_loaded_says_so_in_one_line(model, tmp_path, built):
    """Was torch's "Tensor on device meta is not on the expected device cpu!" from inside the char CNN."""
    from accelerate import init_empty_weights

    if built == "init_empty_weights":
        with init_empty_weights():
            empty = ElmoModel(model.config)
    else:
        model.save_pretrained(tmp_path)
        empty = ElmoModel.from_pretrained(tmp_path, device_map="meta")
    with pytest.raises(RuntimeError, match=r"^the model's weights were never loaded: they are on the meta device"):
        empty(input_ids=batch_to_ids([SENTENCE]))


def test_an_offloaded_models_weights_on_meta_are_not_called_never_loaded(model, monkeypatch):
    """accelerate's offload keeps weights on meta between calls and brings them in for each: the model
    runs, and another error of it is left as it is."""
    from accelerate import cpu_offload

    reference = copy.deepcopy(model).eval()
    offloaded = cpu_offload(copy.deepcopy(reference), execution_device="cpu")
    assert any(p.device.type == "meta" for p in offloaded.parameters())
    torch.testing.assert_close(
        _embed(offloaded, [SENTENCE]).last_hidden_state, _embed(reference, [SENTENCE]).last_hidden_state
    )

    def fail(*args, **kwargs):
        raise ValueError("another failure")

    monkeypatch.setattr(offloaded.bilm, "forward", fail)
    with pytest.raises(ValueError, match="^another failure$"):
        _embed(offloaded, [SENTENCE])


def test_saving_a_model_whose_weights_were_never_loaded_is_refused_before_anything_is_written(model, tmp_path):
    """Was: "NotImplementedError: Cannot copy out of meta tensor; no data!", config.json and the code
    already written into the folder."""
    from accelerate import init_empty_weights

    with init_empty_weights():
        empty = ElmoModel(model.config)
    with pytest.raises(RuntimeError, match=r"^the model's weights were never loaded: they are on the meta device"):
        empty.save_pretrained(tmp_path / "saved")
    assert not (tmp_path / "saved").exists()


def test_a_save_that_fails_leaves_no_folder_it_created_and_a_file_is_no_folder_to_save_into(model, tmp_path):
    """Was: a folder of config.json and code without weights (a bad max_shard_size), and for a file
    "NotADirectoryError: [Errno 20] Not a directory: '.../model.safetensors'" after the code was copied."""
    with pytest.raises(ValueError):
        model.save_pretrained(tmp_path / "new", max_shard_size="lots")
    assert not (tmp_path / "new").exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine")
    with pytest.raises(ValueError):
        model.save_pretrained(existing, max_shard_size="lots")
    assert (existing / "notes.txt").read_text() == "mine"  # a folder it did not create stays
    (tmp_path / "file").write_text("mine")
    with pytest.raises(
        NotADirectoryError, match=r"file is a file, but save_pretrained writes a folder: give a folder's path$"
    ):
        model.save_pretrained(tmp_path / "file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing", "file"]
