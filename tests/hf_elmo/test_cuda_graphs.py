"""GraphedElmo (the biLM as one CUDA graph per bucket) against ElmoModel's plain path: the same
vectors on CPU (the static function run eagerly) and, marked ``gpu``, replayed from graphs."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from hf_elmo import ElmoModel, batch_to_ids
from hf_elmo.cuda_graphs import GraphedElmo, batch_bucket, step_bucket
from hf_elmo.masked_bilm import masked_bilm, unrolled_scan
from tests.hf_elmo.random_inputs import clipped_random_model, random_sentences

TOLERANCE = 1e-5  # fp32, max abs difference from the plain path
TOKEN_CHARS = (1, 2, 5, 9, 30)  # characters per token of the random sentences

# Sentence lengths in tokens; a batch's steps are the longest + 2 markers, so 14 fills a bucket
# of 16 steps, 15 and 30 the next one (32), and 31 starts a third (48).
BATCHES = {
    "mixed, batch bucket 8 of 5 rows": [1, 14, 15, 30, 31],
    "one sentence of one token": [1],
    "one sentence filling its step bucket": [14],
    "one sentence one step beyond a bucket": [15],
    "a full batch bucket of 4": [3, 1, 2, 14],
    "an empty row": [4, 0, 2],
}


def char_ids(lengths, seed=0) -> torch.Tensor:
    """``batch_to_ids`` of ``random_sentences(lengths)``; a row of length 0 is all padding."""
    ids = batch_to_ids(random_sentences([max(n, 1) for n in lengths], seed, TOKEN_CHARS))
    ids[[row for row, n in enumerate(lengths) if n == 0]] = 0
    return ids


@pytest.fixture(scope="module")
def clipped_model():
    return clipped_random_model()


def plain(model: ElmoModel, ids: torch.Tensor, **kwargs):
    """``ElmoModel.forward`` on its plain path (the reference), stateless."""
    model.config.bilm_implementation = "plain"
    try:
        with torch.inference_mode():
            return model(input_ids=ids, **kwargs)
    finally:
        model.config.bilm_implementation = "fast"


def assert_same_output(ours, expected):
    assert len(ours.hidden_states) == len(expected.hidden_states)
    for layer, reference in zip(ours.hidden_states, expected.hidden_states):
        assert layer.shape == reference.shape
        torch.testing.assert_close(layer, reference, atol=TOLERANCE, rtol=0)
    torch.testing.assert_close(ours.last_hidden_state, expected.hidden_states[-1], atol=TOLERANCE, rtol=0)
    assert ours.attention_mask.dtype == expected.attention_mask.dtype == torch.bool
    assert torch.equal(ours.attention_mask, expected.attention_mask)


@pytest.mark.parametrize("lengths", list(BATCHES.values()), ids=list(BATCHES))
def test_graphed_model_equals_the_plain_path_on_the_clipped_model(clipped_model, lengths, one_thread):
    ids = char_ids(lengths)
    ours = GraphedElmo(clipped_model)(ids)
    expected = plain(clipped_model, ids)
    assert_same_output(ours, expected)
    assert expected.hidden_states[-1].abs().max() > 0.1, "outputs of a realistic scale, or the test proves nothing"


def test_graphed_model_equals_the_plain_path_on_the_allennlp_fixture(allennlp_model, one_thread):
    graphed = GraphedElmo(allennlp_model)
    for lengths in ([1, 14, 15, 30, 31], [7]):
        ids = char_ids(lengths, seed=len(lengths))
        assert_same_output(graphed(ids), plain(allennlp_model, ids))


def test_an_integer_attention_mask_comes_back_as_the_bool_mask_elmo_model_returns(clipped_model, one_thread):
    ids = char_ids([3, 1])
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])  # what the tokenizer gives
    ours = GraphedElmo(clipped_model)(ids, attention_mask=mask)
    assert_same_output(ours, plain(clipped_model, ids, attention_mask=mask))
    assert ours.last_hidden_state[ours.attention_mask].shape == (4, ours.last_hidden_state.shape[-1])


def test_buckets_are_powers_of_two_rows_and_multiples_of_16_steps():
    assert [batch_bucket(rows) for rows in (1, 2, 3, 4, 5, 64, 65, 256)] == [1, 2, 4, 4, 8, 64, 128, 256]
    assert [batch_bucket(rows) for rows in (257, 512, 513)] == [512, 512, 768]
    assert [step_bucket(steps) for steps in (1, 3, 16, 17, 32, 33)] == [16, 16, 16, 32, 32, 48]
    with pytest.raises(ValueError, match="at least one row"):
        batch_bucket(0)


def test_a_batch_is_padded_to_its_bucket_before_the_bilm(clipped_model, monkeypatch, one_thread):
    graphed = GraphedElmo(clipped_model)
    shapes = []
    static_forward = graphed.static_forward

    def recording(tokens, real):
        shapes.append((tuple(tokens.shape), tuple(real.shape), int(real.sum())))
        return static_forward(tokens, real)

    monkeypatch.setattr(graphed, "static_forward", recording)
    graphed(char_ids([1, 14, 15, 30, 31]))  # 5 rows, 31 + 2 steps
    graphed(char_ids([14]))  # 1 row, 16 steps
    p = clipped_model.config.projection_dim
    assert shapes == [((8, 48, p), (8, 48), 91 + 5 * 2), ((1, 16, p), (1, 16), 16)]


def test_a_batch_longer_than_the_graph_limit_runs_through_the_model(clipped_model, monkeypatch, one_thread):
    graphed = GraphedElmo(clipped_model)
    monkeypatch.setattr("hf_elmo.cuda_graphs.MAX_GRAPH_STEPS", 16)
    monkeypatch.setattr(graphed, "static_forward", None)  # a call would fail
    ids = char_ids([15, 2])  # 17 steps: bucket 32
    assert_same_output(graphed(ids), plain(clipped_model, ids))


def host_syncs(function, *args) -> int:
    """Graph breaks of ``function(*args)`` under ``torch._dynamo.explain``: a value read back to
    the host (``.item()``, ``.tolist()``, ``nonzero``, boolean indexing) breaks the graph."""
    torch._dynamo.reset()
    return torch._dynamo.explain(function)(*args).graph_break_count


def test_the_static_bilm_never_reads_a_value_back_to_the_host(clipped_model, one_thread):
    graphed = GraphedElmo(clipped_model)
    real = torch.arange(16) < torch.tensor([[16], [3]])  # (2, 16)
    tokens = torch.randn(2, 16, clipped_model.config.projection_dim) * real.unsqueeze(-1)
    assert host_syncs(graphed.static_forward, tokens, real) == 0

    # The check does catch a host sync in the recurrence: a loop that reads the step count.
    def syncing_loop(step, init, xs):
        xs[0].sum().item()
        return unrolled_scan(step, init, xs)

    def syncing_bilm(tokens, real):
        weights, h0, c0 = graphed.weights, graphed.warm_h, graphed.warm_c
        return masked_bilm(weights, tokens, real, h0, c0, 1.0, 1.5, True, loop=syncing_loop)

    assert host_syncs(syncing_bilm, tokens, real) > 0


class KernelCount(TorchDispatchMode):
    """Counts the operators that compute (each a kernel on a GPU), not those returning views."""

    def __init__(self) -> None:
        super().__init__()
        self.kernels = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.kernels += not any(value.alias_info is not None for value in func._schema.returns)
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("clip", [None, 3.0])
def test_a_step_of_the_static_bilm_is_the_lstms_kernels_alone(clip, one_thread):
    """On a GPU the replayed graph is bound by its kernels' count: a step (both directions of a
    layer) is its two GEMMs and the gates' six elementwise kernels, and a clamp per clip; no
    masking kernel in the steps (was: three more, two ``where`` and a product, every step)."""
    lstm, projection, layers, batch = 8, 4, 2, 3
    weights = [
        [torch.randn(2, projection, 4 * lstm), torch.randn(2, projection, 4 * lstm)]
        + [torch.randn(2, lstm, projection), torch.randn(2, 4 * lstm)]
        for _ in range(layers)
    ]
    h0, c0 = torch.zeros(2, layers, projection), torch.zeros(2, layers, lstm)
    per_steps = []
    for steps in (16, 32):
        real = torch.arange(steps) < torch.tensor([[steps], [3], [0]])
        tokens = torch.randn(batch, steps, projection) * real.unsqueeze(-1)
        with KernelCount() as count:
            masked_bilm(weights, tokens, real, h0, c0, clip, clip, True)
        per_steps.append(count.kernels)
    assert (per_steps[1] - per_steps[0]) / (16 * layers) == 8 + 2 * (clip is not None)


def test_a_model_whose_bilm_has_hooks_or_replaced_layers_is_refused_as_the_graphs_would_skip_them(one_thread):
    """GraphedElmo read the LSTM weights alone, so a hook or a replaced layer (LoRA, say), which the
    model's own forward applies, was skipped silently: vectors 0.6 away from the model's."""
    model = clipped_random_model()
    ids = char_ids([3, 5])

    class Scaled(torch.nn.Linear):  # a replaced layer that computes more than its weight (as LoRA's do)
        def forward(self, x):
            return 1.5 * super().forward(x)

    layer = model.bilm.forward_layers[0]
    built = layer.projection
    replaced = Scaled(built.in_features, built.out_features, bias=False)
    replaced.load_state_dict(built.state_dict())
    expected = (
        r"^GraphedElmo replays the biLM from its LSTM weights alone, but this model's biLM has hooks or replaced "
        r"layers \(LoRA, quantised or pruned layers, say\), which only the model's own forward applies: run the "
        r"model itself$"
    )
    hook = model.bilm.backward_layers[1].input_linear.register_forward_hook(lambda module, args, out: 0.5 * out)
    with pytest.raises(ValueError, match=expected):
        GraphedElmo(model)
    hook.remove()
    layer.projection = replaced
    with pytest.raises(ValueError, match=expected):
        GraphedElmo(model)
    layer.projection = built
    model.char_cnn.register_forward_hook(lambda module, args, out: 2 * out)  # the token layer is the model's own
    assert_same_output(GraphedElmo(model)(ids), plain(model, ids))


def test_a_model_in_training_mode_with_dropout_is_refused_as_long_batches_would_get_dropout(monkeypatch, one_thread):
    """A batch beyond MAX_GRAPH_STEPS runs through the model itself, which in training mode applied
    dropout where the graphs do not: vectors 0.7 away from those of a shorter batch, silently."""
    model = clipped_random_model()
    model.config.dropout = model.bilm.dropout.p = 0.5
    ids = char_ids([15, 2])
    graphed = GraphedElmo(model)
    model.train()
    monkeypatch.setattr("hf_elmo.cuda_graphs.MAX_GRAPH_STEPS", 16)  # the model itself runs this batch
    expected = (
        r"^GraphedElmo runs inference, without dropout, but the model is in training mode, where its biLM's "
        r"dropout \(p=0\.5\) applies: call model\.eval\(\) first$"
    )
    with pytest.raises(ValueError, match=expected):
        graphed(ids)
    model.bilm.dropout.p = 0.0  # no dropout: training mode computes what eval mode does
    assert_same_output(graphed(ids), plain(model.eval(), ids))


def test_a_graphed_model_follows_changes_to_the_models_weights_and_initial_state(one_thread):
    """The graphs read copies of the LSTM weights and initial state: an edit in place, an
    optimizer step, ``load_state_dict`` and ``warm_up``'s new state reach them at the next call
    (before, the copies taken at wrapping were replayed: the old model's vectors, silently)."""
    model, other = clipped_random_model(), clipped_random_model()
    with torch.no_grad():
        for parameter in other.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    ids = char_ids([5, 3])
    graphed = GraphedElmo(model)
    before = graphed(ids).last_hidden_state
    with torch.no_grad():
        model.bilm.forward_layers[0].state_linear.weight.mul_(1.5)
    after = graphed(ids)
    assert (after.last_hidden_state - before).abs().max() > 1e-3
    assert_same_output(after, plain(model, ids))
    for parameter in model.bilm.parameters():
        parameter.grad = torch.ones_like(parameter)
    torch.optim.SGD(model.bilm.parameters(), lr=0.01).step()
    assert_same_output(graphed(ids), plain(model, ids))
    model.load_state_dict(other.state_dict())
    assert_same_output(graphed(ids), plain(model, ids))
    assert_same_output(graphed(ids), plain(other, ids))
    with torch.no_grad():
        model.warm_h.add_(0.5)
    assert_same_output(graphed(ids), plain(model, ids))


def test_a_model_moved_to_another_dtype_after_wrapping_is_refused(one_thread):
    model = clipped_random_model()
    graphed = GraphedElmo(model)
    model.double()
    expected = (
        r"^the model moved to cpu / torch\.float64 since GraphedElmo wrapped it on cpu / torch\.float32, for which "
        r"its graphs were captured: wrap it again, GraphedElmo\(model\)$"
    )
    with pytest.raises(ValueError, match=expected):
        graphed(char_ids([2]))


def test_a_word_model_is_refused_naming_its_folder_in_the_words_of_the_other_char_cnn_users(word_baseline_folder):
    """Was: "GraphedElmo embeds char ids: this model's token_embedding is 'word'", naming no folder."""
    with pytest.raises(ValueError) as refused:
        GraphedElmo(ElmoModel.from_pretrained(word_baseline_folder))
    assert str(refused.value) == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; GraphedElmo needs a char-CNN biLM"
    )


def calls_in_two_threads(graphed: GraphedElmo, inputs: list[torch.Tensor]) -> list[tuple[torch.Tensor, ...]]:
    """``graphed(ids).hidden_states`` for each of two ``inputs``, called at once from two threads."""
    with ThreadPoolExecutor(2) as pool:
        return [output.hidden_states for output in pool.map(graphed, inputs)]


def test_threads_sharing_a_graphed_model_take_turns_with_the_output_buffer(clipped_model, monkeypatch, one_thread):
    graphed = GraphedElmo(clipped_model)
    inputs = [char_ids([5, 3], seed=1), char_ids([4, 6], seed=2)]  # one bucket (2, 16)
    alone = [graphed(ids).hidden_states for ids in inputs]
    static_forward = graphed.static_forward
    buffer = torch.empty(clipped_model.config.n_layers + 1, 2, 16, 2 * clipped_model.config.projection_dim)
    other_wrote = threading.Barrier(2, timeout=1.0)

    def replay(tokens, real):
        """A replay as on CUDA: into the one output buffer, which another call may overwrite before
        this one copies it out (the two meet at the barrier, unless one takes turns)."""
        buffer.copy_(static_forward(tokens, real))
        with contextlib.suppress(threading.BrokenBarrierError):  # the other call waits for its turn
            other_wrote.wait()
        return buffer

    monkeypatch.setattr(graphed, "_bilm", replay)
    # the hazard the turns avoid: without them, a call copies out the other call's vectors
    with monkeypatch.context() as without_turns:
        # (raising=False: a GraphedElmo that takes no turns lacks the method; were it renamed, the hazard shows not)
        without_turns.setattr(graphed, "_turn", contextlib.nullcontext, raising=False)
        outputs = calls_in_two_threads(graphed, inputs)
    assert any(not torch.equal(ours[-1], own[-1]) for ours, own in zip(outputs, alone)), "the fake replays no hazard"
    other_wrote.reset()
    for ours, own in zip(calls_in_two_threads(graphed, inputs), alone):
        for layer, reference in zip(ours, own, strict=True):
            assert torch.equal(layer, reference), "a call got another thread's vectors"


@pytest.mark.gpu
def test_graphs_captured_and_replayed_on_cuda_equal_the_plain_path_on_cpu(clipped_model, allennlp_model, monkeypatch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)  # exact float32 GEMMs
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    for model in (clipped_model, allennlp_model):
        model.token_cache.clear()
        graphed = GraphedElmo(model.to("cuda"))
        # The 5th and 6th batches replay the graphs of the 1st and the 3rd.
        batches = [[1, 14, 15, 30, 31], [2, 9, 31], [14], [15], [3, 2, 1, 31, 4], [13]]
        outputs = [graphed(char_ids(lengths, seed=i).cuda()) for i, lengths in enumerate(batches)]
        assert graphed.buckets == [(1, 16), (1, 32), (4, 48), (8, 48)]
        model.to("cpu")
        model.token_cache.clear()
        for i, (lengths, ours) in enumerate(zip(batches, outputs)):
            expected = plain(model, char_ids(lengths, seed=i))
            for layer, reference in zip(ours.hidden_states, expected.hidden_states):
                torch.testing.assert_close(layer.cpu(), reference, atol=TOLERANCE, rtol=0)


@pytest.mark.gpu
def test_threads_sharing_a_graphed_model_on_cuda_get_the_vectors_of_a_call_alone(clipped_model, monkeypatch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    monkeypatch.setattr(torch.backends.cuda.matmul, "allow_tf32", False)
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    model, max_types = clipped_model.to("cuda"), clipped_model.token_cache.max_types
    batches = [[1, 14, 15, 30, 31], [2, 9, 31], [14], [15], [3, 2, 1, 31, 4], [13]]  # buckets shared
    inputs = [char_ids(lengths, seed=i).cuda() for i, lengths in enumerate(batches)]
    try:
        graphed = GraphedElmo(model)
        alone = [[layer.cpu() for layer in graphed(ids).hidden_states] for ids in inputs]
        # threads on the default stream, then on streams of their own (the token cache's table is not
        # ordered across streams: off); a fresh GraphedElmo captures while the other threads run
        for own_streams in (False, True):
            model.token_cache.max_types = 0 if own_streams else max_types
            threaded = GraphedElmo(model)
            start = threading.Barrier(len(inputs), timeout=60)
            torch.cuda.synchronize()

            def run(i, threaded=threaded, start=start, own_streams=own_streams):
                stream = torch.cuda.Stream() if own_streams else torch.cuda.current_stream()
                with torch.cuda.stream(stream):
                    start.wait()
                    return [[layer.cpu() for layer in threaded(inputs[i]).hidden_states] for _ in range(5)]

            with ThreadPoolExecutor(len(inputs)) as pool:
                results = list(pool.map(run, range(len(inputs))))
            assert threaded.buckets == graphed.buckets
            for repeats, reference in zip(results, alone):
                for layers in repeats:
                    for layer, expected in zip(layers, reference, strict=True):
                        torch.testing.assert_close(layer, expected, atol=TOLERANCE, rtol=0)
    finally:
        model.token_cache.max_types = max_types
        model.to("cpu")
        model.token_cache.clear()
