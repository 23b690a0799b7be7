"""A decode step with fixed shapes and its position on the device decodes exactly as the ordinary KV cache does."""

import copy

import pytest
import torch

from variants.decode.generate import empty_caches, greedy_generate
from variants.decode.static_decode import StaticDecoder
from variants.kernel import use_grouped_decode
from variants.models.transformer import build
from variants.position._tables import DevicePosition, table_rows
from variants.spec import TransformerSpec, resolve

SMALL = TransformerSpec(vocab_size=31, d_model=32, n_layers=2, n_heads=4, max_len=64)


def _model(variant):
    torch.manual_seed(0)
    return build(resolve(variant, SMALL)).eval()


@pytest.mark.parametrize(
    "variant", ["none", "sinusoidal", "learned", "rope", "alibi", "rope+gqa2", "alibi+mqa", "rope+naive", "alibi+naive"]
)
def test_each_static_step_gives_the_logits_of_the_ordinary_cache(variant):
    model = _model(variant)
    tokens = torch.randint(0, 31, (2, 14), generator=torch.Generator().manual_seed(1))
    decoder = StaticDecoder(model, batch=2, capacity=20, graph=False)
    with torch.inference_mode():
        want, caches = model(tokens[:, :6], caches=empty_caches(model, 2, capacity=20))
        got = decoder.prefill(tokens[:, :6])
        assert torch.allclose(got, want[:, -1], atol=1e-5, rtol=0)
        for t in range(6, 14):
            want, caches = model(tokens[:, t : t + 1], caches=caches)
            got = decoder.step(tokens[:, t : t + 1])
            assert torch.allclose(got, want[:, -1], atol=1e-5, rtol=0), t
        assert int(decoder.index) == 14


@pytest.mark.parametrize("variant", ["rope", "alibi+mqa"])
def test_static_greedy_generation_gives_the_tokens_of_the_ordinary_cache(variant):
    model = _model(variant)
    prompt = torch.randint(0, 31, (2, 5), generator=torch.Generator().manual_seed(2))
    want, margin = greedy_generate(use_grouped_decode(copy.deepcopy(model)), prompt, 12, use_cache=True)
    assert margin > 1e-4  # no near-tie could excuse a difference
    got = StaticDecoder(use_grouped_decode(model), batch=2, capacity=17, graph=False).generate(prompt, 12)
    assert torch.equal(got, want)


def test_a_repeated_step_rewrites_the_same_slot_and_gives_the_same_logits():
    decoder = StaticDecoder(_model("alibi"), batch=1, capacity=8, graph=False)
    with torch.inference_mode():
        decoder.prefill(torch.tensor([[1, 2, 3]]))
        decoder.token.fill_(4)
        decoder.replay()
        first = decoder.logits.clone()
        decoder.replay()  # as timing repeats it: the position does not move
        assert torch.equal(decoder.logits, first) and int(decoder.index) == 3


def _ops_of_a_step(decoder):
    """(op, input shapes) of every aten call of one replayed step."""
    from torch.utils._python_dispatch import TorchDispatchMode

    calls = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            shapes = tuple(tuple(a.shape) for a in args if isinstance(a, torch.Tensor))
            calls.append((str(func), shapes))
            return func(*args, **(kwargs or {}))

    with torch.inference_mode(), Record():
        decoder.replay()
    return calls


@pytest.mark.parametrize("variant", ["sinusoidal", "learned", "rope+gqa2", "alibi+mqa"])
def test_a_step_runs_the_same_ops_on_the_same_shapes_at_every_position_and_never_reads_a_value_back(variant):
    # what CUDA-graph capture needs, checked where no GPU is: a recorded step replayed at another position
    decoder = StaticDecoder(use_grouped_decode(_model(variant)), batch=2, capacity=24, graph=False)
    with torch.inference_mode():
        decoder.prefill(torch.randint(0, 31, (2, 4)))
    early = _ops_of_a_step(decoder)
    with torch.inference_mode():
        for _ in range(11):
            decoder.step(torch.ones(2, 1, dtype=torch.long))
    late = _ops_of_a_step(decoder)
    assert early == late and len(early) > 20
    assert not [op for op, _ in early if "_local_scalar_dense" in op or "nonzero" in op]  # .item(), bool(): a sync


@pytest.mark.parametrize("variant, words", [("t5_bias", "T5Bias"), ("randomized", "Randomized"), ("rope+yarn", "yarn")])
def test_encodings_that_need_host_offsets_say_why(variant, words):
    with pytest.raises(ValueError, match=f"cannot capture.*{words}"):
        StaticDecoder(_model(variant), batch=1, capacity=8)


def test_capacity_and_device_are_checked():
    model = _model("rope")
    with pytest.raises(ValueError, match="CUDA device"):
        StaticDecoder(model, batch=1, capacity=8, graph=True)
    with pytest.raises(ValueError, match="exceed the capacity 8"):
        StaticDecoder(model, batch=1, capacity=8, graph=False).generate(torch.zeros(1, 4, dtype=torch.long), 6)


def test_device_positions_gather_the_rows_a_host_offset_slices():
    def build(n):
        return (torch.arange(n, dtype=torch.float64)[:, None] * torch.ones(1, 3),)

    at = DevicePosition(torch.tensor([5]), capacity=10)
    (rows,) = table_rows(("test-static", 3), at, 2, build)
    (want,) = table_rows(("test-static", 3), 5, 2, build)
    assert torch.equal(rows, want)


def test_a_device_position_keeps_the_tables_its_steps_read_alive():
    """A captured step replays the addresses of the tables it read: they must outlive the shared cache's copy."""
    from variants.position._tables import clear_tables

    at = DevicePosition(torch.tensor([5]), capacity=10)
    (rows,) = table_rows(("test-held", 1), at, 1, lambda n: (torch.arange(n, dtype=torch.float64)[:, None],))
    (table,) = at.held[("test-held", 1)]
    address = table.data_ptr()
    clear_tables()  # the shared cache drops its reference; the position's stays
    table_rows(("test-held", 1), 0, 4096, lambda n: (torch.zeros(n, 1, dtype=torch.float64),))  # reuse would overwrite
    assert at.held[("test-held", 1)][0].data_ptr() == address and at.held[("test-held", 1)][0][5].item() == 5.0
    assert rows.item() == 5.0


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["rope+gqa2", "alibi+mqa"])
def test_the_captured_step_replays_the_eager_one_on_cuda(variant):
    model = _model(variant).cuda()
    prompt = torch.randint(0, 31, (2, 5), generator=torch.Generator().manual_seed(3)).cuda()
    eager = StaticDecoder(model, batch=2, capacity=32, graph=False).generate(prompt, 20)
    captured = StaticDecoder(model, batch=2, capacity=32)
    assert captured.generate(prompt, 20).equal(eager) and captured.graph is not None
